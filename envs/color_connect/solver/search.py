"""Color Connect: a complete backtracking search for non-crossing paths (pure Python).

The search grows every pair's path from both of its endpoints at once (two *heads* per pair)
and branches, at each node, on the head with the fewest possible next cells (a head with one
option is a forced move). It is exhaustive over what the pruning below leaves, so it finds a
solution whenever one exists and proves there is none when it returns without one.

Pruning (each rule only discards branches that cannot hold a solution of some *canonical*
form, and every solvable board has a solution of that form):

* **Induced paths.** If a path has two cells that are side by side but not consecutive, the
  path can be shortened between them, using a subset of its cells; that never hurts another
  pair, so some solution has only paths without such shortcuts. A head may therefore step
  only onto a cell that touches no other cell of its own path, except the other head, in
  which case the step joins the two halves and the pair is connected.
* **Reachability.** Every unconnected pair's two heads must still be joined by free cells
  (checked by flood fill on bitmasks at every node).
* **Limits** (optional): ``slack`` bounds each path's length to its shortest possible
  length plus ``slack`` (the generator uses it to measure forced detours); ``max_nodes``
  stops the search early (the result then says ``complete=False``).

Cells are indices ``row * width + col``; sets of cells are ``int`` bitmasks.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SearchResult:
    """``paths`` maps each routed pair to its path (from its endpoint ``a``), or is None when
    no solution exists (``complete``) or the node limit stopped the search (not ``complete``).
    ``nodes`` counts the search nodes expanded."""

    paths: dict[int, tuple[int, ...]] | None
    nodes: int
    complete: bool


class _Limit(Exception):
    pass


def distances(level, source: int, open_mask: int) -> list[int]:
    """BFS distance from ``source`` to every cell through ``open_mask`` cells (-1: never).
    The source itself need not be open; cells outside ``open_mask`` are reached but not
    passed through (so an endpoint's distance is set)."""
    dist = [-1] * level.n_cells
    dist[source] = 0
    queue = deque([source])
    nbrs = level.neighbours
    while queue:
        x = queue.popleft()
        if x != source and not open_mask >> x & 1:
            continue
        for y in nbrs[x]:
            if dist[y] < 0:
                dist[y] = dist[x] + 1
                queue.append(y)
    return dist


class _Search:
    MEMO = 500_000  # most failed sub-problems remembered

    def __init__(
        self, level, pairs: Sequence[int], blocked: int, slack: int | None, max_nodes: int | None
    ):
        self.w = level.width
        self._flood = level.flood
        self.nbrs = level.neighbours
        self.nbmask = level.neighbour_masks
        self.free = level.free_mask & ~blocked
        self.max_nodes = max_nodes
        self.nodes = 0
        self.pairs = list(pairs)
        m = len(self.pairs)
        ends = [level.endpoints[k] for k in self.pairs]
        self.heads = [[a, b] for a, b in ends]
        self.halves = [([a], [b]) for a, b in ends]
        self.own = [1 << a | 1 << b for a, b in ends]
        self.done = [b in self.nbrs[a] for a, b in ends]
        self.budget: list[int] | None = None
        if slack is not None:
            budget = []
            for a, b in ends:
                d = distances(level, a, self.free)[b]
                budget.append(d + slack if d >= 0 else -1)
            self.budget = budget
        self.lengths = [0] * m  # cells beyond the two endpoints, per pair
        self.trail: list[tuple[int, int, int, bool]] = []
        self.failed: set = set()  # keys of sub-problems proved to have no solution

    # -- the search -----------------------------------------------------------------------------

    def run(self) -> SearchResult:
        if self.budget is not None and any(d < 0 for d in self.budget):
            return SearchResult(None, 0, True)  # a pair cannot reach its partner at all
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 4 * len(self.nbrs) + 200))
        try:
            found = self._solve(list(range(len(self.pairs))))
        except _Limit:
            return SearchResult(None, self.nodes, False)
        finally:
            sys.setrecursionlimit(limit)
        if not found:
            return SearchResult(None, self.nodes, True)
        paths = {}
        for i, k in enumerate(self.pairs):
            first, second = self.halves[i]
            paths[k] = tuple(first) + tuple(reversed(second))
        return SearchResult(paths, self.nodes, True)

    def _options(self, i: int, e: int) -> list[int]:
        """The cells head ``e`` of pair ``i`` may step onto, best first."""
        heads = self.heads[i]
        head, other = heads[e], heads[1 - e]
        own = self.own[i] & ~(1 << head)
        other_bit = 1 << other
        free, nbmask = self.free, self.nbmask
        w = self.w
        orow, ocol = divmod(other, w)
        joins, steps = [], []
        for y in self.nbrs[head]:
            if not free >> y & 1:
                continue
            touch = nbmask[y] & own
            if touch == 0:
                steps.append((abs(y // w - orow) + abs(y % w - ocol), y))
            elif touch == other_bit:
                joins.append(y)
        if self.budget is not None:
            # a step to y leaves at least (distance from y to the other head - 1) more cells
            # to place; the path may have at most budget - 1 cells besides its endpoints
            budget = self.budget[i] - 1 - self.lengths[i]
            steps = [(d, y) for d, y in steps if d <= budget]
            if self.lengths[i] + 1 > self.budget[i] - 1:
                joins = []
        steps.sort()
        return joins + [y for _, y in steps]

    # -- moves and their undo -----------------------------------------------------------------

    def _place(self, i: int, e: int, y: int) -> None:
        heads = self.heads[i]
        head, other = heads[e], heads[1 - e]
        bit = 1 << y
        self.trail.append((i, e, head, self.done[i]))
        self.done[i] = bool(self.nbmask[y] & (1 << other)) and other != head
        self.free &= ~bit
        self.own[i] |= bit
        self.halves[i][e].append(y)
        heads[e] = y
        self.lengths[i] += 1

    def _undo_to(self, mark: int) -> None:
        trail = self.trail
        while len(trail) > mark:
            i, e, head, done = trail.pop()
            y = self.halves[i][e].pop()
            bit = 1 << y
            self.heads[i][e] = head
            self.done[i] = done
            self.free |= bit
            self.own[i] &= ~bit
            self.lengths[i] -= 1

    # -- the search ------------------------------------------------------------------------------

    def _regions(self, active: list[int]) -> list[int] | None:
        """Per active pair, the free cells its path may still use (the components of the free
        cells next to both of its heads), or None when some pair can no longer be joined."""
        free, nbmask = self.free, self.nbmask
        comps: list[int] = []
        out = []
        for i in active:
            h0, h1 = self.heads[i]
            seeds = nbmask[h0] & free
            target = nbmask[h1]
            region = 0
            seen = 0
            while seeds:
                low = seeds & -seeds
                seeds ^= low
                if seen & low:
                    continue
                for comp in comps:
                    if comp & low:
                        break
                else:
                    comp = self._flood(low, free)
                    comps.append(comp)
                seen |= comp
                if comp & target:
                    region |= comp
            if not region:
                return None
            out.append(region)
        return out

    def _key(self, group: list[int], region: int) -> tuple:
        return (
            region & self.free,
            tuple(
                (self.heads[i][0], self.heads[i][1], self.own[i], self.lengths[i]) for i in group
            ),
        )

    def _solve(self, active: list[int]) -> bool:
        """Route the ``active`` pairs; on success their paths stay placed, on failure the
        search state is as it was on entry."""
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise _Limit
        active = [i for i in active if not self.done[i]]
        if not active:
            return True
        regions = self._regions(active)
        if regions is None:
            return False
        # pairs whose regions do not overlap cannot affect each other: split into groups
        groups: list[tuple[list[int], int]] = []
        for i, region in zip(active, regions, strict=True):
            members, merged = [i], region
            rest = []
            for g_members, g_region in groups:
                if g_region & merged:
                    members += g_members
                    merged |= g_region
                else:
                    rest.append((g_members, g_region))
            groups = rest + [(members, merged)]
        if len(groups) > 1:
            mark = len(self.trail)
            groups.sort(key=lambda g: (len(g[0]), bin(g[1]).count("1")))
            for members, region in groups:
                if not self._solve_group(sorted(members), region):
                    self._undo_to(mark)
                    return False
            return True
        return self._solve_group(active, groups[0][1], split=False)

    def _solve_group(self, group: list[int], region: int, split: bool = True) -> bool:
        key = self._key(group, region)
        if key in self.failed:
            return False
        if split:
            ok = self._solve(group)
        else:
            ok = self._branch(group)
        if not ok and len(self.failed) < self.MEMO:
            self.failed.add(key)
        return ok

    def _branch(self, active: list[int]) -> bool:
        best: tuple[int, int, list[int]] | None = None
        for i in active:
            for e in (0, 1):
                opts = self._options(i, e)
                if not opts:
                    return False
                if best is None or len(opts) < len(best[2]):
                    best = (i, e, opts)
                    if len(opts) == 1:
                        break
            if best is not None and len(best[2]) == 1:
                break
        assert best is not None
        i, e, opts = best
        mark = len(self.trail)
        for y in opts:
            self._place(i, e, y)
            if self._solve(active):
                return True
            self._undo_to(mark)
        return False


def search(
    level,
    pairs: Sequence[int] | None = None,
    blocked: int = 0,
    *,
    slack: int | None = None,
    max_nodes: int | None = None,
) -> SearchResult:
    """Route ``pairs`` (default: every pair) with non-crossing paths avoiding the ``blocked``
    cells (e.g. paths already on the board) and every other endpoint.

    With ``slack``, each path may be at most ``slack`` cells longer than the pair's shortest
    route on the empty board (a bounded search, complete for that bound). ``max_nodes``
    stops the search after that many nodes (``complete=False``)."""
    if pairs is None:
        pairs = range(level.n_pairs)
    return _Search(level, pairs, blocked, slack, max_nodes).run()


__all__ = ["SearchResult", "distances", "search"]
