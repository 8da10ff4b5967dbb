"""Truck Escape: the pure rules model.

A level is a rectangular grid with trucks parked on it. A truck faces up, down, left or
right and occupies 1 to 3 cells in a straight line along its heading: its **cab** is the
front cell and the rest of it trails behind. The **path** of a truck is the run of cells from
the one ahead of its cab to the board's edge. A move names a truck (its index in the level);
if no remaining truck occupies a cell of its path, the truck drives out and is removed,
otherwise it is **blocked**: the move is rejected and nothing changes. The level is solved
when no truck is left.

Truck ``j`` *blocks* truck ``i`` when ``j`` occupies a cell of ``i``'s path; trucks never move
except to leave, so this **blocking graph** is fixed by the level. A valid level's blocking
graph has no cycle (:meth:`Level.validate` rejects one that does). Then no board reachable by
play can be a dead end: the trucks still on the board block each other acyclically (a
subgraph of an acyclic graph), so one of them has nothing left in its path and can leave, and
leaving removes blockers without ever adding one. Every reachable state is solvable.

A state is the bitmask of remaining trucks (bit ``i`` for truck ``i``). Each truck's blockers
are precomputed as a bitmask (:attr:`Level.blockers`), so :func:`apply` is two AND tests.

This module does no I/O and no drawing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from puzzlegym.base.errors import LevelError
from puzzlegym.base.fields import check_count, check_exact_keys, is_int, row_col
from puzzlegym.base.symmetry import SYMMETRIES
from puzzlegym.game import Rejected
from puzzlegym.game.catalogue import check_id, check_level_header, check_tier

TIERS: tuple[str, ...] = ("Default",)
DIRECTIONS: tuple[str, ...] = ("up", "down", "left", "right")
DELTAS: dict[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}
MIN_SIZE = 2
MAX_SIZE = 16
MIN_LENGTH = 1
MAX_LENGTH = 3

BLOCKED_REASON = "That truck is blocked"
GONE_REASON = "That truck has already left"

_JSON_REQUIRED = ("id", "tier", "rows", "cols", "trucks")
_JSON_OPTIONAL = ("longest_chain",)  # catalogue metadata, checked for type and ignored
_TRUCK_KEYS = ("cab", "facing", "length")


@dataclass(frozen=True, slots=True)
class Truck:
    """A truck: its cab's cell ``(row, col)``, its heading and its length in cells."""

    row: int
    col: int
    facing: str
    length: int

    @property
    def cells(self) -> tuple[tuple[int, int], ...]:
        """The cells it occupies, cab first, then towards its tail."""
        dr, dc = DELTAS[self.facing]
        return tuple((self.row - k * dr, self.col - k * dc) for k in range(self.length))

    def path(self, rows: int, cols: int) -> tuple[tuple[int, int], ...]:
        """The cells ahead of its cab up to the board's edge, nearest first."""
        dr, dc = DELTAS[self.facing]
        out = []
        r, c = self.row + dr, self.col + dc
        while 0 <= r < rows and 0 <= c < cols:
            out.append((r, c))
            r, c = r + dr, c + dc
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        return {"cab": [self.row, self.col], "facing": self.facing, "length": self.length}


@dataclass(frozen=True)
class Level:
    """One Truck Escape level: a ``rows`` x ``cols`` grid and its trucks, in a fixed order
    (a truck's index is its name in moves and states).

    Equality and hashing use the five fields only; the derived tables are computed lazily and
    cached on the instance. The constructor does not validate; :meth:`from_json` (or
    :meth:`validate`) does.
    """

    id: str
    tier: str
    rows: int
    cols: int
    trucks: tuple[Truck, ...]

    game: ClassVar[str] = "TruckEscape"

    # -- derived tables --------------------------------------------------------------------

    @property
    def n_trucks(self) -> int:
        return len(self.trucks)

    @cached_property
    def full_mask(self) -> int:
        """Bitmask of every truck (the initial state)."""
        return (1 << len(self.trucks)) - 1

    @cached_property
    def occupant(self) -> dict[tuple[int, int], int]:
        """Cell -> the truck parked on it (cells of the initial board)."""
        out: dict[tuple[int, int], int] = {}
        for i, truck in enumerate(self.trucks):
            for cell in truck.cells:
                out.setdefault(cell, i)
        return out

    @cached_property
    def blockers(self) -> tuple[int, ...]:
        """For each truck, the bitmask of the trucks parked on its path."""
        occ = self.occupant
        out = []
        for truck in self.trucks:
            mask = 0
            for cell in truck.path(self.rows, self.cols):
                j = occ.get(cell)
                if j is not None:
                    mask |= 1 << j
            out.append(mask)
        return tuple(out)

    # -- validation and JSON ---------------------------------------------------------------

    def validate(self) -> None:
        """Raise :class:`LevelError` if this level is malformed or cannot be cleared."""
        check_id(self.id)
        check_tier(self.tier, TIERS)
        _check_size(self.rows, "rows")
        _check_size(self.cols, "cols")
        if not self.trucks:
            raise LevelError("trucks: expected at least one truck")
        max_trucks = self.rows * self.cols
        if len(self.trucks) > max_trucks:
            raise LevelError(
                f"trucks: at most {max_trucks} fit on a {self.rows}x{self.cols} grid, "
                f"got {len(self.trucks)}"
            )
        seen: dict[tuple[int, int], int] = {}
        for i, truck in enumerate(self.trucks):
            _check_truck(truck, i, self.rows, self.cols)
            for r, c in truck.cells:
                if (r, c) in seen:
                    raise LevelError(
                        f"trucks[{i}]: cell [{r}, {c}] is also occupied by trucks[{seen[(r, c)]}]"
                    )
                seen[(r, c)] = i
        cycle = blocking_cycle(self)
        if cycle:
            names = ", ".join(f"trucks[{i}]" for i in cycle)
            raise LevelError(
                f"trucks: {names} block one another in a cycle, so none of them could ever leave"
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tier": self.tier,
            "rows": self.rows,
            "cols": self.cols,
            "trucks": [t.to_json() for t in self.trucks],
        }

    @classmethod
    def from_json(cls, data: Any) -> Level:
        """Build a level from its JSON document, validating strictly.

        Required keys: ``id``, ``tier``, ``rows``, ``cols``, ``trucks`` (a list of
        ``{"cab": [row, col], "facing": "up"|"down"|"left"|"right", "length": 1..3}``); the
        optional catalogue key ``longest_chain`` is checked for type and otherwise ignored.
        Raises :class:`LevelError` naming the field and the problem.
        """
        check_level_header(data, _JSON_REQUIRED, _JSON_OPTIONAL, TIERS, counts=("longest_chain",))
        _check_size(data["rows"], "rows")
        _check_size(data["cols"], "cols")
        raw = data["trucks"]
        if not isinstance(raw, list | tuple):
            raise LevelError(f"trucks: expected a list of truck objects, got {type(raw).__name__}")
        limit = data["rows"] * data["cols"]
        if len(raw) > limit:
            raise LevelError(
                f"trucks: at most {limit} fit on a {data['rows']}x{data['cols']} grid, "
                f"got {len(raw)}"
            )
        trucks = tuple(_truck_from_json(item, i) for i, item in enumerate(raw))
        level = cls(
            id=data["id"], tier=data["tier"], rows=data["rows"], cols=data["cols"], trucks=trucks
        )
        level.validate()
        return level


_FACING = {delta: name for name, delta in DELTAS.items()}


def canonical(level: Level) -> dict[str, Any]:
    """The puzzle of ``level`` without its names (id, tier), the same document for every
    level that plays the same: the trucks sorted (their order does not matter) under the
    least of the lot's eight turns and mirror images, facings turned with it
    (:mod:`puzzlegym.game.levelhash` hashes it)."""
    rows, cols = level.rows, level.cols

    def form(sym) -> tuple:
        trucks = sorted(
            [
                *sym.cell(t.row, t.col, rows, cols),
                _FACING[sym.direction(*DELTAS[t.facing])],
                t.length,
            ]
            for t in level.trucks
        )
        return sym.shape(rows, cols), trucks

    (r, c), trucks = min(form(sym) for sym in SYMMETRIES)
    return {"rows": r, "cols": c, "trucks": trucks}


def _check_size(value: Any, name: str) -> None:
    check_count(value, name, MIN_SIZE, MAX_SIZE, LevelError)


def _truck_from_json(item: Any, i: int) -> Truck:
    where = f"trucks[{i}]"
    if not isinstance(item, dict):
        raise LevelError(
            f"{where}: expected an object with keys {', '.join(_TRUCK_KEYS)}, "
            f"got {type(item).__name__}"
        )
    check_exact_keys(item, _TRUCK_KEYS, where, LevelError)
    cab = row_col(item["cab"], f"{where}.cab", LevelError)
    if item["facing"] not in DIRECTIONS:
        raise LevelError(
            f"{where}.facing: expected one of {', '.join(DIRECTIONS)}, got {item['facing']!r}"
        )
    length = check_count(item["length"], f"{where}.length", MIN_LENGTH, MAX_LENGTH, LevelError)
    return Truck(cab[0], cab[1], item["facing"], length)


def _check_truck(truck: Any, i: int, rows: int, cols: int) -> None:
    where = f"trucks[{i}]"
    if not isinstance(truck, Truck):
        raise LevelError(f"{where}: expected a Truck, got {type(truck).__name__}")
    if not (is_int(truck.row) and is_int(truck.col)):
        raise LevelError(f"{where}.cab: expected two integers, got [{truck.row!r}, {truck.col!r}]")
    if truck.facing not in DIRECTIONS:
        raise LevelError(
            f"{where}.facing: expected one of {', '.join(DIRECTIONS)}, got {truck.facing!r}"
        )
    check_count(truck.length, f"{where}.length", MIN_LENGTH, MAX_LENGTH, LevelError)
    for k, (r, c) in enumerate(truck.cells):
        if not (0 <= r < rows and 0 <= c < cols):
            part = "cab" if k == 0 else "tail" if k == truck.length - 1 else "middle"
            raise LevelError(
                f"{where}: its {part} cell [{r}, {c}] is outside the {rows}x{cols} grid"
            )


def blocking_cycle(level: Level) -> list[int]:
    """Trucks that block one another in a cycle (each blocked by the next, the last by the
    first), or ``[]`` when the blocking graph has no cycle."""
    blockers = level.blockers
    remaining = level.full_mask
    # peel off trucks with nothing left in their path until none is free
    while remaining:
        free = [i for i in bits(remaining) if not blockers[i] & remaining]
        if not free:
            break
        for i in free:
            remaining &= ~(1 << i)
    if not remaining:
        return []
    # every truck left has a blocker that is also left: walk blockers until one repeats
    order: list[int] = []
    where: dict[int, int] = {}
    i = next(bits(remaining))
    while i not in where:
        where[i] = len(order)
        order.append(i)
        i = next(bits(blockers[i] & remaining))
    return order[where[i] :]


def bits(mask: int):
    """The set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@dataclass(frozen=True, slots=True)
class State:
    """The bitmask of the trucks still on the board."""

    remaining: int


def initial_state(level: Level) -> State:
    return State(level.full_mask)


def can_leave(level: Level, state: State, truck: int) -> bool:
    """Whether ``truck`` is on the board and nothing remaining stands on its path."""
    return bool(state.remaining >> truck & 1) and not level.blockers[truck] & state.remaining


def legal_moves(level: Level, state: State) -> tuple[int, ...]:
    """The trucks that can leave now, in index order."""
    remaining, blockers = state.remaining, level.blockers
    return tuple(i for i in bits(remaining) if not blockers[i] & remaining)


def apply(level: Level, state: State, move: int) -> State | Rejected:
    """The state after requesting ``move``'s departure.

    Returns :class:`Rejected` (and nothing changes) when that truck is blocked or already
    gone; raises :class:`ValueError` for a value that is not a truck index of the level.
    """
    check_count(move, "move", 0, len(level.trucks) - 1, what="a truck index")
    bit = 1 << move
    if not state.remaining & bit:
        return Rejected(GONE_REASON)
    if level.blockers[move] & state.remaining:
        return Rejected(BLOCKED_REASON)
    return State(state.remaining & ~bit)


def is_solved(level: Level, state: State) -> bool:
    return state.remaining == 0


def potential(level: Level, state: State) -> float:
    """Progress in [0, 1]: the fraction of trucks that have left; 1 exactly when solved."""
    n = len(level.trucks)
    return (n - state.remaining.bit_count()) / n


def state_to_json(level: Level, state: State) -> dict[str, Any]:
    return {"remaining": list(bits(state.remaining))}


def state_from_json(level: Level, data: Any) -> State:
    """Parse :func:`state_to_json` output, raising :class:`ValueError` naming the problem.

    Only boards that play can reach are accepted: a truck counts as gone only if every truck
    that blocks it is gone too.
    """
    if not isinstance(data, dict):
        raise ValueError(f"state: expected a JSON object, got {type(data).__name__}")
    if set(data) != {"remaining"}:
        extra = sorted(str(k) for k in set(data) - {"remaining"})
        what = f"unexpected key(s) {', '.join(extra)}" if extra else "missing key remaining"
        raise ValueError(f"state: {what}; expected exactly remaining")
    raw = data["remaining"]
    if not isinstance(raw, list | tuple):
        raise ValueError(f"remaining: expected a list of truck indices, got {type(raw).__name__}")
    n = len(level.trucks)
    remaining = 0
    for k, i in enumerate(raw):
        check_count(i, f"remaining[{k}]", 0, n - 1, what="a truck index")
        if remaining >> i & 1:
            raise ValueError(f"remaining[{k}]: truck {i} is listed twice")
        remaining |= 1 << i
    for i in bits(level.full_mask & ~remaining):
        stuck = level.blockers[i] & remaining
        if stuck:
            j = next(bits(stuck))
            raise ValueError(
                f"remaining: truck {i} is gone but truck {j}, which blocks it, is still there; "
                "play cannot reach that board"
            )
    return State(remaining)


__all__ = [
    "BLOCKED_REASON",
    "DIRECTIONS",
    "GONE_REASON",
    "Level",
    "State",
    "TIERS",
    "Truck",
    "apply",
    "canonical",
    "bits",
    "blocking_cycle",
    "can_leave",
    "initial_state",
    "is_solved",
    "legal_moves",
    "potential",
    "state_from_json",
    "state_to_json",
]
