"""Color Connect: cheap necessary conditions, checked before any search (pure Python).

Each rule looks only at the board's geometry and fires only when *no* solution exists, so
when one fires its finding is a complete proof of unsolvability; when none fires nothing is
known. A pair's path uses only free cells between its two dots (never a blocked cell,
another pair's dot or a cell in ``blocked``), so:

* **separated**: a pair whose dots are not adjacent and are not joined by free cells cannot be
  connected;
* **bottleneck**: a free cell is on at most one path, so a single free cell whose removal
  separates the dots of two or more pairs (each of which could be joined before) makes the
  board unsolvable;
* **crossing**: a path between two dots on the board's outer border splits the board in two
  (the path plus the border is a closed curve), so two pairs whose four dots all lie on the
  border and alternate along it (A, B, A, B going round) would have to cross.

``refute(level, pairs, blocked)`` returns the first finding as a proof dict (``engine``
``"bounds"``, the ``rule``, the pairs' letters and the cells involved) or None.
Cells are indices ``row * width + col``; sets of cells are ``int`` bitmasks.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import PAIR_LETTERS


def _joined(level, a: int, b: int, open_mask: int) -> bool:
    """Whether the dots ``a`` and ``b`` are adjacent or joined through ``open_mask`` cells."""
    if b in level.neighbours[a]:
        return True
    nb = level.neighbour_masks
    return bool(level.flood(nb[a] & open_mask, open_mask) & nb[b])


def separated(level, pairs: Sequence[int], open_mask: int) -> int | None:
    """The first pair of ``pairs`` whose dots cannot be joined through ``open_mask``."""
    for k in pairs:
        a, b = level.endpoints[k]
        if not _joined(level, a, b, open_mask):
            return k
    return None


def bottleneck(level, pairs: Sequence[int], open_mask: int) -> tuple[int, list[int]] | None:
    """A free cell whose removal separates two or more of ``pairs`` (each joined before),
    with the pairs it separates; None when there is none."""
    nb = level.neighbour_masks
    # per pair (non-adjacent dots only): the free cells its path may use
    regions = []
    for k in pairs:
        a, b = level.endpoints[k]
        if b in level.neighbours[a]:
            continue  # adjacent dots need no free cell
        region = level.flood(nb[a] & open_mask, open_mask)
        if region & nb[b]:
            regions.append((k, a, b, region))
    if len(regions) < 2:
        return None
    # Only a cut vertex of the free cells, or a dot's one free neighbour in the components
    # joining it to its partner, can separate dots: removing any other cell leaves each such
    # component connected and still touching both dots.
    candidates = _cut_vertices(level, open_mask)
    for _, a, b, region in regions:
        joint = region & level.flood(nb[b] & open_mask, open_mask)
        for dot in (a, b):
            exits = nb[dot] & joint
            if exits & (exits - 1) == 0:
                candidates |= exits
    while candidates:
        low = candidates & -candidates
        candidates ^= low
        rest = open_mask & ~low
        cut = []
        for k, a, b, region in regions:
            if region & low and not level.flood(nb[a] & rest, rest) & nb[b]:
                cut.append(k)
        if len(cut) >= 2:
            return low.bit_length() - 1, cut
    return None


def _cut_vertices(level, open_mask: int) -> int:
    """The cut vertices (articulation points) of the graph of ``open_mask`` cells, as a
    bitmask (iterative Tarjan: low-link over a depth-first search)."""
    nbrs = level.neighbours
    depth: dict[int, int] = {}
    low: dict[int, int] = {}
    cuts = 0
    todo = open_mask
    while todo:
        root = (todo & -todo).bit_length() - 1
        depth[root] = low[root] = 0
        children = 0
        stack = [(root, -1, iter(nbrs[root]))]
        while stack:
            x, parent, it = stack[-1]
            for y in it:
                if not open_mask >> y & 1 or y == parent:
                    continue
                if y in depth:
                    low[x] = min(low[x], depth[y])
                else:
                    depth[y] = low[y] = depth[x] + 1
                    stack.append((y, x, iter(nbrs[y])))
                    break
            else:
                stack.pop()
                if parent >= 0:
                    low[parent] = min(low[parent], low[x])
                    if parent == root:
                        children += 1
                    elif low[x] >= depth[parent]:
                        cuts |= 1 << parent
        if children > 1:
            cuts |= 1 << root
        seen = 0
        for c in depth:
            seen |= 1 << c
        todo &= ~seen
    return cuts


def border_position(level, cell: int) -> int | None:
    """The position of ``cell`` going clockwise round the board's border from the top-left
    corner, or None for an inner cell (boards at least 2x2)."""
    h, w = level.height, level.width
    r, c = divmod(cell, w)
    if r == 0:
        return c
    if c == w - 1:
        return (w - 1) + r
    if r == h - 1:
        return (w - 1) + (h - 1) + (w - 1 - c)
    if c == 0:
        return 2 * (w - 1) + (h - 1) + (h - 1 - r)
    return None


def crossing(level, pairs: Sequence[int]) -> tuple[int, int] | None:
    """Two of ``pairs`` whose four dots lie on the outer border and alternate along it."""
    if level.height < 2 or level.width < 2:
        return None
    on_border = []
    for k in pairs:
        a, b = level.endpoints[k]
        pa, pb = border_position(level, a), border_position(level, b)
        if pa is not None and pb is not None:
            on_border.append((k, min(pa, pb), max(pa, pb)))
    for i, (k, p, q) in enumerate(on_border):
        for j, r, s in on_border[i + 1 :]:
            if (p < r < q) != (p < s < q):
                return k, j
    return None


def refute(level, pairs: Sequence[int] | None = None, blocked: int = 0) -> dict | None:
    """A proof that ``pairs`` (default: all) cannot all be routed around ``blocked``, from
    the first rule that fires, or None."""
    if pairs is None:
        pairs = range(level.n_pairs)
    pairs = list(pairs)
    open_mask = level.free_mask & ~blocked
    k = separated(level, pairs, open_mask)
    if k is not None:
        return {"engine": "bounds", "rule": "separated", "pairs": [PAIR_LETTERS[k]], "cells": []}
    found = crossing(level, pairs)
    if found is not None:
        cells = sorted(c for j in found for c in level.endpoints[j])
        return {
            "engine": "bounds",
            "rule": "crossing",
            "pairs": [PAIR_LETTERS[j] for j in found],
            "cells": cells,
        }
    cut = bottleneck(level, pairs, open_mask)
    if cut is not None:
        cell, ks = cut
        return {
            "engine": "bounds",
            "rule": "bottleneck",
            "pairs": [PAIR_LETTERS[j] for j in ks],
            "cells": [cell],
        }
    return None


def proof_text(level, proof: dict) -> str:
    """One sentence for a :func:`refute` proof."""
    letters = ", ".join(proof["pairs"])
    cells = ", ".join(f"({r}, {c})" for r, c in (level.cell(x) for x in proof["cells"]))
    if proof["rule"] == "separated":
        return f"level {level.id}: the dots of pair {letters} are not joined by free cells"
    if proof["rule"] == "crossing":
        return (
            f"level {level.id}: pairs {letters} have their dots on the border in alternating "
            "order, so their paths would cross"
        )
    return f"level {level.id}: the free cell {cells} is the only way through for pairs {letters}"


__all__ = ["border_position", "bottleneck", "crossing", "proof_text", "refute", "separated"]
