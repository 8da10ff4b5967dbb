"""The symbolic board (BoardObservation, Game.planes): exact plane contents per game, shapes
per objective, exactness over random reachable boards and ui states, checkpoints, no
rendering at a step, the checkers, and the errors that guide."""

from __future__ import annotations

import dataclasses
import json
import random
import warnings
from itertools import islice

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlegym.base.errors import ConfigError, PuzzleGymError
from puzzlegym.env.probe import BOARD_AREA, LEVEL, SCREENS
from puzzlegym.game.registry import builtin_games, env_ids, games, parse_env_id
from puzzlegym.screen.input import GestureRecognizer, action_events
from puzzlegym.screen.render import Canvas
from puzzlegym.testing import game_test_data
from puzzlegym.wrappers import (
    BoardActions,
    BoardObservation,
    DiscreteGUIActions,
    LowResObservation,
    check_sb3_env,
    make_sb3_env,
)
from puzzlegym.wrappers.board_observation import BOARD_SCREENS

ALL_IDS = env_ids()
GAMES = games()

# (game planes, level bits, C, H, W) of every objective: the game's planes padded to the
# tier's largest board, the five screen planes, the level index in binary (as many bits as the
# catalogue needs) and Nut and Bolt's undoable plane


def cells(plane: np.ndarray) -> set[tuple[int, int]]:
    return {(int(r), int(c)) for r, c in zip(*np.nonzero(plane), strict=True)}


def planes_of(game: str, level, state, ui, shape=None) -> dict[str, set]:
    """Plane name -> the (row, col) cells set in it."""
    planes = GAMES[game].planes
    shape = shape or planes.shape([level])
    out = planes.encode(level, state, ui, shape)
    assert out.dtype == np.uint8 and out.shape == shape and set(np.unique(out)) <= {0, 1}
    return {name: cells(out[i]) for i, name in enumerate(planes.names(shape))}


# ---------------------------------------------------------------------- plane contents


def test_maze_paint_planes():
    from puzzlegym.envs.maze_paint import rules as R

    level = GAMES["MazePaint"].load_catalogue("Easy")[0]
    grid = level.grid
    s0 = R.initial_state(level)
    p = planes_of("MazePaint", level, s0, None)
    assert p["wall"] == {
        (r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "#"
    }
    assert p["floor"] == {
        (r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "."
    }
    assert p["ball"] == p["painted"] == {tuple(level.start)}
    move = R.legal_moves(level, s0)[0]
    s1 = R.apply(level, s0, move)
    p1 = planes_of("MazePaint", level, s1, None)
    assert p1["ball"] == {divmod(s1.ball, level.width)}
    assert p1["painted"] == {
        divmod(i, level.width) for i in range(level.width * level.height) if s1.painted >> i & 1
    }
    assert len(p1["painted"]) > 1 and p1["wall"] == p["wall"]


def test_nut_and_bolt_planes_rows_from_the_bottom_selection_and_lifted_run():
    from puzzlegym.envs.nut_and_bolt import rules as R

    level = R.Level.from_json(
        {
            "id": "t",
            "tier": "Easy",
            "capacity": 3,
            "bolts": [[1, 1, 0], [1, 2, 0], [2, 0, 2], [], []],
        }
    )
    p = planes_of("NutAndBolt", level, R.initial_state(level), None)
    assert p["slot"] == {(k, j) for k in range(3) for j in range(5)}
    assert p["colour0"] == {(2, 0), (2, 1), (1, 2)}
    assert p["colour1"] == {(0, 0), (1, 0), (0, 1)}
    assert p["colour2"] == {(1, 1), (0, 2), (2, 2)}
    assert p["selected"] == p["lifted"] == set()
    state = R.State(((1, 0, 0), (1, 2), (2, 1, 2), (0,), ()))
    sel = planes_of("NutAndBolt", level, state, 0)
    assert sel["selected"] == {(0, 0), (1, 0), (2, 0)}
    assert sel["lifted"] == {(1, 0), (2, 0)}  # the top run of two 0s
    assert planes_of("NutAndBolt", level, state, 3)["lifted"] == {(0, 3)}


def test_rush_hour_planes_of_the_format_example():
    from puzzlegym.envs.rush_hour import rules as R

    level = R.Level.from_json(
        {
            "id": "t",
            "tier": "Easy",
            "width": 6,
            "height": 6,
            "vehicles": [
                {"row": 2, "col": 0, "length": 2, "axis": "horizontal"},
                {"row": 0, "col": 2, "length": 3, "axis": "vertical"},
                {"row": 4, "col": 3, "length": 2, "axis": "horizontal"},
            ],
            "walls": [[5, 5]],
        }
    )
    p = planes_of("RushHour", level, R.initial_state(level), None)
    assert p["cell"] == {(r, c) for r in range(6) for c in range(6)}
    assert p["wall"] == {(5, 5)} and p["exit"] == {(2, 5)}
    assert p["target"] == {(2, 0), (2, 1)}
    assert p["horizontal"] == {(2, 0), (2, 1), (4, 3), (4, 4)}
    assert p["vertical"] == p["truck"] == {(0, 2), (1, 2), (2, 2)}
    assert p["front"] == {(2, 0), (0, 2), (4, 3)}
    moved = planes_of("RushHour", level, R.State((0, 3, 1)), None)
    assert moved["vertical"] == {(3, 2), (4, 2), (5, 2)} and moved["front"] == {
        (2, 0),
        (3, 2),
        (4, 1),
    }


def test_truck_escape_planes_of_the_format_example():
    from puzzlegym.envs.truck_escape import rules as R

    level = R.Level.from_json(
        {
            "id": "t",
            "tier": "Default",
            "rows": 4,
            "cols": 5,
            "trucks": [
                {"cab": [1, 1], "facing": "down", "length": 2},
                {"cab": [2, 1], "facing": "left", "length": 2},
                {"cab": [2, 0], "facing": "up", "length": 1},
                {"cab": [0, 0], "facing": "left", "length": 1},
                {"cab": [3, 4], "facing": "right", "length": 3},
            ],
        }
    )
    p = planes_of("TruckEscape", level, R.initial_state(level), None)
    assert p["cell"] == {(r, c) for r in range(4) for c in range(5)}
    assert p["down"] == {(1, 1), (0, 1)} and p["left"] == {(2, 1), (2, 2), (0, 0)}
    assert p["up"] == {(2, 0)} and p["right"] == {(3, 4), (3, 3), (3, 2)}
    assert p["cab"] == {(1, 1), (2, 1), (2, 0), (0, 0), (3, 4)}
    assert p["truck"] == p["up"] | p["down"] | p["left"] | p["right"]
    gone = planes_of("TruckEscape", level, R.State(0b01011), None)  # trucks 2 and 4 left
    assert gone["up"] == gone["right"] == set() and gone["cab"] == {(1, 1), (2, 1), (0, 0)}


def test_color_connect_planes_paths_links_and_the_path_being_drawn():
    from puzzlegym.envs.color_connect import rules as R
    from puzzlegym.envs.color_connect.view import Drawing

    level = R.Level.from_json(
        {"id": "t", "tier": "Easy", "grid": ["A.B..", ".#...", "..C.B", "A....", "....C"]}
    )
    p = planes_of("ColorConnect", level, R.initial_state(level), None)
    assert p["blocked"] == {(1, 1)} and p["dot"] == {(0, 0), (3, 0), (0, 2), (2, 4), (2, 2), (4, 4)}
    assert (
        p["pair0"] == {(0, 0), (3, 0)}
        and p["pair1"] == {(0, 2), (2, 4)}
        and p["pair2"] == {(2, 2), (4, 4)}
    )
    assert p["link_right"] == p["link_down"] == p["drawing"] == p["drawing_end"] == set()
    # pair C connected along row 2 then down column 4 ... as a path of cell indices
    w = level.width
    path_c = tuple(r * w + c for r, c in ((2, 2), (2, 3), (3, 3), (4, 3), (4, 4)))
    state = R.apply(level, R.initial_state(level), R.Connect(2, path_c))
    drawing = Drawing(0, ((0, 0), (1, 0), (2, 0)))
    q = planes_of("ColorConnect", level, state, drawing)
    assert q["pair2"] == {(2, 2), (2, 3), (3, 3), (4, 3), (4, 4)}
    assert q["pair0"] == {(0, 0), (1, 0), (2, 0), (3, 0)}
    assert q["link_right"] == {(2, 2), (4, 3)} and q["link_down"] == {
        (2, 3),
        (3, 3),
        (0, 0),
        (1, 0),
    }
    assert q["drawing"] == {(0, 0), (1, 0), (2, 0)} and q["drawing_end"] == {(2, 0)}


def test_color_connect_paths_over_the_same_cells_differ_by_their_links():
    """Two snakes over every cell of a 3x3 grid, corner to corner: one set of cells, two
    paths (and two paths being drawn): the links tell them apart."""
    from puzzlegym.envs.color_connect import rules as R
    from puzzlegym.envs.color_connect.view import Drawing

    level = R.Level.from_json({"id": "t", "tier": "Easy", "grid": ["A..", "...", "..A"]})
    rows = ((0, 0), (0, 1), (0, 2), (1, 2), (1, 1), (1, 0), (2, 0), (2, 1), (2, 2))
    cols = ((0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (0, 1), (0, 2), (1, 2), (2, 2))
    tensors = []
    for path in (rows, cols):
        state = R.apply(
            level, R.initial_state(level), R.Connect(0, tuple(r * 3 + c for r, c in path))
        )
        p = planes_of("ColorConnect", level, state, None)
        assert p["pair0"] == set(rows)
        tensors.append(GAMES["ColorConnect"].planes.encode(level, state, None, (8, 3, 3)).tobytes())
        drawing = Drawing(0, path[:8])
        tensors.append(
            GAMES["ColorConnect"]
            .planes.encode(level, R.initial_state(level), drawing, (8, 3, 3))
            .tobytes()
        )
    assert len(set(tensors)) == 4
    assert planes_of("ColorConnect", level, R.initial_state(level), Drawing(0, rows[:8]))[
        "link_right"
    ] == {(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)}


def test_bolt_unscrew_planes_of_the_first_easy_level():
    level = GAMES["BoltUnscrew"].load_catalogue("Easy")[0]
    assert level.id == "bolt-easy-01"
    from puzzlegym.envs.bolt_unscrew import rules as R

    p = planes_of("BoltUnscrew", level, R.initial_state(level), None)
    assert p["point"] == {(y, x) for y in range(4) for x in range(6)}
    assert p["anchor"] == {(y, x) for x, y in level.anchors}
    assert p["screw"] == p["hole"] == {(0, 0), (0, 2), (1, 3), (2, 0), (2, 4), (3, 5)}
    # pads (radius 1) cover their point and its four neighbours; bars their own points only
    assert p["layer0"] == {(0, 2), (0, 1), (0, 3), (1, 2), (2, 0), (1, 0), (3, 0), (2, 1)}
    assert p["layer1"] == {(0, 0), (0, 1), (0, 2)}
    assert p["layer2"] == {(1, 3), (2, 4), (3, 5)}
    assert p["free"] == {(2, 2), (2, 3), (3, 3)} and p["selected"] == set()
    assert planes_of("BoltUnscrew", level, R.initial_state(level), 12)["selected"] == {(3, 5)}
    # the screw of anchor 12 to the free anchor 7: the top bar keeps two screws and stays
    s1 = R.apply(level, R.initial_state(level), (12, 7))
    q = planes_of("BoltUnscrew", level, s1, None)
    assert (
        q["screw"] == {(0, 0), (0, 2), (1, 3), (2, 0), (2, 4), (2, 2)}
        and q["layer2"] == p["layer2"]
    )


def test_every_games_planes_are_documented_in_its_format():
    """Every game's format.md documents its planes, plane by plane (a built-in game's is on
    its docs page)."""
    for name, game in GAMES.items():
        if not game.level_format and name not in builtin_games():
            continue  # a plugin's game documents its format where it likes
        assert game.planes is not None, name
        head, sep, doc = game.level_format.partition("Symbolic board\n")
        assert sep, name
        rows = [line for line in doc.splitlines() if line.startswith("| `")]
        named = [line.split("|")[1] for line in rows]
        for plane in game.planes.fixed:
            assert any(f"`{plane}`" in cell for cell in named), (name, plane)
        if game.planes.numbered:
            assert any(f"`{game.planes.numbered}0`" in cell for cell in named), name


# ---------------------------------------------------------------------- shapes, checkers


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_board_observation_shape_names_and_the_checkers(env_id):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = make_sb3_env(env_id, observation="board", actions="board", budget_s=40)
    try:
        game, tier = parse_env_id(env_id)
        own, bits, *shape = game_test_data(game).BOARD_SHAPES[tier]
        assert env.observation_space == gym.spaces.Box(0, 1, tuple(shape), np.uint8)
        board = env.env.env.env  # BoardActions > NumpyInfo > BlackBox > BoardObservation
        assert isinstance(board, BoardObservation)
        assert 2**bits >= len(game.load_catalogue(tier)) > 2 ** (bits - 1) or bits == 1
        assert board.names == (
            game.planes.names(board.board_shape)
            + tuple(f"screen:{s}" for s in SCREENS)
            + tuple(f"level_bit{k}" for k in range(bits))
            + (("undoable",) if game.has_undo else ())
        )
        assert len(board.names) == shape[0] == own + 5 + bits + game.has_undo
        assert [w.name for w in env.spec.additional_wrappers] == [
            "BoardObservation",
            "BlackBox",
            "NumpyInfo",
            "BoardActions",
        ]
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*different from the unwrapped version.*")
            check_env(env)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SB3 warns that a 3-d Box with bounds 0..1 is no image
            sb3_check_env(env, warn=True)
        check_sb3_env(env, policy="MlpPolicy")
    finally:
        env.close()


def test_two_levels_sharing_a_board_differ_by_their_level_bits():
    """Two Nut and Bolt levels of one capacity and bolt count (as generated levels can be):
    one arrangement of nuts is a board of both, and only the level bits (the header's
    number) tell them apart."""
    from puzzlegym.envs.nut_and_bolt import rules as R

    env = BoardObservation(gym.make("LongPuzzle/NutAndBolt-Easy", start="board"))
    env.reset(seed=0)
    probe = env.unwrapped.probe()
    one = GAMES["NutAndBolt"].load_catalogue("Easy")[0]
    two = R.Level.from_json(
        {**one.to_json(), "id": "other", "bolts": [list(b) for b in reversed(one.bolts)]}
    )
    state = R.initial_state(one)
    assert R.state_from_json(two, R.state_to_json(one, state)) == state  # a board of both levels
    a = env.encode(
        dataclasses.replace(
            probe, board=dataclasses.replace(probe.board, index=0, level=one, state=state)
        )
    )
    b = env.encode(
        dataclasses.replace(
            probe, board=dataclasses.replace(probe.board, index=1, level=two, state=state)
        )
    )
    bit0 = env.names.index("level_bit0")
    assert np.array_equal(a[:bit0], b[:bit0]) and not a[bit0].any() and b[bit0].all()
    assert not np.array_equal(a, b)
    env.close()


def test_catalogue_levels_give_distinct_first_boards():
    for env_id in ALL_IDS:
        game, tier = parse_env_id(env_id)
        levels = game.load_catalogue(tier)
        shape = game.planes.shape(levels)
        seen = set()
        for level in levels:
            s = game.rules.initial_state(level)
            seen.add(game.planes.encode(level, s, game.view.initial_ui(level, s), shape).tobytes())
        assert len(seen) == len(levels), env_id


# ---------------------------------------------------------------------- exactness


def board_key(probe, board_obs: BoardObservation):
    """What the tensor is documented to hold: the screen, and the objective's board (level,
    state, ui) on the screens that show it, with Undo's state on the level screen."""
    b = probe.board
    if (
        b is None
        or probe.screen not in BOARD_SCREENS
        or b.game is not board_obs.game
        or b.tier != board_obs.tier
    ):
        return (probe.screen,)
    undo = b.game.has_undo and b.undoable and probe.screen == LEVEL
    return (probe.screen, b.index, b.level, b.state, b.ui, undo)


def assert_exact(pairs) -> None:
    """``pairs`` of (key, tensor bytes): equal keys give equal tensors, different keys
    different tensors."""
    by_key, by_tensor = {}, {}
    for key, tensor in pairs:
        assert by_key.setdefault(key, tensor) == tensor, f"one board, two tensors: {key}"
        other = by_tensor.setdefault(tensor, key)
        assert other == key, f"two boards, one tensor:\n{other}\n{key}"


@pytest.mark.parametrize("env_id", ALL_IDS)
@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1))
def test_two_boards_of_random_play_never_share_a_tensor(env_id, seed):
    """Random play through the suite (every button, every board target, masked), so the
    walk visits selections, lifted stacks, paths being drawn, undos and other screens."""
    env = BoardActions(BoardObservation(gym.make(env_id, start="board", budget_s=10_000)))
    board_obs = env.env
    try:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        seen = [(board_key(env.unwrapped.probe(), board_obs), obs.tobytes())]
        for _ in range(150):
            mask = env.action_masks()
            obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert env.observation_space.contains(obs)
            seen.append((board_key(env.unwrapped.probe(), board_obs), obs.tobytes()))
            if terminated or truncated:  # a small game's whole objective won: play on anew
                obs, _ = env.reset()
                seen.append((board_key(env.unwrapped.probe(), board_obs), obs.tobytes()))
        assert_exact(seen)
    finally:
        env.close()


def ui_states(game, level, state, rng: random.Random) -> list:
    """The view's interaction states reachable from ``state`` by up to two clicks or drags
    on board targets (a selection, a path being drawn and extended), and None."""
    out = [game.view.initial_ui(level, state)]
    frontier = list(out)
    for _ in range(2):
        nxt = []
        for ui in frontier:
            targets = [
                t for t in game.view.board_targets(level, state, ui, BOARD_AREA) if t is not None
            ]
            for target in rng.sample(targets, min(6, len(targets))):
                gestures = [
                    g for e in action_events(target, 0) for g in GestureRecognizer().feed(e)
                ]
                for g in gestures:
                    outcome = game.view.on_gesture(level, state, ui, g, BOARD_AREA)
                    if outcome.move is None and outcome.ui is not None:
                        nxt.append(outcome.ui)
        out += nxt
        frontier = nxt
    return out


@pytest.mark.parametrize("env_id", ALL_IDS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), length=st.integers(1, 60))
def test_two_reachable_states_never_share_a_tensor(env_id, seed, length):
    """Random walks of the rules' legal moves (deeper than play reaches), with the ui
    states of every visited board, on every level of the tier at one shape."""
    game, tier = parse_env_id(env_id)
    levels = game.load_catalogue(tier)
    shape = game.planes.shape(levels)
    rng = random.Random(seed)
    seen = []
    for level in rng.sample(levels, min(3, len(levels))):
        state = game.rules.initial_state(level)
        for _ in range(length):
            for ui in ui_states(game, level, state, rng):
                seen.append(
                    ((level, state, ui), game.planes.encode(level, state, ui, shape).tobytes())
                )
            moves = list(islice(game.rules.legal_moves(level, state), 40))
            if not moves:
                break
            nxt = game.rules.apply(level, state, rng.choice(moves))
            assert not hasattr(nxt, "reason")
            state = nxt
    assert_exact(seen)


@pytest.mark.parametrize("env_id", ALL_IDS)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), before=st.integers(0, 40), after=st.integers(1, 40))
def test_a_restored_checkpoint_gives_the_tensor_it_was_taken_at(env_id, seed, before, after):
    env = BoardActions(BoardObservation(gym.make(env_id, budget_s=10_000)))
    try:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(before):
            obs, _, terminated, truncated, _ = env.step(
                int(rng.choice(np.flatnonzero(env.action_masks())))
            )
            if terminated or truncated:  # a small game's whole objective won: anew
                obs, _ = env.reset()
        ckpt = env.unwrapped.checkpoint()
        taken = obs.copy()
        for _ in range(after):
            *_, terminated, truncated, _ = env.step(
                int(rng.choice(np.flatnonzero(env.action_masks())))
            )
            if terminated or truncated:
                break
        restored, _ = env.reset(options={"checkpoint": ckpt})
        assert np.array_equal(restored, taken)
        fresh = BoardActions(BoardObservation(gym.make(env_id, budget_s=10_000)))
        again, _ = fresh.reset(options={"checkpoint": json_roundtrip(ckpt)})
        assert np.array_equal(again, taken)  # through the checkpoint document too
        fresh.close()
    finally:
        env.close()


def json_roundtrip(ckpt):
    from puzzlegym.env.checkpoint import Checkpoint

    return Checkpoint.from_json(json.loads(json.dumps(ckpt.to_json())))


# ---------------------------------------------------------------------- no rendering


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_a_board_step_paints_nothing_and_render_paints_the_same_screen(env_id, monkeypatch):
    calls = []
    real = Canvas.render

    def counting(self, widgets):
        calls.append(self.resolution)
        return real(self, widgets)

    monkeypatch.setattr(Canvas, "render", counting)
    env = make_sb3_env(
        env_id, observation="board", actions="board", render_mode="rgb_array", budget_s=10_000
    )
    twin = gym.make(env_id, budget_s=10_000)  # pixels, the same GUI actions
    try:
        env.reset(seed=3)
        twin.reset(seed=3)
        rng = np.random.default_rng(3)
        for _ in range(60):
            i = int(rng.choice(np.flatnonzero(env.action_masks())))
            action = env.action_meaning(i)
            env.step(i)
            twin.step(action)
        assert env.unwrapped.observation == "none"
        twin_calls = len(calls)  # the twin paints every step
        assert twin_calls >= 60
        calls.clear()
        for _ in range(20):  # board steps: not one canvas render
            i = int(rng.choice(np.flatnonzero(env.action_masks())))
            action = env.action_meaning(i)
            env.step(i)
            calls_before = len(calls)
            twin.step(action)
            assert len(calls) == calls_before + 1  # only the twin's
        calls.clear()
        frame = env.render()
        assert len(calls) == 1  # painted when asked
        assert frame.shape == (900, 1280, 3) and np.array_equal(frame, twin.unwrapped.screenshot())
    finally:
        env.close()
        twin.close()


# ---------------------------------------------------------------------- errors that guide


def test_observation_modes_that_do_not_fit_are_refused_naming_what_fits(make_env):
    with pytest.raises(
        ConfigError, match="observation: 'frames' is not allowed; allowed: pixels, board"
    ):
        make_sb3_env("LongPuzzle/MazePaint-Easy", observation="frames")
    for key, value in (
        ("size", (64, 64)),
        ("scale", "1/8"),
        ("grayscale", True),
        ("fit", "letterbox"),
    ):
        with pytest.raises(ConfigError, match=f"{key}: applies to observation='pixels' only"):
            make_sb3_env("LongPuzzle/MazePaint-Easy", observation="board", **{key: value})
    with pytest.raises(ConfigError, match="board_shape: applies to observation='board' only"):
        make_sb3_env("LongPuzzle/MazePaint-Easy", board_shape=(4, 8, 8))
    with pytest.raises(
        ConfigError, match=r"needs backend='native'.*'browser'.*observation='pixels'"
    ):
        make_sb3_env("LongPuzzle/MazePaint-Easy", observation="board", backend="browser")
    browser = make_env("LongPuzzle/MazePaint-Easy", backend="browser")
    with pytest.raises(
        ConfigError, match=r"'none' \(no frames\) needs backend='native'.*allowed there: 'pixels'"
    ):
        browser.unwrapped.set_observation("none")
    with pytest.raises(
        ConfigError, match="observation: 'board' is not allowed; allowed: pixels, none"
    ):
        make_env().unwrapped.set_observation("board")
    cartpole = gym.make("CartPole-v1")
    with pytest.raises(
        ConfigError, match=r"BoardObservation: wraps puzzlegym envs only .*CartPoleEnv"
    ):
        BoardObservation(cartpole)
    with pytest.raises(ConfigError, match=r"BoardActions: wraps puzzlegym envs only .*CartPoleEnv"):
        BoardActions(cartpole)
    with pytest.raises(
        ConfigError,
        match=r"DiscreteGUIActions: maps indices to puzzlegym GUI actions.*Discrete\(2\)",
    ):
        DiscreteGUIActions(cartpole)
    with pytest.raises(
        ConfigError,
        match=r"BoardActions: performs puzzlegym GUI actions.*in place of DiscreteGUIActions",
    ):
        BoardActions(DiscreteGUIActions(make_env()))
    with pytest.raises(ConfigError, match=r"DiscreteGUIActions: maps indices.*Discrete"):
        DiscreteGUIActions(BoardActions(make_env()))
    with pytest.raises(
        ConfigError, match="apply BoardObservation first.*in place of LowResObservation"
    ):
        BoardObservation(LowResObservation(make_env()))
    with pytest.raises(ConfigError, match="must be the full 1280x900 screen"):
        LowResObservation(BoardObservation(make_env()))
    with pytest.raises(
        ConfigError, match=r"shape: expected .* at least \(4, 8, 8\).*exactly 4 planes"
    ):
        BoardObservation(make_env(), shape=(5, 8, 8))
    with pytest.raises(ConfigError, match=r"shape: expected .* at least \(4, 8, 8\)"):
        BoardObservation(make_env(), shape=(4, 7, 9))
    board = make_sb3_env("LongPuzzle/MazePaint-Easy", observation="board", actions="board")
    with pytest.raises(
        ConfigError, match=r"policy: 'CnnPolicy' does not fit observation='board'.*use 'MlpPolicy'"
    ):
        check_sb3_env(board, policy="CnnPolicy")
    pixels = make_sb3_env("LongPuzzle/MazePaint-Easy", actions="board")
    with pytest.raises(
        ConfigError, match=r"policy: 'MlpPolicy' does not fit observation='pixels'.*use 'CnnPolicy'"
    ):
        check_sb3_env(pixels, policy="MlpPolicy")
    board.close()
    pixels.close()


def test_a_larger_board_shape_pads_and_a_level_too_large_is_named():
    env = make_sb3_env(
        "LongPuzzle/ColorConnect-Easy", observation="board", board_shape=(20, 9, 10), start="board"
    )
    obs, _ = env.reset(seed=0)
    assert obs.shape == (29, 9, 10) and not obs[:20, 7:, :].any() and not obs[:20, :, 7:].any()
    assert obs[20 + SCREENS.index(LEVEL)].all()  # the screen planes are constant
    env.close()
    small = BoardObservation(gym.make("LongPuzzle/MazePaint-Easy", start="board"))
    small.reset(seed=0)
    probe = small.unwrapped.probe()
    big_board = GAMES["MazePaint"].load_catalogue("Hard")[-1]
    larger = dataclasses.replace(
        probe,
        board=dataclasses.replace(
            probe.board, level=big_board, state=GAMES["MazePaint"].rules.initial_state(big_board)
        ),
    )
    with pytest.raises(
        PuzzleGymError, match=r"needs 4 planes of 1\dx1\d.*make_sb3_env\(board_shape="
    ):
        small.encode(larger)
    small.close()
    game = GAMES["ColorConnect"]
    big = game.load_catalogue("Hard")[0]
    with pytest.raises(
        ValueError, match=rf"level {big.id!r} needs \d+ planes of \d+x\d+, more than"
    ):
        game.planes.encode(
            big, game.rules.initial_state(big), None, game.planes.shape(game.load_catalogue("Easy"))
        )


def test_agent_facing_surfaces_never_reach_the_symbolic_board():
    """The agents, the HTTP services, the page, the evaluation tools and the lab neither
    import the board encoders nor switch an env's frames off: what they hand an agent stays
    pixels, public info and text. The one agent that reads the board by design, a policy
    trained in JAX on the board's planes (``--agent jax:PATH``, ``jax/policy/``), is
    reached from the agent factory only through its entry point (the ``puzzlegym.agents``
    group), so building any other agent never loads it."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "puzzlegym"
    factory = ast.parse((root / "agents" / "factory.py").read_text(encoding="utf-8"))
    top_level = {
        alias.name if isinstance(node, ast.Import) else node.module
        for node in factory.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert not any(w in str(name) for name in top_level for w in ("jax", "board"))
    lazy = [
        node.module
        for node in ast.walk(factory)
        if isinstance(node, ast.ImportFrom) and any(w in str(node.module) for w in ("jax", "board"))
    ]
    assert lazy == []
    import importlib.metadata

    (entry,) = [
        e for e in importlib.metadata.entry_points(group="puzzlegym.agents") if e.name == "jax"
    ]
    assert entry.value == "puzzlegym.jax.policy.policy:jax_agent"
    surfaces = [
        *(p for p in root.glob("agents/*.py") if p.name != "factory.py"),
        *root.glob("service/*.py"),
        *root.glob("backends/page/*"),
        *root.glob("evaluation/*.py"),
        *root.glob("lab/*.py"),
        root / "wrappers" / "blackbox.py",
        root / "wrappers" / "text.py",
    ]
    assert len(surfaces) > 30
    for path in surfaces:
        text = path.read_text(encoding="utf-8")
        for word in (
            "BoardObservation",
            "board_observation",
            "planes",
            "set_observation",
            'observation="board"',
        ):
            assert word not in text, f"{path.relative_to(root)} mentions {word}"
