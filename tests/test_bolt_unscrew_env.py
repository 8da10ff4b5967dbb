"""Bolt Unscrew through GUI actions: selection clicks, rejected clicks, the picture agreeing
with the rules, the deadlock certificate and dead-end runs in the evaluator record, restart,
checkpoints and determinism."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlegym.base.actions import Click, to_dict
from puzzlegym.envs.bolt_unscrew import rules as R
from puzzlegym.envs.bolt_unscrew import view as V
from puzzlegym.screen.layout import BOARD_AREA

from .conftest import frame_hash

HARD = "LongPuzzle/BoltUnscrew-Hard"
EASY = "LongPuzzle/BoltUnscrew-Easy"


def click_anchor(env, a):
    b = env.unwrapped.suite.board
    return env.step(to_dict(Click(*V.anchor_xy(b.level, a, BOARD_AREA))))


def trap_moves(level):
    """Unscrew boards without releasing any, until no move is left (fill the anchors)."""
    state, moves = R.initial_state(level), []
    while True:
        legal = [
            m for m in R.legal_moves(level, state) if level.holed_boards[m[0]] & state.remaining
        ]
        if not legal:
            assert not R.legal_moves(level, state)
            return moves, state
        keep = [m for m in legal if R.apply(level, state, m).remaining == state.remaining]
        move = (keep or legal)[0]
        moves.append(move)
        state = R.apply(level, state, move)


def test_select_deselect_and_rejected_clicks(make_env):
    env = make_env(HARD, start="board", level=1)
    env.reset(seed=0)
    u = env.unwrapped
    b = (
        u.suite.board
    )  # the board as reset left it (a board is immutable: each change makes a new one)
    level, s0 = b.level, b.state
    pinned = next(a for a in R.bits(s0.occupied) if not R.selectable(level, s0, a))
    free = next(R.bits(R.available(level, s0)))
    blocked = next(
        a for a in R.bits(level.all_anchors & ~s0.occupied & level.covered(s0.remaining))
    )
    top = next(a for a in R.bits(s0.occupied) if R.selectable(level, s0, a))
    before = frame_hash(u.backend.observe(u.suite))
    # a pinned screw: nothing selected, neutral feedback
    _, _, _, _, info = click_anchor(env, pinned)
    assert (
        u.suite.board.ui is None
        and u.suite.board.state == s0
        and info["feedback"] == R.COVERED_SCREW_REASON
    )
    # an empty anchor with nothing selected
    _, _, _, _, info = click_anchor(env, free)
    assert u.suite.board.ui is None and info["feedback"] == V.NEED_SCREW
    # select, deselect: the ring appears and goes
    obs, *_ = click_anchor(env, top)
    assert u.suite.board.ui == top
    ring = obs.copy()
    obs, *_ = click_anchor(env, top)
    assert u.suite.board.ui is None
    assert frame_hash(ring) != before
    # select, then a blocked anchor: rejected, board unchanged, selection kept
    click_anchor(env, top)
    _, reward, _, _, info = click_anchor(env, blocked)
    assert u.suite.board.state == s0 and u.suite.board.ui == top and reward == 0.0
    assert info["feedback"] == R.BAD_TARGET_REASON and info["accepted"] is False
    # a click off every anchor changes nothing
    _, _, _, _, info = env.step({"type": "click", "x": BOARD_AREA.x + 2, "y": BOARD_AREA.y + 2})
    assert u.suite.board.state == s0 and u.suite.board.ui == top
    # then a free anchor: the move happens and the selection clears
    click_anchor(env, free)
    assert u.suite.board.state == R.apply(level, s0, (top, free)) and u.suite.board.ui is None


def test_picture_agrees_with_the_rules(make_env):
    env = make_env(HARD, start="board", level=1)
    obs, _ = env.reset(seed=0)
    level = env.unwrapped.suite.board.level
    s0 = R.initial_state(level)
    cov = level.covered(s0.remaining)
    for a in range(len(level.anchors)):
        x, y = V.anchor_xy(level, a, BOARD_AREA)
        px = tuple(int(v) for v in obs[y, x])
        occupied = s0.occupied >> a & 1
        if not occupied and not cov >> a & 1:
            assert px == V.ANCHOR, a  # a free anchor shows dark
        elif occupied and R.selectable(level, s0, a):
            assert px == V.SCREW_SLOT, a  # the screw's cross at its centre
        elif not occupied and cov >> a & 1 and not any(a in bd.holes for bd in level.boards):
            # a hidden anchor under a board without a hole: wood over it
            assert px != V.ANCHOR and px[0] > px[2] + 15, (a, px)  # warm wood, not steel


def test_fill_the_last_anchor_records_certificate_and_dead_end_run(make_env):
    env = make_env(HARD, start="board", level=1)
    env.reset(seed=0)
    u = env.unwrapped
    level = u.suite.board.level
    moves, final = trap_moves(level)
    assert R.deadlock_certificate(level, final)
    free_before = []
    for move in moves:
        free_before.append(u.evaluator.snapshots[-1]["details"]["free_anchors"])
        for action in u.game.view.actions_for_move(
            level, u.suite.board.state, u.suite.board.ui, move, BOARD_AREA
        ):
            env.step(to_dict(action))
    assert u.suite.board.state == final
    snap = u.evaluator.snapshots[-1]
    assert snap["details"]["deadlock_certificate"] is True
    assert snap["details"]["free_anchors"] == 0 and snap["dead_end"] is True
    assert snap["details"]["boards_removed"] == 0
    assert free_before[0] == R.free_anchors(level, R.initial_state(level))
    assert free_before[-1] == 1  # the fatal last free anchor
    # the certificate holds only at the end; the exhaustive one may hold earlier
    flags = [s["details"]["deadlock_certificate"] for s in u.evaluator.snapshots]
    assert flags[-1] and not any(flags[:-1])
    a = u.evaluator.attempt
    assert a["dead_end"] and a["moves"] == len(moves)
    run = a["runs"][0]
    assert run["recovered_by"] is None and list(run["fatal_move"]) in [list(m) for m in moves]
    # further moves are simply rejected, the game announces nothing
    _, _, _, _, info = click_anchor(env, next(R.bits(final.occupied)))
    # restart closes the attempt with the run recovered by the restart
    env.step(to_dict(Click(*u.suite.targets()["restart"].center)))
    closed = u.evaluator.attempts[-1]
    assert closed["end"] == "restart" and closed["runs"][0]["recovered_by"] == "restart"
    assert u.suite.board.state == R.initial_state(level)
    assert u.evaluator.snapshots[-1]["details"]["deadlock_certificate"] is False


def test_checkpoint_with_selection_round_trips(make_env):
    env = make_env(EASY, start="board", level=2)
    env.reset(seed=0)
    u = env.unwrapped
    b = u.suite.board
    top = next(a for a in R.bits(b.state.occupied) if R.selectable(b.level, b.state, a))
    obs, *_ = click_anchor(env, top)
    ckpt = u.checkpoint()
    env.step({"type": "click", "x": BOARD_AREA.x + 1, "y": BOARD_AREA.y + 1})
    click_anchor(env, top)  # deselect
    obs2, _ = env.reset(options={"checkpoint": ckpt})
    assert u.suite.board.ui == top
    assert np.array_equal(obs, obs2)


@pytest.mark.parametrize("tier", ["Easy", "Hard"])
def test_every_catalogue_level_renders_distinct_boards(make_env, tier):
    env = make_env(f"LongPuzzle/BoltUnscrew-{tier}", start="board", level=1)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (900, 1280, 3)
    assert len(np.unique(obs.reshape(-1, 3), axis=0)) > 50
