"""Maze Paint: the pure rules model.

A level is a rectangular grid of wall (``#``) and floor (``.``) cells with a ball on one
floor cell. A move is a direction; the ball rolls that way until the next cell is a wall or
outside the grid, painting every cell it passes over, including the one it stops on. The
start cell counts as painted. A move that cannot move the ball at all is rejected. The level is
solved when every floor cell is painted.

Cells are addressed by index ``row * width + col``; a set of cells is an ``int`` bitmask with
bit ``index`` set for each member. Every slide of a level is precomputed once (see
:attr:`Level.slide_table`), so :func:`apply` is one table lookup and one OR.

This module does no I/O and no drawing.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from puzzlegym.base.errors import LevelError, shown
from puzzlegym.base.fields import check_exact_keys, check_in_grid, grid_cell, row_col
from puzzlegym.base.symmetry import SYMMETRIES
from puzzlegym.base.textgrid import TextGrid, check_text_grid
from puzzlegym.game import Rejected
from puzzlegym.game.catalogue import check_id, check_level_header, check_tier

DIRECTIONS: tuple[str, ...] = ("up", "down", "left", "right")
"""Every move, in the canonical order used by :func:`legal_moves`."""

TIERS: tuple[str, ...] = ("Easy", "Medium", "Hard")
WALL_CHAR = "#"
FLOOR_CHAR = "."
MIN_SIZE = 2
MAX_SIZE = 16

NO_MOVE_REASON = "The ball cannot roll that way"

_DIR_INDEX = {name: i for i, name in enumerate(DIRECTIONS)}
_DELTAS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # same order as DIRECTIONS

_JSON_REQUIRED = ("id", "tier", "grid", "start")
_JSON_OPTIONAL = ("optimal_slides",)  # catalogue metadata, accepted and ignored


@dataclass(frozen=True)
class Level(TextGrid):
    """One Maze Paint level.

    ``grid`` holds the rows top to bottom, each a string of ``#`` (wall) and ``.`` (floor);
    ``start`` is the ball's ``(row, col)``. Equality and hashing use these four fields only;
    the derived data (slide table, masks) is computed lazily and cached on the instance.

    The constructor does not validate; :meth:`from_json` (or :meth:`validate`) does.
    """

    id: str
    tier: str
    grid: tuple[str, ...]
    start: tuple[int, int]

    game: ClassVar[str] = "MazePaint"

    # -- geometry (height, width, index, cell: TextGrid) --------------------------------------

    def is_floor(self, row: int, col: int) -> bool:
        return (
            0 <= row < self.height and 0 <= col < self.width and self.grid[row][col] == FLOOR_CHAR
        )

    @cached_property
    def start_index(self) -> int:
        return self.index(*self.start)

    @cached_property
    def full_mask(self) -> int:
        """Bitmask of every floor cell (the painted mask of a solved state)."""
        mask = 0
        w = self.width
        for r, row in enumerate(self.grid):
            for c, ch in enumerate(row):
                if ch == FLOOR_CHAR:
                    mask |= 1 << (r * w + c)
        return mask

    @cached_property
    def n_paintable(self) -> int:
        """Number of floor cells (all of which a valid level can paint)."""
        return self.full_mask.bit_count()

    @cached_property
    def slide_table(self) -> tuple[tuple[int, int] | None, ...]:
        """Every slide, indexed by ``cell * 4 + direction_index``.

        An entry is ``(destination_cell, crossed_mask)`` where ``crossed_mask`` has the bits
        of every cell the ball passes over including the destination (and the cell it leaves,
        which is painted anyway), or ``None`` when the ball cannot move that way (or the cell
        is a wall).
        """
        h, w, grid = self.height, self.width, self.grid
        table: list[tuple[int, int] | None] = [None] * (h * w * 4)
        for r in range(h):
            for c in range(w):
                if grid[r][c] != FLOOR_CHAR:
                    continue
                for d, (dr, dc) in enumerate(_DELTAS):
                    rr, cc = r, c
                    mask = 1 << (r * w + c)
                    while True:
                        nr, nc = rr + dr, cc + dc
                        if not (0 <= nr < h and 0 <= nc < w) or grid[nr][nc] != FLOOR_CHAR:
                            break
                        rr, cc = nr, nc
                        mask |= 1 << (rr * w + cc)
                    if (rr, cc) != (r, c):
                        table[(r * w + c) * 4 + d] = (rr * w + cc, mask)
        return tuple(table)

    @cached_property
    def ball_cells(self) -> frozenset[int]:
        """The cells the ball can occupy: the start and every cell reachable by slides."""
        table = self.slide_table
        seen = {self.start_index}
        queue = deque(seen)
        while queue:
            cell = queue.popleft()
            for d in range(4):
                entry = table[cell * 4 + d]
                if entry is not None and entry[0] not in seen:
                    seen.add(entry[0])
                    queue.append(entry[0])
        return frozenset(seen)

    @cached_property
    def paintable_mask(self) -> int:
        """Bitmask of the floor cells some sequence of slides from the start can paint."""
        table = self.slide_table
        mask = 1 << self.start_index
        for cell in self.ball_cells:
            for d in range(4):
                entry = table[cell * 4 + d]
                if entry is not None:
                    mask |= entry[1]
        return mask

    # -- validation and JSON ---------------------------------------------------------------

    def validate(self) -> None:
        """Raise :class:`LevelError` if this level is malformed or impossible."""
        check_id(self.id)
        check_tier(self.tier, TIERS)
        _check_grid(self.grid)
        _check_start(self.start, self.grid)
        missing = self.full_mask & ~self.paintable_mask
        if missing:
            cells = [self.cell(i) for i in range(missing.bit_length()) if missing >> i & 1]
            shown = ", ".join(f"[{r}, {c}]" for r, c in cells[:8])
            more = f" (and {len(cells) - 8} more)" if len(cells) > 8 else ""
            raise LevelError(
                f"grid: floor cell(s) {shown}{more} can never be painted "
                "(no slide from the start passes over them)"
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tier": self.tier,
            "grid": list(self.grid),
            "start": [self.start[0], self.start[1]],
        }

    @classmethod
    def from_json(cls, data: Any) -> Level:
        """Build a level from its JSON document, validating strictly.

        Required keys: ``id``, ``tier``, ``grid``, ``start``; the optional catalogue key
        ``optimal_slides`` is checked for type and otherwise ignored. Raises
        :class:`LevelError` naming the field and the problem.
        """
        check_level_header(data, _JSON_REQUIRED, _JSON_OPTIONAL, TIERS, counts=("optimal_slides",))
        grid = _check_grid(data["grid"])
        start = row_col(data["start"], "start", LevelError)
        level = cls(id=data["id"], tier=data["tier"], grid=grid, start=start)
        level.validate()
        return level


def canonical(level: Level) -> dict[str, Any]:
    """The puzzle of ``level`` without its names (id, tier), the same document for every
    level that plays the same: the grid and start under the least of the board's eight
    turns and mirror images (:mod:`puzzlegym.game.levelhash` hashes it)."""
    h, w = level.height, level.width
    grid, start = min((sym.rows(level.grid), sym.cell(*level.start, h, w)) for sym in SYMMETRIES)
    return {"grid": list(grid), "start": list(start)}


def _check_grid(grid: Any) -> tuple[str, ...]:
    return check_text_grid(
        grid,
        MIN_SIZE,
        MAX_SIZE,
        WALL_CHAR + FLOOR_CHAR,
        f"only {WALL_CHAR!r} (wall) and {FLOOR_CHAR!r} (floor) are allowed",
    )


def _check_start(start: Any, grid: tuple[str, ...]) -> None:
    r, c = start
    check_in_grid(r, c, len(grid), len(grid[0]), "start", LevelError)
    if grid[r][c] != FLOOR_CHAR:
        raise LevelError(f"start: [{r}, {c}] is a wall, the ball must start on a floor cell")


@dataclass(frozen=True, slots=True)
class State:
    """The ball's cell index and the bitmask of painted cells."""

    ball: int
    painted: int


def initial_state(level: Level) -> State:
    start = level.start_index
    return State(start, 1 << start)


def legal_moves(level: Level, state: State) -> tuple[str, ...]:
    """The directions in which the ball would move, in the order of :data:`DIRECTIONS`."""
    table = level.slide_table
    base = state.ball * 4
    return tuple(name for d, name in enumerate(DIRECTIONS) if table[base + d] is not None)


def apply(level: Level, state: State, move: str) -> State | Rejected:
    """The state after rolling the ball in direction ``move``.

    Returns :class:`Rejected` (and nothing changes) when the ball cannot move that way;
    raises :class:`ValueError` for a string that is not a direction.
    """
    d = _DIR_INDEX.get(move) if isinstance(move, str) else None
    if d is None:
        raise ValueError(f"move: expected one of {', '.join(DIRECTIONS)}, got {shown(move)}")
    entry = level.slide_table[state.ball * 4 + d]
    if entry is None:
        return Rejected(NO_MOVE_REASON)
    return State(entry[0], state.painted | entry[1])


def is_solved(level: Level, state: State) -> bool:
    full = level.full_mask
    return state.painted & full == full


def potential(level: Level, state: State) -> float:
    """Progress in [0, 1]: ``(painted - 1) / (floor cells - 1)``; 0 at the start, 1 iff solved."""
    n = level.n_paintable
    if n <= 1:
        return 1.0
    painted = (state.painted & level.full_mask).bit_count()
    return (painted - 1) / (n - 1)


def state_to_json(level: Level, state: State) -> dict[str, Any]:
    w = level.width
    painted = state.painted
    cells = [list(divmod(i, w)) for i in range(painted.bit_length()) if painted >> i & 1]
    return {"ball": list(divmod(state.ball, w)), "painted": cells}


def state_from_json(level: Level, data: Any) -> State:
    """Parse :func:`state_to_json` output, raising :class:`ValueError` naming the problem."""
    if not isinstance(data, dict):
        raise ValueError(f"state: expected a JSON object, got {type(data).__name__}")
    check_exact_keys(data, ("ball", "painted"), "state")
    ball = _parse_cell(level, data["ball"], "ball")
    raw = data["painted"]
    if not isinstance(raw, list | tuple):
        raise ValueError(f"painted: expected a list of [row, col] pairs, got {type(raw).__name__}")
    painted = 0
    for i, item in enumerate(raw):
        cell = _parse_cell(level, item, f"painted[{i}]")
        bit = 1 << cell
        if painted & bit:
            r, c = level.cell(cell)
            raise ValueError(f"painted[{i}]: cell [{r}, {c}] is listed twice")
        painted |= bit
    if not painted >> ball & 1:
        r, c = level.cell(ball)
        raise ValueError(f"painted: the ball's cell [{r}, {c}] must be painted")
    if not painted >> level.start_index & 1:
        r, c = level.start
        raise ValueError(f"painted: the start cell [{r}, {c}] must be painted")
    return State(ball, painted)


def _parse_cell(level: Level, value: Any, name: str) -> int:
    r, c = grid_cell(value, name, level.height, level.width)
    if level.grid[r][c] != FLOOR_CHAR:
        raise ValueError(f"{name}: [{r}, {c}] is a wall")
    return level.index(r, c)


__all__ = [
    "DIRECTIONS",
    "Level",
    "NO_MOVE_REASON",
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
]
