"""Rush Hour: the pure rules model.

A level is a rectangular grid (6×6 in the standard game) holding vehicles and optional fixed
walls. A vehicle is 2 cells long (a car) or 3 cells long (a truck) and lies horizontally or
vertically; it can only slide along its own axis. Vehicle 0 is the *target car*: it is
horizontal and its row has the exit on the grid's right edge.

A move ``(vehicle, position)`` slides one vehicle any distance along its axis to
``position``: the column of its left end (horizontal) or the row of its top end (vertical).
Every cell it sweeps must be free of walls and other vehicles; otherwise the move is rejected
and nothing changes. One slide of any distance is one move. The level is solved when the
target car reaches the exit: its right end in the grid's last column.

Every move can be undone by the reverse slide, so a state reachable from a solvable start is
itself solvable: the game never dead-ends, but a poor move lengthens the way out. The
potential is computed from exact distances (see :func:`potential`).

A state is the position of every vehicle along its axis, in vehicle order. Cells are addressed
by ``row * width + col``; sets of cells are ``int`` bitmasks.

Levels come from JSON (:meth:`Level.from_json`, documented in ``format.md``) or from the
36-character 6×6 notation of public puzzle databases (:meth:`Level.from_notation`).

This module does no I/O and no drawing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from puzzlegym.base.errors import LevelError, shown
from puzzlegym.base.fields import check_count, check_exact_keys, check_in_grid, is_int
from puzzlegym.game import Rejected
from puzzlegym.game.catalogue import check_id, check_level_header, check_tier

TIERS: tuple[str, ...] = ("Easy", "Medium", "Hard")
MIN_SIZE = 3
MAX_SIZE = 10
MAX_VEHICLES = 50
LENGTHS = (2, 3)
AXES = ("horizontal", "vertical")
TARGET = 0  # the target car's vehicle index

BLOCKED_REASON = "Something is in the way"
NO_SLIDE_REASON = "That vehicle is already there"

NOTATION_EMPTY = "o."
NOTATION_WALL = "x"
NOTATION_TARGET = "A"

_JSON_REQUIRED = ("id", "tier", "width", "height", "vehicles")
_JSON_OPTIONAL = ("walls", "optimal_moves", "cluster_states", "seed")  # + catalogue metadata
_VEHICLE_KEYS = ("row", "col", "length", "axis")

Move = tuple[int, int]
"""``(vehicle index, new position along its axis)``."""


@dataclass(frozen=True)
class Vehicle:
    """A vehicle where the level starts it: its top-left cell, its length, its axis."""

    row: int
    col: int
    length: int
    horizontal: bool

    @property
    def lane(self) -> int:
        """The row (horizontal) or column (vertical) the vehicle can never leave."""
        return self.row if self.horizontal else self.col

    @property
    def position(self) -> int:
        """The coordinate along its axis: the column of its left end or the row of its top."""
        return self.col if self.horizontal else self.row

    @property
    def is_truck(self) -> bool:
        return self.length == 3

    def to_json(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "col": self.col,
            "length": self.length,
            "axis": "horizontal" if self.horizontal else "vertical",
        }


@dataclass(frozen=True)
class Level:
    """One Rush Hour level.

    ``vehicles`` in a fixed order, the target car first; ``walls`` the fixed wall cells
    ``(row, col)``, sorted. Equality and hashing use these fields only; the derived tables
    are computed lazily and cached on the instance. The constructor does not validate;
    :meth:`from_json`, :meth:`from_notation` (or :meth:`validate`) do.
    """

    id: str
    tier: str
    width: int
    height: int
    vehicles: tuple[Vehicle, ...]
    walls: tuple[tuple[int, int], ...] = ()

    game: ClassVar[str] = "RushHour"

    # -- geometry ----------------------------------------------------------------------------

    @property
    def n_vehicles(self) -> int:
        return len(self.vehicles)

    @property
    def target(self) -> Vehicle:
        return self.vehicles[TARGET]

    @property
    def exit_row(self) -> int:
        """The row whose right edge has the exit (the target car's row)."""
        return self.target.row

    @property
    def exit_position(self) -> int:
        """The target car's position (column of its left end) when the level is solved."""
        return self.width - self.target.length

    def span(self, vehicle: int) -> int:
        """How many positions vehicle ``vehicle`` can take along its axis."""
        v = self.vehicles[vehicle]
        return (self.width if v.horizontal else self.height) - v.length + 1

    def cells(self, vehicle: int, position: int) -> tuple[tuple[int, int], ...]:
        """The ``(row, col)`` cells vehicle ``vehicle`` covers at ``position``."""
        v = self.vehicles[vehicle]
        if v.horizontal:
            return tuple((v.row, position + k) for k in range(v.length))
        return tuple((position + k, v.col) for k in range(v.length))

    @cached_property
    def cell_masks(self) -> tuple[tuple[int, ...], ...]:
        """``cell_masks[i][p]``: the bitmask of the cells vehicle ``i`` covers at position ``p``."""
        w = self.width
        out = []
        for i in range(self.n_vehicles):
            row = []
            for p in range(self.span(i)):
                mask = 0
                for r, c in self.cells(i, p):
                    mask |= 1 << (r * w + c)
                row.append(mask)
            out.append(tuple(row))
        return tuple(out)

    @cached_property
    def wall_mask(self) -> int:
        mask = 0
        for r, c in self.walls:
            mask |= 1 << (r * self.width + c)
        return mask

    # -- validation, JSON and notation -------------------------------------------------------

    def validate(self) -> None:
        """Raise :class:`LevelError` if the level is malformed or can never be solved for a
        structural reason (vehicles overlapping, something fixed in the target car's way)."""
        check_id(self.id)
        check_tier(self.tier, TIERS)
        for name, value in (("width", self.width), ("height", self.height)):
            check_count(value, name, MIN_SIZE, MAX_SIZE, LevelError)
        if not 1 <= len(self.vehicles) <= MAX_VEHICLES:
            raise LevelError(
                f"vehicles: expected 1..{MAX_VEHICLES} vehicles, got {len(self.vehicles)}"
            )
        owner: dict[tuple[int, int], str] = {}
        for k, (r, c) in enumerate(self.walls):
            check_in_grid(r, c, self.height, self.width, f"walls[{k}]", LevelError)
            if (r, c) in owner:
                raise LevelError(f"walls[{k}]: [{r}, {c}] is listed twice")
            owner[(r, c)] = f"walls[{k}]"
        for i, v in enumerate(self.vehicles):
            where = f"vehicles[{i}]"
            if v.length not in LENGTHS:
                raise LevelError(
                    f"{where}.length: expected 2 (car) or 3 (truck), got {shown(v.length)}"
                )
            end_r = v.row + (0 if v.horizontal else v.length - 1)
            end_c = v.col + (v.length - 1 if v.horizontal else 0)
            if not (0 <= v.row and 0 <= v.col and end_r < self.height and end_c < self.width):
                raise LevelError(
                    f"{where}: a {v.length}-cell {'horizontal' if v.horizontal else 'vertical'} "
                    f"vehicle at [{v.row}, {v.col}] does not fit the "
                    f"{self.height}x{self.width} grid"
                )
            for cell in self.cells(i, v.position):
                if cell in owner:
                    raise LevelError(
                        f"{where}: cell [{cell[0]}, {cell[1]}] is already taken by {owner[cell]}"
                    )
                owner[cell] = where
        target = self.target
        if not target.horizontal:
            raise LevelError(
                "vehicles[0]: the target car must be horizontal (its exit is on the right edge)"
            )
        if target.col == self.exit_position:
            raise LevelError("vehicles[0]: the target car already stands at the exit")
        for c in range(target.col + target.length, self.width):
            if (target.row, c) in owner and not owner[(target.row, c)].startswith("vehicles"):
                raise LevelError(
                    f"walls: the wall at [{target.row}, {c}] blocks the target car's way to the "
                    "exit"
                )
        for i, v in enumerate(self.vehicles[1:], start=1):
            if v.horizontal and v.row == target.row and v.col > target.col:
                raise LevelError(
                    f"vehicles[{i}]: a horizontal vehicle in the target car's row, between it "
                    "and the exit, can never let it out"
                )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tier": self.tier,
            "width": self.width,
            "height": self.height,
            "vehicles": [v.to_json() for v in self.vehicles],
            "walls": [[r, c] for r, c in self.walls],
        }

    @classmethod
    def from_json(cls, data: Any) -> Level:
        """Build a level from its JSON document (``format.md``), validating strictly.

        Required keys: ``id``, ``tier``, ``width``, ``height``, ``vehicles`` (the target car
        first); optional: ``walls``, and the catalogue metadata ``optimal_moves``,
        ``cluster_states`` and ``seed`` (checked for type, otherwise ignored). Raises
        :class:`LevelError` naming the field and the problem.
        """
        check_level_header(
            data,
            _JSON_REQUIRED,
            _JSON_OPTIONAL,
            TIERS,
            counts=("optimal_moves", "cluster_states", "seed"),
        )
        raw = data["vehicles"]
        if not isinstance(raw, list | tuple) or not 1 <= len(raw) <= MAX_VEHICLES:
            raise LevelError(
                f"vehicles: expected a list of 1..{MAX_VEHICLES} vehicle objects, got {shown(raw)}"
            )
        vehicles = tuple(_vehicle_from_json(item, f"vehicles[{i}]") for i, item in enumerate(raw))
        raw_walls = data.get("walls", [])
        if not isinstance(raw_walls, list | tuple):
            raise LevelError(f"walls: expected a list of [row, col] pairs, got {shown(raw_walls)}")
        walls = tuple(_pair(item, f"walls[{k}]") for k, item in enumerate(raw_walls))
        level = cls(data["id"], data["tier"], data["width"], data["height"], vehicles, walls)
        level.validate()
        if list(walls) != sorted(walls):
            level = cls(
                level.id, level.tier, level.width, level.height, vehicles, tuple(sorted(walls))
            )
        return level

    @classmethod
    def from_notation(
        cls, notation: str, *, id: str = "notation", tier: str = "Hard", width: int = 6
    ) -> Level:
        """A level from the row-major board notation of public Rush Hour databases.

        ``notation`` has ``width × height`` characters (36 for the standard 6×6 board), row by
        row from the top: ``o`` or ``.`` an empty cell, ``x`` a wall, ``A`` the target car, any
        other capital letter one vehicle (all cells of one letter in one straight line, 2 or
        3 long). Vehicles are numbered ``A`` first, then in letter order; the exit is on the
        right edge of ``A``'s row. Raises :class:`LevelError` naming the problem.
        """
        if not isinstance(notation, str):
            raise LevelError(f"notation: expected a string, got {type(notation).__name__}")
        check_count(width, "width", MIN_SIZE, MAX_SIZE, LevelError)
        n = len(notation)
        if n % width or not MIN_SIZE <= n // width <= MAX_SIZE:
            raise LevelError(
                f"notation: expected {width} × height characters (height {MIN_SIZE}..{MAX_SIZE}; "
                f"36 for a 6×6 board), got {n}"
            )
        walls: list[tuple[int, int]] = []
        letters: dict[str, list[tuple[int, int]]] = {}
        for k, ch in enumerate(notation):
            r, c = divmod(k, width)
            if ch in NOTATION_EMPTY:
                continue
            if ch == NOTATION_WALL:
                walls.append((r, c))
            elif "A" <= ch <= "Z":
                letters.setdefault(ch, []).append((r, c))
            else:
                raise LevelError(
                    f"notation: character {k} ({shown(ch)}) is not 'o' or '.' (empty), "
                    "'x' (wall) or a capital letter"
                )
        if NOTATION_TARGET not in letters:
            raise LevelError("notation: there is no target car 'A'")
        vehicles = []
        for ch in sorted(letters, key=lambda L: (L != NOTATION_TARGET, L)):
            cells = letters[ch]  # row-major order
            (r0, c0), k = cells[0], len(cells)
            horizontal = all(r == r0 for r, _ in cells)
            straight = cells == (
                [(r0, c0 + j) for j in range(k)] if horizontal else [(r0 + j, c0) for j in range(k)]
            )
            if k not in LENGTHS or not straight:
                raise LevelError(
                    f"notation: vehicle {ch!r} covers {k} cell(s) that are not one straight "
                    "line of 2 or 3"
                )
            vehicles.append(Vehicle(r0, c0, k, horizontal))
        level = cls(id, tier, width, n // width, tuple(vehicles), tuple(sorted(walls)))
        level.validate()
        return level

    def to_notation(self, state: State | None = None) -> str:
        """The board (at ``state``, default the start) in the notation of :meth:`from_notation`:
        ``A`` the target car, ``B``, ``C`` ... the other vehicles in order, ``o`` empty, ``x``
        walls. At most 26 vehicles can be written."""
        if self.n_vehicles > 26:
            raise ValueError(f"notation: {self.n_vehicles} vehicles do not fit 26 letters")
        positions = state.positions if state is not None else initial_state(self).positions
        grid = ["o"] * (self.width * self.height)
        for r, c in self.walls:
            grid[r * self.width + c] = NOTATION_WALL
        for i, p in enumerate(positions):
            for r, c in self.cells(i, p):
                grid[r * self.width + c] = chr(ord("A") + i)
        return "".join(grid)


def canonical(level: Level) -> dict[str, Any]:
    """The puzzle of ``level`` without its names (id, tier), the same document for every
    level that plays the same: the target car first, the other vehicles and the walls
    sorted (their order does not matter), and the least of the level and its mirror image
    top to bottom (the exit moves with the target car's row) (:mod:`puzzlegym.game.levelhash`
    hashes it)."""
    h = level.height

    def form(flip: bool) -> tuple:
        def row(v: Vehicle) -> int:
            return (h - v.row - (1 if v.horizontal else v.length)) if flip else v.row

        vehicles = [[row(v), v.col, v.length, int(v.horizontal)] for v in level.vehicles]
        walls = sorted([h - 1 - r if flip else r, c] for r, c in level.walls)
        return vehicles[:1] + sorted(vehicles[1:]), walls

    vehicles, walls = min(form(False), form(True))
    return {"width": level.width, "height": h, "vehicles": vehicles, "walls": walls}


def _int(value: Any, name: str) -> int:
    return check_count(value, name, -1000, 1000, LevelError)


def _pair(value: Any, name: str) -> tuple[int, int]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise LevelError(f"{name}: expected [row, col] as two integers, got {shown(value)}")
    return _int(value[0], f"{name}[0]"), _int(value[1], f"{name}[1]")


def _vehicle_from_json(data: Any, name: str) -> Vehicle:
    if not isinstance(data, dict):
        raise LevelError(
            f"{name}: expected an object with keys {', '.join(_VEHICLE_KEYS)}, got {shown(data)}"
        )
    check_exact_keys(data, _VEHICLE_KEYS, name, LevelError)
    axis = data["axis"]
    if axis not in AXES:
        raise LevelError(f"{name}.axis: expected 'horizontal' or 'vertical', got {shown(axis)}")
    return Vehicle(
        _int(data["row"], f"{name}.row"),
        _int(data["col"], f"{name}.col"),
        _int(data["length"], f"{name}.length"),
        axis == "horizontal",
    )


# --------------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class State:
    """Every vehicle's position along its axis, in vehicle order."""

    positions: tuple[int, ...]


def initial_state(level: Level) -> State:
    return State(tuple(v.position for v in level.vehicles))


def occupied(level: Level, state: State) -> int:
    """The bitmask of every cell taken by a wall or a vehicle."""
    masks = level.cell_masks
    occ = level.wall_mask
    for i, p in enumerate(state.positions):
        occ |= masks[i][p]
    return occ


def slide_range(level: Level, state: State, vehicle: int) -> tuple[int, int]:
    """The lowest and highest position vehicle ``vehicle`` can slide to in one move (its free
    run in both directions; equal to its position when it cannot move)."""
    return _free_run(level, state.positions, vehicle, occupied(level, state))


def slide_ranges(level: Level, state: State) -> tuple[tuple[int, int], ...]:
    """:func:`slide_range` of every vehicle, in vehicle order (one occupancy for all)."""
    occ = occupied(level, state)
    return tuple(_free_run(level, state.positions, i, occ) for i in range(level.n_vehicles))


def _free_run(level: Level, positions: tuple[int, ...], vehicle: int, occ: int) -> tuple[int, int]:
    masks = level.cell_masks[vehicle]
    p = positions[vehicle]
    occ &= ~masks[p]
    lo = p
    while lo > 0 and not masks[lo - 1] & occ:
        lo -= 1
    hi = p
    while hi < len(masks) - 1 and not masks[hi + 1] & occ:
        hi += 1
    return lo, hi


def legal_moves(level: Level, state: State) -> tuple[Move, ...]:
    """Every ``(vehicle, position)`` slide, by vehicle, positions ascending."""
    occ = occupied(level, state)
    positions = state.positions
    out: list[Move] = []
    for i, p in enumerate(positions):
        lo, hi = _free_run(level, positions, i, occ)
        out.extend((i, q) for q in range(lo, hi + 1) if q != p)
    return tuple(out)


def _check_move(level: Level, move: Any) -> Move:
    if not isinstance(move, tuple | list) or len(move) != 2 or not all(is_int(v) for v in move):
        raise ValueError(f"move: expected (vehicle, position) as two integers, got {shown(move)}")
    i, p = move
    if not 0 <= i < level.n_vehicles:
        raise ValueError(f"move: vehicle {i} is not in 0..{level.n_vehicles - 1}")
    if not 0 <= p < level.span(i):
        raise ValueError(f"move: position {p} of vehicle {i} is not in 0..{level.span(i) - 1}")
    return i, p


def apply(level: Level, state: State, move: Move) -> State | Rejected:
    """The state after sliding a vehicle to a new position along its axis.

    Returns :class:`Rejected` (nothing changes) when the vehicle is already there or a wall or
    another vehicle lies on the way; raises :class:`ValueError` when ``move`` is not a
    ``(vehicle, position)`` pair of this level.
    """
    i, p = _check_move(level, move)
    positions = state.positions
    cur = positions[i]
    if p == cur:
        return Rejected(NO_SLIDE_REASON)
    masks = level.cell_masks[i]
    occ = occupied(level, state) & ~masks[cur]
    step = 1 if p > cur else -1
    for q in range(cur + step, p + step, step):
        if masks[q] & occ:
            return Rejected(BLOCKED_REASON)
    return State(positions[:i] + (p,) + positions[i + 1 :])


def is_solved(level: Level, state: State) -> bool:
    return state.positions[TARGET] == level.exit_position


POTENTIAL_CAP = 0.99


def potential(level: Level, state: State) -> float:
    """``1 − d(s)/d(s₀)`` from exact distances (moves to the nearest solved state, ``s₀`` the
    level's start), kept in ``[0, 0.99]`` until solved and exactly 1 when solved.

    The distances come from the game's per-level table (``puzzlegym.envs.rush_hour.clusters``,
    one breadth-first search over the whole state cluster, memoised), imported here at call
    time: the table is built on first use.
    """
    if is_solved(level, state):
        return 1.0
    from .clusters import distance

    d0 = distance(level, initial_state(level))
    d = distance(level, state)
    if d is None or not d0:
        return 0.0
    return min(POTENTIAL_CAP, max(0.0, 1.0 - d / d0))


def state_to_json(level: Level, state: State) -> dict[str, Any]:
    """``{"vehicles": [[row, col], ...]}``: each vehicle's top-left cell, in vehicle order."""
    return {"vehicles": [list(level.cells(i, p)[0]) for i, p in enumerate(state.positions)]}


def state_from_json(level: Level, data: Any) -> State:
    """Parse :func:`state_to_json` output, raising :class:`ValueError` naming the problem."""
    if not isinstance(data, dict) or set(data) != {"vehicles"}:
        raise ValueError(
            f"state: expected an object with exactly the key vehicles, got {shown(data)}"
        )
    raw = data["vehicles"]
    if not isinstance(raw, list | tuple) or len(raw) != level.n_vehicles:
        raise ValueError(
            f"vehicles: expected a list of {level.n_vehicles} [row, col] pairs, got {shown(raw)}"
        )
    positions = []
    for i, item in enumerate(raw):
        try:
            r, c = _pair(item, f"vehicles[{i}]")
        except LevelError as exc:
            raise ValueError(str(exc)) from None
        v = level.vehicles[i]
        lane, pos = (r, c) if v.horizontal else (c, r)
        if lane != v.lane:
            what = "row" if v.horizontal else "column"
            raise ValueError(f"vehicles[{i}]: [{r}, {c}] leaves the vehicle's {what} {v.lane}")
        if not 0 <= pos < level.span(i):
            raise ValueError(f"vehicles[{i}]: [{r}, {c}] does not fit the grid")
        positions.append(pos)
    state = State(tuple(positions))
    taken = level.wall_mask
    for i, p in enumerate(state.positions):
        mask = level.cell_masks[i][p]
        if mask & taken:
            raise ValueError(f"vehicles[{i}]: overlaps a wall or another vehicle")
        taken |= mask
    return state


__all__ = [
    "BLOCKED_REASON",
    "Level",
    "Move",
    "NO_SLIDE_REASON",
    "POTENTIAL_CAP",
    "State",
    "TIERS",
    "Vehicle",
    "apply",
    "canonical",
    "initial_state",
    "is_solved",
    "legal_moves",
    "occupied",
    "potential",
    "slide_range",
    "slide_ranges",
    "state_from_json",
    "state_to_json",
]
