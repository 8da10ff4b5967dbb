"""What a person sees (issue 25, part 2): boards that fill the board area on one shared panel
and nothing clipped, Bolt Unscrew's coverage and layers in the pixels, banners over a dimmed
board and the objective-complete screen after the last win, buttons that look disabled, a
non-colour mark of a completed tier, home cards without a sliver, one palette and one
spelling of "color"."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from puzzlegym.agents import SolverAgent
from puzzlegym.envs.bolt_unscrew import rules as BR
from puzzlegym.envs.bolt_unscrew import view as BV
from puzzlegym.game.registry import builtin_games, games, get_game
from puzzlegym.screen import palette, theme
from puzzlegym.screen.labels import LABELS
from puzzlegym.screen.layout import (
    BANNER,
    BELOW_HEADER,
    BOARD_AREA,
    NEXT_BUTTON,
    card_rect,
    header_buttons,
    tier_rect,
)
from puzzlegym.screen.render import SCREEN, Widget, font, render_full
from puzzlegym.suite.shell import Suite
from puzzlegym.suite.view import TIER_BADGE, suite_widgets

ROOT = Path(__file__).resolve().parents[1]
BG = np.array(theme.BACKGROUND)


def _paint_bg(draw, img, key):
    draw.rectangle((0, 0, img.width, img.height), fill=theme.BACKGROUND)


def board_frame(game, level, state=None):
    """The board of ``level`` alone on the screen background."""
    state = game.rules.initial_state(level) if state is None else state
    board = game.view.widgets(level, state, game.view.initial_ui(level, state), BOARD_AREA)
    return render_full([Widget("bg", SCREEN, _paint_bg, ()), *board])


def levels_of(game):
    for tier in game.tiers:
        yield from ((tier, i, lv) for i, lv in enumerate(game.load_catalogue(tier)))
        yield tier, "gen0", game.generate(tier, 0)


# ----------------------------------------------------------------------------- items 3, 6, 8
@pytest.mark.parametrize("name", sorted(builtin_games()))
def test_every_board_fills_the_area_on_a_whole_panel(name):
    """Every board of the catalogue (and a generated one per tier) of puzzlegym's own games is
    drawn by the shared size rule: its panel spans at least 95% of the board area along the
    limiting side, lies wholly inside it (nothing clipped: the outermost non-background pixels
    are the panel's edge, as with Color Connect Hard's 12x12 frame, which ran off the area)
    and is centred. (The house style of the six games' boards: a plugin's small board may
    keep its cells at the shared size cap, short of the area.)"""
    game = get_game(name)
    a = BOARD_AREA
    for tier, i, level in levels_of(game):
        frame = board_frame(game, level)
        assert (frame[:, : a.x] == BG).all() and (frame[:, a.x1 :] == BG).all(), (tier, i)
        assert (frame[: a.y] == BG).all() and (frame[a.y1 :] == BG).all(), (tier, i)
        mask = (frame != BG).any(axis=2)
        ys, xs = np.nonzero(mask)
        x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
        assert max((x1 - x0) / a.w, (y1 - y0) / a.h) >= 0.95, (tier, i, (x1 - x0, y1 - y0))
        assert abs((x0 - a.x) - (a.x1 - x1)) <= 1 and abs((y0 - a.y) - (a.y1 - y1)) <= 1, (tier, i)
        edge = np.array(theme.BOARD_PANEL_EDGE)
        for line in (
            frame[y0, x0:x1],
            frame[y1 - 1, x0:x1],
            frame[y0:y1, x0],
            frame[y0:y1, x1 - 1],
        ):
            outer = line[(line != BG).any(axis=1)]
            assert (outer == edge).all(), (tier, i, "the panel's edge is cut")


def test_nut_and_bolt_one_row_levels_fill_the_width_with_larger_nuts():
    from puzzlegym.envs.nut_and_bolt import view as NV

    for level in get_game("NutAndBolt").load_catalogue("Easy"):
        rects, nut_h, nut_w = NV._geometry(level.n_bolts, level.capacity, BOARD_AREA)
        assert len({r.y for r in rects}) == 1  # one row
        assert nut_h >= 80 and nut_w == int(nut_h * NV.NUT_W) // 2 * 2  # were at most 48 px
        board = NV.board_rect(level, BOARD_AREA)
        assert board.w + 2 * theme.PANEL_PAD >= 0.95 * BOARD_AREA.w


def test_every_coloured_piece_takes_its_colour_from_the_one_palette():
    from puzzlegym.envs.color_connect import view as CV
    from puzzlegym.envs.maze_paint import view as MV
    from puzzlegym.envs.nut_and_bolt import view as NV
    from puzzlegym.envs.rush_hour import view as RV
    from puzzlegym.envs.truck_escape import view as TV

    rgbs = {c.rgb for c in palette.PALETTE}
    assert len(rgbs) == len(palette.PALETTE) == len({c.letter for c in palette.PALETTE})
    assert len({c.name for c in palette.PALETTE}) == len(palette.PALETTE)
    assert NV.PALETTE is palette.PIECES and CV.PIECES is palette.PIECES
    assert set(RV.PALETTE) <= rgbs and RV.TARGET_RED == palette.colour("red").rgb
    assert {rgb for _n, rgb in TV.PALETTE} <= rgbs and {MV.PAINT, MV.BALL} <= rgbs
    assert palette.colour("orange").letter == "O"  # nuts and dots alike (dots showed "A")


def test_nut_and_dot_of_one_colour_show_the_same_letter():
    """A Color Connect dot of pair k and a nut of colour k: the same fill and, cut out of
    the same-size image, the same letter pixels."""
    from PIL import Image, ImageDraw

    from puzzlegym.envs.color_connect import view as CV
    from puzzlegym.envs.nut_and_bolt import view as NV

    for k in (0, 7, 11):
        dot = Image.new("RGB", (100, 100))
        CV._paint_cell(ImageDraw.Draw(dot), dot, (k, 0, False, True, ""))
        nut = Image.new("RGB", (200, 400))
        NV._paint_bolt(ImageDraw.Draw(nut), nut, ((k,), 3, 60, 120, 0, False))
        for img in (np.asarray(dot), np.asarray(nut)):
            colours = {tuple(px) for px in img.reshape(-1, 3)}
            assert palette.PIECES[k].rgb in colours and palette.PIECES[k].text in colours


def test_docs_list_the_palette():
    text = (ROOT / "docs" / "gallery.md").read_text(encoding="utf-8")
    for c in palette.PALETTE:
        hexa = "#{:02x}{:02x}{:02x}".format(*c.rgb)
        assert f"| {c.name} | `{c.letter}` | `{hexa}` |" in text, c.name


def _user_strings():
    """Every string constant of the games and the screen layer that is not a docstring nor
    an identifier: the text a player can see (labels, feedback, hints, instructions)."""
    paths = [*(ROOT / "envs").rglob("*.py"), *(ROOT / "puzzlegym" / "screen").glob("*.py")]
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = set()
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
                docs.add(id(body[0].value))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
            ):
                if not node.value.isidentifier():
                    yield path, node.value


def test_one_spelling_of_color_in_everything_a_player_reads():
    seen = []
    for path, text in _user_strings():
        assert "colour" not in text.lower(), (path, text)
        seen.append(text)
    assert any("color" in t.lower() for t in seen)  # the game's own messages say "color"
    for g in games().values():
        assert "colour" not in g.rule_card.lower() and "colour" not in g.instruction.lower(), g.name
    assert not any("colour" in v.lower() for v in LABELS["en"].values())


# ----------------------------------------------------------------------------- item 2
def _disc(frame, x, y, r):
    yy, xx = np.ogrid[: frame.shape[0], : frame.shape[1]]
    return frame[(xx - x) ** 2 + (yy - y) ** 2 <= r * r]


def _count(pixels, rgb):
    return int((pixels == np.array(rgb)).all(axis=1).sum())


@pytest.mark.parametrize("tier", ["Easy", "Hard"])
def test_bolt_unscrew_covered_holes_look_covered_and_free_ones_free(tier):
    """Every empty anchor of every level's first board: a free one shows the dark hole and
    its green rim; a covered one (partly under a board, or under a board's empty hole: the
    rules refuse both) shows neither. Before, Easy 1's holes partly under a pad were dark
    half-discs, like free ones."""
    game = get_game("BoltUnscrew")
    covered_seen = 0
    for level in game.load_catalogue(tier):
        state = BR.initial_state(level)
        frame = board_frame(game, level, state)
        pitch = BV.layout(level.size, BOARD_AREA)[0]
        r = float(BV.G.ANCHOR_R) * pitch
        free = BR.available(level, state)
        for a in BR.bits(level.all_anchors & ~state.occupied):
            x, y = BV.anchor_xy(level, a, BOARD_AREA)
            px = _disc(frame, x, y, r + 4)
            dark, rim = _count(px, BV.ANCHOR), _count(px, BV.FREE_RIM)
            if free >> a & 1:
                assert dark > 0.5 * np.pi * r * r and rim > 0, (level.id, a)
            else:
                assert dark == 0 and rim == 0, (level.id, a, dark, rim)
                covered_seen += 1
    assert covered_seen > 0


def test_bolt_unscrew_held_screws_look_held_and_pickable_ones_bright():
    """Every screw of every Hard level's first board: a screw a board above holds down shows
    no bright face (it peeked out at full brightness before), a pickable one does."""
    game = get_game("BoltUnscrew")
    held_seen = 0
    for level in game.load_catalogue("Hard"):
        state = BR.initial_state(level)
        frame = board_frame(game, level, state)
        pitch = BV.layout(level.size, BOARD_AREA)[0]
        r = float(BV.G.SCREW_R) * pitch
        for a in BR.bits(state.occupied):
            px = _disc(frame, *BV.anchor_xy(level, a, BOARD_AREA), r)
            bright = _count(px, BV.SCREW_FACE) + _count(px, BV.SCREW_LIGHT)
            if BR.selectable(level, state, a):
                assert bright > 0.3 * np.pi * r * r, (level.id, a)
            else:
                assert bright == 0, (level.id, a, bright)
                held_seen += 1
    assert held_seen >= 8


def test_bolt_unscrew_layers_have_tints_far_apart():
    """Adjacent layers' wood differs clearly in lightness (a plank under a pad was nearly
    the same tan, told apart by a shadow only), and every board has the dark outline."""

    def luma(rgb):
        return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]

    faces = [face for face, _edge, _grain in BV.WOODS]
    assert len(faces) >= 4  # the catalogue's layers 0..3 each get their own
    for lower, upper in zip(faces, faces[1:], strict=False):
        assert luma(upper) - luma(lower) >= 25, (lower, upper)
    level = get_game("BoltUnscrew").load_catalogue("Hard")[0]
    frame = board_frame(get_game("BoltUnscrew"), level)
    assert _count(frame.reshape(-1, 3), BV.OUTLINE) > 0


# ----------------------------------------------------------------------------- item 5
def test_banner_dims_the_board_and_its_button_is_not_the_blue_accent(make_env):
    env = make_env("LongPuzzle/TruckEscape-Default", start="board")
    obs, _ = env.reset(seed=0)
    agent = SolverAgent(env.unwrapped)
    before = obs
    while env.unwrapped.probe().screen == "level":
        before = obs
        obs, *_ = env.step(agent())
    assert env.unwrapped.probe().screen == "level_complete"
    # a pixel of the instruction line (unchanged by the win) is the OVERLAY blended over it
    x, y = 20, BELOW_HEADER.y + 10
    alpha = theme.DIM_ALPHA
    want = (np.array(theme.OVERLAY) * alpha + before[y, x].astype(int) * (255 - alpha) + 127) // 255
    assert (obs[y, x] == want).all()
    assert (obs[BANNER.y + 5, BANNER.center[0]] == np.array(theme.SUCCESS)).all()
    face = obs[NEXT_BUTTON.y + 8, NEXT_BUTTON.x + 20]
    assert (face == np.array(theme.SUCCESS_TEXT)).all() and not (
        face == np.array(theme.ACCENT)
    ).all()


def test_a_solved_objective_ends_on_the_objective_complete_screen(make_env):
    """The solver's last win goes straight to the objective-complete screen (the final
    frame of a solved run shows it, not a Next button); a single-level objective's win that
    leaves the difficulty unfinished shows the banner with Next."""
    env = make_env("LongPuzzle/TruckEscape-Default")
    env.reset(seed=0)
    agent = SolverAgent(env.unwrapped)
    term = False
    while not term:
        _, _, term, _, info = env.step(agent())
    assert info["screen"] == "objective_complete" and env.unwrapped.evaluator.success
    assert set(env.unwrapped.probe().controls) == {"menu"}
    env = make_env("LongPuzzle/TruckEscape-Default", level=2, start="board")
    env.reset(seed=0)
    agent = SolverAgent(env.unwrapped)
    term = False
    while not term:
        _, _, term, _, info = env.step(agent())
    assert info["screen"] == "level_complete" and set(env.unwrapped.probe().controls) == {
        "next",
        "menu",
    }


# ----------------------------------------------------------------------------- item 7
def _suite():
    registered = games()
    return Suite(registered, lambda g, t: registered[g].load_catalogue(t))


def test_disabled_buttons_are_flat_and_faint_not_pressed():
    """Undo without history and Restart under the banner: the face is the header itself
    (no grey slab), the label faint; the enabled buttons keep their face."""
    suite = _suite()
    suite.choose_game("NutAndBolt")
    suite.enter_tier("Easy")
    frame = render_full(suite_widgets(suite))
    rects = header_buttons(True)
    undo, restart = rects["undo"], rects["restart"]
    face = (undo.x + 8, undo.center[1])
    assert (frame[face[1], face[0]] == np.array(theme.HEADER)).all()  # disabled: flat
    assert (frame[restart.center[1], restart.x + 8] == np.array(theme.BUTTON)).all()
    text = frame[undo.y + 4 : undo.y1 - 4, undo.x + 4 : undo.x1 - 4].reshape(-1, 3)
    assert _count(text, theme.DISABLED_TEXT_ON_DARK) > 0 and _count(text, theme.BUTTON_TEXT) == 0
    board = suite.board
    move = next(iter(board.game.rules.legal_moves(board.level, board.state)))
    after = board.game.rules.apply(board.level, board.state, move)
    suite.board = replace(board, state=after, history=(board.state,))
    enabled = render_full(suite_widgets(suite))
    assert (enabled[face[1], face[0]] == np.array(theme.BUTTON)).all()
    suite.screen = "level_complete"
    banner = render_full(suite_widgets(suite))
    assert (banner[restart.center[1], restart.x + 8] == np.array(theme.HEADER)).all()


def test_a_completed_tier_is_marked_by_a_check_and_words_not_only_green():
    suite = _suite()
    suite.choose_game("NutAndBolt")
    suite.progress[("NutAndBolt", "Easy")] = {0, 1, 2}
    suite.progress[("NutAndBolt", "Medium")] = {0}
    widgets = {w.id: w for w in suite_widgets(suite)}
    assert widgets["tier:Easy"].key[1] == "Complete · 3 / 3"
    assert widgets["tier:Medium"].key[1] == "1 / 3 solved"
    frame = render_full(suite_widgets(suite))
    for i, tier in enumerate(("Easy", "Medium")):
        r = tier_rect(i)
        badge = frame[
            r.y + (r.h - TIER_BADGE) // 2 : r.y + (r.h + TIER_BADGE) // 2,
            r.x + 28 : r.x + 28 + TIER_BADGE,
        ]
        whites = _count(badge.reshape(-1, 3), theme.SUCCESS_TEXT)
        greens = _count(badge.reshape(-1, 3), theme.SUCCESS)
        assert (whites > 20 and greens > 200) if tier == "Easy" else greens == 0, tier


@pytest.mark.parametrize("name", sorted(games()))
def test_tier_button_text_fits_beside_the_check(name):
    g = get_game(name)
    for tier in g.tiers:
        n = len(g.load_catalogue(tier))
        name_end = 28 + TIER_BADGE + 14 + font(theme.HEADING_SIZE - 2, True).getlength(tier)
        progress = LABELS["en"]["tier_complete"].format(solved=n, total=n)
        assert name_end + 16 <= tier_rect(0).w - 28 - font(theme.SMALL_SIZE, True).getlength(
            progress
        ), tier


def test_home_cards_have_their_strip_as_the_top_edge_with_rounded_corners():
    frame = render_full(suite_widgets(_suite()))
    for i in range(len(games())):
        r = card_rect(i)
        top = frame[r.y : r.y + 6, r.center[0]]
        assert (top == np.array(theme.ACCENT)).all()  # no grey sliver above the strip
        assert (frame[r.y + 3, r.x + 3] == BG).all()  # the strip's corner is rounded off
        assert (frame[r.y + 30, r.center[0]] == np.array(theme.CARD)).all()


def test_every_screen_fits_its_text():
    """The header of the longest level title and the banner's title fit their boxes."""
    longest = max(
        (
            LABELS["en"]["header"].format(
                game=g.title, tier=t, k=len(g.load_catalogue(t)), n=len(g.load_catalogue(t))
            )
            for g in games().values()
            for t in g.tiers
        ),
        key=len,
    )
    assert 32 + font(theme.HEADING_SIZE - 4, True).getlength(longest) <= 860
    assert (
        font(theme.HEADING_SIZE + 6, True).getlength(LABELS["en"]["level_complete"])
        <= BANNER.w - 40
    )


def test_gallery_script_writes_every_screen(tmp_path):
    """scripts/gallery.py (the pictures of docs/gallery.md) writes the screens it names."""
    import subprocess
    import sys

    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "gallery.py"),
            str(tmp_path),
            "--only",
            "TruckEscape-Default",
            "--scale",
            "0.25",
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    names = sorted(p.name for p in tmp_path.glob("*.png"))
    assert names == sorted(
        [
            "TruckEscape-Default-first.png",
            "TruckEscape-Default-mid.png",
            "TruckEscape-Default-won.png",
            "TruckEscape-Default-end.png",
            "TruckEscape-Default-roll.png",
            "home.png",
            "difficulty.png",
            "NutAndBolt-Medium-level2.png",
        ]
    )
    from PIL import Image

    assert Image.open(tmp_path / "home.png").size == (320, 225)
