"""Color Connect walls (chains of paths and static cells from border to border): the chains
found on hand-made boards, the split they make checked cell by cell on real solutions, and the
SAT engine (whose side clauses use them) agreeing with brute force and with the search."""

from __future__ import annotations

import random

import pytest

from puzzlegym import solvers
from puzzlegym.envs.color_connect import rules as R
from puzzlegym.envs.color_connect import solver as S
from puzzlegym.envs.color_connect.solver import sat as color_connect_sat
from puzzlegym.envs.color_connect.solver import walls as W
from puzzlegym.envs.color_connect.solver.bounds import border_position
from puzzlegym.envs.color_connect.solver.search import search

from .test_color_connect_solver import brute_force, random_level

SAT = pytest.mark.skipif(not color_connect_sat.AVAILABLE, reason="python-sat is not installed")

# A runs from the top-left corner to (2, 1), which touches B's dot (2, 2); B runs on to the
# bottom-right corner: once both are connected, they wall the board from corner to corner
TWO_PAIR_WALL = R.Level("wall", "Easy", ("A....", ".....", ".AB..", "....B"))
# C's dots on the two sides of that wall: unsolvable; on one side: solvable
ACROSS = R.Level("across", "Easy", ("A...C", ".....", ".AB..", "C...B"))
ALONGSIDE = R.Level("alongside", "Easy", ("A....", "C....", ".AB..", "C...B"))
# A's dot (1, 1) reaches the border through the blocked cell (0, 0) it touches at a corner
THROUGH_BLOCKED = R.Level("blocked", "Easy", ("#...", ".A..", "....", "...A"))


def test_chains_of_a_two_pair_wall():
    # A's path meets the walk (2, 1) -> (2, 2) at (2, 1), B's at (2, 2)
    assert W.chains(TWO_PAIR_WALL, [0, 1]) == [
        W.Chain((0, 1), frozenset({0, 11, 12, 19}), 0, 19, junctions=((11, 12), (12, 11)))
    ]
    assert W.chains(TWO_PAIR_WALL, [0]) == []  # A alone does not reach the border twice
    # with B's path kept on the board (cells passed as blocked), A's far dot reaches the
    # border through B's dot and path cells
    b_path = (12, 13, 14, 19)
    blocked = sum(1 << c for c in b_path)
    (chain,) = W.chains(TWO_PAIR_WALL, [0], blocked)
    assert (
        chain.pairs == (0,)
        and chain.start == 0
        and border_position(TWO_PAIR_WALL, chain.end) is not None
    )
    assert {0, 11, 12} <= chain.static <= {0, 11, *b_path}


def test_chains_run_through_blocked_cells_and_border_dots():
    (chain,) = W.chains(THROUGH_BLOCKED, [0])
    # the corner-to-corner step (0, 0) -> (1, 1) has (0, 1) and (1, 0) beside it
    assert chain == W.Chain(
        (0,), frozenset({0, 5, 15}), 0, 15, flanks=((1, 4),), junctions=((5, 0),)
    )
    # two dots on the border: the classic one-pair wall, no static cell besides the dots
    level = R.Level("border", "Easy", ("A..", "...", "..A"))
    assert W.chains(level, [0]) == [W.Chain((0,), frozenset({0, 8}), 0, 8)]


def test_no_chain_on_a_board_of_one_row_or_column():
    assert W.chains(R.Level("row", "Easy", ("A.BA.B",)), [0, 1]) == []


def test_a_wall_refutes_a_pair_across_it_and_not_one_alongside_it():
    assert not brute_force(ACROSS) and brute_force(ALONGSIDE)
    if color_connect_sat.AVAILABLE:
        assert color_connect_sat.route(ACROSS).paths is None
        assert color_connect_sat.route(ALONGSIDE).paths is not None
    with pytest.raises(solvers.Unsolvable):
        S.solve(ACROSS)
    S.solve(ALONGSIDE)


def _off_wall_regions(level, chain, paths) -> dict[int, int]:
    """Cell -> label of its 4-connected region of cells off the wall (chain's static cells and
    its pairs' path cells)."""
    wall = set(chain.static) | {c for k in chain.pairs for c in paths[k]}
    label: dict[int, int] = {}
    for start in range(level.n_cells):
        if start in wall or start in label:
            continue
        label[start] = start
        stack = [start]
        while stack:
            x = stack.pop()
            for y in level.neighbours[x]:
                if y not in wall and y not in label:
                    label[y] = start
                    stack.append(y)
    return label


def test_every_wall_splits_real_solutions_as_the_side_clauses_say():
    """On solved random boards, for every wall: cells off it joined by orthogonal steps off it
    are never on two sides; a cut leaves the border cells of its two arcs on two sides, a loop
    the whole border on one; the two cells beside a corner-to-corner step of a simple wall, and
    cells on the two sides of a turn where a path meets a walk, are on two sides; and every
    other pair's path stays on one side."""
    rng = random.Random(5)
    checked, kinds = 0, {"multi": 0, "loop": 0, "flanks": 0, "junctions": 0}
    while checked < 150:
        h, w = rng.randint(4, 7), rng.randint(4, 7)
        pairs = rng.randint(3, min(8, h * w // 3))
        level = random_level(rng, h, w, pairs, rng.randint(0, min(8, h * w - 2 * pairs)))
        found = search(level, max_nodes=20_000)
        if found.paths is None:
            continue
        for chain in W.chains(level, range(level.n_pairs)):
            checked += 1
            kinds["multi"] += len(chain.pairs) > 1
            kinds["loop"] += chain.loop
            kinds["flanks"] += bool(chain.flanks)
            region = _off_wall_regions(level, chain, found.paths)
            arcs = {}
            if chain.loop:
                lo = hi = -1
            else:
                lo, hi = sorted(
                    (border_position(level, chain.start), border_position(level, chain.end))
                )
            for c, r in region.items():
                pos = border_position(level, c)
                if pos is not None:
                    arcs.setdefault(lo < pos < hi, set()).add(r)
            assert not (arcs.get(True, set()) & arcs.get(False, set())), (level.grid, chain)
            for f, g in chain.flanks:
                if f in region and g in region:
                    assert region[f] != region[g], (level.grid, chain, f, g)
                    # and the outside (border) region is at most one of them
                    assert not {region[f], region[g]} <= arcs.get(False, set()), (level.grid, chain)
            for dot, before in chain.junctions:  # the wall turns there onto the dot's path
                path = found.paths[level.owner[dot]]
                after = path[1] if path[0] == dot else path[-2]
                one, two = W.turn_sides(level, chain, dot, before, after)
                kinds["junctions"] += 1
                for f in one:
                    for g in two:
                        if f in region and g in region:
                            assert region[f] != region[g], (level.grid, chain, dot, f, g)
            for k, path in found.paths.items():
                if k not in chain.pairs:
                    assert len({region[c] for c in path if c in region}) <= 1, (
                        level.grid,
                        chain,
                        k,
                    )
    assert min(kinds.values()) >= 5, (
        kinds
    )  # walls of several pairs, loops and flanks were among them


@SAT
def test_sat_engine_agrees_with_the_search_on_boards_with_multi_pair_walls():
    rng = random.Random(23)
    seen = {True: 0, False: 0}
    while min(seen.values()) < 8:
        level = random_level(rng, 6, 6, rng.randint(4, 7), rng.randint(0, 4))
        if not any(len(ch.pairs) > 1 for ch in W.chains(level, range(level.n_pairs))):
            continue
        by_search = search(level)
        by_sat = color_connect_sat.route(level, minimise=False)
        assert (by_search.paths is None) == (by_sat.paths is None), level.grid
        seen[by_sat.paths is not None] += 1
