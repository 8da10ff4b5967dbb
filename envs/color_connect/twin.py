"""Color Connect's JAX twin (:class:`puzzlegym.game.twin.Twin`): the rules of ``rules.py``, the
click controls of ``view.py`` (the path being drawn is the interaction state) and the planes
of ``planes.py`` as pure functions over padded arrays, for ``puzzlegym.jax``. The game has no
Undo.

Cells are flat indices ``row * width + col`` of the grid padded to ``height`` x ``width``
(the twin's sizes, not the level's). A level is, per cell, its owner (``-2`` blocked or
outside the level, ``-1`` free, ``k`` a dot of pair ``k``), each pair's two dots (``ends``:
``a`` first in row-major order, as ``Level.endpoints``), the pair count and the potential of
every count of connected pairs; its board targets (``board_targets``: a click on every cell
of the level, row-major in the level's own width) map to padded cells (``t_cell``).

A state keeps every path as two arrays over the cells, so a step touches each cell a few
times and never walks a path: ``path_pair`` (the pair whose finished path covers the cell,
``-1``) with ``path_order`` (the cell's place on it, from endpoint ``a``), ``connected``
per pair; and the path being drawn: ``draw_pair`` (``-1`` when none), ``draw_order`` (each
cell's place on it from the dot where drawing started, ``-1`` off it), ``draw_len``,
``draw_start`` and ``draw_head`` (its first and last cells). Two cells of one path are
consecutive exactly when their places differ by one, which gives the link planes. A click
is the view's: with no path being drawn, a dot starts a path or removes its connected pair's
path; while drawing, the starting dot cancels, an earlier cell of the path cuts it back, and
a cell in the head's row or column extends the path straight to it when every cell between
is free (no blocked cell, dot, path or the path itself) and the cell is free or the
partner dot, which completes the pair (the rules then accept the path: it is valid by
construction). The mask is computed in one pass: the dots (no path being drawn), or the
path's cells but its head and the free runs of the head's row and column, found with
cumulative sums of what blocks them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from puzzlegym.game.twin import Twin

from .planes import (
    BLOCKED,
    CELL,
    DOT,
    DRAWING,
    DRAWING_END,
    FIRST_PAIR,
    LINK_DOWN,
    LINK_RIGHT,
)
from .rules import Level, State
from .view import Drawing

__all__ = ["TWIN", "ColorConnectTwin"]

OUTSIDE = -2  # a blocked cell or one outside the level (rules.Level.owner's blocked)
FREE = -1


class ColorConnectTwin(Twin):
    """Color Connect's twin (see the module docstring)."""

    name = "ColorConnect"

    # -- levels as arrays ----------------------------------------------------------------
    def sizes_for(self, levels: Sequence[Level]) -> dict[str, int]:
        return {
            "height": max(level.height for level in levels),
            "width": max(level.width for level in levels),
            "pairs": max(level.n_pairs for level in levels),
        }

    def encode(self, level: Level) -> dict[str, np.ndarray]:
        h, w, n_pairs, k = (
            self.sizes["height"],
            self.sizes["width"],
            self.sizes["pairs"],
            self.n_targets,
        )
        for what, need, have in (
            ("height", level.height, h),
            ("width", level.width, w),
            ("pairs", level.n_pairs, n_pairs),
            ("board targets", level.n_cells, k),
        ):
            if need > have:
                raise ValueError(f"level {level.id!r}: {need} {what} do not fit the twin's {have}")
        lw = level.width

        def padded(cell: int) -> int:
            r, c = divmod(cell, lw)
            return r * w + c

        owner = np.full(h * w, OUTSIDE, dtype=np.int32)
        cells = np.zeros(h * w, dtype=bool)
        blocked = np.zeros(h * w, dtype=bool)
        for cell, o in enumerate(level.owner):
            owner[padded(cell)] = o
            cells[padded(cell)] = True
            blocked[padded(cell)] = o == OUTSIDE
        ends = np.full((n_pairs, 2), -1, dtype=np.int32)
        for pair, (a, b) in enumerate(level.endpoints):
            ends[pair] = padded(a), padded(b)
        potentials = np.zeros(n_pairs + 1, dtype=np.float32)
        for n in range(level.n_pairs + 1):  # rules.potential (float64), rounded to float32
            potentials[n] = n / level.n_pairs
        t_cell = np.zeros(k, dtype=np.int32)
        t_cell[: level.n_cells] = [padded(cell) for cell in range(level.n_cells)]
        t_valid = np.zeros(k, dtype=bool)
        t_valid[: level.n_cells] = True
        return {
            "owner": owner,
            "cells": cells,
            "blocked": blocked,
            "ends": ends,
            "n_pairs": np.array(level.n_pairs, dtype=np.int32),
            "potentials": potentials,
            "t_cell": t_cell,
            "t_valid": t_valid,
        }

    # -- the level screen ----------------------------------------------------------------
    def init(self, lv: Mapping[str, Any]) -> dict[str, Any]:
        n = self.sizes["height"] * self.sizes["width"]
        none = jnp.full(n, -1, jnp.int32)
        return {
            "path_pair": none,
            "path_order": none,
            "connected": jnp.zeros(self.sizes["pairs"], dtype=bool),
            "draw_pair": jnp.int32(-1),
            "draw_order": none,
            "draw_len": jnp.int32(0),
            "draw_start": jnp.int32(-1),
            "draw_head": jnp.int32(-1),
        }

    def _grid(self) -> tuple[Any, Any, Any]:
        """Every padded cell's flat index, row and column."""
        h, w = self.sizes["height"], self.sizes["width"]
        flat = jnp.arange(h * w, dtype=jnp.int32)
        return flat, flat // w, flat % w

    def _partner(self, lv: Mapping[str, Any], state: Any) -> Any:
        """The dot that completes the path being drawn."""
        pair = jnp.clip(state["draw_pair"], 0, self.sizes["pairs"] - 1)
        a, b = lv["ends"][pair, 0], lv["ends"][pair, 1]
        return jnp.where(state["draw_start"] == a, b, a)

    def _passable(self, lv: Mapping[str, Any], state: Any) -> Any:
        """The cells a segment may cross: free, on no path, off the path being drawn."""
        return (lv["owner"] == FREE) & (state["path_pair"] < 0) & (state["draw_order"] < 0)

    def target(self, lv: Mapping[str, Any], state: Any, index: Any) -> dict[str, Any]:
        w, n_pairs = self.sizes["width"], self.sizes["pairs"]
        flat, rows, cols = self._grid()
        index = jnp.asarray(index, jnp.int32)
        inside = (index >= 0) & (index < self.n_targets)
        index = jnp.clip(index, 0, self.n_targets - 1)
        x = lv["t_cell"][index]
        live = inside & lv["t_valid"][index]
        owner = lv["owner"][x]
        pair = jnp.clip(owner, 0, n_pairs - 1)
        draw_pair, draw_order = state["draw_pair"], state["draw_order"]
        drawing = draw_pair >= 0
        dp = jnp.clip(draw_pair, 0, n_pairs - 1)
        # no path being drawn: a dot removes its pair's path or starts one
        dot = live & ~drawing & (owner >= 0)
        remove = dot & state["connected"][pair]
        start = dot & ~state["connected"][pair]
        # drawing: cancel, cut back, or a straight segment from the head
        on_path = draw_order[x] >= 0
        cancel = live & drawing & (x == state["draw_start"])
        cut = live & drawing & on_path & ~cancel
        head = state["draw_head"]
        hr, hc, r, c = head // w, head % w, x // w, x % w
        reach = jnp.abs(rows - hr) + jnp.abs(cols - hc)  # cells from the head
        seg = (
            (rows == hr) & (r == hr) & ((cols - hc) * (c - hc) > 0) & (reach <= jnp.abs(c - hc))
        ) | ((cols == hc) & (c == hc) & ((rows - hr) * (r - hr) > 0) & (reach <= jnp.abs(r - hr)))
        passable = self._passable(lv, state)
        partner = self._partner(lv, state)
        clear = jnp.all(jnp.where(seg & (flat != x), passable, True))
        extend = (
            live
            & drawing
            & ~on_path
            & ((r == hr) | (c == hc))
            & clear
            & (passable[x] | (x == partner))
        )
        connect = extend & (x == partner)
        grow = extend & ~connect
        length = state["draw_len"] + reach[x]  # the path's cells once the segment is added
        # the finished path of a connect, placed from the pair's endpoint a
        drawn = (draw_order >= 0) | seg
        place = jnp.where(draw_order >= 0, draw_order, state["draw_len"] - 1 + reach)
        place = jnp.where(state["draw_start"] == lv["ends"][dp, 0], place, length - 1 - place)
        laid = connect & drawn
        gone = remove & (state["path_pair"] == pair)
        path_pair = jnp.where(laid, dp, jnp.where(gone, -1, state["path_pair"]))
        path_order = jnp.where(laid, place, jnp.where(gone, -1, state["path_order"]))
        connected = state["connected"]
        connected = jnp.where(connect, connected.at[dp].set(True), connected)
        connected = jnp.where(remove, connected.at[pair].set(False), connected)
        ends_drawing = cancel | connect
        new_order = jnp.where(
            start,
            jnp.where(flat == x, 0, -1),
            jnp.where(
                ends_drawing,
                -1,
                jnp.where(
                    cut,
                    jnp.where(draw_order <= draw_order[x], draw_order, -1),
                    jnp.where(grow & seg, state["draw_len"] - 1 + reach, draw_order),
                ),
            ),
        )
        moves_head = start | cut | grow
        return {
            "path_pair": path_pair,
            "path_order": path_order,
            "connected": connected,
            "draw_pair": jnp.where(start, owner, jnp.where(ends_drawing, -1, draw_pair)),
            "draw_order": new_order,
            "draw_len": jnp.where(
                start,
                1,
                jnp.where(
                    ends_drawing,
                    0,
                    jnp.where(cut, draw_order[x] + 1, jnp.where(grow, length, state["draw_len"])),
                ),
            ),
            "draw_start": jnp.where(start, x, jnp.where(ends_drawing, -1, state["draw_start"])),
            "draw_head": jnp.where(moves_head, x, jnp.where(ends_drawing, -1, head)),
        }

    def _changes(self, lv: Mapping[str, Any], state: Any) -> Any:
        """``bool[height * width]``: the cells whose click would change the board or the
        path being drawn."""
        h, w = self.sizes["height"], self.sizes["width"]
        flat, rows, cols = self._grid()
        head = state["draw_head"]
        hr, hc = jnp.clip(head // w, 0, h - 1), jnp.clip(head % w, 0, w - 1)
        passable = self._passable(lv, state).reshape(h, w)
        end = (flat == self._partner(lv, state)).reshape(h, w)

        def run(line: Any, ends: Any, at: Any) -> Any:
            # the cells of ``line`` a straight segment from position ``at`` reaches
            stops = (~line).astype(jnp.int32)
            upto = jnp.cumsum(stops)  # stops at or before each position
            before = upto - stops  # stops strictly before
            t = jnp.arange(line.shape[0])
            clear = jnp.where(t > at, before - upto[at] == 0, before[at] - upto == 0)
            return (t != at) & clear & (line | ends)

        along_row = run(passable[hr], end[hr], hc)
        along_col = run(passable[:, hc], end[:, hc], hr)
        segment = ((rows == hr) & along_row[cols]) | ((cols == hc) & along_col[rows])
        drawing = state["draw_pair"] >= 0
        on_path = (state["draw_order"] >= 0) & ((flat != head) | (flat == state["draw_start"]))
        return jnp.where(drawing, on_path | segment, lv["owner"] >= 0)

    def target_mask(self, lv: Mapping[str, Any], state: Any) -> Any:
        return lv["t_valid"] & self._changes(lv, state)[lv["t_cell"]]

    def restart(self, lv: Mapping[str, Any], state: Any) -> dict[str, Any]:
        return self.init(lv)

    def restartable(self, lv: Mapping[str, Any], state: Any) -> Any:
        return jnp.any(state["connected"]) | (state["draw_pair"] >= 0)

    def planes(self, lv: Mapping[str, Any], state: Any, shape: tuple[int, int, int]) -> Any:
        h, w, n_pairs = self.sizes["height"], self.sizes["width"], self.sizes["pairs"]
        if shape[0] < FIRST_PAIR + n_pairs or shape[1] < h or shape[2] < w:
            raise ValueError(f"planes: shape {shape} is smaller than the twin's board")
        flat, _, _ = self._grid()
        pair, place = state["path_pair"].reshape(h, w), state["path_order"].reshape(h, w)
        drawn = state["draw_order"].reshape(h, w)

        def links(a: Any, b: Any, pa: Any, pb: Any, da: Any, db: Any) -> Any:
            # cell a's link to its neighbour b: consecutive on a finished or the drawn path
            finished = (pa >= 0) & (pa == pb) & (jnp.abs(a - b) == 1)
            drawing = (da >= 0) & (db >= 0) & (jnp.abs(da - db) == 1)
            return finished | drawing

        right = links(place[:, :-1], place[:, 1:], pair[:, :-1], pair[:, 1:], *_pair(drawn, 1))
        down = links(place[:-1], place[1:], pair[:-1], pair[1:], *_pair(drawn, 0))
        right = jnp.pad(right, ((0, 0), (0, 1)))
        down = jnp.pad(down, ((0, 1), (0, 0)))
        drawing = drawn >= 0
        owner = lv["owner"].reshape(h, w)
        pairs = jnp.arange(n_pairs)[:, None, None]
        per_pair = (
            (owner[None] == pairs)
            | (pair[None] == pairs)
            | (drawing[None] & (state["draw_pair"] == pairs))
        )
        by_index = {
            CELL: lv["cells"].reshape(h, w),
            BLOCKED: lv["blocked"].reshape(h, w),
            DOT: owner >= 0,
            LINK_RIGHT: right,
            LINK_DOWN: down,
            DRAWING: drawing,
            DRAWING_END: (flat == state["draw_head"]).reshape(h, w) & (state["draw_pair"] >= 0),
        }
        fixed = jnp.stack([by_index[k] for k in range(FIRST_PAIR)])
        planes = jnp.concatenate([fixed, per_pair]).astype(jnp.uint8)
        c = FIRST_PAIR + n_pairs
        return jnp.pad(planes, ((0, shape[0] - c), (0, shape[1] - h), (0, shape[2] - w)))

    def potential(self, lv: Mapping[str, Any], state: Any) -> Any:
        return lv["potentials"][jnp.sum(state["connected"])]

    def solved(self, lv: Mapping[str, Any], state: Any) -> Any:
        return jnp.sum(state["connected"]) == lv["n_pairs"]

    # -- back to Python ------------------------------------------------------------------
    def to_python(self, level: Level, state: Any) -> tuple[State, Drawing | None]:
        w = self.sizes["width"]

        def cells(mask: np.ndarray, order: np.ndarray) -> list[tuple[int, int]]:
            found = np.flatnonzero(mask)
            return [divmod(int(x), w) for x in found[np.argsort(order[found])]]

        pair, place = np.asarray(state["path_pair"]), np.asarray(state["path_order"])
        connected = np.asarray(state["connected"])
        paths = tuple(
            tuple(r * level.width + c for r, c in cells(pair == k, place)) if connected[k] else None
            for k in range(level.n_pairs)
        )
        ui = None
        k = int(state["draw_pair"])
        if k >= 0:
            order = np.asarray(state["draw_order"])
            ui = Drawing(k, tuple(cells(order >= 0, order)))
        return State(paths), ui


def _pair(drawn: Any, axis: int) -> tuple[Any, Any]:
    """The path being drawn's places at each cell and at its right (``axis=1``) or lower
    (``axis=0``) neighbour."""
    if axis == 1:
        return drawn[:, :-1], drawn[:, 1:]
    return drawn[:-1], drawn[1:]


TWIN = ColorConnectTwin()
