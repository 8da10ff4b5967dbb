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

:func:`chains` lists such chains of up to :data:`MAX_PAIRS` pairs (at most :data:`MAX_CHAINS`,
the shortest first): the pairs with their orientation, the static cells of the walks and the
border cells ``s`` and ``t``. Cells are indices ``row * width + col``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from puzzlegym.solvers.color_connect_bounds import border_position

MAX_PAIRS = 3
MAX_CHAINS = 48


@dataclass(frozen=True)
class Chain:
    """A wall: ``pairs`` in order along it, ``static`` the static cells of its walks (the
    pairs' dots included), from border cell ``start`` to border cell ``end``."""

    pairs: tuple[int, ...]
    static: frozenset[int]
    start: int
    end: int


def _around(level, cell: int) -> list[int]:
    """The up to 8 cells touching ``cell`` (sides and corners)."""
    h, w = level.height, level.width
    r, c = divmod(cell, w)
    return [rr * w + cc for rr in (r - 1, r, r + 1) for cc in (c - 1, c, c + 1)
            if (rr, cc) != (r, c) and 0 <= rr < h and 0 <= cc < w]


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


def chains(level, pairs: Sequence[int], blocked: int = 0) -> list[Chain]:
    """The walls of up to :data:`MAX_PAIRS` of ``pairs`` (see the module docstring), at most
    :data:`MAX_CHAINS`, fewest pairs first; every cell not free or in ``blocked`` is static."""
    if level.height < 2 or level.width < 2:
        return []
    n = level.n_cells
    static = [level.owner[c] != -1 or bool(blocked >> c & 1) for c in range(n)]
    on_border = [border_position(level, c) is not None for c in range(n)]
    dots = {k: level.endpoints[k] for k in pairs}
    to_border = {d: _walk(level, static, d, lambda c: on_border[c]) for ds in dots.values() for d in ds}
    links: dict[int, list[tuple[int, int, list[int]]]] = {d: [] for ds in dots.values() for d in ds}
    for k, ds in dots.items():  # static walks from a dot of one pair to a dot of another
        for d in ds:
            for j, es in dots.items():
                if j == k:
                    continue
                for e in es:
                    walk = _walk(level, static, d, lambda c, e=e: c == e)
                    if walk is not None:
                        links[d].append((j, e, walk))
    found: list[Chain] = []
    seen: set = set()

    def close(order: tuple[int, ...], cells: list[int], exit_dot: int) -> None:
        tail = to_border[exit_dot]
        if tail is None:
            return
        walk_cells = cells + tail
        start, end = walk_cells[0], tail[-1]
        if start == end:
            return
        key = (frozenset(order), frozenset(walk_cells), frozenset((start, end)))
        if key not in seen:
            seen.add(key)
            found.append(Chain(order, frozenset(walk_cells), start, end))

    def extend(order: tuple[int, ...], cells: list[int], exit_dot: int) -> None:
        close(order, cells, exit_dot)
        if len(order) == MAX_PAIRS:
            return
        for j, entry, walk in links[exit_dot]:
            if j in order:
                continue
            a, b = dots[j]
            other = b if entry == a else a
            extend(order + (j,), cells + walk + [other], other)

    for k, (a, b) in dots.items():
        for entry, exit_dot in ((a, b), (b, a)):
            head = to_border[entry]
            if head is not None:
                extend((k,), head[::-1] + [exit_dot], exit_dot)
    found.sort(key=lambda ch: (len(ch.pairs), len(ch.static)))
    return found[:MAX_CHAINS]


__all__ = ["MAX_CHAINS", "MAX_PAIRS", "Chain", "chains"]
