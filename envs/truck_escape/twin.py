"""Truck Escape's JAX twin (:class:`puzzlegym.twin.Twin`): the rules of ``rules.py`` and the
planes of ``planes.py`` as pure functions over padded arrays, for ``puzzlegym.jax``.

A level is its lot padded to ``rows`` x ``cols`` (``cells``), the truck parked on each cell
(``owner``, -1 for none), the cab cells, each cell's truck's facing, and the blocking graph
as ``blockers[i, j]`` (truck ``j`` stands on truck ``i``'s path), all trucks padded to the
bound ``n_targets`` (the tier's most trucks; ``exists`` marks the level's own). The state is
``remaining``, a ``bool[n_targets]``. Target ``i`` is the click on truck ``i``; the view has
no interaction state and the level screen no Undo.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from puzzlegym.twin import Twin

from .rules import DIRECTIONS, Level, State


class TruckEscapeTwin(Twin):
    name = "TruckEscape"

    def sizes_for(self, levels: Sequence[Level]) -> dict[str, int]:
        return {
            "rows": max(level.rows for level in levels),
            "cols": max(level.cols for level in levels),
            "trucks": max(level.n_trucks for level in levels),
        }

    def encode(self, level: Level) -> dict[str, np.ndarray]:
        rows, cols, t = self.sizes["rows"], self.sizes["cols"], self.n_targets
        if level.rows > rows or level.cols > cols or level.n_trucks > t:
            raise ValueError(
                f"level {level.id!r}: {level.rows}x{level.cols} with {level.n_trucks} trucks "
                f"does not fit the twin's {rows}x{cols} with {t}"
            )
        cells = np.zeros((rows, cols), dtype=bool)
        cells[: level.rows, : level.cols] = True
        owner = np.full((rows, cols), -1, dtype=np.int32)
        cab = np.zeros((rows, cols), dtype=bool)
        facing = np.full((rows, cols), -1, dtype=np.int32)
        for i, truck in enumerate(level.trucks):
            for r, c in truck.cells:
                owner[r, c] = i
                facing[r, c] = DIRECTIONS.index(truck.facing)
            cab[truck.row, truck.col] = True
        blockers = np.zeros((t, t), dtype=bool)
        for i, mask in enumerate(level.blockers):
            for j in range(level.n_trucks):
                blockers[i, j] = bool(mask >> j & 1)
        exists = np.arange(t) < level.n_trucks
        return {
            "cells": cells,
            "owner": owner,
            "cab": cab,
            "facing": facing,
            "blockers": blockers,
            "exists": exists,
        }

    # -- the level screen ----------------------------------------------------------------
    def init(self, lv: Mapping[str, Any]) -> dict[str, Any]:
        return {"remaining": jnp.asarray(lv["exists"])}

    def target_mask(self, lv: Mapping[str, Any], state: Any) -> Any:
        remaining = state["remaining"]
        return remaining & ~jnp.any(lv["blockers"] & remaining[None, :], axis=1)

    def target(self, lv: Mapping[str, Any], state: Any, index: Any) -> dict[str, Any]:
        index = jnp.asarray(index, jnp.int32)
        leaves = (jnp.arange(self.n_targets) == index) & self.target_mask(lv, state)
        return {"remaining": state["remaining"] & ~leaves}

    def restart(self, lv: Mapping[str, Any], state: Any) -> dict[str, Any]:
        return self.init(lv)

    def restartable(self, lv: Mapping[str, Any], state: Any) -> Any:
        return jnp.any(state["remaining"] != lv["exists"])

    def planes(self, lv: Mapping[str, Any], state: Any, shape: tuple[int, int, int]) -> Any:
        rows, cols = self.sizes["rows"], self.sizes["cols"]
        owner = lv["owner"]
        truck = (owner >= 0) & state["remaining"][jnp.maximum(owner, 0)]
        facing = [truck & (lv["facing"] == k) for k in range(len(DIRECTIONS))]
        planes = jnp.stack([lv["cells"], truck, truck & lv["cab"], *facing]).astype(jnp.uint8)
        return jnp.pad(
            planes, ((0, shape[0] - planes.shape[0]), (0, shape[1] - rows), (0, shape[2] - cols))
        )

    def potential(self, lv: Mapping[str, Any], state: Any) -> Any:
        n = jnp.sum(lv["exists"]).astype(jnp.float32)
        return (n - jnp.sum(state["remaining"]).astype(jnp.float32)) / n

    def solved(self, lv: Mapping[str, Any], state: Any) -> Any:
        return ~jnp.any(state["remaining"])

    # -- back to Python ------------------------------------------------------------------
    def to_python(self, level: Level, state: Any) -> tuple[State, None]:
        remaining = np.asarray(state["remaining"])
        return State(sum(1 << i for i in range(level.n_trucks) if remaining[i])), None


TWIN = TruckEscapeTwin()
