"""Nut and Bolt rules with exact expected boards, the view's clicks (select, lift, deselect,
rejection), undo through the env, JSON strictness and the potential."""

from __future__ import annotations

import pytest

from puzzlegym.base.errors import LevelError
from puzzlegym.envs.nut_and_bolt import GAME
from puzzlegym.envs.nut_and_bolt import rules as R
from puzzlegym.envs.nut_and_bolt.view import PALETTE, bolt_rects
from puzzlegym.game import Rejected
from puzzlegym.screen.layout import BOARD_AREA

# colours 0, 1, 2; capacity 4; bolts bottom -> top
LEVEL = R.Level(
    "t",
    "Easy",
    4,
    ((0, 1, 1, 1), (2, 2, 0, 0), (0, 2), (2, 1), ()),
)


def board(*bolts):
    return R.State(tuple(tuple(b) for b in bolts))


def test_whole_run_onto_same_colour_top_and_onto_empty():
    s = R.initial_state(LEVEL)
    # bolt 1's top run (0, 0) cannot go onto bolt 3, whose top nut is a 1
    assert R.apply(LEVEL, s, (1, 3)) == Rejected(R.COLOUR_REASON)
    # the top run of bolt 0 is three 1s; onto the empty bolt they all move
    assert R.apply(LEVEL, s, (0, 4)) == board((0,), (2, 2, 0, 0), (0, 2), (2, 1), (1, 1, 1))
    # onto bolt 3 (top 1, room 2): a partial transfer of two, one 1 stays behind
    assert R.apply(LEVEL, s, (0, 3)) == board((0, 1), (2, 2, 0, 0), (0, 2), (2, 1, 1, 1), ())


def test_partial_transfer_then_rest_and_full_bolt_refused():
    s = R.apply(LEVEL, R.initial_state(LEVEL), (0, 3))
    assert R.transfer_count(LEVEL, s, (0, 3)) == 0
    assert R.apply(LEVEL, s, (0, 3)) == Rejected(R.FULL_REASON)
    s = R.apply(LEVEL, s, (2, 4))  # single 2 onto the empty bolt
    assert s == board((0, 1), (2, 2, 0, 0), (0,), (2, 1, 1, 1), (2,))
    s = R.apply(LEVEL, s, (1, 2))  # the run of two 0s joins the 0 on bolt 2
    assert s == board((0, 1), (2, 2), (0, 0, 0), (2, 1, 1, 1), (2,))
    s = R.apply(LEVEL, s, (4, 1))  # 2 onto 2s
    assert s == board((0, 1), (2, 2, 2), (0, 0, 0), (2, 1, 1, 1), ())
    # partial again: bolt 3's run of three 1s onto ... bolt 0 (top 1, room 2)
    s = R.apply(LEVEL, s, (3, 0))
    assert s == board((0, 1, 1, 1), (2, 2, 2), (0, 0, 0), (2, 1), ())
    assert R.apply(LEVEL, s, (0, 0)) == Rejected(R.SAME_BOLT_REASON)
    assert R.apply(LEVEL, s, (4, 0)) == Rejected(R.EMPTY_SOURCE_REASON)
    with pytest.raises(ValueError, match="move"):
        R.apply(LEVEL, s, (0, 9))


def test_legal_moves_match_apply():
    s = R.initial_state(LEVEL)
    legal = set(R.legal_moves(LEVEL, s))
    for i in range(5):
        for j in range(5):
            assert (not isinstance(R.apply(LEVEL, s, (i, j)), Rejected)) == ((i, j) in legal)


def test_solved_and_potential():
    lv = R.Level("p", "Easy", 3, ((0, 0, 0), (1, 1, 1), ()))
    assert R.is_solved(lv, R.initial_state(lv)) and R.potential(lv, R.initial_state(lv)) == 1.0
    s = board((0, 0), (1, 1, 1), (0,))
    assert not R.is_solved(lv, s)
    assert R.potential(lv, s) == pytest.approx((2 + 3) / 6)
    mixed = board((0, 1, 0), (1, 1), (0,))
    assert R.potential(lv, mixed) == pytest.approx((1 + 2) / 6)
    assert R.potential(LEVEL, R.initial_state(LEVEL)) == 0.0


def test_json_round_trip_and_strict_errors():
    doc = LEVEL.to_json()
    assert R.Level.from_json(doc) == LEVEL
    with pytest.raises(LevelError, match="capacity"):
        R.Level.from_json({**doc, "capacity": 1})
    with pytest.raises(LevelError, match="exactly 4 nuts"):
        R.Level.from_json({**doc, "bolts": [[0, 1, 1, 1], [2, 2, 0, 0], [0, 2], [2, 1], [0]]})
    with pytest.raises(LevelError, match="unexpected key"):
        R.Level.from_json({**doc, "colour": 3})
    s = R.apply(LEVEL, R.initial_state(LEVEL), (0, 3))
    assert R.state_from_json(LEVEL, R.state_to_json(LEVEL, s)) == s
    with pytest.raises(ValueError, match="bolts"):
        R.state_from_json(LEVEL, {"bolts": [[0]]})


def test_palette_has_a_colour_and_letter_for_every_nut_colour():
    assert len(PALETTE) >= R.MAX_COLOURS
    assert len({c.rgb for c in PALETTE}) == len(PALETTE)
    assert len({c.letter for c in PALETTE}) == len(PALETTE)


def click(env, bolt):
    u = env.unwrapped
    x, y = bolt_rects(u.suite.board.level, BOARD_AREA)[bolt].center
    return env.step({"type": "click", "x": x, "y": y})


def test_view_select_lift_deselect_reject_and_undo_through_the_env(make_env):
    env = make_env("LongPuzzle/NutAndBolt-Easy", level=1, start="board")
    obs0, _ = env.reset(seed=0)
    u = env.unwrapped
    b = u.suite.board
    level, start = b.level, b.state
    assert GAME.has_undo and "undo" in u.suite.targets()
    src = next(i for i, nuts in enumerate(start.bolts) if nuts)
    # select: the top run lifts (frame changes), deselect: back to the same frame
    obs1, *_, info = click(env, src)
    assert u.suite.board.ui == src and info["accepted"] and (obs1 != obs0).any()
    key = [w.key for w in GAME.view.widgets(level, start, src, BOARD_AREA) if w.id == f"bolt{src}"][
        0
    ]
    assert key[4] == R.top_run(start.bolts[src]) and key[5]
    obs2, *_ = click(env, src)
    assert u.suite.board.ui is None and (obs2 == obs0).all()
    # a rejected transfer: onto a full bolt of another colour
    dst = next(
        j
        for j, nuts in enumerate(start.bolts)
        if j != src and isinstance(R.apply(level, start, (src, j)), Rejected)
    )
    click(env, src)
    _, reward, *_, info = click(env, dst)
    assert u.suite.board.state == start and u.suite.board.ui == src
    assert info["feedback"] == R.apply(level, start, (src, dst)).reason
    assert info["accepted"] is False and reward == 0.0
    click(env, src)  # deselect
    # a transfer, then undo restores the board exactly
    move = R.legal_moves(level, start)[0]
    for a in GAME.view.actions_for_move(level, start, None, move, BOARD_AREA):
        env.step({"type": "click", "x": a.x, "y": a.y})
    after = R.apply(level, start, move)
    assert u.suite.board.state == after and u.suite.board.history == (start,)
    x, y = u.suite.targets()["undo"].center
    *_, info = env.step({"type": "click", "x": x, "y": y})
    assert u.suite.board.state == start and u.suite.board.history == ()
    assert info["evaluator"]["potential"] == R.potential(level, start)
