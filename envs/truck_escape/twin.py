"""Truck Escape's JAX twin (:class:`puzzlegym.twin.Twin`): the rules of ``rules.py`` and the
planes of ``planes.py`` as pure functions over padded arrays, for ``puzzlegym.jax``.

A level is its lot padded to ``rows`` x ``cols`` (``cells``), the truck parked on each
cell (``bit``: its bit in the bitmask words below, 0 for none), the cab cells, each cell's
truck's facing, and the blocking graph as bitmasks (``blockers[i]``: the trucks standing
on truck ``i``'s path), trucks padded to the bound ``n_targets`` (the tier's most trucks;
``exists`` has the level's own). A set of trucks is a bitmask in little-endian ``uint32``
words (bit ``i`` for truck ``i``, as in ``rules.py``), so a departure is two AND tests on a
word or two. The state is ``remaining``, such a bitmask. Target ``i`` is the click on
truck ``i``; the view has no interaction state and the level screen no Undo.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
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
        cab = np.zeros((rows, cols), dtype=bool)
        facing = np.full((rows, cols), -1, dtype=np.int32)
        for truck in level.trucks:
            for r, c in truck.cells:
                facing[r, c] = DIRECTIONS.index(truck.facing)
            cab[truck.row, truck.col] = True
        words = -(-t // 32)
        bit = np.zeros((words, rows, cols), dtype=np.uint32)  # each cell's truck as a bitmask
        for (r, c), i in level.occupant.items():
            bit[i >> 5, r, c] = np.uint32(1 << (i & 31))
        blockers = np.zeros((t, words), dtype=np.uint32)
        for i, mask in enumerate(level.blockers):
            blockers[i] = _words(mask, words)
        return {
            "cells": cells,
            "bit": bit,
            "cab": cab,
            "facing": facing,
            "blockers": blockers,
            "exists": _words(level.full_mask, words),
        }

    # -- the level screen ----------------------------------------------------------------
    def init(self, lv: Mapping[str, Any]) -> dict[str, Any]:
        return {"remaining": jnp.asarray(lv["exists"])}

    def _on_lot(self, remaining: Any) -> Any:
        """``bool[n_targets]``: the trucks of bitmask ``remaining``."""
        shifts = jnp.arange(32, dtype=jnp.uint32)
        return (((remaining[:, None] >> shifts) & 1) == 1).reshape(-1)[: self.n_targets]

    def target_mask(self, lv: Mapping[str, Any], state: Any) -> Any:
        remaining = state["remaining"]
        on = self._on_lot(remaining)
        return on & jnp.all((lv["blockers"] & remaining[None, :]) == 0, axis=1)

    def target(self, lv: Mapping[str, Any], state: Any, index: Any) -> dict[str, Any]:
        remaining = state["remaining"]
        index = jnp.asarray(index, jnp.int32)
        i = jnp.clip(index, 0, self.n_targets - 1)
        leaves = (index == i) & self.target_mask(lv, state)[i]
        bit = jnp.where(leaves, jnp.uint32(1) << (i & 31).astype(jnp.uint32), jnp.uint32(0))
        return {"remaining": remaining.at[i >> 5].set(remaining[i >> 5] & ~bit)}

    def restart(self, lv: Mapping[str, Any], state: Any) -> dict[str, Any]:
        return self.init(lv)

    def restartable(self, lv: Mapping[str, Any], state: Any) -> Any:
        return jnp.any(state["remaining"] != lv["exists"])

    def planes(self, lv: Mapping[str, Any], state: Any, shape: tuple[int, int, int]) -> Any:
        rows, cols = self.sizes["rows"], self.sizes["cols"]
        truck = jnp.any((lv["bit"] & state["remaining"][:, None, None]) != 0, axis=0)
        facing = [truck & (lv["facing"] == k) for k in range(len(DIRECTIONS))]
        planes = jnp.stack([lv["cells"], truck, truck & lv["cab"], *facing]).astype(jnp.uint8)
        return jnp.pad(
            planes, ((0, shape[0] - planes.shape[0]), (0, shape[1] - rows), (0, shape[2] - cols))
        )

    def potential(self, lv: Mapping[str, Any], state: Any) -> Any:
        n = jnp.sum(jax.lax.population_count(lv["exists"])).astype(jnp.float32)
        left = jnp.sum(jax.lax.population_count(state["remaining"])).astype(jnp.float32)
        return (n - left) / n

    def solved(self, lv: Mapping[str, Any], state: Any) -> Any:
        return jnp.all(state["remaining"] == 0)

    # -- back to Python ------------------------------------------------------------------
    def to_python(self, level: Level, state: Any) -> tuple[State, None]:
        words = np.asarray(state["remaining"], dtype=np.uint32)
        return State(sum(int(w) << (32 * k) for k, w in enumerate(words))), None


def _words(mask: int, words: int) -> np.ndarray:
    """Bitmask ``mask`` as ``words`` little-endian uint32 words."""
    return np.array([mask >> (32 * k) & 0xFFFFFFFF for k in range(words)], dtype=np.uint32)


TWIN = TruckEscapeTwin()
