"""Nut and Bolt: the pure rules model.

A level is a row of bolts of one capacity ``c``; each bolt holds a stack of coloured nuts,
listed bottom to top (a colour is a small integer, an index into the view's palette). Every
colour has exactly ``c`` nuts.

A move is a pair ``(source, destination)`` of bolt indices. The *top run* of the source (its
top nut and every nut of the same colour directly below it) moves onto the destination if the
destination is empty or its top nut has that colour, as many nuts as fit: when the destination
has less room than the run is long, only the top part of the run moves (a partial transfer).
A move is rejected, and nothing changes, when the source is empty, the two bolts are the same,
the destination is full, or its top nut has another colour.

The level is solved when every non-empty bolt is full and holds one colour only.

This module does no I/O and no drawing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from puzzlegym.base.errors import LevelError, shown
from puzzlegym.base.fields import check_count, is_int
from puzzlegym.base.symmetry import canonical_sequences
from puzzlegym.game import Rejected
from puzzlegym.game.catalogue import check_id, check_level_header, check_tier

TIERS: tuple[str, ...] = ("Easy", "Medium", "Hard", "Extreme", "Nightmare")
MAX_COLOURS = 16
MIN_CAPACITY = 2
MAX_CAPACITY = 10
MAX_BOLTS = 20

SAME_BOLT_REASON = "Pick a different bolt to move the nuts to"
EMPTY_SOURCE_REASON = "That bolt has no nuts"
FULL_REASON = "No room on that bolt"
COLOUR_REASON = "Nuts can only go onto the same color or an empty bolt"

_JSON_REQUIRED = ("id", "tier", "capacity", "bolts")
_JSON_OPTIONAL = ("solution_length", "optimal")  # catalogue metadata, checked and ignored

Move = tuple[int, int]


@dataclass(frozen=True)
class Level:
    """One Nut and Bolt level: the bolts' capacity and their starting stacks (bottom→top).

    Equality and hashing use these four fields only. The constructor does not validate;
    :meth:`from_json` (or :meth:`validate`) does.
    """

    id: str
    tier: str
    capacity: int
    bolts: tuple[tuple[int, ...], ...]

    game: ClassVar[str] = "NutAndBolt"

    @property
    def n_bolts(self) -> int:
        return len(self.bolts)

    @cached_property
    def colours(self) -> tuple[int, ...]:
        """The colours present, ascending."""
        return tuple(sorted({n for bolt in self.bolts for n in bolt}))

    @property
    def n_colours(self) -> int:
        return len(self.colours)

    def validate(self) -> None:
        """Raise :class:`LevelError` if the level is malformed."""
        check_id(self.id)
        check_tier(self.tier, TIERS)
        _check_capacity(self.capacity)
        _check_bolts(self.bolts, self.capacity)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tier": self.tier,
            "capacity": self.capacity,
            "bolts": [list(b) for b in self.bolts],
        }

    @classmethod
    def from_json(cls, data: Any) -> Level:
        """Build a level from its JSON document, validating strictly (errors name the field).

        Required keys: ``id``, ``tier``, ``capacity``, ``bolts``; the optional catalogue keys
        ``solution_length`` and ``optimal`` are checked for type and otherwise ignored.
        """
        check_level_header(data, _JSON_REQUIRED, _JSON_OPTIONAL, TIERS, counts=("solution_length",))
        if "optimal" in data and not isinstance(data["optimal"], bool):
            raise LevelError(f"optimal: expected true or false, got {shown(data['optimal'])}")
        _check_capacity(data["capacity"])
        raw = data["bolts"]
        if not isinstance(raw, list | tuple):
            raise LevelError(f"bolts: expected a list of lists of colors, got {type(raw).__name__}")
        bolts = []
        for i, bolt in enumerate(raw):
            if not isinstance(bolt, list | tuple):
                raise LevelError(
                    f"bolts[{i}]: expected a list of colors, got {type(bolt).__name__}"
                )
            for j, nut in enumerate(bolt):
                if not is_int(nut):
                    raise LevelError(
                        f"bolts[{i}][{j}]: expected an integer color, got {shown(nut)}"
                    )
            bolts.append(tuple(bolt))
        level = cls(data["id"], data["tier"], data["capacity"], tuple(bolts))
        level.validate()
        return level


def canonical(level: Level) -> dict[str, Any]:
    """The puzzle of ``level`` without its names (id, tier), the same document for every
    level that plays the same: the capacity and the bolts as a multiset (their order does
    not matter) with the colours renumbered (which colour is which does not matter either),
    :func:`puzzlegym.base.symmetry.canonical_sequences` (:mod:`puzzlegym.game.levelhash`
    hashes it)."""
    return {
        "capacity": level.capacity,
        "bolts": [list(b) for b in canonical_sequences(level.bolts)],
    }


def _check_capacity(value: Any) -> None:
    check_count(value, "capacity", MIN_CAPACITY, MAX_CAPACITY, LevelError)


def _check_bolts(bolts: tuple[tuple[int, ...], ...], capacity: int) -> None:
    if not 2 <= len(bolts) <= MAX_BOLTS:
        raise LevelError(f"bolts: expected 2..{MAX_BOLTS} bolts, got {len(bolts)}")
    counts: dict[int, int] = {}
    for i, bolt in enumerate(bolts):
        if len(bolt) > capacity:
            raise LevelError(
                f"bolts[{i}]: holds {len(bolt)} nuts, more than the capacity {capacity}"
            )
        for j, nut in enumerate(bolt):
            if not 0 <= nut < MAX_COLOURS:
                raise LevelError(f"bolts[{i}][{j}]: color {nut} is outside 0..{MAX_COLOURS - 1}")
            counts[nut] = counts.get(nut, 0) + 1
    if not counts:
        raise LevelError("bolts: the level has no nuts")
    wrong = sorted(c for c, n in counts.items() if n != capacity)
    if wrong:
        shown = ", ".join(f"color {c} has {counts[c]}" for c in wrong)
        raise LevelError(
            f"bolts: every color needs exactly {capacity} nuts (the capacity); {shown}"
        )
    colours = sorted(counts)
    if colours != list(range(len(colours))):
        raise LevelError(f"bolts: colors must be 0..{len(colours) - 1} without gaps, got {colours}")
    if len(bolts) < len(colours) + 1:
        raise LevelError(f"bolts: {len(colours)} colors need at least {len(colours) + 1} bolts")


@dataclass(frozen=True, slots=True)
class State:
    """The nuts on every bolt, bottom to top, in bolt order."""

    bolts: tuple[tuple[int, ...], ...]


def initial_state(level: Level) -> State:
    return State(level.bolts)


def top_run(bolt: tuple[int, ...]) -> int:
    """The length of the bolt's top run of same-coloured nuts (0 for an empty bolt)."""
    n = len(bolt)
    if not n:
        return 0
    top = bolt[-1]
    k = 1
    while k < n and bolt[n - 1 - k] == top:
        k += 1
    return k


def transfer_count(level: Level, state: State, move: Move) -> int:
    """How many nuts ``move`` would transfer (0 when it is not allowed)."""
    src, dst = move
    bolts = state.bolts
    if src == dst:
        return 0
    s, d = bolts[src], bolts[dst]
    if not s or len(d) >= level.capacity or (d and d[-1] != s[-1]):
        return 0
    return min(top_run(s), level.capacity - len(d))


def legal_moves(level: Level, state: State) -> tuple[Move, ...]:
    """Every allowed ``(source, destination)`` pair, in index order."""
    bolts = state.bolts
    cap = level.capacity
    out = []
    for i, s in enumerate(bolts):
        if not s:
            continue
        top = s[-1]
        for j, d in enumerate(bolts):
            if j != i and len(d) < cap and (not d or d[-1] == top):
                out.append((i, j))
    return tuple(out)


def _check_move(level: Level, move: Any) -> Move:
    n = level.n_bolts
    if (
        not isinstance(move, tuple | list)
        or len(move) != 2
        or not all(is_int(v, 0, n - 1) for v in move)
    ):
        raise ValueError(
            f"move: expected (source, destination) bolt indices in 0..{n - 1}, got {shown(move)}"
        )
    return (move[0], move[1])


def apply(level: Level, state: State, move: Move) -> State | Rejected:
    """The state after transferring the source's top run onto the destination.

    Returns :class:`Rejected` (nothing changes) when the transfer is not allowed; raises
    :class:`ValueError` when ``move`` is not a pair of bolt indices.
    """
    src, dst = _check_move(level, move)
    bolts = state.bolts
    if src == dst:
        return Rejected(SAME_BOLT_REASON)
    s, d = bolts[src], bolts[dst]
    if not s:
        return Rejected(EMPTY_SOURCE_REASON)
    cap = level.capacity
    if len(d) >= cap:
        return Rejected(FULL_REASON)
    if d and d[-1] != s[-1]:
        return Rejected(COLOUR_REASON)
    k = min(top_run(s), cap - len(d))
    new = list(bolts)
    new[src] = s[:-k]
    new[dst] = d + s[-k:]
    return State(tuple(new))


def is_solved(level: Level, state: State) -> bool:
    cap = level.capacity
    for b in state.bolts:
        if b and (len(b) != cap or b.count(b[0]) != cap):
            return False
    return True


def potential(level: Level, state: State) -> float:
    """For each colour, the largest stack on a bolt holding only that colour; the sum over
    colours divided by ``capacity × colours``. 1 exactly when solved."""
    best: dict[int, int] = {}
    for b in state.bolts:
        if b and b.count(b[0]) == len(b):
            c = b[0]
            if len(b) > best.get(c, 0):
                best[c] = len(b)
    return sum(best.values()) / (level.capacity * level.n_colours)


def state_to_json(level: Level, state: State) -> dict[str, Any]:
    return {"bolts": [list(b) for b in state.bolts]}


def state_from_json(level: Level, data: Any) -> State:
    """Parse :func:`state_to_json` output, raising :class:`ValueError` naming the problem."""
    if not isinstance(data, dict) or set(data) != {"bolts"}:
        raise ValueError(f"state: expected an object with exactly the key bolts, got {shown(data)}")
    raw = data["bolts"]
    if not isinstance(raw, list | tuple) or len(raw) != level.n_bolts:
        raise ValueError(f"bolts: expected a list of {level.n_bolts} bolts, got {shown(raw)}")
    bolts = []
    for i, bolt in enumerate(raw):
        if not isinstance(bolt, list | tuple) or len(bolt) > level.capacity:
            raise ValueError(
                f"bolts[{i}]: expected a list of at most {level.capacity} colors, got {shown(bolt)}"
            )
        for j, nut in enumerate(bolt):
            if not is_int(nut) or nut not in level.colours:
                raise ValueError(f"bolts[{i}][{j}]: {shown(nut)} is not a color of this level")
        bolts.append(tuple(bolt))
    counts = sorted(n for b in bolts for n in b)
    expected = sorted(n for b in level.bolts for n in b)
    if counts != expected:
        raise ValueError(f"bolts: every color must have exactly {level.capacity} nuts")
    return State(tuple(bolts))


__all__ = [
    "COLOUR_REASON",
    "EMPTY_SOURCE_REASON",
    "FULL_REASON",
    "Level",
    "Move",
    "SAME_BOLT_REASON",
    "State",
    "TIERS",
    "apply",
    "canonical",
    "initial_state",
    "is_solved",
    "legal_moves",
    "potential",
    "state_from_json",
    "state_to_json",
    "top_run",
    "transfer_count",
]
