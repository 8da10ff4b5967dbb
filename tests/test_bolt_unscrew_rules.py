"""Bolt Unscrew rules on hand-built levels: exact covering, blocked anchors, multi-board
screws, pinned screws, falls that uncover anchors, potential, JSON, validation."""

from __future__ import annotations

from fractions import Fraction

import pytest

from puzzlegym.base.errors import LevelError
from puzzlegym.envs.bolt_unscrew import geometry as G
from puzzlegym.envs.bolt_unscrew import rules as R
from puzzlegym.game import Rejected


def mask(*idx):
    return sum(1 << i for i in idx)


# anchors: 0 (0,0) 1 (1,0) 2 (2,0) 3 (3,0) 4 (4,0) 5 (0,2) 6 (2,2) 7 (4,2)
# B0: bar layer 0, holes 0,2 (covers anchor 1 without a hole); B1: bar layer 1, holes 2,3
# (shares the screw in 2 with B0); B2: pad layer 2 at 4 (radius 1 covers anchor 3: pins it).
STACK = {
    "id": "stack",
    "tier": "Easy",
    "size": [5, 3],
    "anchors": [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0], [0, 2], [2, 2], [4, 2]],
    "boards": [
        {"kind": "bar", "layer": 0, "holes": [0, 2]},
        {"kind": "bar", "layer": 1, "holes": [2, 3]},
        {"kind": "pad", "layer": 2, "holes": [4]},
    ],
    "screws": [0, 2, 3, 4],
}


@pytest.fixture
def stack():
    return R.Level.from_json(STACK)


def test_exact_covering(stack):
    assert stack.cover_masks == (mask(0, 1, 2), mask(2, 3), mask(3, 4))
    assert stack.pinners[3] == mask(2)  # the pad lies over B1's screw
    assert stack.pinners[2] == 0 and stack.pinners[0] == 0
    assert stack.holed_boards[2] == mask(0, 1)  # one screw, two boards


def test_geometry_exact_thresholds():
    # a knight bar (0,0)-(2,1) passes 1/sqrt(5) ~ 0.447 from (1,0) and (1,1): covered
    bar = ((0, 0), (2, 1))
    assert G.covers(bar, G.BAR_HALF, (1, 0)) and G.covers(bar, G.BAR_HALF, (1, 1))
    # a diagonal bar passes 1/sqrt(2) from (1,0): clear
    assert not G.covers(((0, 0), (2, 2)), G.BAR_HALF, (1, 0))
    # a pad covers its four neighbours, not the diagonal ones
    pad = ((2, 2), (2, 2))
    assert all(G.covers(pad, G.PAD_R, p) for p in ((1, 2), (3, 2), (2, 1), (2, 3)))
    assert not any(G.covers(pad, G.PAD_R, p) for p in ((1, 1), (3, 3)))
    # touching does not count: distance exactly r1 + r2
    assert not G.shapes_intersect(((0, 0), (0, 0)), Fraction(1), ((2, 0), (2, 0)), Fraction(1))
    assert G.shapes_intersect(((0, 0), (0, 0)), Fraction(1), ((2, 0), (2, 0)), Fraction(11, 10))
    # crossing segments intersect exactly
    assert G.segment_segment_dist2(((0, 0), (2, 2)), ((0, 2), (2, 0))) == 0
    assert G.point_segment_dist2((1, 0), ((0, 0), (2, 1))) == Fraction(1, 5)


def test_initial_selection_and_availability(stack):
    s = R.initial_state(stack)
    assert s == R.State(mask(0, 1, 2), mask(0, 2, 3, 4))
    assert R.available(stack, s) == mask(5, 6, 7)  # anchor 1 is empty but under B0
    assert [a for a in range(8) if R.selectable(stack, s, a)] == [0, 2, 4]
    assert R.free_anchors(stack, s) == 3
    assert R.legal_moves(stack, s)[:3] == ((0, 5), (0, 6), (0, 7))
    assert len(R.legal_moves(stack, s)) == 9


def test_rejections_leave_nothing_changed(stack):
    s = R.initial_state(stack)
    assert R.apply(stack, s, (3, 5)) == Rejected(R.COVERED_SCREW_REASON)  # pinned by the pad
    assert R.apply(stack, s, (1, 5)) == Rejected(R.NO_SCREW_REASON)
    assert R.apply(stack, s, (0, 1)) == Rejected(R.BAD_TARGET_REASON)  # covered (blocked) anchor
    assert R.apply(stack, s, (0, 2)) == Rejected(R.BAD_TARGET_REASON)  # occupied
    assert R.apply(stack, s, (0, 0)) == Rejected(R.BAD_TARGET_REASON)
    with pytest.raises(ValueError, match="move"):
        R.apply(stack, s, (0, 99))


def test_multi_board_screw_blocked_anchor_and_falls(stack):
    s = R.initial_state(stack)
    # the shared screw leaves both bars: each keeps another screw, nothing falls, and the
    # anchor it left stays blocked under them
    s = R.apply(stack, s, (2, 5))
    assert s == R.State(mask(0, 1, 2), mask(0, 3, 4, 5))
    assert R.available(stack, s) == mask(6, 7)
    assert R.potential(stack, s) == 0.0
    # the pad loses its only screw: it falls and uncovers anchor 4 (anchor 3 is still under B1)
    s = R.apply(stack, s, (4, 6))
    assert s == R.State(mask(0, 1), mask(0, 3, 5, 6))
    assert R.available(stack, s) == mask(4, 7)
    assert R.selectable(stack, s, 3)  # nothing above B1's screw any more
    assert R.potential(stack, s) == pytest.approx(1 / 3)
    # B1 loses its last screw: falls, uncovering anchor 3; anchor 2 stays under B0
    s = R.apply(stack, s, (3, 7))
    assert s == R.State(mask(0), mask(0, 5, 6, 7))
    assert R.available(stack, s) == mask(3, 4)
    s = R.apply(stack, s, (0, 3))
    assert s == R.State(0, mask(3, 5, 6, 7))
    assert R.is_solved(stack, s) and R.potential(stack, s) == 1.0
    assert not R.deadlock_certificate(stack, s)


def test_potential_counts_released_boards_half(stack):
    # not a settled state (B0 has no screw): (exited 1 + 0.5 * released 1) / 3
    s = R.State(mask(0, 1), mask(3, 5, 6, 7))
    assert R.released(stack, s) == mask(0)
    assert R.potential(stack, s) == pytest.approx(1.5 / 3)


def test_state_json_round_trip_and_errors(stack):
    s = R.apply(stack, R.initial_state(stack), (2, 5))
    doc = R.state_to_json(stack, s)
    assert doc == {"remaining": [0, 1, 2], "screws": [0, 3, 4, 5]}
    assert R.state_from_json(stack, doc) == s
    with pytest.raises(ValueError, match="screws: expected 4 screws"):
        R.state_from_json(stack, {"remaining": [0], "screws": [0]})
    with pytest.raises(ValueError, match="remaining: a remaining board has no screw"):
        R.state_from_json(stack, {"remaining": [0, 1, 2], "screws": [3, 4, 5, 6]})
    with pytest.raises(ValueError, match="exactly remaining, screws"):
        R.state_from_json(stack, {"screws": []})


def test_level_json_round_trip_and_validation(stack):
    assert R.Level.from_json(stack.to_json()) == stack
    bad = dict(STACK, boards=[*STACK["boards"][:2], {"kind": "pad", "layer": 1, "holes": [4]}])
    with pytest.raises(LevelError, match="overlap in the same layer 1"):
        R.Level.from_json(bad)  # the pad would overlap B1 in layer 1
    bad = dict(
        STACK, boards=[{"kind": "bar", "layer": 0, "holes": [0, 6, 2]}, *STACK["boards"][1:]]
    )
    with pytest.raises(LevelError, match="not on the bar between its end holes"):
        R.Level.from_json(bad)
    bad = dict(STACK, screws=[0, 2, 3])
    with pytest.raises(LevelError, match=r"boards\[2\]: no screw holds it"):
        R.Level.from_json(bad)
    bad = dict(STACK, screws=[0, 1, 2, 3, 4])
    with pytest.raises(LevelError, match="attaches no board"):
        R.Level.from_json(bad)
    # a screw through a board without a hole there (the pad below the bar's screw)
    bad = dict(
        STACK,
        boards=[
            STACK["boards"][0],
            {"kind": "bar", "layer": 2, "holes": [2, 3]},
            {"kind": "pad", "layer": 1, "holes": [4]},
        ],
    )
    with pytest.raises(LevelError, match="would pass through"):
        R.Level.from_json(bad)
    with pytest.raises(LevelError, match="unexpected key"):
        R.Level.from_json(dict(STACK, extra=1))
    with pytest.raises(LevelError, match="kind"):
        R.Level.from_json(dict(STACK, boards=[{"kind": "plank", "layer": 0, "holes": [0, 2]}]))
