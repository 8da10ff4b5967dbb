"""Truck Escape rules on small hand-written lots (exact expected states), strict level and state
documents, and Hypothesis invariants: random play never reaches an unsolvable board, and a
level validates exactly when its trucks can all leave."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlegym.base.errors import LevelError
from puzzlegym.envs.truck_escape import rules as R
from puzzlegym.envs.truck_escape import solver
from puzzlegym.envs.truck_escape.generator import park
from puzzlegym.envs.truck_escape.rules import Level, State, Truck
from puzzlegym.game import Rejected

#   col: 0 1 2 3 4
#  row 0 3 0 . . .      truck 0 faces down (cab at [1, 1]); its path [2, 1], [3, 1] holds truck 1
#  row 1 . 0 . . .      truck 1 faces left; its path [2, 0] holds truck 2
#  row 2 2 1 1 . .      truck 2 faces up; its path [1, 0], [0, 0] holds truck 3
#  row 3 . . 4 4 4      truck 3 faces left from the edge, truck 4 right to the edge: both free
CHAIN = Level(
    id="chain",
    tier="Default",
    rows=4,
    cols=5,
    trucks=(
        Truck(1, 1, "down", 2),
        Truck(2, 1, "left", 2),
        Truck(2, 0, "up", 1),
        Truck(0, 0, "left", 1),
        Truck(3, 4, "right", 3),
    ),
)
# the same lot with truck 3 turned right: its path [0, 1].. now holds truck 0, closing a cycle
CYCLE = Level(
    "cycle", "Default", 4, 5, CHAIN.trucks[:3] + (Truck(0, 0, "right", 1),) + CHAIN.trucks[4:]
)


def mask(*trucks):
    return sum(1 << i for i in trucks)


def test_cells_paths_and_blockers():
    assert CHAIN.game == "TruckEscape" and Level.game == "TruckEscape"
    assert CHAIN.trucks[0].cells == ((1, 1), (0, 1))
    assert CHAIN.trucks[4].cells == ((3, 4), (3, 3), (3, 2))
    assert CHAIN.trucks[0].path(4, 5) == ((2, 1), (3, 1))
    assert CHAIN.trucks[2].path(4, 5) == ((1, 0), (0, 0))
    assert CHAIN.trucks[3].path(4, 5) == ()
    assert CHAIN.blockers == (mask(1), mask(2), mask(3), 0, 0)
    assert CHAIN.occupant[(2, 2)] == 1 and (1, 0) not in CHAIN.occupant
    CHAIN.validate()


def test_exact_play():
    s0 = R.initial_state(CHAIN)
    assert s0 == State(0b11111)
    assert R.legal_moves(CHAIN, s0) == (3, 4)
    assert R.apply(CHAIN, s0, 0) == Rejected(R.BLOCKED_REASON)
    assert R.apply(CHAIN, s0, 2) == Rejected(R.BLOCKED_REASON)
    s1 = R.apply(CHAIN, s0, 3)
    assert s1 == State(mask(0, 1, 2, 4))
    assert R.legal_moves(CHAIN, s1) == (2, 4)
    assert R.apply(CHAIN, s1, 3) == Rejected(R.GONE_REASON)
    s2 = R.apply(CHAIN, s1, 2)
    assert s2 == State(mask(0, 1, 4)) and R.potential(CHAIN, s2) == pytest.approx(2 / 5)
    s3 = R.apply(CHAIN, R.apply(CHAIN, s2, 1), 0)
    assert s3 == State(mask(4)) and not R.is_solved(CHAIN, s3)
    s4 = R.apply(CHAIN, s3, 4)
    assert s4 == State(0) and R.is_solved(CHAIN, s4) and R.potential(CHAIN, s4) == 1.0
    assert R.legal_moves(CHAIN, s4) == ()


def test_solver_order_chain_and_certificate():
    sol = solver.solve(CHAIN)
    assert sol.moves == (3, 4, 2, 1, 0) and sol.optimal and sol.length == 5
    assert solver.rounds(CHAIN) == ([[3, 4], [2], [1], [0]], 0)
    assert solver.longest_chain(CHAIN) == 4
    assert solver.longest_chain(CHAIN, State(mask(0, 1))) == 2
    assert solver.solve(CHAIN, State(mask(0, 4))).moves == (0, 4)
    assert solver.certify(CHAIN, R.initial_state(CHAIN)) == "solvable"
    assert solver.blocking_graph(CHAIN) == {0: [1], 1: [2], 2: [3], 3: [], 4: []}


def test_a_blocking_cycle_is_found_rejected_and_certified_dead():
    assert R.blocking_cycle(CHAIN) == []
    assert R.blocking_cycle(CYCLE) == [0, 1, 2, 3]
    with pytest.raises(
        LevelError,
        match=r"trucks\[0\], trucks\[1\], trucks\[2\], trucks\[3\] block one another in a cycle",
    ):
        CYCLE.validate()
    with pytest.raises(LevelError, match="cycle"):
        Level.from_json(CYCLE.to_json())
    # the solver and the certifier decide from the board itself
    s0 = R.initial_state(CYCLE)
    assert solver.certify(CYCLE, s0) == "dead_end"
    with pytest.raises(solver.Unsolvable, match="0, 1, 2, 3"):
        solver.solve(CYCLE)
    assert solver.certify(CYCLE, R.apply(CYCLE, s0, 4)) == "dead_end"
    # two trucks nose to nose
    duel = Level("duel", "Default", 2, 4, (Truck(0, 0, "right", 1), Truck(0, 3, "left", 1)))
    assert R.blocking_cycle(duel) == [0, 1]


def test_bad_moves_raise():
    s0 = R.initial_state(CHAIN)
    for move in (-1, 5, "3", 1.0, True, None):
        with pytest.raises(ValueError, match=r"move: expected an integer 0..4 \(a truck index\)"):
            R.apply(CHAIN, s0, move)


def test_json_round_trip():
    doc = CHAIN.to_json()
    assert doc["trucks"][0] == {"cab": [1, 1], "facing": "down", "length": 2}
    assert Level.from_json(doc) == CHAIN
    assert Level.from_json({**doc, "longest_chain": 4}) == CHAIN


@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda d: d.pop("rows"), "missing key"),
        (lambda d: d.update(extra=1), "unexpected key"),
        (lambda d: d.update(tier="Hard"), "tier: expected one of Default"),
        (lambda d: d.update(rows=1), "rows: expected an integer 2..16"),
        (lambda d: d.update(cols=True), "cols: expected an integer 2..16"),
        (lambda d: d.update(trucks=[]), "trucks: expected at least one truck"),
        (lambda d: d.update(trucks="0"), "trucks: expected a list"),
        (lambda d: d.update(longest_chain=-1), "longest_chain: expected an integer >= 0, got -1"),
        (lambda d: d["trucks"].__setitem__(1, [2, 1]), r"trucks\[1\]: expected an object"),
        (lambda d: d["trucks"][1].pop("length"), r"trucks\[1\]: missing key\(s\) length"),
        (lambda d: d["trucks"][1].update(speed=2), r"trucks\[1\]: unexpected key\(s\) speed"),
        (
            lambda d: d["trucks"][1].update(facing="north"),
            r"trucks\[1\]\.facing: expected one of up, down",
        ),
        (
            lambda d: d["trucks"][1].update(length=4),
            r"trucks\[1\]\.length: expected an integer 1..3",
        ),
        (lambda d: d["trucks"][1].update(cab=[2]), r"trucks\[1\]\.cab: expected \[row, col\]"),
        (
            lambda d: d["trucks"][1].update(cab=[4, 1]),
            r"trucks\[1\]: its cab cell \[4, 1\] is outside the 4x5 grid",
        ),
        (
            lambda d: d["trucks"][4].update(length=3, cab=[3, 1]),
            r"trucks\[4\]: its tail cell \[3, -1\] is outside",
        ),
        (
            lambda d: d["trucks"][3].update(cab=[0, 1]),
            r"trucks\[3\]: cell \[0, 1\] is also occupied by trucks\[0\]",
        ),
        (
            lambda d: d["trucks"].extend([{"cab": [0, 0], "facing": "up", "length": 1}] * 20),
            "trucks: at most 20 fit",
        ),
    ],
)
def test_bad_level_documents_name_the_field(change, fragment):
    doc = copy.deepcopy(CHAIN.to_json())
    change(doc)
    with pytest.raises(LevelError, match=fragment):
        Level.from_json(doc)


def test_state_documents_are_strict_and_reachable_only():
    s = State(mask(0, 1, 4))
    assert R.state_to_json(CHAIN, s) == {"remaining": [0, 1, 4]}
    assert R.state_from_json(CHAIN, {"remaining": [4, 0, 1]}) == s
    assert R.state_from_json(CHAIN, {"remaining": []}) == State(0)
    bad = [
        ([], "state: expected a JSON object"),
        ({"remaining": [0], "x": 1}, "unexpected key"),
        ({}, "missing key remaining"),
        ({"remaining": "0"}, "remaining: expected a list"),
        ({"remaining": [5]}, r"remaining\[0\]: expected an integer 0..4 \(a truck index\), got 5"),
        ({"remaining": [0, 0]}, r"remaining\[1\]: truck 0 is listed twice"),
        # truck 1 gone while truck 2, which blocks it, is still there
        (
            {"remaining": [0, 2, 3, 4]},
            "truck 1 is gone but truck 2, which blocks it, is still there",
        ),
    ]
    for doc, fragment in bad:
        with pytest.raises(ValueError, match=fragment):
            R.state_from_json(CHAIN, doc)


def test_level_equality_ignores_cached_tables():
    fresh = Level(CHAIN.id, CHAIN.tier, CHAIN.rows, CHAIN.cols, CHAIN.trucks)
    _ = CHAIN.blockers, CHAIN.occupant
    assert fresh == CHAIN and hash(fresh) == hash(CHAIN)


# ----------------------------------------------------------------------------- invariants


@st.composite
def parked_levels(draw):
    """Levels from the generator's backwards parking, on random small lots."""
    rows = draw(st.integers(2, 7))
    cols = draw(st.integers(2, 7))
    n = draw(st.integers(1, 14))
    seed = draw(st.integers(0, 2**32))
    trucks = park(random.Random(seed), rows, cols, n)
    return Level("parked", "Default", rows, cols, tuple(trucks))


@st.composite
def scattered_levels(draw):
    """Trucks dropped anywhere they fit, in any heading: cycles are common."""
    rows = draw(st.integers(2, 6))
    cols = draw(st.integers(2, 6))
    taken, trucks = set(), []
    for _ in range(draw(st.integers(1, 10))):
        truck = Truck(
            draw(st.integers(0, rows - 1)),
            draw(st.integers(0, cols - 1)),
            draw(st.sampled_from(R.DIRECTIONS)),
            draw(st.integers(1, 3)),
        )
        cells = truck.cells
        if all(0 <= r < rows and 0 <= c < cols and (r, c) not in taken for r, c in cells):
            taken.update(cells)
            trucks.append(truck)
    if not trucks:
        trucks = [Truck(0, 0, "up", 1)]
    return Level("scattered", "Default", rows, cols, tuple(trucks))


@settings(max_examples=150, deadline=None)
@given(level=parked_levels(), clicks=st.lists(st.integers(0, 200), max_size=60))
def test_random_play_never_reaches_an_unsolvable_board(level, clicks):
    """Every board random play reaches (any clicks, blocked ones included) is solvable: the
    certifier says so, the solver clears it with one request per remaining truck, and the
    board is one the state document accepts as reachable."""
    level.validate()  # parked backwards: never a cycle
    state = R.initial_state(level)
    progress = R.potential(level, state)
    for click in clicks:
        move = click % level.n_trucks
        result = R.apply(level, state, move)
        if isinstance(result, Rejected):
            assert not R.can_leave(level, state, move)
            continue
        assert move in R.legal_moves(level, state)
        assert result.remaining == state.remaining & ~(1 << move)
        state = result
        assert R.potential(level, state) > progress
        progress = R.potential(level, state)
        assert solver.certify(level, state) == "solvable"
        assert R.is_solved(level, state) or R.legal_moves(level, state)
        sol = solver.solve(level, state)
        assert sol.length == state.remaining.bit_count()
    # and the solver's order from wherever play stopped clears the lot
    for move in solver.solve(level, state).moves:
        state = R.apply(level, state, move)
    assert R.is_solved(level, state)


@settings(max_examples=200, deadline=None)
@given(level=scattered_levels())
def test_a_level_validates_exactly_when_every_truck_can_leave(level):
    cycle = R.blocking_cycle(level)
    verdict = solver.certify(level, R.initial_state(level))
    if cycle:
        assert verdict == "dead_end"
        # each truck of the cycle is blocked by the next, the last by the first
        for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
            assert level.blockers[a] >> b & 1
        with pytest.raises(LevelError, match="cycle"):
            level.validate()
    else:
        assert verdict == "solvable"
        level.validate()
        assert solver.solve(level).length == level.n_trucks


@settings(max_examples=100, deadline=None)
@given(level=parked_levels())
def test_longest_chain_is_the_longest_path_of_the_blocking_graph(level):
    graph = solver.blocking_graph(level)
    memo: dict[int, int] = {}

    def longest_from(i):  # trucks in the longest chain starting at i (i blocked by the next)
        if i not in memo:
            memo[i] = 1 + max((longest_from(j) for j in graph[i]), default=0)
        return memo[i]

    assert solver.longest_chain(level) == max(longest_from(i) for i in graph)
