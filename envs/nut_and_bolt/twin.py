"""Nut and Bolt's JAX twin (:class:`puzzlegym.game.twin.Twin`): the rules of ``rules.py``, the
view's selection and the planes of ``planes.py`` as pure functions over padded arrays, for
``puzzlegym.jax``.

A level is its starting stacks as ``int8[bolts, capacity]`` (``stacks[j, k]`` the colour of
the ``k``-th nut of bolt ``j`` from the bottom, -1 above the top and on padding bolts), with
its bolt count, capacity and colour count. The state is the stacks, the selected bolt
(``ui``, -1 for none) and Undo's history: one ``int16`` record per applied transfer
(``source + (destination << 5) + (count << 10)``), at most the bound twin's ``max_steps``
of them, and its length. A transfer moves the source's top run, all one colour,
so Undo moves ``count`` nuts back from the destination's top to the source; Restart sets the
history's length to 0 (the suite clears it). Board target ``j`` is a click on bolt ``j``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from puzzlegym.game.twin import Twin, hash_lanes

from .rules import MAX_BOLTS, MAX_CAPACITY, Level, State

_DST_SHIFT, _COUNT_SHIFT, _FIELD = 5, 10, 31  # a history record's fields
assert MAX_BOLTS <= _FIELD + 1 and MAX_CAPACITY < 1 << (15 - _COUNT_SHIFT)


class NutAndBoltTwin(Twin):
    name = "NutAndBolt"

    # -- levels as arrays ------------------------------------------------------------------
    def sizes_for(self, levels: Sequence[Level]) -> dict[str, int]:
        return {
            "bolts": max(level.n_bolts for level in levels),
            "capacity": max(level.capacity for level in levels),
            "colours": max(level.n_colours for level in levels),
        }

    def encode(self, level: Level) -> dict[str, np.ndarray]:
        nb, cap, nc = self.sizes["bolts"], self.sizes["capacity"], self.sizes["colours"]
        if level.n_bolts > nb or level.capacity > cap or level.n_colours > nc:
            raise ValueError(
                f"level {level.id!r}: {level.n_bolts} bolts of {level.capacity} with "
                f"{level.n_colours} colors do not fit the twin's {nb} bolts of {cap} with {nc}"
            )
        stacks = np.full((nb, cap), -1, dtype=np.int8)
        for j, bolt in enumerate(level.bolts):
            stacks[j, : len(bolt)] = bolt
        return {
            "stacks": stacks,
            "n_bolts": np.array(level.n_bolts, dtype=np.int32),
            "capacity": np.array(level.capacity, dtype=np.int32),
            "n_colours": np.array(level.n_colours, dtype=np.int32),
        }

    # -- the board, vectorised over bolts --------------------------------------------------
    def _bolts(self, stacks: Any) -> tuple[Any, Any, Any]:
        """Per bolt: its height, its top nut's colour (-1 when empty) and its top run."""
        cap = self.sizes["capacity"]
        rows = jnp.arange(cap, dtype=jnp.int32)
        height = jnp.sum(stacks >= 0, axis=1, dtype=jnp.int32)
        top = jnp.take_along_axis(stacks, jnp.maximum(height - 1, 0)[:, None], axis=1)[:, 0]
        top = jnp.where(height > 0, top, -1)
        below = (rows[None, :] < height[:, None]) & (stacks != top[:, None])
        last_other = jnp.max(jnp.where(below, rows[None, :], -1), axis=1)
        return height, top, height - 1 - last_other  # an empty bolt: 0 - 1 - (-1) = 0

    def _transfer(self, stacks: Any, height: Any, src: Any, dst: Any, k: Any) -> Any:
        """``stacks`` (of bolt heights ``height``) with the ``k`` top nuts of ``src`` (one
        colour) put on ``dst``."""
        nb, cap = self.sizes["bolts"], self.sizes["capacity"]
        colour = stacks[src, jnp.maximum(height[src] - 1, 0)]
        bolt = jnp.arange(nb, dtype=jnp.int32)[:, None]
        row = jnp.arange(cap, dtype=jnp.int32)[None, :]
        hs, hd = height[src], height[dst]
        taken = (bolt == src) & (row >= hs - k) & (row < hs)
        put = (bolt == dst) & (row >= hd) & (row < hd + k)
        return jnp.where(put, colour, jnp.where(taken, jnp.int8(-1), stacks))

    # -- the level screen ------------------------------------------------------------------
    def init(self, lv: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "stacks": jnp.asarray(lv["stacks"]),
            "ui": jnp.int32(-1),
            "history": jnp.zeros(max(self.max_steps, 1), dtype=jnp.int16),
            "n_history": jnp.int32(0),
        }

    def target(self, lv: Mapping[str, Any], state: Any, index: Any) -> dict[str, Any]:
        nb = self.sizes["bolts"]
        index = jnp.asarray(index, jnp.int32)
        stacks, ui, n = state["stacks"], state["ui"], state["n_history"]
        exists = (index >= 0) & (index < lv["n_bolts"])
        j = jnp.clip(index, 0, nb - 1)
        height, top, run = self._bolts(stacks)
        s = jnp.maximum(ui, 0)
        # a transfer from the selected bolt to bolt j: how many nuts move (0: rejected)
        fits = (height[j] < lv["capacity"]) & ((height[j] == 0) | (top[j] == top[s]))
        allowed = exists & (ui >= 0) & (ui != j) & (height[s] > 0) & fits
        k = jnp.where(allowed, jnp.minimum(run[s], lv["capacity"] - height[j]), 0)
        moved = k > 0
        select = exists & (ui < 0) & (height[j] > 0)
        deselect = exists & (ui == j)
        new_ui = jnp.where(select, j, jnp.where(deselect | moved, -1, ui))
        record = (s | j << _DST_SHIFT | k << _COUNT_SHIFT).astype(jnp.int16)
        history = state["history"]
        return {
            "stacks": self._transfer(stacks, height, s, j, k),
            "ui": new_ui,
            "history": history.at[jnp.minimum(n, history.shape[0] - 1)].set(
                jnp.where(moved, record, history[jnp.minimum(n, history.shape[0] - 1)])
            ),
            "n_history": jnp.where(moved, jnp.minimum(n + 1, history.shape[0]), n),
        }

    def target_mask(self, lv: Mapping[str, Any], state: Any) -> Any:
        nb = self.sizes["bolts"]
        stacks, ui = state["stacks"], state["ui"]
        height, top, _ = self._bolts(stacks)
        bolt = jnp.arange(nb, dtype=jnp.int32)
        s = jnp.maximum(ui, 0)
        fits = (height < lv["capacity"]) & ((height == 0) | (top == top[s]))
        transfer = (bolt != s) & (height[s] > 0) & fits
        changes = jnp.where(ui < 0, height > 0, (bolt == ui) | transfer)
        changes = changes & (bolt < lv["n_bolts"])
        k = min(changes.shape[0], self.n_targets)  # the action space's targets
        return jnp.zeros(self.n_targets, dtype=bool).at[:k].set(changes[:k])

    def restart(self, lv: Mapping[str, Any], state: Any) -> dict[str, Any]:
        # the history's records stay (only its length counts): no new array per step
        return {
            "stacks": jnp.asarray(lv["stacks"]),
            "ui": jnp.int32(-1),
            "history": state["history"],
            "n_history": jnp.int32(0),
        }

    def restartable(self, lv: Mapping[str, Any], state: Any) -> Any:
        return jnp.any(state["stacks"] != lv["stacks"]) | (state["ui"] >= 0)

    def undo(self, lv: Mapping[str, Any], state: Any) -> dict[str, Any]:
        n = state["n_history"]
        can = n > 0
        record = state["history"][jnp.maximum(n - 1, 0)].astype(jnp.int32)
        src, dst = record & _FIELD, record >> _DST_SHIFT & _FIELD
        k = jnp.where(can, record >> _COUNT_SHIFT, 0)
        stacks = state["stacks"]
        height = jnp.sum(stacks >= 0, axis=1, dtype=jnp.int32)
        return {
            "stacks": self._transfer(stacks, height, dst, src, k),  # the nuts go back
            "ui": jnp.where(can, -1, state["ui"]),
            "history": state["history"],
            "n_history": jnp.maximum(n - 1, 0),
        }

    def undoable(self, lv: Mapping[str, Any], state: Any) -> Any:
        return state["n_history"] > 0

    def planes(self, lv: Mapping[str, Any], state: Any, shape: tuple[int, int, int]) -> Any:
        nb, cap = self.sizes["bolts"], self.sizes["capacity"]
        n_planes, h, w = shape
        colours = n_planes - 3
        if h < cap or w < nb or colours < self.sizes["colours"]:
            raise ValueError(
                f"planes: shape {shape} is smaller than the twin's {cap} rows, {nb} bolts "
                f"and {self.sizes['colours']} colors"
            )
        stacks, ui = state["stacks"], state["ui"]
        height, _, run = self._bolts(stacks)
        row = jnp.arange(cap, dtype=jnp.int32)[:, None]  # planes are (row, bolt)
        bolt = jnp.arange(nb, dtype=jnp.int32)[None, :]
        slot = (row < lv["capacity"]) & (bolt < lv["n_bolts"])
        selected = (bolt == ui) & (row < lv["capacity"])
        lifted = (bolt == ui) & (row >= (height - run)[None, :]) & (row < height[None, :])
        colour = stacks.T[None] == jnp.arange(colours, dtype=jnp.int8)[:, None, None]
        planes = jnp.concatenate([jnp.stack([slot, selected, lifted]), colour]).astype(jnp.uint8)
        return jnp.pad(planes, ((0, 0), (0, h - cap), (0, w - nb)))

    def potential(self, lv: Mapping[str, Any], state: Any) -> Any:
        stacks = state["stacks"]
        height, _, run = self._bolts(stacks)
        pure = (height > 0) & (run == height)
        colour = jnp.arange(self.sizes["colours"], dtype=jnp.int8)[:, None]
        best = jnp.max(jnp.where(pure & (stacks[:, 0] == colour), height, 0), axis=1)
        total = (lv["capacity"] * lv["n_colours"]).astype(jnp.float32)
        return jnp.sum(best).astype(jnp.float32) / total

    def solved(self, lv: Mapping[str, Any], state: Any) -> Any:
        height, _, run = self._bolts(state["stacks"])
        return jnp.all((height == 0) | ((height == lv["capacity"]) & (run == height)))

    def board_key(self, lv: Mapping[str, Any], state: Any) -> Any:
        """The solver's canonical key as a hash: the multiset of the bolts that are not
        complete (a complete bolt, full of one colour, counts as one mark whatever its
        colour), each bolt hashed from its nuts bottom to top (:func:`hash_lanes`), the
        bolts' hashes sorted, then hashed in turn."""
        stacks = state["stacks"]
        height, _, run = self._bolts(stacks)
        complete = (height > 0) & (height == lv["capacity"]) & (run == height)
        per_bolt = hash_lanes(stacks.astype(jnp.int32) + 1)  # [bolts, 2]; 0 above the top
        per_bolt = jnp.where(complete[:, None], jnp.uint32(0xFFFFFFFF), per_bolt)
        order = jnp.lexsort((per_bolt[:, 1], per_bolt[:, 0]))  # their order does not count
        return hash_lanes(per_bolt[order].reshape(-1))

    # -- back to Python --------------------------------------------------------------------
    def to_python(self, level: Level, state: Any) -> tuple[State, int | None]:
        stacks = np.asarray(state["stacks"])
        bolts = tuple(tuple(int(c) for c in stacks[j] if c >= 0) for j in range(level.n_bolts))
        ui = int(state["ui"])
        return State(bolts), None if ui < 0 else ui

    def from_python(self, level: Level, state: State) -> dict[str, Any]:
        board = Level(level.id, level.tier, level.capacity, state.bolts)
        return {
            "stacks": self.encode(board)["stacks"],
            "ui": np.int32(-1),
            "history": np.zeros(max(self.max_steps, 1), dtype=np.int16),
            "n_history": np.int32(0),
        }


TWIN = NutAndBoltTwin()
