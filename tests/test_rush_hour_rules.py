"""Rush Hour rules: exact states after slides and rejections, the 36-character notation,
strict JSON, the potential from exact distances, and invariants of random play."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlegym.base.errors import LevelError
from puzzlegym.envs.rush_hour import rules as R
from puzzlegym.envs.rush_hour import solver
from puzzlegym.envs.rush_hour.catalogue import load_catalogue
from puzzlegym.game import Rejected

# A: the target car (row 2, cols 0-1); B: a vertical car in its way (col 2, rows 1-2);
# C: a truck under B (row 3, cols 0-2). Optimal: B up, A out (2 moves).
SMALL = R.Level.from_notation(
    "ooooooooBoooAABoooCCCooooooooooooooo",
    id="small",
    tier="Easy",
)


def test_notation_builds_the_vehicles_in_order():
    assert SMALL.vehicles == (
        R.Vehicle(2, 0, 2, True),
        R.Vehicle(1, 2, 2, False),
        R.Vehicle(3, 0, 3, True),
    )
    assert (SMALL.width, SMALL.height, SMALL.walls, SMALL.exit_position) == (6, 6, (), 4)
    assert R.initial_state(SMALL) == R.State((0, 1, 0))
    assert SMALL.to_notation() == "ooooooooBoooAABoooCCCooooooooooooooo"


def test_notation_with_walls_dots_and_letter_order():
    # letters out of order: vehicles are numbered A first, then alphabetically
    level = R.Level.from_notation("ZZ.x..Y.....YAA...Y.................", tier="Medium")
    assert level.vehicles[0] == R.Vehicle(2, 1, 2, True)
    assert level.vehicles[1:] == (R.Vehicle(1, 0, 3, False), R.Vehicle(0, 0, 2, True))
    assert level.walls == ((0, 3),)
    again = R.Level.from_notation(level.to_notation(), tier="Medium")
    assert again.walls == level.walls and set(again.vehicles) == set(level.vehicles)


def test_notation_of_the_hardest_published_board_round_trips():
    text = "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"
    level = R.Level.from_notation(text)
    assert level.n_vehicles == 12 and level.walls == ((0, 3),)
    assert level.target == R.Vehicle(2, 1, 2, True)
    assert R.Level.from_notation(level.to_notation()) == level


@pytest.mark.parametrize(
    "text, match",
    [
        ("AA" + "o" * 33, "36 for a 6×6 board"),
        ("o" * 36, "no target car"),
        ("ooooooooooooAAoooq" + "o" * 18, "character 17"),
        ("ooooooooooooAAoBoo" + "o" * 18, "vehicle 'B' covers 1 cell"),
        ("oBoooooooBooAAoooo" + "o" * 18, "not one straight line"),
        ("AoooooAooooo" + "o" * 24, "target car must be horizontal"),
        ("ooooooooooooooooAA" + "o" * 18, "already stands at the exit"),
        ("ooooooooooooAAooxo" + "o" * 18, "blocks the target car"),
        ("ooooooooooooAABBoo" + "o" * 18, "can never let it out"),
        ("BBBBoooooooooAAooo" + "o" * 18, "not one straight line"),
    ],
)
def test_notation_errors_name_the_problem(text, match):
    with pytest.raises(LevelError, match=match):
        R.Level.from_notation(text)


def test_legal_moves_and_exact_states():
    s0 = R.initial_state(SMALL)
    assert R.legal_moves(SMALL, s0) == ((1, 0), (2, 1), (2, 2), (2, 3))
    s1 = R.apply(SMALL, s0, (1, 0))
    assert s1 == R.State((0, 0, 0))
    assert R.legal_moves(SMALL, s1) == (
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 1),
        (2, 1),
        (2, 2),
        (2, 3),
    )
    s2 = R.apply(SMALL, s1, (0, 4))
    assert s2 == R.State((4, 0, 0)) and R.is_solved(SMALL, s2)
    assert not R.is_solved(SMALL, s1)
    # the truck slides any distance in one move; then B can go down
    s3 = R.apply(SMALL, s0, (2, 3))
    assert s3 == R.State((0, 1, 3))
    assert R.slide_range(SMALL, s3, 1) == (0, 4)


def test_rejections_change_nothing():
    s0 = R.initial_state(SMALL)
    assert R.apply(SMALL, s0, (0, 4)) == Rejected(R.BLOCKED_REASON)  # B is in the way
    assert R.apply(SMALL, s0, (1, 3)) == Rejected(R.BLOCKED_REASON)  # C is below B
    assert R.apply(SMALL, s0, (1, 1)) == Rejected(R.NO_SLIDE_REASON)
    assert R.initial_state(SMALL) == s0


@pytest.mark.parametrize(
    "move", [(3, 0), (0, 5), (-1, 0), (0, -1), (True, 1), (1,), "up", (0, 1.0), None]
)
def test_malformed_moves_raise(move):
    with pytest.raises(ValueError, match="move"):
        R.apply(SMALL, R.initial_state(SMALL), move)


def test_walls_block_slides():
    truck_level = R.Level.from_notation("ooooooooooooAAoooooooooxooBBBooooooo", tier="Easy")
    s = R.initial_state(truck_level)
    assert R.slide_range(truck_level, s, 1) == (0, 3)  # the wall at (3, 5) is in another row
    walled = R.Level.from_notation("ooooooooooooAAooooooooooxoBBBooooooo", tier="Easy")
    assert R.slide_range(walled, R.initial_state(walled), 1) == (1, 3)  # stops right of the wall


def test_potential_from_exact_distances():
    s0 = R.initial_state(SMALL)
    assert solver.distance(SMALL, s0) == 2
    assert R.potential(SMALL, s0) == 0.0
    s1 = R.apply(SMALL, s0, (1, 0))
    assert solver.distance(SMALL, s1) == 1 and R.potential(SMALL, s1) == 0.5
    s3 = R.apply(SMALL, s0, (2, 3))  # a detour: still 2 away (B up, A out)
    assert R.potential(SMALL, s3) == 0.0
    assert R.potential(SMALL, R.apply(SMALL, s1, (0, 4))) == 1.0


def test_potential_never_reaches_one_before_the_exit():
    level = load_catalogue("Hard")[0]
    table = solver.cluster_table(level)
    packed = solver.packer(level)
    values = [R.potential(level, R.State(packed.decode(k))) for k in list(table.distances)[:3000]]
    solved = [R.is_solved(level, R.State(packed.decode(k))) for k in list(table.distances)[:3000]]
    assert all(0.0 <= v <= R.POTENTIAL_CAP for v, s in zip(values, solved, strict=True) if not s)
    assert all(v == 1.0 for v, s in zip(values, solved, strict=True) if s)


# ----------------------------------------------------------------------------- JSON


def level_doc() -> dict:
    return {
        "id": "j",
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


def test_json_round_trip_and_the_documented_example():
    level = R.Level.from_json(level_doc())
    assert R.Level.from_json(level.to_json()) == level
    assert level.walls == ((5, 5),) and level.vehicles[1] == R.Vehicle(0, 2, 3, False)
    # walls are optional; catalogue metadata is accepted
    doc = {k: v for k, v in level_doc().items() if k != "walls"}
    assert R.Level.from_json({**doc, "optimal_moves": 3, "seed": 7}).walls == ()
    # the example in format.md loads
    text = R.__file__.rsplit("/", 1)[0] + "/format.md"
    with open(text, encoding="utf-8") as fh:
        block = fh.read().split("```json\n", 1)[1].split("```", 1)[0]
    assert R.Level.from_json(json.loads(block)).id == "my-level"


@pytest.mark.parametrize(
    "patch, match",
    [
        ({"width": 11}, "width: expected an integer 3..10"),
        ({"width": 10**5000}, "width: expected an integer 3..10, got <int>"),
        (
            {"vehicles": [{"row": 10**5000, "col": 0, "length": 2, "axis": "horizontal"}]},
            r"vehicles\[0\].row: expected an integer -1000..1000",
        ),
        ({"height": "6"}, "height: expected an integer"),
        ({"vehicles": []}, "vehicles: expected a list of 1..50"),
        (
            {"vehicles": [{"row": 2, "col": 0, "length": 2}]},
            r"vehicles\[0\]: missing key\(s\) axis",
        ),
        ({"vehicles": [{"row": 2, "col": 0, "length": 2, "axis": "h"}]}, r"vehicles\[0\].axis"),
        (
            {"vehicles": [{"row": 2, "col": 0, "length": 4, "axis": "horizontal"}]},
            r"vehicles\[0\].length",
        ),
        ({"vehicles": [{"row": 2, "col": 5, "length": 2, "axis": "horizontal"}]}, "does not fit"),
        (
            {
                "vehicles": [
                    {"row": 2, "col": 0, "length": 2, "axis": "horizontal"},
                    {"row": 1, "col": 1, "length": 2, "axis": "vertical"},
                ]
            },
            r"vehicles\[1\]: cell \[2, 1\] is already taken by vehicles\[0\]",
        ),
        ({"walls": [[2, 1]]}, r"vehicles\[0\]: cell \[2, 1\] is already taken by walls\[0\]"),
        ({"walls": [[6, 0]]}, r"walls\[0\]: \[6, 0\] is outside"),
        ({"walls": [[1, 1], [1, 1]]}, "listed twice"),
        ({"walls": [[2, 5]]}, "blocks the target car"),
        ({"walls": "none"}, "walls: expected a list"),
        ({"walls": [[1, True]]}, r"walls\[0\]\[1\]: expected an integer -1000..1000"),
        ({"extra": 1}, "unexpected key"),
        ({"optimal_moves": -1}, "optimal_moves"),
    ],
)
def test_json_is_strict(patch, match):
    with pytest.raises(LevelError, match=match):
        R.Level.from_json({**level_doc(), **patch})


def test_state_json_round_trip_and_validation():
    s = R.apply(SMALL, R.initial_state(SMALL), (2, 3))
    doc = R.state_to_json(SMALL, s)
    assert doc == {"vehicles": [[2, 0], [1, 2], [3, 3]]}
    assert R.state_from_json(SMALL, json.loads(json.dumps(doc))) == s
    for bad, match in [
        ({"vehicles": [[2, 0], [1, 2]]}, "list of 3"),
        ({"vehicles": [[2, 0], [1, 3], [3, 3]]}, "leaves the vehicle's column 2"),
        ({"vehicles": [[2, 0], [5, 2], [3, 3]]}, "does not fit"),
        ({"vehicles": [[2, 0], [2, 2], [3, 0]]}, "overlaps"),
        ({"vehicles": [[2, 0], [1, 2], [3, 1]], "ui": 1}, "exactly the key vehicles"),
        ({"vehicles": [[2, 0], [1, 2], ["3", 1]]}, "expected an integer -1000..1000"),
        (
            {"vehicles": [[2, 0], [1, 2], [10**5000, 1]]},
            r"vehicles\[2\]\[0\]: expected an integer -1000..1000, got <int>",
        ),
    ]:
        with pytest.raises(ValueError, match=match):
            R.state_from_json(SMALL, bad)


# ----------------------------------------------------------------------------- invariants


@settings(max_examples=40, deadline=None)
@given(
    tier=st.sampled_from(R.TIERS),
    index=st.integers(0, 9),
    picks=st.lists(st.integers(0, 10_000), max_size=25),
)
def test_random_play_keeps_the_board_consistent(tier, index, picks):
    level = load_catalogue(tier)[index]
    state = R.initial_state(level)
    cells = sum(v.length for v in level.vehicles) + len(level.walls)
    d = solver.distance(level, state)
    for pick in picks:
        moves = R.legal_moves(level, state)
        assert moves  # a board always has a move (the target car's row is never sealed)
        move = moves[pick % len(moves)]
        before = state
        state = R.apply(level, state, move)
        assert isinstance(state, R.State)
        assert bin(R.occupied(level, state)).count("1") == cells  # nothing overlaps
        # the reverse slide undoes it
        assert R.apply(level, state, (move[0], before.positions[move[0]])) == before
        d2 = solver.distance(level, state)
        assert abs(d2 - d) <= 1 and d2 >= 0
        d = d2
        assert 0.0 <= R.potential(level, state) <= 1.0
        assert (R.potential(level, state) == 1.0) == R.is_solved(level, state)
