"""Maze Paint rules on small hand-written levels, plus a Hypothesis invariant."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlegym.base.errors import LevelError
from puzzlegym.envs.maze_paint import rules as R
from puzzlegym.envs.maze_paint.rules import DIRECTIONS, Level, State
from puzzlegym.game import Rejected

# A ring corridor around one wall block; width 5, so cell (r, c) has index 5 * r + c.
RING = Level(
    id="ring",
    tier="Easy",
    grid=(
        "#####",
        "#...#",
        "#.#.#",
        "#...#",
        "#####",
    ),
    start=(1, 1),
)

# No border: the grid's edge stops the ball. Width 3.
EDGE = Level(id="edge", tier="Easy", grid=("...", ".#."), start=(0, 0))


def bits(level, *cells):
    return sum(1 << level.index(r, c) for r, c in cells)


def test_geometry_and_precomputed_data():
    assert (RING.height, RING.width) == (5, 5)
    assert RING.game == "MazePaint" and Level.game == "MazePaint"
    assert RING.n_paintable == 8
    ring_cells = [(1, 1), (1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3)]
    assert RING.full_mask == bits(RING, *ring_cells)
    assert RING.slide_table[RING.index(1, 1) * 4 + 3] == (
        RING.index(1, 3),
        bits(RING, (1, 1), (1, 2), (1, 3)),
    )
    assert RING.slide_table[RING.index(1, 1) * 4 + 0] is None  # up: wall
    assert RING.slide_table[0] is None  # a wall cell has no slides
    assert EDGE.n_paintable == 5


def test_cached_data_does_not_affect_equality_or_hash():
    fresh = Level(RING.id, RING.tier, RING.grid, RING.start)
    _ = RING.slide_table, RING.full_mask
    assert fresh == RING and hash(fresh) == hash(RING)
    assert {fresh: 1}[RING] == 1
    assert Level("other", RING.tier, RING.grid, RING.start) != RING


def test_initial_state_and_legal_moves():
    s = R.initial_state(RING)
    assert s == State(ball=RING.index(1, 1), painted=bits(RING, (1, 1)))
    assert R.legal_moves(RING, s) == ("down", "right")
    assert R.legal_moves(EDGE, R.initial_state(EDGE)) == ("down", "right")
    mid = State(RING.index(1, 2), bits(RING, (1, 2)))  # mid-corridor: both sideways moves
    assert R.legal_moves(RING, mid) == ("left", "right")


def test_slide_stops_at_wall_and_paints_crossed_cells():
    s = R.apply(RING, R.initial_state(RING), "right")
    assert s == State(RING.index(1, 3), bits(RING, (1, 1), (1, 2), (1, 3)))
    s = R.apply(RING, s, "down")
    assert s == State(RING.index(3, 3), bits(RING, (1, 1), (1, 2), (1, 3), (2, 3), (3, 3)))
    s = R.apply(RING, s, "left")
    assert s.ball == RING.index(3, 1)
    assert not R.is_solved(RING, s)  # (2, 1) is still bare
    s = R.apply(RING, s, "up")
    assert s == State(RING.index(1, 1), RING.full_mask)
    assert R.is_solved(RING, s)


def test_slide_stops_at_grid_edge():
    s0 = R.initial_state(EDGE)
    s = R.apply(EDGE, s0, "right")
    assert s == State(EDGE.index(0, 2), bits(EDGE, (0, 0), (0, 1), (0, 2)))
    s = R.apply(EDGE, s0, "down")
    assert s == State(EDGE.index(1, 0), bits(EDGE, (0, 0), (1, 0)))


def test_no_move_is_rejected_and_changes_nothing():
    s0 = R.initial_state(RING)
    before = copy.copy(s0)
    out = R.apply(RING, s0, "up")
    assert isinstance(out, Rejected)
    assert out.reason == "The ball cannot roll that way"
    assert isinstance(R.apply(RING, s0, "left"), Rejected)
    assert s0 == before


def test_unknown_move_raises_naming_allowed_values():
    with pytest.raises(ValueError, match="up, down, left, right"):
        R.apply(RING, R.initial_state(RING), "north")
    with pytest.raises(ValueError, match="move: expected one of"):
        R.apply(RING, R.initial_state(RING), ["up"])


def test_potential_values():
    s = R.initial_state(EDGE)
    assert R.potential(EDGE, s) == 0.0
    s = R.apply(EDGE, s, "right")  # 3 of 5 painted
    assert R.potential(EDGE, s) == pytest.approx(0.5)
    s = R.apply(EDGE, s, "down")  # 4 of 5
    assert R.potential(EDGE, s) == pytest.approx(0.75)
    for move in ("up", "left", "down"):
        s = R.apply(EDGE, s, move)
    assert R.is_solved(EDGE, s) and R.potential(EDGE, s) == 1.0
    single = Level("one", "Easy", ("#.", "##"), (0, 1))
    assert single.n_paintable == 1
    assert R.is_solved(single, R.initial_state(single))
    assert R.potential(single, R.initial_state(single)) == 1.0


def test_solver_on_hand_level():
    from puzzlegym.solvers import certify, solve

    sol = solve(EDGE)
    assert sol.length == 4 and sol.optimal
    s = R.initial_state(EDGE)
    for move in sol.moves:
        s = R.apply(EDGE, s, move)
    assert R.is_solved(EDGE, s)
    assert solve(RING).length == 4
    assert certify(RING, R.initial_state(RING)) == "solvable"


# -- level JSON -------------------------------------------------------------------------


def test_level_json_round_trip():
    doc = RING.to_json()
    assert doc == {"id": "ring", "tier": "Easy", "grid": list(RING.grid), "start": [1, 1]}
    assert Level.from_json(doc) == RING
    assert Level.from_json(EDGE.to_json()) == EDGE
    assert Level.from_json({**doc, "optimal_slides": 4}) == RING  # catalogue key is accepted


def _doc(**changes):
    doc = RING.to_json()
    doc.update(changes)
    return doc


def _without(key):
    doc = RING.to_json()
    del doc[key]
    return doc


@pytest.mark.parametrize(
    ("doc", "pattern"),
    [
        ("not a dict", r"level: expected a JSON object"),
        (_without("start"), r"missing key\(s\) start"),
        (_without("grid"), r"missing key\(s\) grid"),
        (_doc(extra=1), r"unexpected key\(s\) extra"),
        (_doc(id=""), r"^id: "),
        (_doc(tier="Expert"), r"tier: expected one of Easy, Medium, Hard"),
        (_doc(grid="#...#"), r"grid: expected a list"),
        (_doc(grid=["#####", "#..#", "#####"]), r"grid: not rectangular, row 1"),
        (_doc(grid=["#####", "#.x.#", "#####"]), r"grid: row 1 contains 'x'"),
        (_doc(grid=["#####", "#...#", 5]), r"grid: row 2 must be a string"),
        (_doc(grid=["." * 5] * 17), r"grid: height must be 2\.\.16 rows, got 17"),
        (_doc(grid=["....."]), r"grid: height must be 2\.\.16 rows, got 1"),
        (_doc(grid=["." * 17] * 3), r"grid: width must be 2\.\.16 columns, got 17"),
        (_doc(grid=[".", "."], start=[0, 0]), r"grid: width must be 2\.\.16 columns, got 1"),
        (_doc(start=[5, 1]), r"start: \[5, 1\] is outside the 5x5 grid"),
        (_doc(start=[-1, 1]), r"start: \[-1, 1\] is outside"),
        (_doc(start=[0, 0]), r"start: \[0, 0\] is a wall"),
        (_doc(start=[1]), r"start: expected \[row, col\]"),
        (_doc(start=[1, True]), r"start: expected \[row, col\]"),
        (_doc(optimal_slides=-1), r"optimal_slides: expected an integer >= 0, got -1"),
        # the ball never stops above (1, 1), so nothing ever rolls over it
        (
            _doc(grid=["....", "#.##"], start=[0, 0]),
            r"grid: floor cell\(s\) \[1, 1\] can never be painted",
        ),
        # an isolated floor cell
        (_doc(grid=["#####", "#.#.#", "#####"], start=[1, 1]), r"\[1, 3\] can never be painted"),
    ],
)
def test_level_from_json_errors(doc, pattern):
    with pytest.raises(LevelError, match=pattern):
        Level.from_json(doc)


# -- state JSON -------------------------------------------------------------------------


def test_state_json_round_trip():
    s = R.apply(RING, R.apply(RING, R.initial_state(RING), "right"), "down")
    doc = R.state_to_json(RING, s)
    assert doc == {"ball": [3, 3], "painted": [[1, 1], [1, 2], [1, 3], [2, 3], [3, 3]]}
    assert R.state_from_json(RING, doc) == s
    s0 = R.initial_state(EDGE)
    assert R.state_from_json(EDGE, R.state_to_json(EDGE, s0)) == s0


@pytest.mark.parametrize(
    ("doc", "pattern"),
    [
        ([], r"state: expected a JSON object"),
        ({"ball": [1, 1]}, r"missing key\(s\) painted"),
        ({"ball": [1, 1], "painted": [[1, 1]], "x": 0}, r"unexpected key\(s\) x"),
        ({"ball": [0, 0], "painted": [[1, 1]]}, r"ball: \[0, 0\] is a wall"),
        ({"ball": [9, 1], "painted": [[1, 1]]}, r"ball: \[9, 1\] is outside"),
        ({"ball": "a", "painted": [[1, 1]]}, r"ball: expected \[row, col\]"),
        ({"ball": [1, 1], "painted": [[1, 1], [2, 2]]}, r"painted\[1\]: \[2, 2\] is a wall"),
        (
            {"ball": [1, 1], "painted": [[1, 1], [1, 1]]},
            r"painted\[1\]: cell \[1, 1\] is listed twice",
        ),
        ({"ball": [1, 1], "painted": {"a": 1}}, r"painted: expected a list"),
        ({"ball": [1, 3], "painted": [[1, 1]]}, r"the ball's cell \[1, 3\] must be painted"),
        ({"ball": [1, 3], "painted": [[1, 3]]}, r"the start cell \[1, 1\] must be painted"),
    ],
)
def test_state_from_json_errors(doc, pattern):
    with pytest.raises(ValueError, match=pattern):
        R.state_from_json(RING, doc)


# -- invariant ----------------------------------------------------------------------------

MAZE = Level(
    id="maze",
    tier="Easy",
    grid=(
        "########",
        "##.....#",
        "#..###.#",
        "#.#....#",
        "#.#.####",
        "#......#",
        "########",
    ),
    start=(3, 6),
)


@settings(max_examples=200, deadline=None)
@given(
    level=st.sampled_from([RING, EDGE, MAZE]),
    moves=st.lists(st.sampled_from(DIRECTIONS), max_size=60),
)
def test_random_move_sequences_keep_invariants(level, moves):
    level.validate()
    s = R.initial_state(level)
    for move in moves:
        out = R.apply(level, s, move)
        if isinstance(out, Rejected):
            assert move not in R.legal_moves(level, s)
            continue
        assert move in R.legal_moves(level, s)
        assert out.painted & s.painted == s.painted  # painted only grows
        assert out.painted & ~level.full_mask == 0  # painted cells are floor cells
        assert out.painted >> out.ball & 1  # the ball sits on a painted cell
        r, c = level.cell(out.ball)
        assert level.grid[r][c] == "."  # ... which is a floor cell
        s = out
