"""Color Connect's cheap necessary conditions: each rule fires on a board built for it (and
the auto engine reports it as the proof), stays silent on a near-identical solvable board,
and never fires on a board the exhaustive search solves."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlegym import solvers
from puzzlegym.envs.color_connect import GAME
from puzzlegym.envs.color_connect import rules as R
from puzzlegym.envs.color_connect import solver as S
from puzzlegym.envs.color_connect.solver import bounds as B
from puzzlegym.envs.color_connect.solver import sat as color_connect_sat
from puzzlegym.envs.color_connect.solver.search import search

from .test_color_connect_solver import random_level

SAT = pytest.mark.skipif(not color_connect_sat.AVAILABLE, reason="python-sat is not installed")

# A's dots are walled in by blocked cells and B's dots
SEPARATED = R.Level("sep", "Easy", ("A#A", "B#B"))
NOT_SEPARATED = R.Level("sep-ok", "Easy", ("A#A", "...", "B.B"))
# the free cell (2, 2) is the only way across the wall for both A and B
BOTTLENECK = R.Level("neck", "Easy", (".....", ".A.B.", "##.##", ".A.B.", "....."))
NO_BOTTLENECK = R.Level("neck-ok", "Easy", (".....", ".A.B.", "#...#", ".A.B.", "....."))
# going round the border: A, B, A, B
CROSSING = R.Level("cross", "Easy", ("A.B", "...", "B.A"))
NOT_CROSSING = R.Level("cross-ok", "Easy", ("A.A", "...", "B.B"))


def test_separated_fires_on_a_walled_in_pair_and_only_then():
    assert B.refute(SEPARATED) == {
        "engine": "bounds",
        "rule": "separated",
        "pairs": ["A"],
        "cells": [],
    }
    assert B.refute(NOT_SEPARATED) is None
    # adjacent dots need no free cell
    assert B.refute(R.Level("adj", "Easy", ("AA#", "###"))) is None
    # paths already on the board wall pairs in too: B's path through row 1 cuts A off
    blocked = 1 << 3 | 1 << 4 | 1 << 5
    assert B.separated(NOT_SEPARATED, [0], NOT_SEPARATED.free_mask & ~blocked) == 0


def test_bottleneck_fires_on_one_cell_shared_by_two_pairs_and_only_then():
    # (1, 2), the only way to the gap from above, is found first (cells in row-major order)
    assert B.refute(BOTTLENECK) == {
        "engine": "bounds",
        "rule": "bottleneck",
        "pairs": ["A", "B"],
        "cells": [7],
    }
    assert B.refute(NO_BOTTLENECK) is None
    assert search(NO_BOTTLENECK).paths is not None
    # one pair alone may use the bottleneck
    assert B.refute(BOTTLENECK, [0]) is None and search(BOTTLENECK, [0]).paths is not None


def test_crossing_fires_on_alternating_border_dots_and_only_then():
    assert B.refute(CROSSING) == {
        "engine": "bounds",
        "rule": "crossing",
        "pairs": ["A", "B"],
        "cells": [0, 2, 6, 8],
    }
    assert B.refute(NOT_CROSSING) is None and search(NOT_CROSSING).paths is not None
    # an inner dot breaks the argument: B may go round A's dot in the middle of the board
    inner = R.Level("inner", "Easy", ("A...B", ".....", "..A..", ".....", "B...."))
    assert B.crossing(inner, range(2)) is None and search(inner).paths is not None
    # clockwise positions round a 3x4 border, corners included
    level = R.Level("pos", "Easy", ("....", "....", "...."))
    order = [B.border_position(level, c) for c in (0, 3, 7, 11, 8, 4)]
    assert order == [0, 3, 4, 5, 8, 9] and B.border_position(level, 5) is None


@SAT
@pytest.mark.parametrize("level", [SEPARATED, BOTTLENECK, CROSSING], ids=lambda lv: lv.id)
def test_auto_engine_reports_the_rule_as_its_proof(level):
    with pytest.raises(solvers.Unsolvable, match="level") as info:
        S.solve(level)
    assert info.value.proof["engine"] == "bounds"
    assert info.value.proof == B.refute(level)
    # the explicit engines still prove it on their own
    for engine in ("search", "sat"):
        with pytest.raises(solvers.Unsolvable) as other:
            S.solve(level, engine=engine)
        assert other.value.proof["engine"] == engine


def test_no_rule_fires_on_a_catalogue_level():
    for tier in ("Easy", "Hard"):
        for level in GAME.load_catalogue(tier):
            assert B.refute(level) is None, level.id


def drawn_level(h: int, w: int, pairs: int, blocked: int, seed: int) -> R.Level:
    """A random h x w board with as many of the drawn pairs and blocked cells as fit."""
    pairs = min(pairs, h * w // 2)
    return random_level(random.Random(seed), h, w, pairs, min(blocked, h * w - 2 * pairs))


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 5),
    st.integers(2, 5),
    st.integers(1, 5),
    st.integers(0, 4),
    st.integers(0, 2**32),
)
def test_a_rule_fires_only_on_unsolvable_boards(h, w, pairs, blocked, seed):
    level = drawn_level(h, w, pairs, blocked, seed)
    if B.refute(level) is not None:
        assert search(level).paths is None, level.grid


def naive_bottleneck(level, pairs, open_mask):
    """Every free cell tried in row-major order (what the cut-vertex filter must agree with)."""
    for cell in range(level.n_cells):
        if not open_mask >> cell & 1:
            continue
        rest = open_mask & ~(1 << cell)
        cut = [
            k
            for k in pairs
            if B._joined(level, *level.endpoints[k], open_mask)
            and not B._joined(level, *level.endpoints[k], rest)
        ]
        if len(cut) >= 2:
            return cell, cut
    return None


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 8),
    st.integers(2, 8),
    st.integers(1, 8),
    st.integers(0, 30),
    st.integers(0, 2**32),
)
def test_bottleneck_tries_every_cell_that_could_separate(h, w, pairs, blocked, seed):
    level = drawn_level(h, w, pairs, blocked, seed)
    every = range(level.n_pairs)
    assert B.bottleneck(level, every, level.free_mask) == naive_bottleneck(
        level, every, level.free_mask
    )
