"""The training view (``LowResObservation(view="board")``): the board's panel framed at the
training resolution in the training style. At 84x84, grayscale and colour, different public
boards give different frames (seeded walks through the env, every game, several tiers);
Truck Escape headings survive (one-cell trucks included); the training palette keeps its
colours apart in grayscale; the frame has no seam at its edges; incremental frames equal
frames rendered from scratch; actions keep working in screen coordinates."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from puzzlegym.base.actions import to_dict
from puzzlegym.base.errors import ConfigError
from puzzlegym.env.probe import LEVEL
from puzzlegym.envs.truck_escape import rules as TR
from puzzlegym.envs.truck_escape import view as TV
from puzzlegym.game.registry import games
from puzzlegym.levels.stats import state_graph
from puzzlegym.screen.layout import BOARD_AREA
from puzzlegym.screen.palette import PALETTE, PIECES, TRAINING_LIGHT, TRAINING_STYLE, colour
from puzzlegym.screen.render import SCREEN, Canvas, Rect, Widget, render_full
from puzzlegym.screen.resolution import SCREEN_WINDOW, Resolution, TrainingView
from puzzlegym.solvers import solve
from puzzlegym.suite.view import training_scene
from puzzlegym.wrappers import BoardActions, LowResObservation, make_sb3_env

GAMES = games()


def luma(rgb) -> int:
    return Image.new("RGB", (1, 1), tuple(rgb)).convert("L").getpixel((0, 0))


# ---------------------------------------------------------------------- the palette

TRAINING_LUMAS = {
    "orange": 72,
    "sky blue": 168,
    "green": 120,
    "yellow": 216,
    "blue": 24,
    "vermilion": 144,
    "purple": 192,
    "black": 48,
    "white": 204,
    "brown": 96,
    "grey": 156,
    "navy": 36,
    "pink": 180,
    "olive": 108,
    "teal": 84,
    "maroon": 60,
    "red": 132,
}


def test_training_twins_have_seventeen_lumas_far_apart():
    """Each colour's training twin has its documented luma (as Pillow's grayscale computes
    it): 24, 36, ..., 216 one each; the first colours of the table, which levels with few
    colours use, lie far apart; in the screen palette some lie 1 level apart."""
    assert {c.name: luma(c.training) for c in PALETTE} == TRAINING_LUMAS
    assert sorted(TRAINING_LUMAS.values()) == list(range(24, 217, 12))
    gaps = [
        min(
            abs(luma(a.training) - luma(b.training))
            for a, b in itertools.combinations(PIECES[:n], 2)
        )
        for n in range(2, 17)
    ]
    assert gaps == [96, 48, 48, 48, 24, 24, 24, 12, 12, 12, 12, 12, 12, 12, 12]
    screen = min(abs(luma(a.rgb) - luma(b.rgb)) for a, b in itertools.combinations(PIECES, 2))
    assert screen == 1  # purple 151 and grey 150 on the screen
    assert luma(TRAINING_LIGHT) == 244  # what pieces lie on, above every piece


# ---------------------------------------------------------------------- resolutions


def test_a_window_fills_the_frame_or_is_letterboxed():
    window = (297, 127, 898, 807)
    r = Resolution.window_onto(window, 84, 84)
    assert r.map_box(*window) == (0, 0, 84, 84) == r.content_box
    box = Resolution.window_onto((40, 257, 1240, 677), 84, 84, fit="letterbox")
    assert box.content_box == (0, 27, 84, 56) and box.sx == box.sy
    # the whole screen is exactly today's stretch and letterbox
    assert Resolution.window_onto(SCREEN_WINDOW, 84, 84) == Resolution.stretch(84, 84)
    assert Resolution.window_onto(SCREEN_WINDOW, 84, 84, fit="letterbox") == Resolution.fit(84, 84)
    for bad in [
        ((0, 0, 0, 10), "window"),
        ((-1, 0, 10, 10), "window"),
        ((0, 0, 1281, 10), "window"),
    ]:
        with pytest.raises(ConfigError, match=bad[1]):
            Resolution.window_onto(bad[0], 84, 84)
    with pytest.raises(ConfigError, match="fit"):
        TrainingView(84, 84, fit="crop")
    with pytest.raises(ConfigError, match="size"):
        TrainingView(4, 84)


def _fill(draw, img, key):
    draw.rectangle((0, 0, img.width, img.height), fill=key)


def _dot(draw, img, key):
    draw.ellipse((0, 0, img.width - 1, img.height - 1), fill=key + (200,))


windows = st.tuples(
    st.integers(0, 1200), st.integers(0, 850), st.integers(60, 700), st.integers(60, 600)
).map(lambda t: (t[0], t[1], min(1280, t[0] + t[2]), min(900, t[1] + t[3])))
items = st.lists(
    st.tuples(
        st.builds(
            Rect,
            st.integers(-20, 1250),
            st.integers(-20, 880),
            st.integers(1, 300),
            st.integers(1, 300),
        ),
        st.sampled_from([(255, 0, 0), (0, 255, 0), (0, 0, 255)]),
        st.booleans(),
    ),
    max_size=6,
)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(items, windows, st.sampled_from(["stretch", "letterbox"])), min_size=1, max_size=5
    ),
    st.booleans(),
)
def test_framed_incremental_equals_from_scratch(sequence, grayscale):
    """One canvas whose window moves between scenes (as the training view's follows the
    board), its image cache kept: every frame equals that scene rendered from scratch at
    that window."""
    canvas = Canvas(TrainingView(84, 84, grayscale).resolution(SCREEN_WINDOW))
    for scene, window, fit in sequence:
        widgets = [Widget("bg", SCREEN, _fill, (240, 240, 240))]
        widgets += [
            Widget(f"w{i}", r, _fill if o else _dot, c, o) for i, (r, c, o) in enumerate(scene)
        ]
        resolution = TrainingView(84, 84, grayscale, fit).resolution(window)
        canvas.set_resolution(resolution)
        canvas.render(widgets)
        assert canvas.frame.shape == (84, 84, 1 if grayscale else 3)
        assert np.array_equal(canvas.frame, render_full(widgets, resolution))


# ---------------------------------------------------------------------- walks through the env

WALKS = [(g.name, t) for g in GAMES.values() for t in dict.fromkeys((g.tiers[0], g.tiers[-1]))]


def _walk(game: str, tier: str, grayscale: bool, steps: int = 300, seed: int = 0):
    """(public board, frame) of every level screen of seeded walks (uniform over the action
    mask) from the boards of the tier's first and last levels; every 16th frame also
    rendered from scratch and compared."""
    out = []
    g = GAMES[game]
    for level in sorted({1, len(g.load_catalogue(tier))}):
        env = make_sb3_env(
            g.env_id(tier),
            actions="board",
            view="board",
            grayscale=grayscale,
            start="board",
            level=level,
            budget_s=10_000,
        )
        try:
            obs, _ = env.reset(seed=seed)
            u = env.unwrapped
            rng = np.random.default_rng(seed + level)
            view = env.get_wrapper_attr("resolution")
            for t in range(steps):
                p = u.probe()
                if p.screen == LEVEL:
                    b = p.board
                    key = (
                        b.tier,
                        b.index,
                        repr(b.game.state_to_json(b.level, b.state)),
                        repr(b.game.view.ui_to_json(b.ui)),
                    )
                    out.append((key, obs.tobytes()))
                if t % 16 == 0:
                    widgets, window = training_scene(u.suite)
                    assert np.array_equal(obs, render_full(widgets, view.resolution(window))), t
                action = int(rng.choice(np.flatnonzero(env.action_masks())))
                obs, _, term, trunc, _ = env.step(action)
                if term or trunc:
                    obs, _ = env.reset()
        finally:
            env.close()
    return out


def reachable(game: str, tier: str, most: int = 30) -> int:
    """How many unsolved boards (up to the solver's symmetry; a solved board shows the
    level-complete screen) the walks' two levels have, counted up to ``most`` each: a small
    game's walks cannot reach more."""
    g = GAMES[game]
    levels = g.load_catalogue(tier)
    count = 0
    for k in {1, len(levels)}:
        level = levels[k - 1]
        states = state_graph(g, level, most)[0].values()
        count += sum(not g.rules.is_solved(level, s) for s in states)
    return count


@pytest.mark.parametrize("grayscale", [False, True], ids=["rgb", "gray"])
@pytest.mark.parametrize("game, tier", WALKS, ids=[f"{g}-{t}" for g, t in WALKS])
def test_different_boards_give_different_frames(game, tier, grayscale):
    """Over seeded walks (every pair of the boards they reach, not a sample): two level
    screens whose public board (level, rules state, the view's selection or path being drawn)
    differ never give the same 84x84 frame; and the same board gives the same frame."""
    seen = _walk(game, tier, grayscale)
    boards = {key for key, _ in seen}
    assert len(boards) >= min(30, reachable(game, tier)), len(boards)  # many boards
    by_frame: dict[bytes, set] = {}
    by_board: dict[tuple, set] = {}
    for key, frame in seen:
        by_frame.setdefault(frame, set()).add(key)
        by_board.setdefault(key, set()).add(frame)
    assert all(len(keys) == 1 for keys in by_frame.values()), [
        k for k in by_frame.values() if len(k) > 1
    ][:2]
    assert all(len(frames) == 1 for frames in by_board.values())


@pytest.mark.parametrize(
    "env_id, level",
    [
        ("LongPuzzle/NutAndBolt-Easy", 1),
        ("LongPuzzle/NutAndBolt-Extreme", 1),
        ("LongPuzzle/BoltUnscrew-Easy", 1),
        ("LongPuzzle/BoltUnscrew-Hard", 8),
        ("LongPuzzle/ColorConnect-Easy", 1),
        ("LongPuzzle/ColorConnect-Hard", 10),
    ],
)
def test_a_selection_changes_a_block_of_pixels(env_id, level, make_env):
    """The first click of the solver's first move (a selected bolt with its lifted run, a
    selected screw, the start of a path) changes at least 15 pixels of the 84x84 grayscale
    frame by 60 grey levels or more (the screen's own picture: none, for a screw on
    Bolt Unscrew Hard and a path start on a 12x12 Color Connect board)."""
    env = LowResObservation(
        make_env(env_id, start="board", level=level), view="board", grayscale=True
    )
    before, _ = env.reset(seed=0)
    b = env.unwrapped.probe().board
    after, *_ = env.step(to_dict(b.actions_for_move(solve(b.level).moves[0])[0]))
    assert env.unwrapped.probe().board.ui is not None
    changed = np.abs(after.astype(int) - before.astype(int)) >= 60
    assert changed.sum() >= 15, int(changed.sum())


# ---------------------------------------------------------------------- Truck Escape headings


def _outward_level(n: int) -> TR.Level:
    """An n x n lot with a one-cell truck on every border cell but the corners, each facing
    out over its side (no truck blocks another)."""
    trucks = []
    for k in range(1, n - 1):
        trucks += [
            TR.Truck(0, k, "up", 1),
            TR.Truck(n - 1, k, "down", 1),
            TR.Truck(k, 0, "left", 1),
            TR.Truck(k, n - 1, "right", 1),
        ]
    return TR.Level.from_json(
        {
            "id": f"outward{n}",
            "tier": "Default",
            "rows": n,
            "cols": n,
            "trucks": [t.to_json() for t in trucks],
        }
    )


def _truck_frame(level: TR.Level, grayscale: bool = True) -> tuple[np.ndarray, Resolution]:
    view = TV.TruckEscapeView()
    widgets = view.widgets(level, TR.initial_state(level), None, BOARD_AREA, TRAINING_STYLE)
    p = view.panel(level, BOARD_AREA)
    res = TrainingView(84, 84, grayscale).resolution((p.x, p.y, p.x1, p.y1))
    return render_full(widgets, res)[..., 0].astype(int), res


def _heading(patch: np.ndarray, dark_mark: bool) -> str:
    """The side a one-cell truck's patch points to: its mark (a triangle, base at the back)
    makes the back half differ most from the front half; the mark is dark on a light body
    and light on a dark one. The patch's outer ring (neighbours' blurred edges) is left out."""
    patch = patch[1:-1, 1:-1]
    h, w = patch.shape
    halves = {
        "up": patch[(h + 1) // 2 :].mean() - patch[: h // 2].mean(),
        "down": patch[: h // 2].mean() - patch[(h + 1) // 2 :].mean(),
        "left": patch[:, (w + 1) // 2 :].mean() - patch[:, : w // 2].mean(),
        "right": patch[:, : w // 2].mean() - patch[:, (w + 1) // 2 :].mean(),
    }
    return max(halves, key=lambda k: -halves[k] if dark_mark else halves[k])


@pytest.mark.parametrize("n", [6, 7, 8, 9, 10])
def test_one_cell_truck_headings_read_at_84x84(n):
    """On lots of every catalogue size (10x10: 6 pixels a cell), every one-cell truck's
    heading is read back from its 84x84 grayscale patch alone, whatever its colour and
    where the cell falls on the pixel grid."""
    level = _outward_level(n)
    frame, res = _truck_frame(level)
    colours = TV.truck_colours(level)
    assert len({TV.PALETTE[c] for c in colours}) == len(TV.PALETTE)  # every truck colour
    for i, t in enumerate(level.trucks):
        r = TV.cell_rect(level, t.row, t.col, BOARD_AREA)
        x0, y0, x1, y1 = res.map_box(r.x, r.y, r.x1, r.y1)
        light_body = luma(colour(TV.PALETTE[colours[i]][0]).training) >= 128
        assert _heading(frame[y0:y1, x0:x1], light_body) == t.facing, (t, frame[y0:y1, x0:x1])


def test_four_headings_of_one_truck_give_four_patches():
    """One one-cell truck, one colour, the four headings at the same cell of a 10x10 lot:
    four 84x84 patches, each pair at least 20 grey levels apart on average."""
    level = _outward_level(10)
    grid = TV.layout(level, BOARD_AREA)
    p = TV.TruckEscapeView().panel(level, BOARD_AREA)
    res = TrainingView(84, 84, True).resolution((p.x, p.y, p.x1, p.y1))
    cell = grid.cell_rect(4, 4)
    board = TV._widget_table(level, BOARD_AREA, TRAINING_STYLE)[0]
    for index in range(len(TV.PALETTE)):
        patches = []
        for facing in ("up", "down", "left", "right"):
            truck = Widget(
                "t", cell, TV._paint_training_truck, (facing, 1, grid.cell, index), opaque=False
            )
            x0, y0, x1, y1 = res.map_box(cell.x, cell.y, cell.x1, cell.y1)
            patches.append(render_full([board, truck], res)[y0:y1, x0:x1, 0].astype(int))
        gaps = [np.abs(a - b).mean() for a, b in itertools.combinations(patches, 2)]
        assert min(gaps) >= 20, (index, gaps)


# ---------------------------------------------------------------------- framing and actions


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_frame_is_the_board_with_no_seam(game, make_env):
    """On a level screen the frame shows the board's panel and nothing else: the panel is
    the window, it fills all 84x84 pixels, and the frame's outermost rows and columns are the
    panel's flat surface (no outline, corner or header blurred into a seam)."""
    g = GAMES[game]
    env = LowResObservation(make_env(g.env_id(g.tiers[-1]), start="board", level=1), view="board")
    obs, _ = env.reset(seed=0)
    b = env.unwrapped.probe().board
    p = g.view.panel(b.level, BOARD_AREA)
    res = env.unwrapped.resolution
    assert res.window == (p.x, p.y, p.x1, p.y1) and res.content_box == (0, 0, 84, 84)
    assert (
        BOARD_AREA.x <= p.x
        and p.x1 <= BOARD_AREA.x1
        and BOARD_AREA.y <= p.y
        and p.y1 <= BOARD_AREA.y1
    )
    edges = np.concatenate([obs[0], obs[-1], obs[:, 0], obs[:, -1]])
    assert (edges == TRAINING_LIGHT).all()


def test_off_the_level_screen_the_whole_screen_is_shown(make_env):
    env = BoardActions(
        LowResObservation(make_env("LongPuzzle/MazePaint-Easy", level=1), view="board")
    )
    obs, _ = env.reset(seed=0)
    u = env.unwrapped
    assert u.probe().screen == "home" and u.resolution.window == SCREEN_WINDOW
    assert np.array_equal(obs, render_full(training_scene(u.suite)[0], Resolution.stretch(84, 84)))
    env.step(env.buttons.index("game") + env.n_targets)
    assert u.probe().screen == "difficulty" and u.resolution.window == SCREEN_WINDOW


def test_board_actions_play_a_level_through_the_training_view(make_env):
    """Only the observation is framed: BoardActions' indices (screen coordinates) play the
    solver's solution from the home screen, through the card, the tier and the level-complete
    screen (the panel dimmed under its banner)."""
    env = BoardActions(
        LowResObservation(
            make_env("LongPuzzle/MazePaint-Easy", level=1), view="board", grayscale=True
        )
    )
    env.reset(seed=0)
    n = env.n_targets
    env.step(n + env.buttons.index("game"))
    env.step(n + env.buttons.index("tier"))
    u = env.unwrapped
    level_frame = None
    for move in solve(u.probe().board.level).moves:
        level_frame, *_ = env.step(("up", "down", "left", "right").index(move))
    assert u.evaluator.success or u.probe().screen in ("level_complete", "objective_complete")
    assert level_frame.shape == (84, 84, 1)


def test_training_view_rejects_what_it_cannot_do(make_env):
    with pytest.raises(ConfigError, match="view"):
        LowResObservation(make_env(), view="pixels")
    with pytest.raises(ConfigError, match="scale"):
        LowResObservation(make_env(), scale=0.25, view="board")
    with pytest.raises(ConfigError, match="backend='native'"):
        LowResObservation(make_env(backend="browser"), view="board")
    with pytest.raises(ConfigError, match="view"):
        make_sb3_env(view="crop")
    with pytest.raises(ConfigError, match="backend='native'"):
        make_sb3_env(view="board", backend="browser")


def test_the_default_view_is_unchanged(make_env):
    """view="screen" (the default) frames the whole screen as before: letterboxed for
    LowResObservation, stretched for make_sb3_env."""
    env = LowResObservation(make_env(start="board"))
    assert env.unwrapped.resolution == Resolution.fit(84, 84) and env.view == "screen"
    sb3 = make_sb3_env(start="board")
    try:
        assert sb3.unwrapped.resolution == Resolution.stretch(84, 84)
    finally:
        sb3.close()


def test_docs_list_the_training_palette_and_show_the_view():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "gallery.md").read_text(encoding="utf-8")
    for c in PALETTE:
        hexa = "#{:02x}{:02x}{:02x}".format(*c.training)
        assert (
            f"| {c.name} | {luma(c.rgb)} | `{hexa}` | {c.training} | {luma(c.training)} |" in text
        ), c.name
    for module in (
        "truck_escape",
        "nut_and_bolt",
        "color_connect",
        "bolt_unscrew",
        "rush_hour",
        "maze_paint",
    ):
        image = Image.open(root / "docs" / "img" / "training" / f"{module}.png")
        assert image.size == (3 * 84 * 4 + 2 * 8, 84 * 4)


def test_the_game_contract_checks_the_panel():
    """``check_game`` refuses a view whose panel (the training view's window) leaves the
    board area."""
    import dataclasses

    from puzzlegym.envs.maze_paint.view import MazePaintView
    from puzzlegym.testing import GameContractError, check_game

    class Off(MazePaintView):
        def panel(self, level, area):
            p = super().panel(level, area)
            return Rect(p.x, area.y - 10, p.w, p.h)

    game = dataclasses.replace(GAMES["MazePaint"], view=Off())
    with pytest.raises(GameContractError, match="panel"):
        check_game(game, walks=1, steps=3)


def test_the_hydra_wrappers_group_selects_the_training_view():
    """``wrappers=rl wrappers.view=board wrappers.scale=null`` builds the training view."""
    from hydra import compose, initialize_config_module

    from puzzlegym.run import wrapper_kwargs

    with initialize_config_module(config_module="puzzlegym.configs", version_base=None):
        cfg = compose(
            "run", overrides=["wrappers=rl", "wrappers.view=board", "wrappers.scale=null"]
        )
    kwargs = wrapper_kwargs(cfg)
    assert kwargs["view"] == "board" and kwargs["size"] == (84, 84) and "scale" not in kwargs
    env = make_sb3_env(cfg.env.id, **kwargs)
    try:
        assert isinstance(env.unwrapped.backend.training, TrainingView)
        assert env.observation_space.shape == (84, 84, 1)
    finally:
        env.close()
