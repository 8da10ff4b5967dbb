"""Color Connect rules with exact expected boards: connecting and removing paths, every
refusal, the lazy legal moves, the potential, and strict level/state JSON."""

from __future__ import annotations

from itertools import islice

import pytest

from puzzlegym.base.errors import LevelError
from puzzlegym.envs.color_connect import rules as R
from puzzlegym.envs.color_connect.rules import Connect, Remove
from puzzlegym.game import Rejected

# 4 rows x 5 columns; cell index = row * 5 + col
#   A . . B .      A: 0 and 14     B: 3 and 15     C: 11 and 18     blocked: 6
#   . # . . .
#   . C . . A
#   B . . C .
LEVEL = R.Level("t", "Easy", ("A..B.", ".#...", ".C..A", "B..C."))
A_PATH = (0, 1, 2, 7, 8, 9, 14)  # along the top, down the right
C_PATH = (11, 12, 13, 18)


def test_level_geometry():
    assert LEVEL.endpoints == ((0, 14), (3, 15), (11, 18))
    assert LEVEL.n_pairs == 3 and LEVEL.owner[6] == -2 and LEVEL.owner[5] == -1
    assert LEVEL.neighbours[0] == (5, 1) and LEVEL.neighbours[7] == (2, 12, 6, 8)
    assert LEVEL.flood(1 << 5, LEVEL.free_mask) == (1 << 5) | (1 << 10)  # boxed in by dots


def test_connect_and_remove_exact_states():
    s = R.initial_state(LEVEL)
    assert s == R.State((None, None, None)) and R.potential(LEVEL, s) == 0
    s = R.apply(LEVEL, s, Connect(0, A_PATH))
    assert s == R.State((A_PATH, None, None))
    # a path given from its other end is stored from endpoint a
    s = R.apply(LEVEL, s, Connect(2, C_PATH[::-1]))
    assert s == R.State((A_PATH, None, C_PATH))
    assert R.potential(LEVEL, s) == pytest.approx(2 / 3) and not R.is_solved(LEVEL, s)
    assert s.occupied == sum(1 << x for x in A_PATH + C_PATH)
    assert R.apply(LEVEL, s, Remove(0)) == R.State((None, None, C_PATH))
    s = R.apply(LEVEL, R.initial_state(LEVEL), Connect(1, (3, 4, 9, 8, 7, 12, 17, 16, 15)))
    assert R.apply(LEVEL, s, Connect(0, (0, 5, 10, 11))) == Rejected(R.ENDS_REASON)


def test_every_refusal_leaves_the_board():
    s = R.apply(LEVEL, R.initial_state(LEVEL), Connect(2, C_PATH))
    cases = [
        (Connect(2, C_PATH), R.CONNECTED_REASON),
        (Remove(1), R.NOT_CONNECTED_REASON),
        (Connect(0, (0, 1, 2)), R.ENDS_REASON),  # stops short of its partner
        (Connect(0, (3, 4, 9, 14)), R.ENDS_REASON),  # starts on B's dot
        (Connect(0, (0, 2, 7, 8, 9, 14)), R.ADJACENT_REASON),  # jumps a cell
        (Connect(0, (0, 1, 2, 7, 2, 7, 8, 9, 14)), R.SELF_REASON),
        (Connect(0, (0, 1, 6, 7, 8, 9, 14)), R.BLOCKED_REASON),  # through the blocked cell
        (Connect(0, (0, 1, 2, 3, 4, 9, 14)), R.DOT_REASON),  # through B's dot
        (Connect(0, (0, 1, 2, 7, 12, 13, 14)), R.CROSS_REASON),  # across C's path
    ]
    for move, reason in cases:
        assert R.apply(LEVEL, s, move) == Rejected(reason), move


@pytest.mark.parametrize(
    "move",
    [
        (0, A_PATH),
        Connect(3, A_PATH),
        Connect(0, [0, 1]),
        Connect(0, (0, 99)),
        Remove(-1),
        Remove(True),
    ],
)
def test_malformed_moves_raise(move):
    with pytest.raises(ValueError, match="move"):
        R.apply(LEVEL, R.initial_state(LEVEL), move)


def test_legal_moves_are_lazy_valid_and_complete_on_a_small_board():
    s = R.apply(LEVEL, R.initial_state(LEVEL), Connect(2, C_PATH))
    moves = list(R.legal_moves(LEVEL, s))
    assert moves[0] == Remove(2)
    for m in moves[1:]:
        assert isinstance(R.apply(LEVEL, s, m), R.State), m
    # every simple path of A through the free cells (brute force over cell sequences)
    free = [x for x in range(20) if LEVEL.owner[x] == -1 and not s.occupied >> x & 1]

    def walks(path):
        if path[-1] == 14:
            yield tuple(path)
            return
        for y in LEVEL.neighbours[path[-1]]:
            if y == 14 or (y in free and y not in path):
                yield from walks(path + [y])

    expected = set(walks([0]))
    assert {m.cells for m in moves if isinstance(m, Connect) and m.pair == 0} == expected
    # a generator: the first moves of a big open board come at once
    big = R.Level("big", "Hard", ("A" + "." * 14 + "A",) + ("." * 16,) * 15)
    first = list(islice(R.legal_moves(big, R.initial_state(big)), 50))
    assert len(first) == 50 and len(set(first)) == 50


def test_level_json_is_strict():
    doc = LEVEL.to_json()
    assert R.Level.from_json(doc) == LEVEL
    assert R.Level.from_json({**doc, "clicks": 12, "path_cells": 9, "detour": 2}) == LEVEL
    bad = [
        ({**doc, "extra": 1}, "unexpected key"),
        ({**doc, "clicks": -1}, "clicks"),
        ({**doc, "grid": ["A.B", "..."]}, "exactly twice"),
        ({**doc, "grid": ["A.A", "C.C"]}, "without gaps"),
        ({**doc, "grid": ["A.A", "..x"]}, "contains 'x'"),
        ({**doc, "grid": ["A.A", ".."]}, "not rectangular"),
        ({**doc, "grid": ["..", ".."]}, "no pair"),
        ({**doc, "grid": ["AA"]}, "height"),
        ({**doc, "grid": "A.A"}, "list of row strings"),
        ({**doc, "tier": "Medium"}, "tier"),
    ]
    for data, match in bad:
        with pytest.raises(LevelError, match=match):
            R.Level.from_json(data)


def test_state_json_round_trip_and_strictness():
    s = R.apply(LEVEL, R.initial_state(LEVEL), Connect(0, A_PATH))
    doc = R.state_to_json(LEVEL, s)
    assert doc == {"paths": {"A": [[0, 0], [0, 1], [0, 2], [1, 2], [1, 3], [1, 4], [2, 4]]}}
    assert R.state_from_json(LEVEL, doc) == s
    reversed_doc = {"paths": {"A": doc["paths"]["A"][::-1]}}
    assert R.state_from_json(LEVEL, reversed_doc) == s
    bad = [
        ({"paths": {"D": []}}, "not a pair"),
        ({"paths": {"A": [[0, 0], [9, 9]]}}, "outside"),
        ({"paths": {"A": [[0, 0], [0, 1]]}}, "not a valid path"),
        (
            {
                "paths": {
                    "A": doc["paths"]["A"],
                    "C": [[2, 1], [2, 2], [1, 2], [1, 3], [2, 3], [3, 3]],
                }
            },
            "cross",
        ),
        ({"paths": []}, "paths"),
        ({}, "exactly the key paths"),
    ]
    for data, match in bad:
        with pytest.raises(ValueError, match=match):
            R.state_from_json(LEVEL, data)
