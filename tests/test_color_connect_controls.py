"""Color Connect controls with exact expected paths: start, straight segments, every refusal,
cut back, cancel, complete, remove; the same through GUI clicks in the env (a refused click
leaves everything but the feedback line as it was), restart, checkpoints taken mid-path,
the ui document, board targets, and the look of the screen."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from puzzlegym.base.actions import Click
from puzzlegym.envs.color_connect import GAME
from puzzlegym.envs.color_connect import rules as R
from puzzlegym.envs.color_connect.rules import Connect, Remove
from puzzlegym.envs.color_connect.view import (
    DRAG_HINT,
    LINE_HINT,
    PARTNER_HINT,
    START_HINT,
    ColorConnectView,
    Drawing,
    cell_at,
    cell_rect,
    click,
    path_clicks,
)
from puzzlegym.game import ViewOutcome
from puzzlegym.screen.layout import BOARD_AREA

from .test_color_connect_rules import A_PATH, C_PATH, LEVEL

VIEW = ColorConnectView()
EMPTY = R.initial_state(LEVEL)
WITH_C = R.apply(LEVEL, EMPTY, Connect(2, C_PATH))


def drawing(pair, *cells):
    return Drawing(pair, tuple(divmod(x, LEVEL.width) for x in cells))


def test_start_on_a_dot_and_refuse_elsewhere():
    assert click(LEVEL, EMPTY, None, 0) == ViewOutcome(ui=drawing(0, 0), feedback="")
    assert click(LEVEL, EMPTY, None, 14) == ViewOutcome(ui=drawing(0, 14), feedback="")
    assert click(LEVEL, EMPTY, None, 5) == ViewOutcome(ui=None, feedback=START_HINT)
    assert click(LEVEL, EMPTY, None, 6) == ViewOutcome(ui=None, feedback=START_HINT)  # blocked


def test_segments_fill_the_cells_between():
    ui = drawing(0, 0)
    out = click(LEVEL, EMPTY, ui, 2)  # two cells to the right
    assert out == ViewOutcome(ui=drawing(0, 0, 1, 2), feedback="")
    out = click(LEVEL, EMPTY, out.ui, 17)  # straight down three rows from cell 2
    assert out == ViewOutcome(ui=drawing(0, 0, 1, 2, 7, 12, 17), feedback="")
    # right along the bottom row would cross C's dot (18)
    assert click(LEVEL, EMPTY, out.ui, 19) == ViewOutcome(ui=out.ui, feedback=R.DOT_REASON)


def test_every_refused_segment_keeps_the_path():
    cases = [
        (WITH_C, drawing(0, 0, 1, 2, 7), 17, R.CROSS_REASON),  # down through C's path (12)
        (EMPTY, drawing(0, 0, 1, 2), 4, R.DOT_REASON),  # right through B's dot (3)
        (EMPTY, drawing(0, 0, 1, 2, 7), 5, R.BLOCKED_REASON),  # left through the blocked 6
        (EMPTY, drawing(0, 0, 1, 2, 7), 10, LINE_HINT),  # neither its row nor its column
        (EMPTY, drawing(2, 11, 12, 13, 8, 7), 17, R.SELF_REASON),  # down through its own 12
        (EMPTY, drawing(0, 0, 1, 2, 7, 8, 9), 19, PARTNER_HINT),  # over its partner (14)
    ]
    for state, ui, cell, reason in cases:
        assert click(LEVEL, state, ui, cell) == ViewOutcome(ui=ui, feedback=reason), (cell, reason)


def test_cut_back_cancel_complete_and_remove():
    ui = drawing(0, 0, 1, 2, 7, 8)
    assert click(LEVEL, EMPTY, ui, 1) == ViewOutcome(ui=drawing(0, 0, 1), feedback="")
    assert click(LEVEL, EMPTY, ui, 8) == ViewOutcome(ui=ui, feedback="")  # its end: no change
    assert click(LEVEL, EMPTY, ui, 0) == ViewOutcome(ui=None, feedback="")  # the start cancels
    ui = drawing(0, 0, 1, 2, 7, 8, 9)
    assert click(LEVEL, EMPTY, ui, 14) == ViewOutcome(move=Connect(0, A_PATH), ui=ui, feedback="")
    # started from the other dot: the move lists the cells in drawing order
    ui = drawing(2, 18, 13)
    assert click(LEVEL, EMPTY, ui, 11) == ViewOutcome(
        move=Connect(2, C_PATH[::-1]), ui=ui, feedback=""
    )
    # a dot of a connected pair removes its path (and starts nothing)
    assert click(LEVEL, WITH_C, None, 18) == ViewOutcome(move=Remove(2), ui=None, feedback="")
    assert click(LEVEL, WITH_C, None, 11) == ViewOutcome(move=Remove(2), ui=None, feedback="")


def test_ui_document_and_level_checks():
    ui = drawing(0, 0, 1, 2)
    doc = VIEW.ui_to_json(ui)
    assert doc == {"pair": "A", "cells": [[0, 0], [0, 1], [0, 2]]}
    assert VIEW.ui_from_json(doc) == ui and VIEW.ui_from_json(None) is None
    VIEW.check_ui(LEVEL, EMPTY, ui)
    for bad in (
        {"pair": "a", "cells": [[0, 0]]},
        {"pair": "A", "cells": []},
        {"pair": "A"},
        {"pair": "A", "cells": [[0, -1]]},
        [1, 2],
    ):
        with pytest.raises(ValueError, match="ui"):
            VIEW.ui_from_json(bad)
    for bad_ui, state in (
        (drawing(0, 0, 1, 2), WITH_C.__class__((A_PATH, None, None))),
        (drawing(0, 5, 10), EMPTY),
        (drawing(0, 0, 2), EMPTY),
        (drawing(0, 0, 5, 0), EMPTY),
        (drawing(2, 11, 12), WITH_C),
        (Drawing(3, ((0, 0),)), EMPTY),
        (Drawing(0, ((0, 0), (0, 9))), EMPTY),
    ):
        with pytest.raises(ValueError, match="ui"):
            VIEW.check_ui(LEVEL, state, bad_ui)


def test_board_targets_and_clicks_for_moves():
    targets = VIEW.board_targets(LEVEL, EMPTY, None, BOARD_AREA)
    assert len(targets) == LEVEL.n_cells
    assert [cell_at(LEVEL, BOARD_AREA, t.x, t.y) for t in targets] == list(range(LEVEL.n_cells))
    actions = VIEW.actions_for_move(LEVEL, EMPTY, drawing(1, 3), Connect(0, A_PATH), BOARD_AREA)
    cells = [cell_at(LEVEL, BOARD_AREA, a.x, a.y) for a in actions]
    assert cells == [3, 0, 2, 7, 9, 14]  # cancel B's path, then A: start, turns, end
    assert cell_at(LEVEL, BOARD_AREA, 0, 0) is None


# ---------------------------------------------------------------------- through the env


@pytest.fixture
def env(make_env):
    e = make_env("LongPuzzle/ColorConnect-Easy", start="board", level=1)
    e.reset(seed=0)
    return e


def press(env, index):
    board = env.unwrapped.suite.board
    x, y = cell_rect(board.level, index, BOARD_AREA).center
    return env.step(Click(x, y))


def test_env_clicks_draw_refuse_and_restart(env):
    from puzzlegym import solvers

    suite = env.unwrapped.suite
    level = suite.board.level
    move = solvers.solve(level).moves[0]
    clicks = VIEW.actions_for_move(level, suite.board.state, None, move, BOARD_AREA)
    env.step(clicks[0])
    assert suite.board.ui == Drawing(move.pair, (level.cell(move.cells[0]),))
    # a refused click: nothing but the feedback line changes
    before = env.unwrapped.checkpoint().payload["suite"]
    r0, c0 = level.cell(move.cells[0])
    off_line = next(
        x
        for x in range(level.n_cells)
        if level.owner[x] == -1 and level.cell(x)[0] != r0 and level.cell(x)[1] != c0
    )
    _, reward, _, _, info = press(env, off_line)
    after = env.unwrapped.checkpoint().payload["suite"]
    assert after["board"]["feedback"] == LINE_HINT and not info["accepted"] and reward == 0
    after["board"]["feedback"] = before["board"]["feedback"]
    assert after == before
    for a in clicks[1:]:
        env.step(a)
    a, b = level.endpoints[move.pair]
    assert suite.board.state.paths[move.pair] == (
        move.cells if move.cells[0] == a else move.cells[::-1]
    )
    assert suite.board.ui is None and suite.board.feedback == ""
    assert env.unwrapped.evaluator.snapshots[-1]["potential"] == pytest.approx(1 / level.n_pairs)
    x, y = suite.targets()["restart"].center
    env.step(Click(x, y))
    assert suite.board.state == GAME.rules.initial_state(level) and suite.board.ui is None
    env.step({"type": "drag", "x0": 600, "y0": 400, "x1": 700, "y1": 400})
    assert suite.board.feedback == DRAG_HINT and suite.board.ui is None


def test_checkpoint_mid_path_restores_exactly(env, tmp_path):
    from puzzlegym import solvers
    from puzzlegym.env.checkpoint import Checkpoint

    suite = env.unwrapped.suite
    level = suite.board.level
    move = max(solvers.solve(level).moves, key=lambda m: len(m.cells))
    clicks = VIEW.actions_for_move(level, suite.board.state, None, move, BOARD_AREA)
    assert len(clicks) >= 3
    for a in clicks[:-1]:
        frame_then, *_ = env.step(a)
    drawn = suite.board.ui
    last_turn = path_clicks(move.cells)[-2]  # the path so far ends at its last turn
    upto = move.cells[: move.cells.index(last_turn) + 1]
    assert drawn == Drawing(move.pair, tuple(level.cell(x) for x in upto))
    path = tmp_path / "mid.json"
    env.unwrapped.checkpoint().save(path)
    final, *_ = env.step(clicks[-1])
    obs, _ = env.reset(options={"checkpoint": Checkpoint.load(path)})
    assert env.unwrapped.suite.board.ui == drawn
    assert np.array_equal(obs, frame_then)
    again, *_ = env.step(clicks[-1])
    assert np.array_equal(again, final)


def test_checkpoint_with_a_ui_that_does_not_fit_is_refused(env):
    from puzzlegym.base.errors import CheckpointError
    from puzzlegym.env.checkpoint import Checkpoint

    ckpt = env.unwrapped.checkpoint()
    payload = ckpt.copy_payload()
    payload["suite"]["board"]["ui"] = {"pair": "A", "cells": [[0, 0], [5, 5]]}
    forged = Checkpoint(ckpt.config, payload, ckpt.catalogue, ckpt.version)
    with pytest.raises(CheckpointError, match="ui"):
        env.reset(options={"checkpoint": forged})
    assert env.unwrapped.checkpoint().payload == ckpt.payload


def test_the_screen_shows_dots_paths_and_the_path_being_drawn(tmp_path):
    """A Hard board with its most colours: every dot shows its pair's colour; the finished
    paths are wide, the one being drawn narrower. (Saved as PNG for a look.)"""
    from puzzlegym import solvers
    from puzzlegym.screen.palette import PIECES
    from puzzlegym.screen.render import Canvas

    level = GAME.load_catalogue("Hard")[-1]
    sol = solvers.solve(level)
    state = R.initial_state(level)
    for m in sol.moves[:-1]:
        state = R.apply(level, state, m)
    last = sol.moves[-1]
    half = last.cells[: len(last.cells) // 2 + 1]
    ui = Drawing(last.pair, tuple(level.cell(x) for x in half))
    canvas = Canvas()
    canvas.render(VIEW.widgets(level, state, ui, BOARD_AREA))
    frame = canvas.frame.copy()
    Image.fromarray(frame).save(tmp_path / "hard.png")
    size = cell_rect(level, 0, BOARD_AREA).w
    for k, ends in enumerate(level.endpoints):
        for x in ends:
            cx, cy = cell_rect(level, x, BOARD_AREA).center
            assert tuple(frame[cy, cx - size * 28 // 100]) == PIECES[k].rgb, (k, x)

    def line_width(cell):
        r = cell_rect(level, cell, BOARD_AREA)
        colour = PIECES[
            last.pair
            if cell in half
            else next(k for k, p in enumerate(state.paths) if p and cell in p)
        ].rgb
        column = frame[r.y : r.y1, r.center[0]]
        row = frame[r.center[1], r.x : r.x1]
        return max(
            sum(tuple(px) == colour for px in column), sum(tuple(px) == colour for px in row)
        )

    finished = next(x for p in state.paths if p for x in p[1:-1])
    assert line_width(half[1]) < line_width(finished)


def test_stable_baselines3_accepts_the_wrapped_env():
    import warnings

    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    from puzzlegym.wrappers import make_sb3_env

    env = make_sb3_env(
        "LongPuzzle/ColorConnect-Easy",
        size=(84, 84),
        grid=(4, 4),
        budget_s=50,
        start="board",
        level=1,
    )
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sb3_check_env(env, warn=True)
        assert [str(w.message) for w in caught if "stable_baselines3" in w.filename] == []
    finally:
        env.close()
