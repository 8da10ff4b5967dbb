"""Tiny Lamps' JAX twin (:class:`puzzlegym.game.twin.Twin`): the lamps as one uint32 bitmask,
a click on lamp ``i`` the bitmask xor the lamp and its neighbours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from puzzlegym.game.twin import Twin

from .rules import Level, State, initial_state


class LampsTwin(Twin):
    name = "TinyLamps"

    def sizes_for(self, levels: Sequence[Level]) -> dict[str, int]:
        return {"lamps": max(level.n for level in levels)}

    def encode(self, level: Level) -> dict[str, np.ndarray]:
        if level.n > self.sizes["lamps"]:
            raise ValueError(f"level {level.id!r}: {level.n} lamps, the twin holds {self.sizes}")
        return {
            "n": np.array(level.n, np.int32),
            "start": np.array(initial_state(level).lit, np.uint32),
        }

    def _all(self, lv: Mapping[str, Any]) -> Any:
        return (jnp.uint32(1) << lv["n"].astype(jnp.uint32)) - jnp.uint32(1)

    def init(self, lv: Mapping[str, Any]) -> dict[str, Any]:
        return {"lit": jnp.asarray(lv["start"], jnp.uint32)}

    def target(self, lv: Mapping[str, Any], state: Any, index: Any) -> dict[str, Any]:
        i = jnp.asarray(index, jnp.int32)
        exists = (i >= 0) & (i < lv["n"])
        shift = jnp.clip(i, 0, 31).astype(jnp.uint32)
        switched = ((jnp.uint32(7) << shift) >> jnp.uint32(1)) & self._all(lv)  # i-1, i, i+1
        return {"lit": jnp.where(exists, state["lit"] ^ switched, state["lit"])}

    def target_mask(self, lv: Mapping[str, Any], state: Any) -> Any:
        return jnp.arange(self.n_targets) < lv["n"]

    def restart(self, lv: Mapping[str, Any], state: Any) -> dict[str, Any]:
        return self.init(lv)

    def restartable(self, lv: Mapping[str, Any], state: Any) -> Any:
        return state["lit"] != lv["start"]

    def planes(self, lv: Mapping[str, Any], state: Any, shape: tuple[int, int, int]) -> Any:
        lamps = jnp.arange(shape[2])
        exists = lamps < lv["n"]
        lit = (state["lit"] >> lamps.astype(jnp.uint32)) & jnp.uint32(1)
        rows = jnp.stack([exists, (lit == 1) & exists]).astype(jnp.uint8)[:, None, :]
        out = jnp.zeros(shape, jnp.uint8)
        return out.at[:2, :1, :].set(rows)

    def potential(self, lv: Mapping[str, Any], state: Any) -> Any:
        count = jnp.bitwise_count(state["lit"] & self._all(lv)).astype(jnp.float32)
        return count / lv["n"].astype(jnp.float32)

    def solved(self, lv: Mapping[str, Any], state: Any) -> Any:
        return state["lit"] == self._all(lv)

    def to_python(self, level: Level, state: Any) -> tuple[State, None]:
        return State(int(state["lit"])), None

    def from_python(self, level: Level, state: State) -> dict[str, Any]:
        return {"lit": np.array(state.lit, np.uint32)}


TWIN = LampsTwin()
