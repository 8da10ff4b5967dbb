"""The Bolt Unscrew reader (envs/bolt_unscrew/reader.py) against the env's truth:
every catalogue level's first board, selections, seeded walks played through the reader's
own clicks, every level solved by replanning on the reading alone, what stays hidden by
design, tampered frames, and the browser backend's frames."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlegym import solvers
from puzzlegym.envs.bolt_unscrew import rules
from puzzlegym.envs.bolt_unscrew.reader import READER
from puzzlegym.vision.pixels import ReadError
from tests.vision_checks import board_env, check_reading, first_boards, walk

GAME = "BoltUnscrew"
BOARDS = first_boards(GAME)


def to_reading(reading, board, move):
    """The true board's move as the reading's (anchors are the same lattice points)."""
    return tuple(reading.level.anchors.index(board.level.anchors[a]) for a in move)


def same_selection(reading, board):
    return reading.geometry.selected == (
        None if board.ui is None else board.level.anchors[board.ui]
    )


def pickable(reading):
    lv, st = reading.level, reading.state
    return [a for a in rules.bits(st.occupied) if rules.selectable(lv, st, a)]


@pytest.mark.parametrize(("tier", "level"), BOARDS)
def test_every_first_board_reads_what_the_pixels_show(tier, level):
    env, obs = board_env(GAME, tier, level)
    board = env.unwrapped.probe().board
    reading = check_reading(READER, env, obs, tier)
    assert reading.geometry.size == board.level.size
    assert reading.geometry.selected is None
    # every move the rules allow is a move of the reading, between the same lattice points
    true_moves = {
        tuple(board.level.anchors[a] for a in m)
        for m in rules.legal_moves(board.level, board.state)
    }
    read_moves = {
        tuple(reading.level.anchors[a] for a in m)
        for m in rules.legal_moves(reading.level, reading.state)
    }
    assert true_moves <= read_moves
    assert {m for m in read_moves if m[1] not in reading.geometry.assumed_anchors} == true_moves
    env.close()


def test_what_stays_hidden_is_left_out_of_public_and_assumed_for_planning():
    """Easy 2's screw at (5, 2) sits between two pads (a sliver of its head shows) and Hard
    7's bar from (1, 2) to (3, 0) is held by two such screws: public() leaves them out, and
    the reading assumes screws in the hidden end holes of the bar that shows none."""
    env, obs = board_env(GAME, "Easy", 2)
    board = env.unwrapped.probe().board
    a = board.level.anchors.index((5, 2))
    assert board.state.occupied >> a & 1  # the screw is there
    _, looks, _ = READER.public(board.level, board.state)
    assert (5, 2) not in {q for q, _ in looks}
    reading = check_reading(READER, env, obs, "Easy")
    assert reading.geometry.assumed_screws == ()  # its bar shows another screw
    env.close()
    env, obs = board_env(GAME, "Hard", 7)
    board = env.unwrapped.probe().board
    reading = check_reading(READER, env, obs, "Hard")
    assert reading.geometry.assumed_screws == ((3, 0), (1, 2))
    for q in reading.geometry.assumed_screws:
        assert board.state.occupied >> board.level.anchors.index(q) & 1
    # the anchors assumed under boards include the ones the level hides there
    hidden = {
        q
        for i, q in enumerate(board.level.anchors)
        if not board.state.occupied >> i & 1
        and q not in {p for p, _ in READER.public(board.level, board.state)[1]}
    }
    assert hidden and hidden <= set(reading.geometry.assumed_anchors)
    env.close()


@pytest.mark.parametrize(("tier", "level"), [("Easy", 1), ("Hard", 3)])
def test_every_selection_reads(tier, level):
    env, obs = board_env(GAME, tier, level)
    reading = READER.read(obs, tier)
    for a in pickable(reading):
        point = reading.level.anchors[a]
        x, y = reading.geometry.pixel(point)
        obs, *_ = env.step({"type": "click", "x": x, "y": y})
        board = env.unwrapped.probe().board
        assert board.level.anchors[board.ui] == point
        selected = check_reading(READER, env, obs, tier)
        assert selected.geometry.selected == point
        obs, *_ = env.step({"type": "click", "x": x, "y": y})
        assert env.unwrapped.probe().board.ui is None
        assert READER.read(obs, tier).geometry.selected is None
    env.close()


def _select_some_screw(rng, env, reading):
    if rng.random() < 0.5:
        return None
    a = rng.choice(pickable(reading))
    x, y = reading.geometry.pixel(reading.level.anchors[a])
    obs, *_ = env.step({"type": "click", "x": x, "y": y})
    assert env.unwrapped.probe().board.ui is not None
    return obs


@pytest.mark.parametrize(("tier", "level"), BOARDS)
def test_seeded_walks_read_every_board_and_play_every_move(tier, level):
    read = sum(
        walk(
            READER,
            GAME,
            tier,
            level,
            seed,
            10,
            poke=_select_some_screw,
            translate=to_reading,
            same_ui=same_selection,
        )
        for seed in range(2)
    )
    assert read >= 10


@pytest.mark.parametrize(("tier", "level"), BOARDS)
def test_every_level_is_solved_by_replanning_on_the_reading_alone(tier, level):
    """Each turn: read the frame, solve the reading (what it assumes included), play the
    plan's first move with the reader's clicks. Every level ends solved, in its optimal
    number of moves."""
    env, obs = board_env(GAME, tier, level)
    optimal = len(solvers.solve(env.unwrapped.probe().board.level).moves)
    moves = 0
    while not (env.unwrapped.probe().snapshot or {}).get("solved"):
        assert moves < 2 * optimal
        reading = READER.read(obs, tier)
        move = solvers.solve(reading.level, reading.state).moves[0]
        for action in READER.actions(reading, move):
            obs, *_ = env.step(action)
        moves += 1
    assert moves == optimal
    env.close()


def test_wood_no_board_fits_is_reported():
    """A disc of layer-1 wood painted on the bare plate (too small for a pad, too round for a
    bar) fits no board: an error naming where, never a board made up."""
    env, obs = board_env(GAME, "Easy", 1)
    reading = READER.read(obs, "Easy")
    env.close()
    frame = obs.copy()
    x, y = reading.geometry.pixel((5, 0))  # bare plate in Easy 1
    r = reading.geometry.pitch // 3
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
    disc = xx * xx + yy * yy <= r * r
    frame[y - r : y + r + 1, x - r : x + r + 1][disc] = (186, 106, 58)
    with pytest.raises(ReadError, match=r"layer 1's wood near \(\d+, \d+\) fits no pad or bar"):
        READER.read(frame, "Easy")


def test_actions_click_the_screw_unless_selected_and_reject_bad_moves():
    env, obs = board_env(GAME, "Easy", 1)
    reading = READER.read(obs, "Easy")
    lv, st = reading.level, reading.state
    src, dst = next(iter(rules.legal_moves(lv, st)))
    (sx, sy), (dx, dy) = (
        reading.geometry.pixel(lv.anchors[src]),
        reading.geometry.pixel(lv.anchors[dst]),
    )
    assert READER.actions(reading, (src, dst)) == [
        {"type": "click", "x": sx, "y": sy},
        {"type": "click", "x": dx, "y": dy},
    ]
    obs, *_ = env.step({"type": "click", "x": sx, "y": sy})
    selected = READER.read(obs, "Easy")
    assert READER.actions(selected, (src, dst)) == [{"type": "click", "x": dx, "y": dy}]
    for bad in [(src,), (src, len(lv.anchors)), (-1, dst), (True, dst), "ab", None]:
        with pytest.raises(ValueError, match="move: expected"):
            READER.actions(selected, bad)
    env.close()


@pytest.mark.browser
def test_browser_frames_read_identically():
    native, a = board_env(GAME, "Hard", 1)
    browser, b = board_env(GAME, "Hard", 1, backend="browser")
    try:
        ra, rb = READER.read(a, "Hard"), READER.read(b, "Hard")
        assert (ra.level, ra.state, ra.geometry) == (rb.level, rb.state, rb.geometry)
        point = ra.level.anchors[pickable(ra)[0]]
        x, y = ra.geometry.pixel(point)
        a, *_ = native.step({"type": "click", "x": x, "y": y})
        b, *_ = browser.step({"type": "click", "x": x, "y": y})
        ra, rb = READER.read(a, "Hard"), READER.read(b, "Hard")
        assert ra.geometry.selected == rb.geometry.selected == point
        assert (ra.level, ra.state, ra.geometry) == (rb.level, rb.state, rb.geometry)
    finally:
        native.close()
        browser.close()
