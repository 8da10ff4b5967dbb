"""Rush Hour's JAX twin (:class:`puzzlegym.game.twin.Twin`): the rules of ``rules.py``, the drags of
``view.py`` and the planes of ``planes.py`` as pure functions over padded arrays, for
``puzzlegym.jax``. The view has no interaction state and the game no Undo.

A level is its grid padded to ``height`` x ``width`` and its vehicles padded to ``vehicles``
(each vehicle's axis, length, lane (its row or column), start position and whether it
exists), and its board targets as ``(vehicle, position)`` pairs in ``board_targets``' order
(vehicle by vehicle, positions ascending). A state is every vehicle's position along its
axis, ``int32[vehicles]``. Board target ``(i, q)`` is the view's drag of vehicle ``i`` to
position ``q``: the vehicle slides towards ``q`` and stops before the first wall or vehicle in
the way (its free run ``[lo, hi]``, the rules' ``slide_range``), so it changes the board
exactly when ``q`` lies on a side the vehicle can move to.

The potential is exact: ``1 - d(s)/d(s0)`` from the solver's distances
(``puzzlegym.envs.rush_hour.solver.cluster_table``: one breadth-first search over the level's
whole state cluster, every state play can reach). Each level brings its cluster as a table:
every state's key (its positions in mixed radix, the vehicles packed greedily into as few
``uint32`` words as hold them: ``key_words``), sorted, beside the state's distance
(``uint8``); the potential of each distance is a per-level table of 256 ``float32`` values
computed as the rules compute it, so it is the rules' number rounded to ``float32``.
The tables are ragged: :meth:`RushHourTwin.stack` concatenates every level's table and
keeps each level's offset and size, and :meth:`RushHourTwin.potential` finds the state by a
binary search of the level's range inside ``jit`` (20 halvings cover the solver's limit of
a million states). Every catalogue and generated level (6x6, clusters of at most 20,000
states by the generator's own limit) fits: at most 5 (one word) or 9 (two words) bytes a
state, 100-180 KB for the largest clusters, 1 KB of potentials per level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from puzzlegym.game.twin import Twin

from .clusters import (
    BITS,
    FIELD,
    MAX_CLUSTER_STATES,
    cluster_table,
    packer,
)
from .planes import CELL, EXIT, FRONT, HORIZONTAL, TARGET_CAR, TRUCK, VERTICAL, WALL
from .rules import POTENTIAL_CAP, TARGET, Level, State, initial_state

__all__ = ["TWIN", "RushHourTwin"]

WORD = 1 << 32  # a key word holds a product of spans up to this
UNSOLVABLE = 255  # the distance of a state whose cluster has no solved state
SEARCH_STEPS = MAX_CLUSTER_STATES.bit_length()  # binary-search halvings (any table fits)
TABLES = ("keys", "dist")  # the ragged per-state arrays (concatenated by stack)
N_PLANES = 8


def key_layout(level: Level) -> tuple[list[int], list[int]]:
    """Per vehicle, the key word it is packed into and its multiplier there: vehicles in
    order, a new word whenever the product of the spans would pass 2**32."""
    words, mults = [], []
    word, product = 0, 1
    for i in range(level.n_vehicles):
        span = level.span(i)
        if product * span > WORD:
            word, product = word + 1, 1
        words.append(word)
        mults.append(product)
        product *= span
    return words, mults


def _bucket(n: int) -> int:
    """The rows the concatenated tables of ``n`` states take: at least 2**16, the next power
    of two up to 2**20, then the next multiple of 2**20, so level sets of similar total size
    have one shape (and share compiled code)."""
    if n <= 1 << 20:
        return 1 << max(16, (n - 1).bit_length())
    return -(-n // (1 << 20)) << 20


class RushHourTwin(Twin):
    """Rush Hour's twin (see the module docstring)."""

    name = "RushHour"

    # -- levels as arrays ----------------------------------------------------------------
    def sizes_for(self, levels: Sequence[Level]) -> dict[str, int]:
        return {
            "height": max(level.height for level in levels),
            "width": max(level.width for level in levels),
            "vehicles": max(level.n_vehicles for level in levels),
            "key_words": max(key_layout(level)[0][-1] + 1 for level in levels),
        }

    def encode(self, level: Level) -> dict[str, np.ndarray]:
        h, w = self.sizes["height"], self.sizes["width"]
        n_v, n_words, k = self.sizes["vehicles"], self.sizes["key_words"], self.n_targets
        n = level.n_vehicles
        words, mults = key_layout(level)
        targets = [(i, q) for i in range(n) for q in range(level.span(i))]
        for what, need, have in (
            ("height", level.height, h),
            ("width", level.width, w),
            ("vehicles", n, n_v),
            ("key_words", words[-1] + 1, n_words),
            ("board targets", len(targets), k),
        ):
            if need > have:
                raise ValueError(f"level {level.id!r}: {need} {what} do not fit the twin's {have}")
        cells = np.zeros((h, w), dtype=bool)
        cells[: level.height, : level.width] = True
        walls = np.zeros((h, w), dtype=bool)
        for r, c in level.walls:
            walls[r, c] = True
        exit_cell = np.zeros((h, w), dtype=bool)
        exit_cell[level.exit_row, level.width - 1] = True

        def per_vehicle(values: list, dtype: Any) -> np.ndarray:
            out = np.zeros(n_v, dtype=dtype)
            out[:n] = values
            return out

        vehicles = level.vehicles
        t_vehicle = np.zeros(k, dtype=np.int32)
        t_position = np.zeros(k, dtype=np.int32)
        t_valid = np.zeros(k, dtype=bool)
        t_vehicle[: len(targets)] = [i for i, _ in targets]
        t_position[: len(targets)] = [q for _, q in targets]
        t_valid[: len(targets)] = True
        keys, dist, potentials = self._cluster(level, words, mults)
        return {
            "cells": cells,
            "walls": walls,
            "blocked": walls | ~cells,
            "exit": exit_cell,
            "exit_position": np.array(level.exit_position, dtype=np.int32),
            "v_valid": per_vehicle([True] * n, bool),
            "v_horizontal": per_vehicle([v.horizontal for v in vehicles], bool),
            "v_truck": per_vehicle([v.is_truck for v in vehicles], bool),
            "v_length": per_vehicle([v.length for v in vehicles], np.int32),
            "v_lane": per_vehicle([v.lane for v in vehicles], np.int32),
            "v_start": per_vehicle([v.position for v in vehicles], np.int32),
            "v_word": per_vehicle(words, np.int32),
            "v_mult": per_vehicle(mults, np.uint32),
            "t_vehicle": t_vehicle,
            "t_position": t_position,
            "t_valid": t_valid,
            "potentials": potentials,
            "keys": keys,
            "dist": dist,
        }

    def _cluster(
        self, level: Level, words: list[int], mults: list[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The level's cluster as sorted keys (``uint32[states, key_words]``), each state's
        distance (``uint8``) and the potential of every distance (``float32[256]``)."""
        table = cluster_table(level)
        packed = packer(level)
        n, n_words = level.n_vehicles, self.sizes["key_words"]
        if n * BITS <= 64:  # the solver's keys as uint64, cut into 4-bit positions
            packed_keys = np.fromiter(table.distances, dtype=np.uint64, count=len(table.distances))
            shifts = np.arange(n, dtype=np.uint64) * np.uint64(BITS)
            states = (packed_keys[:, None] >> shifts[None, :]) & np.uint64(FIELD)
        else:
            states = np.array(
                [packed.decode(key) for key in table.distances], dtype=np.uint64
            ).reshape(len(table.distances), n)
        keys = np.zeros((len(states), n_words), dtype=np.uint64)
        for i in range(n):
            keys[:, words[i]] += states[:, i] * np.uint64(mults[i])
        raw = [UNSOLVABLE if d is None else d for d in table.distances.values()]
        if max(raw) > UNSOLVABLE:
            raise ValueError(
                f"level {level.id!r}: a state {max(raw)} moves from the goal; the twin's "
                f"distances stop at {UNSOLVABLE - 1}"
            )
        order = np.lexsort(keys.T[::-1])
        d0 = table.distances[packed.encode(initial_state(level))]
        potentials = np.zeros(UNSOLVABLE + 1, dtype=np.float32)
        if d0:  # as rules.potential computes it (float64), rounded to float32
            for d in range(UNSOLVABLE):
                potentials[d] = min(POTENTIAL_CAP, max(0.0, 1.0 - d / d0))
        return (
            keys[order].astype(np.uint32),
            np.asarray(raw, dtype=np.uint8)[order],
            potentials,
        )

    def stack(self, encoded: Sequence[Mapping[str, np.ndarray]]) -> dict[str, np.ndarray]:
        """The levels' arrays stacked on a new first axis, but their cluster tables
        concatenated (``keys``, ``dist``, padded to :func:`_bucket` rows), with each level's
        ``table_start`` and ``table_size``."""
        out = {key: np.stack([e[key] for e in encoded]) for key in encoded[0] if key not in TABLES}
        sizes = np.array([len(e["dist"]) for e in encoded], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        if sizes.sum() >= 2**31:
            raise ValueError(f"levels: {sizes.sum()} cluster states in all do not fit int32")
        out["table_start"] = starts.astype(np.int32)
        out["table_size"] = sizes.astype(np.int32)
        total = int(sizes.sum())
        room = _bucket(total) - total  # rows no level's range holds
        for key in TABLES:
            tables = [e[key] for e in encoded]
            filler = np.full((room, *tables[0].shape[1:]), np.iinfo(tables[0].dtype).max)
            out[key] = np.concatenate([*tables, filler.astype(tables[0].dtype)])
        return out

    def select(self, stacked: Mapping[str, Any], index: Any) -> dict[str, Any]:
        return {key: value if key in TABLES else value[index] for key, value in stacked.items()}

    def take(self, stacked: Mapping[str, Any], rows: Sequence[int]) -> dict[str, Any]:
        """Levels ``rows`` of :meth:`stack`'s pytree with their own cluster tables, stacked
        afresh (numpy or JAX arrays as given)."""
        host = {key: np.asarray(value) for key, value in stacked.items()}
        starts, sizes = host["table_start"], host["table_size"]
        levels = [
            {
                key: value[r, ...] if key not in TABLES else value[starts[r] : starts[r] + sizes[r]]
                for key, value in host.items()
                if key not in ("table_start", "table_size")
            }
            for r in (int(r) for r in rows)
        ]
        out = self.stack(levels)
        if any(isinstance(value, jax.Array) for value in stacked.values()):
            return {key: jnp.asarray(value) for key, value in out.items()}
        return out

    # -- the level screen ----------------------------------------------------------------
    def init(self, lv: Mapping[str, Any]) -> Any:
        return jnp.asarray(lv["v_start"], jnp.int32)

    def _cover(self, lv: Mapping[str, Any], pos: Any) -> Any:
        """``bool[vehicles, height, width]``: the cells each vehicle covers."""
        h, w = self.sizes["height"], self.sizes["width"]
        rows = jnp.arange(h)[None, :, None]
        cols = jnp.arange(w)[None, None, :]
        horizontal = lv["v_horizontal"][:, None, None]
        along = jnp.where(horizontal, cols, rows)
        across = jnp.where(horizontal, rows, cols)
        p = pos[:, None, None]
        return (
            lv["v_valid"][:, None, None]
            & (across == lv["v_lane"][:, None, None])
            & (along >= p)
            & (along < p + lv["v_length"][:, None, None])
        )

    def _runs(self, lv: Mapping[str, Any], pos: Any) -> tuple[Any, Any]:
        """Each vehicle's free run ``(lo, hi)``: the lowest and highest position it can slide
        to in one move (``rules.slide_range``)."""
        h, w = self.sizes["height"], self.sizes["width"]
        side = max(h, w) + 1  # a lane with one taken cell past its end
        occ = lv["blocked"] | jnp.any(self._cover(lv, pos), axis=0)
        occ = jnp.pad(occ, ((0, side - h), (0, side - w)), constant_values=True)
        lane = lv["v_lane"]
        lanes = jnp.where(lv["v_horizontal"][:, None], occ[lane, :], occ[:, lane].T)
        t = jnp.arange(side)[None, :]
        p, length = pos[:, None], lv["v_length"][:, None]
        lo = jnp.max(jnp.where(lanes & (t < p), t + 1, 0), axis=1)
        hi = jnp.min(jnp.where(lanes & (t >= p + length), t - length, side), axis=1)
        return lo, hi

    def target(self, lv: Mapping[str, Any], state: Any, index: Any) -> Any:
        index = jnp.asarray(index, jnp.int32)
        inside = (index >= 0) & (index < self.n_targets)
        index = jnp.clip(index, 0, self.n_targets - 1)
        i, q = lv["t_vehicle"][index], lv["t_position"][index]
        lo, hi = self._runs(lv, state)
        moved = state.at[i].set(jnp.clip(q, lo[i], hi[i]))
        return jnp.where(inside & lv["t_valid"][index], moved, state)

    def target_mask(self, lv: Mapping[str, Any], state: Any) -> Any:
        lo, hi = self._runs(lv, state)
        i, q = lv["t_vehicle"], lv["t_position"]
        p = state[i]
        return lv["t_valid"] & (((q < p) & (lo[i] < p)) | ((q > p) & (hi[i] > p)))

    def restart(self, lv: Mapping[str, Any], state: Any) -> Any:
        return self.init(lv)

    def restartable(self, lv: Mapping[str, Any], state: Any) -> Any:
        return jnp.any(state != lv["v_start"])

    def planes(self, lv: Mapping[str, Any], state: Any, shape: tuple[int, int, int]) -> Any:
        h, w = self.sizes["height"], self.sizes["width"]
        if shape[0] < N_PLANES or shape[1] < h or shape[2] < w:
            raise ValueError(f"planes: shape {shape} is smaller than the twin's board")
        cover = self._cover(lv, state)
        horizontal = lv["v_horizontal"][:, None, None]
        rows = jnp.arange(h)[None, :, None]
        cols = jnp.arange(w)[None, None, :]
        lane, p = lv["v_lane"][:, None, None], state[:, None, None]
        front = (
            lv["v_valid"][:, None, None]
            & (rows == jnp.where(horizontal, lane, p))
            & (cols == jnp.where(horizontal, p, lane))
        )
        by_index = {
            CELL: lv["cells"],
            WALL: lv["walls"],
            EXIT: lv["exit"],
            TARGET_CAR: cover[TARGET],
            HORIZONTAL: jnp.any(cover & horizontal, axis=0),
            VERTICAL: jnp.any(cover & ~horizontal, axis=0),
            TRUCK: jnp.any(cover & lv["v_truck"][:, None, None], axis=0),
            FRONT: jnp.any(front, axis=0),
        }
        planes = jnp.stack([by_index[k] for k in range(N_PLANES)]).astype(jnp.uint8)
        return jnp.pad(planes, ((0, shape[0] - N_PLANES), (0, shape[1] - h), (0, shape[2] - w)))

    def _distance(self, lv: Mapping[str, Any], state: Any) -> Any:
        """The state's distance in its level's cluster table (binary search of the level's
        range of the concatenated, sorted keys)."""
        n_words = self.sizes["key_words"]
        part = state.astype(jnp.uint32) * lv["v_mult"]
        key = [jnp.sum(jnp.where(lv["v_word"] == k, part, jnp.uint32(0))) for k in range(n_words)]
        keys = lv["keys"]

        def below(row: Any) -> Any:  # keys[row] < key, word by word
            less, same = jnp.bool_(False), jnp.bool_(True)
            for k in range(n_words):
                less = less | (same & (row[k] < key[k]))
                same = same & (row[k] == key[k])
            return less

        def halve(_: int, bounds: tuple[Any, Any]) -> tuple[Any, Any]:
            lo, hi = bounds
            mid = (lo + hi) // 2
            go_up = (lo < hi) & below(keys[mid])
            return jnp.where(go_up, mid + 1, lo), jnp.where((lo < hi) & ~go_up, mid, hi)

        start = lv["table_start"]
        lo, _ = jax.lax.fori_loop(0, SEARCH_STEPS, halve, (start, start + lv["table_size"]))
        return lv["dist"][lo]

    def potential(self, lv: Mapping[str, Any], state: Any) -> Any:
        value = lv["potentials"][self._distance(lv, state)]
        return jnp.where(self.solved(lv, state), jnp.float32(1.0), value)

    def solved(self, lv: Mapping[str, Any], state: Any) -> Any:
        return state[TARGET] == lv["exit_position"]

    # -- back to Python ------------------------------------------------------------------
    def to_python(self, level: Level, state: Any) -> tuple[State, None]:
        positions = np.asarray(state)[: level.n_vehicles]
        return State(tuple(int(p) for p in positions)), None


TWIN = RushHourTwin()
