"""Tiny Lamps' rules: ``Level`` (the lamps at the start), ``State`` (the lit lamps as a
bitmask), switching a lamp and its neighbours."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from puzzlegym.base.errors import LevelError
from puzzlegym.game import Rejected
from puzzlegym.game.catalogue import check_id, check_level_keys, check_tier

TIERS = ("Easy",)
MIN_LAMPS, MAX_LAMPS = 3, 7
NO_LAMP = "There is no lamp there"


@dataclass(frozen=True)
class Level:
    game: ClassVar[str] = "TinyLamps"
    id: str
    tier: str
    lamps: str  # "*" lit, "." dark, left to right

    @property
    def n(self) -> int:
        return len(self.lamps)

    @classmethod
    def from_json(cls, data: Any) -> Level:
        check_level_keys(data, ("id", "tier", "lamps"))
        check_id(data["id"])
        check_tier(data["tier"], TIERS)
        lamps = data["lamps"]
        if (
            not isinstance(lamps, str)
            or not MIN_LAMPS <= len(lamps) <= MAX_LAMPS
            or set(lamps) - {"*", "."}
        ):
            raise LevelError(f"lamps: expected {MIN_LAMPS}..{MAX_LAMPS} of '*' and '.'")
        return cls(data["id"], data["tier"], lamps)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "tier": self.tier, "lamps": self.lamps}


@dataclass(frozen=True)
class State:
    lit: int  # bit i: lamp i is lit


def initial_state(level: Level) -> State:
    return State(sum(1 << i for i, ch in enumerate(level.lamps) if ch == "*"))


def legal_moves(level: Level, state: State) -> range:
    return range(level.n)


def apply(level: Level, state: State, move: Any) -> State | Rejected:
    if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move < level.n:
        return Rejected(NO_LAMP)
    switched = sum(1 << j for j in (move - 1, move, move + 1) if 0 <= j < level.n)
    return State(state.lit ^ switched)


def is_solved(level: Level, state: State) -> bool:
    return state.lit == (1 << level.n) - 1


def potential(level: Level, state: State) -> float:
    return state.lit.bit_count() / level.n


def canonical(level: Level) -> dict[str, Any]:
    """The row read from either end is the same puzzle."""
    return {"lamps": min(level.lamps, level.lamps[::-1])}


def state_to_json(level: Level, state: State) -> dict[str, Any]:
    return {"lit": [i for i in range(level.n) if state.lit >> i & 1]}


def state_from_json(level: Level, data: Any) -> State:
    if not isinstance(data, dict) or set(data) != {"lit"} or not isinstance(data["lit"], list):
        raise ValueError("state: expected an object with exactly the key lit (a list)")
    lit = 0
    for i in data["lit"]:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < level.n or lit >> i & 1:
            raise ValueError(f"lit: expected distinct lamp indices 0..{level.n - 1}, got {i!r}")
        lit |= 1 << i
    return State(lit)
