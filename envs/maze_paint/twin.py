"""Maze Paint's JAX twin (:class:`puzzlegym.twin.Twin`): the rules of ``rules.py`` and the
planes of ``planes.py`` as pure functions over padded arrays, for ``puzzlegym.jax``.

A level is its grid padded to ``height`` x ``width`` (``cells``: the level's own cells,
``floor``: its floor cells), the ball's start as a padded flat index ``row * width + col``,
and the slide table of ``Level.slide_table`` as destinations (``dest[cell, direction]``, -1
where the ball cannot roll). A slide paints every cell from the ball to its destination,
which lie on one row or one column, so the cells crossed are the rectangle the two span.
The state is the ball's padded flat index and the painted cells as a ``bool[height, width]``.
Maze Paint's view has no interaction state and no Undo; its four board targets are the
swipes up, down, left and right (``rules.DIRECTIONS``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from puzzlegym.twin import Twin

from . import rules
from .rules import Level, State


class MazePaintTwin(Twin):
    name = "MazePaint"

    def sizes_for(self, levels: Sequence[Level]) -> dict[str, int]:
        return {
            "height": max(level.height for level in levels),
            "width": max(level.width for level in levels),
        }

    def encode(self, level: Level) -> dict[str, np.ndarray]:
        h, w = self.sizes["height"], self.sizes["width"]
        if level.height > h or level.width > w:
            raise ValueError(
                f"level {level.id!r}: {level.height}x{level.width} does not fit the twin's {h}x{w}"
            )
        cells = np.zeros((h, w), dtype=bool)
        cells[: level.height, : level.width] = True
        floor = np.zeros((h, w), dtype=bool)
        for r, row in enumerate(level.grid):
            for c, ch in enumerate(row):
                floor[r, c] = ch == rules.FLOOR_CHAR
        dest = np.full((h * w, 4), -1, dtype=np.int32)
        for index, entry in enumerate(level.slide_table):
            if entry is not None:
                cell, d = divmod(index, 4)
                r, c = divmod(cell, level.width)
                dr, dc = divmod(entry[0], level.width)
                dest[r * w + c, d] = dr * w + dc
        r, c = level.start
        return {
            "cells": cells,
            "floor": floor,
            "start": np.array(r * w + c, dtype=np.int32),
            "dest": dest,
            "n_floor": np.array(level.n_paintable, dtype=np.int32),
        }

    # -- the level screen ----------------------------------------------------------------
    def _start_painted(self, lv: Mapping[str, Any]) -> Any:
        h, w = self.sizes["height"], self.sizes["width"]
        return (jnp.arange(h * w) == lv["start"]).reshape(h, w)

    def init(self, lv: Mapping[str, Any]) -> dict[str, Any]:
        return {"ball": jnp.asarray(lv["start"], jnp.int32), "painted": self._start_painted(lv)}

    def target(self, lv: Mapping[str, Any], state: Any, index: Any) -> dict[str, Any]:
        h, w = self.sizes["height"], self.sizes["width"]
        index = jnp.asarray(index, jnp.int32)
        ball = state["ball"]
        to = lv["dest"][ball, jnp.clip(index, 0, 3)]
        moved = (index >= 0) & (index < 4) & (to >= 0)
        to = jnp.where(moved, to, ball)
        r0, c0 = ball // w, ball % w
        r1, c1 = to // w, to % w
        rows = jnp.arange(h)[:, None]
        cols = jnp.arange(w)[None, :]
        crossed = (
            (rows >= jnp.minimum(r0, r1))
            & (rows <= jnp.maximum(r0, r1))
            & (cols >= jnp.minimum(c0, c1))
            & (cols <= jnp.maximum(c0, c1))
        )
        return {"ball": to, "painted": state["painted"] | (crossed & moved)}

    def target_mask(self, lv: Mapping[str, Any], state: Any) -> Any:
        moves = lv["dest"][state["ball"]] >= 0
        return jnp.zeros(self.n_targets, dtype=bool).at[:4].set(moves[: self.n_targets])

    def restart(self, lv: Mapping[str, Any], state: Any) -> dict[str, Any]:
        return self.init(lv)

    def restartable(self, lv: Mapping[str, Any], state: Any) -> Any:
        return (state["ball"] != lv["start"]) | jnp.any(state["painted"] != self._start_painted(lv))

    def planes(self, lv: Mapping[str, Any], state: Any, shape: tuple[int, int, int]) -> Any:
        h, w = self.sizes["height"], self.sizes["width"]
        floor, cells = lv["floor"], lv["cells"]
        ball = jnp.arange(h * w).reshape(h, w) == state["ball"]
        planes = jnp.stack([floor, cells & ~floor, state["painted"] & floor, ball])
        planes = planes.astype(jnp.uint8)
        return jnp.pad(planes, ((0, shape[0] - 4), (0, shape[1] - h), (0, shape[2] - w)))

    def potential(self, lv: Mapping[str, Any], state: Any) -> Any:
        n = lv["n_floor"].astype(jnp.float32)
        painted = jnp.sum(state["painted"] & lv["floor"]).astype(jnp.float32)
        return jnp.where(n <= 1, jnp.float32(1.0), (painted - 1) / jnp.maximum(n - 1, 1))

    def solved(self, lv: Mapping[str, Any], state: Any) -> Any:
        return jnp.all(state["painted"] | ~lv["floor"])

    # -- back to Python ------------------------------------------------------------------
    def to_python(self, level: Level, state: Any) -> tuple[State, None]:
        w = self.sizes["width"]
        r, c = divmod(int(state["ball"]), w)
        painted = np.asarray(state["painted"])
        mask = 0
        for pr, pc in zip(*np.nonzero(painted), strict=True):
            mask |= 1 << (int(pr) * level.width + int(pc))
        return State(r * level.width + c, mask), None


TWIN = MazePaintTwin()
