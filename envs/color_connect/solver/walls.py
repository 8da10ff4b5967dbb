"""Color Connect: *walls* that cut the board in two, for the SAT encoding's side clauses.

A path cannot pass a cell that is not free (a blocked cell, any pair's dot, a cell of a path
kept on the board): call those cells *static*. Two static cells that touch, even only at a
corner, leave no gap between them for a path, which moves orthogonally. So a chain

    border ~ dot a1 --path of pair k1-- dot b1 ~ dot a2 --path of pair k2-- ... dot bm ~ border

where ``~`` is a walk through static cells, each step to one of the 8 surrounding cells, and
each pair's path joins its two dots, is a wall from one border cell ``s`` to another ``t``
once the pairs ``k1 .. km`` are connected. Through the cells' centres it contains a simple curve
from the board's outer edge at ``s`` to the edge at ``t`` (drop the loops of the walk), which
splits the board in two (Jordan). A step between two orthogonal neighbours that are both off
the wall never crosses that curve, and neither does the half step from a border cell's centre
to the outer edge; so every cell off the wall lies on one side, orthogonal neighbours off the
wall on the same one, and a border cell off the wall on the side of the border arc (between
``s`` and ``t``, or the other one) where it touches the edge. Another pair's path lies off the
wall, so its two dots must be on one side. With ``m = 1`` and both dots on the border this is
the classic argument that a path between two border dots splits the board.

A chain whose last dot leads back to its first through static cells is a *loop* (a closed
curve): the whole border lies outside it. Where a wall is *simple* (no cell twice, no two of
its corner-to-corner steps crossing), its curve is exactly the walks and the paths, and the two
cells that flank a corner-to-corner step of a walk (the other two cells of that 2x2 block) are
on opposite sides of it when both are off the wall: the segment between their centres crosses
the curve exactly once. Without such a step a loop says nothing (every cell could be outside),
so loops are kept only with one.

:func:`chains` lists cuts and loops of up to :data:`MAX_PAIRS` pairs (at most
:data:`MAX_CHAINS`, fewest pairs first, the enumeration bounded by :data:`MAX_EXTENSIONS`
steps): the pairs in order, the static cells of the walks, the border cells ``s`` and ``t``
of a cut and the flanking cells. Cells are indices ``row * width + col``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from .bounds import border_position

MAX_PAIRS = 8
MAX_CHAINS = 64
MAX_EXTENSIONS = 5_000


@dataclass(frozen=True)
class Chain:
    """A wall: ``pairs`` in order along it and ``static`` the static cells of its walks (the
    pairs' dots included). A *cut* runs from border cell ``start`` to border cell ``end``; a
    *loop* (``start`` and ``end`` None) closes on itself. ``flanks``: for each corner-to-corner
    step of a walk, the two cells that share both its cells' sides; known only when the wall
    is *simple* (no cell twice, no two steps crossing), else empty. ``junctions``: where a
    pair's path leaves a walk of a simple wall, its dot and the walk's cell next to it."""

    pairs: tuple[int, ...]
    static: frozenset[int]
    start: int | None
    end: int | None
    flanks: tuple[tuple[int, int], ...] = ()
    junctions: tuple[tuple[int, int], ...] = ()

    @property
    def loop(self) -> bool:
        return self.start is None


def _around(level, cell: int) -> list[int]:
    """The up to 8 cells touching ``cell`` (sides and corners)."""
    h, w = level.height, level.width
    r, c = divmod(cell, w)
    return [
        rr * w + cc
        for rr in (r - 1, r, r + 1)
        for cc in (c - 1, c, c + 1)
        if (rr, cc) != (r, c) and 0 <= rr < h and 0 <= cc < w
    ]


def _walk(level, static: Sequence[bool], source: int, goal) -> list[int] | None:
    """A shortest walk of static cells (8-neighbour steps) from ``source`` to a cell for which
    ``goal(cell)`` holds, both ends included; None when there is none."""
    parent = {source: -1}
    queue = deque([source])
    while queue:
        x = queue.popleft()
        if goal(x):
            out = []
            while x != -1:
                out.append(x)
                x = parent[x]
            return out[::-1]
        for y in _around(level, x):
            if static[y] and y not in parent:
                parent[y] = x
                queue.append(y)
    return None


def _flanks(level, walks: list[list[int]]) -> tuple[tuple[int, int], ...] | None:
    """The flanking cells of every corner-to-corner step of ``walks`` (the static parts of a
    wall, in order), or None when the wall is not simple: a cell twice, or two steps crossing."""
    cells = [c for walk in walks for c in walk]
    if len(set(cells)) != len(cells):
        return None
    w = level.width
    steps = {frozenset(p) for walk in walks for p in zip(walk, walk[1:], strict=False)}
    out = []
    for walk in walks:
        for x, y in zip(walk, walk[1:], strict=False):
            (rx, cx), (ry, cy) = divmod(x, w), divmod(y, w)
            if rx != ry and cx != cy:
                f1, f2 = rx * w + cy, ry * w + cx
                if frozenset((f1, f2)) in steps:
                    return None
                out.append((f1, f2))
    return tuple(out)


_RING = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))  # round a cell


def turn_sides(
    level, chain: Chain, dot: int, before: int, after: int
) -> tuple[list[int], list[int]]:
    """Where a simple wall turns at ``dot`` from cell ``before`` to cell ``after`` (both among
    the 8 around it), the cells around ``dot`` on its two sides there: the two arcs of the ring
    of 8 between them. A corner cell counts only when the other two cells of its 2x2 block are
    not both static cells of the wall (else a corner-to-corner step of the wall might cross the
    way to it)."""
    w, h = level.width, level.height
    r, c = divmod(dot, w)
    ring = [(r + dr, c + dc) for dr, dc in _RING]
    i, j = sorted((ring.index(divmod(before, w)), ring.index(divmod(after, w))))
    out = []
    for arc in (ring[i + 1 : j], ring[j + 1 :] + ring[:i]):
        cells = []
        for rr, cc in arc:
            if not (0 <= rr < h and 0 <= cc < w):
                continue
            if rr != r and cc != c and rr * w + c in chain.static and r * w + cc in chain.static:
                continue
            cells.append(rr * w + cc)
        out.append(cells)
    return out[0], out[1]


def chains(level, pairs: Sequence[int], blocked: int = 0) -> list[Chain]:
    """The walls of up to :data:`MAX_PAIRS` of ``pairs`` (see the module docstring), at most
    :data:`MAX_CHAINS`, fewest pairs first; every cell not free or in ``blocked`` is static."""
    if level.height < 2 or level.width < 2:
        return []
    n = level.n_cells
    static = [level.owner[c] != -1 or bool(blocked >> c & 1) for c in range(n)]
    on_border = [border_position(level, c) is not None for c in range(n)]
    dots = {k: level.endpoints[k] for k in pairs}
    other = {d: (ds[1] if d == ds[0] else ds[0]) for ds in dots.values() for d in ds}
    pair_of = {d: k for k, ds in dots.items() for d in ds}
    to_border = {d: _walk(level, static, d, lambda c: on_border[c]) for d in pair_of}
    walks: dict[tuple[int, int], list[int]] = {}  # static walks between two dots
    for d in pair_of:
        for e in pair_of:
            if d != e:
                walk = _walk(level, static, d, lambda c, e=e: c == e)
                if walk is not None:
                    walks[d, e] = walk
    links = {
        d: [e for e in pair_of if (d, e) in walks and pair_of[e] != pair_of[d]] for d in pair_of
    }
    found: dict[tuple, Chain] = {}
    budget = [MAX_EXTENSIONS]

    def keep(order: tuple[int, ...], parts: list[list[int]], ends: tuple[int, int] | None) -> None:
        cells = frozenset(c for part in parts for c in part)
        key = (frozenset(order), cells, frozenset(ends) if ends else None)
        if key not in found:
            flanks = _flanks(level, parts)
            junctions: tuple[tuple[int, int], ...] = ()
            if flanks is not None:  # a simple wall: where its pairs' paths meet walks of 2+ cells
                ends_of_paths = {d for k in order for d in dots[k]}
                junctions = tuple(
                    (walk[e], walk[e + (1 if e == 0 else -1)])
                    for walk in parts
                    if len(walk) > 1
                    for e in (0, -1)
                    if walk[e] in ends_of_paths
                )
            if ends or flanks or junctions:  # a loop tells nothing without either
                start, end = ends if ends else (None, None)
                found[key] = Chain(order, cells, start, end, flanks or (), junctions)

    def extend(
        order: tuple[int, ...], parts: list[list[int]], first: int, exit_dot: int, cut: bool
    ) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            return
        if cut:  # close it at the border
            tail = to_border[exit_dot]
            if tail is not None and tail[-1] != parts[0][0]:
                keep(order, parts + [tail], (parts[0][0], tail[-1]))
        elif (exit_dot, first) in walks:  # a loop: close it at the first dot
            keep(order, [walks[exit_dot, first][:-1] + parts[0]] + parts[1:], None)
        if len(order) == MAX_PAIRS:
            return
        for entry in links[exit_dot]:
            j = pair_of[entry]
            if j not in order:
                extend(order + (j,), parts + [walks[exit_dot, entry]], first, other[entry], cut)

    for k, (a, b) in dots.items():
        for entry in (a, b):
            head = to_border[entry]
            if head is not None:
                extend((k,), [head[::-1]], entry, other[entry], True)
            if entry == a:  # loops (found from either dot alike)
                extend((k,), [[entry]], entry, other[entry], False)
    out = sorted(found.values(), key=lambda ch: (len(ch.pairs), ch.loop, len(ch.static)))
    return out[:MAX_CHAINS]


__all__ = ["MAX_CHAINS", "MAX_EXTENSIONS", "MAX_PAIRS", "Chain", "chains", "turn_sides"]
