"""Color Connect: the pure rules model.

A level is a rectangular grid of free cells (``.``), blocked cells (``#``) and coloured
endpoints: each pair letter ``A``, ``B``, ... appears on exactly two cells, the pair's two
endpoints (the letters of a level are the first ``n`` of ``A``..``P``; letter ``A`` is pair 0).

A *path* of a pair is a sequence of orthogonally adjacent cells from one of its endpoints to
the other that visits no cell twice and crosses only free cells in between: never a blocked
cell, another pair's endpoint or a cell of another pair's path. The board state is the set of
finished paths, one per connected pair. Two moves change it:

* :class:`Connect` ``(pair, cells)`` adds the pair's path (the pair must not be connected);
* :class:`Remove` ``(pair)`` takes a connected pair's path off the board.

The level is solved when every pair is connected; free cells may stay empty. Because a path
can always be removed, no board is ever a dead end on a solvable level.

The path being drawn is not board state: it belongs to the view (its interaction state).

Cells are addressed by index ``row * width + col``; a set of cells is an ``int`` bitmask.
This module does no I/O and no drawing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, NamedTuple

from puzzlegym.base.errors import LevelError
from puzzlegym.base.fields import check_count, grid_cell, is_int
from puzzlegym.base.symmetry import SYMMETRIES, relabelled_rows
from puzzlegym.base.textgrid import TextGrid, check_text_grid
from puzzlegym.game import Rejected
from puzzlegym.game.catalogue import check_id, check_level_header, check_tier

TIERS: tuple[str, ...] = ("Easy", "Hard")
FREE = "."
BLOCKED = "#"
PAIR_LETTERS = "ABCDEFGHIJKLMNOP"
MAX_PAIRS = len(PAIR_LETTERS)
MIN_SIZE = 2
MAX_SIZE = 16

CONNECTED_REASON = "That color is already connected"
NOT_CONNECTED_REASON = "That color has no path to remove"
ENDS_REASON = "A path must join the two dots of one color"
ADJACENT_REASON = "A path moves one cell up, down, left or right at a time"
SELF_REASON = "A path cannot cross itself"
BLOCKED_REASON = "Paths cannot go through a blocked cell"
DOT_REASON = "Paths cannot pass through another dot"
CROSS_REASON = "Paths cannot cross"

_JSON_REQUIRED = ("id", "tier", "grid")
_JSON_OPTIONAL = ("clicks", "path_cells", "detour")  # catalogue metadata, checked and ignored


class Connect(NamedTuple):
    """Add the path ``cells`` (cell indices, endpoint to endpoint) of pair ``pair``."""

    pair: int
    cells: tuple[int, ...]


class Remove(NamedTuple):
    """Take pair ``pair``'s path off the board."""

    pair: int


Move = Connect | Remove


@dataclass(frozen=True)
class Level(TextGrid):
    """One Color Connect level: the grid rows, top to bottom (see the module docstring).

    Equality and hashing use ``id``, ``tier`` and ``grid``; derived data (endpoints, masks,
    neighbours) is computed lazily and cached on the instance. The constructor does not
    validate; :meth:`from_json` (or :meth:`validate`) does.
    """

    id: str
    tier: str
    grid: tuple[str, ...]

    game: ClassVar[str] = "ColorConnect"

    # -- geometry (height, width, n_cells, index, cell: TextGrid) -----------------------------

    @cached_property
    def endpoints(self) -> tuple[tuple[int, int], ...]:
        """Per pair, its two endpoint cells ``(a, b)`` with ``a`` first in row-major order."""
        found: dict[int, list[int]] = {}
        w = self.width
        for r, row in enumerate(self.grid):
            for c, ch in enumerate(row):
                if ch in PAIR_LETTERS:
                    found.setdefault(PAIR_LETTERS.index(ch), []).append(r * w + c)
        return tuple((cells[0], cells[-1]) for _, cells in sorted(found.items()))

    @property
    def n_pairs(self) -> int:
        return len(self.endpoints)

    @cached_property
    def owner(self) -> tuple[int, ...]:
        """Per cell: the pair whose endpoint it is, -1 for a free cell, -2 for a blocked one."""
        out = [-1] * self.n_cells
        for i, ch in enumerate("".join(self.grid)):
            if ch == BLOCKED:
                out[i] = -2
            elif ch in PAIR_LETTERS:
                out[i] = PAIR_LETTERS.index(ch)
        return tuple(out)

    @cached_property
    def free_mask(self) -> int:
        """Bitmask of the free cells (neither blocked nor an endpoint)."""
        mask = 0
        for i, o in enumerate(self.owner):
            if o == -1:
                mask |= 1 << i
        return mask

    @cached_property
    def edge_masks(self) -> tuple[int, int]:
        """Bitmasks of the cells not in the first column and not in the last one (for
        shifting cell sets left and right without wrapping rows)."""
        full = (1 << self.n_cells) - 1
        first = sum(1 << (r * self.width) for r in range(self.height))
        return full & ~first, full & ~(first << (self.width - 1))

    def flood(self, seed: int, open_mask: int) -> int:
        """The cells of ``open_mask`` reachable from the cells of ``seed`` (bitmasks) through
        ``open_mask`` cells, ``seed & open_mask`` included."""
        w = self.width
        left, right = self.edge_masks
        m = seed & open_mask
        while True:
            nm = (m | (m << 1 & left) | (m >> 1 & right) | (m << w) | (m >> w)) & open_mask
            if nm == m:
                return m
            m = nm

    @cached_property
    def neighbour_masks(self) -> tuple[int, ...]:
        """Per cell, the bitmask of its orthogonal neighbours."""
        return tuple(sum(1 << y for y in ys) for ys in self.neighbours)

    @cached_property
    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        """Per cell, its orthogonal neighbours inside the grid (up, down, left, right)."""
        h, w = self.height, self.width
        out = []
        for i in range(h * w):
            r, c = divmod(i, w)
            out.append(
                tuple(
                    rr * w + cc
                    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                    if 0 <= rr < h and 0 <= cc < w
                )
            )
        return tuple(out)

    # -- validation and JSON ---------------------------------------------------------------

    def validate(self) -> None:
        """Raise :class:`LevelError` if this level is malformed."""
        check_id(self.id)
        check_tier(self.tier, TIERS)
        _check_grid(self.grid)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "tier": self.tier, "grid": list(self.grid)}

    @classmethod
    def from_json(cls, data: Any) -> Level:
        """Build a level from its JSON document, validating strictly.

        Required keys: ``id``, ``tier``, ``grid``; the optional catalogue keys ``clicks``,
        ``path_cells`` and ``detour`` are checked for type and otherwise ignored. Raises
        :class:`LevelError` naming the field and the problem.
        """
        check_level_header(data, _JSON_REQUIRED, _JSON_OPTIONAL, TIERS, counts=_JSON_OPTIONAL)
        grid = _check_grid(data["grid"])
        return cls(data["id"], data["tier"], grid)


def canonical(level: Level) -> dict[str, Any]:
    """The puzzle of ``level`` without its names (id, tier), the same document for every
    level that plays the same: the least, over the board's eight turns and mirror images, of
    the grid with its colours lettered in order of first appearance (row by row)
    (:mod:`puzzlegym.game.levelhash` hashes it)."""
    grid = min(
        relabelled_rows(sym.rows(level.grid), FREE + BLOCKED, PAIR_LETTERS) for sym in SYMMETRIES
    )
    return {"grid": list(grid)}


def _check_grid(value: Any) -> tuple[str, ...]:
    grid = check_text_grid(
        value,
        MIN_SIZE,
        MAX_SIZE,
        FREE + BLOCKED + PAIR_LETTERS,
        f"allowed are {FREE!r} (free), {BLOCKED!r} (blocked) and the pair letters "
        f"{PAIR_LETTERS[0]}..{PAIR_LETTERS[-1]}",
    )
    counts: dict[str, int] = {}
    for row in grid:
        for ch in row:
            if ch in PAIR_LETTERS:
                counts[ch] = counts.get(ch, 0) + 1
    if not counts:
        raise LevelError("grid: the level has no pair of endpoints (letters A..P)")
    wrong = sorted(ch for ch, n in counts.items() if n != 2)
    if wrong:
        shown = ", ".join(f"{ch} appears {counts[ch]} time(s)" for ch in wrong)
        raise LevelError(f"grid: every pair letter must appear exactly twice; {shown}")
    letters = "".join(sorted(counts))
    if letters != PAIR_LETTERS[: len(letters)]:
        raise LevelError(
            f"grid: the pair letters must be A..{PAIR_LETTERS[len(letters) - 1]} without gaps, "
            f"got {letters}"
        )
    return grid


# ----------------------------------------------------------------------------- state


@dataclass(frozen=True)
class State:
    """Per pair, its path (cell indices from its endpoint ``a`` to ``b``) or None.

    Equality and hashing use ``paths`` only.
    """

    paths: tuple[tuple[int, ...] | None, ...]

    @cached_property
    def occupied(self) -> int:
        """Bitmask of every cell on a finished path (endpoints included)."""
        mask = 0
        for path in self.paths:
            if path is not None:
                for i in path:
                    mask |= 1 << i
        return mask

    @property
    def n_connected(self) -> int:
        return sum(p is not None for p in self.paths)


def initial_state(level: Level) -> State:
    return State((None,) * level.n_pairs)


def path_problem(level: Level, state: State, pair: int, cells: tuple[int, ...]) -> str | None:
    """Why ``cells`` is not a valid new path of ``pair`` on ``state`` (a neutral reason), or
    None when it is. ``pair`` must be a pair index and ``cells`` valid cell indices."""
    if state.paths[pair] is not None:
        return CONNECTED_REASON
    a, b = level.endpoints[pair]
    if len(cells) < 2 or {cells[0], cells[-1]} != {a, b}:
        return ENDS_REASON
    if len(set(cells)) != len(cells):
        return SELF_REASON
    nbrs = level.neighbours
    for x, y in zip(cells, cells[1:], strict=False):
        if y not in nbrs[x]:
            return ADJACENT_REASON
    owner, occupied = level.owner, state.occupied
    for x in cells[1:-1]:
        o = owner[x]
        if o == -2:
            return BLOCKED_REASON
        if o >= 0:
            return DOT_REASON
        if occupied >> x & 1:
            return CROSS_REASON
    return None


def _check_move(level: Level, move: Any) -> Move:
    """The move if it is well formed (else ValueError naming the problem)."""
    if not isinstance(move, Connect | Remove):
        raise ValueError(f"move: expected Connect(pair, cells) or Remove(pair), got {move!r}")
    check_count(move.pair, "move.pair", 0, level.n_pairs - 1, what="a pair index")
    if isinstance(move, Connect):
        cells = move.cells
        n = level.n_cells
        if (
            not isinstance(cells, tuple)
            or len(cells) > n
            or not all(is_int(x, 0, n - 1) for x in cells)
        ):
            raise ValueError(f"move.cells: expected a tuple of at most {n} cell indices 0..{n - 1}")
    return move


def apply(level: Level, state: State, move: Move) -> State | Rejected:
    """The state after ``move``, or :class:`Rejected` (nothing changes) when the rules refuse
    it: connecting a connected pair, a path that does not join the pair's two dots cell by
    cell or that crosses itself, a blocked cell, another dot or another path; removing a pair
    that has no path. Raises :class:`ValueError` for a malformed move."""
    move = _check_move(level, move)
    paths = list(state.paths)
    if isinstance(move, Remove):
        if paths[move.pair] is None:
            return Rejected(NOT_CONNECTED_REASON)
        paths[move.pair] = None
        return State(tuple(paths))
    reason = path_problem(level, state, move.pair, move.cells)
    if reason is not None:
        return Rejected(reason)
    cells = move.cells
    paths[move.pair] = cells if cells[0] == level.endpoints[move.pair][0] else cells[::-1]
    return State(tuple(paths))


def pair_paths(level: Level, state: State, pair: int) -> Iterator[tuple[int, ...]]:
    """Every valid path of the unconnected ``pair`` on ``state`` (from its endpoint ``a``),
    depth first, neighbours nearest the other endpoint first. A branch is followed only while
    the other endpoint is still reachable, so the paths come with polynomial delay; their
    number grows exponentially with the free area."""
    a, b = level.endpoints[pair]
    nbrs, nbmask = level.neighbours, level.neighbour_masks
    width = level.width
    open_mask = level.free_mask & ~state.occupied
    br, bc = divmod(b, width)
    target = nbmask[b]

    def reachable(head: int, used: int) -> bool:
        # b is reachable from head through open cells not yet used
        return bool(head in nbrs[b] or level.flood(nbmask[head], open_mask & ~used) & target)

    def order(x: int) -> list[int]:
        return sorted(nbrs[x], key=lambda y: abs(y // width - br) + abs(y % width - bc))

    path = [a]
    used = 1 << a
    stack = [iter(order(a))]
    while stack:
        y = next(stack[-1], None)
        if y is None:
            stack.pop()
            used &= ~(1 << path.pop())
            continue
        if y == b:
            yield (*path, b)
            continue
        bit = 1 << y
        if not open_mask & bit or used & bit:
            continue
        if not reachable(y, used | bit):
            continue
        path.append(y)
        used |= bit
        stack.append(iter(order(y)))


def legal_moves(level: Level, state: State) -> Iterator[Move]:
    """Every legal move, lazily: first a :class:`Remove` per connected pair, then, pair by
    pair, a :class:`Connect` per valid path of each unconnected pair (:func:`pair_paths`).

    The connect moves are exponentially many on open boards, so this is a generator: take
    what you need (``itertools.islice``) rather than ``list`` it.
    """
    for pair, path in enumerate(state.paths):
        if path is not None:
            yield Remove(pair)
    for pair, path in enumerate(state.paths):
        if path is None:
            for cells in pair_paths(level, state, pair):
                yield Connect(pair, cells)


def is_solved(level: Level, state: State) -> bool:
    return all(p is not None for p in state.paths)


def potential(level: Level, state: State) -> float:
    """The fraction of pairs connected: 0 at the start, 1 exactly when solved."""
    return state.n_connected / level.n_pairs


# ----------------------------------------------------------------------------- JSON


def state_to_json(level: Level, state: State) -> dict[str, Any]:
    """``{"paths": {letter: [[row, col], ...]}}`` for every connected pair, in pair order."""
    w = level.width
    return {
        "paths": {
            PAIR_LETTERS[k]: [list(divmod(i, w)) for i in path]
            for k, path in enumerate(state.paths)
            if path is not None
        }
    }


def state_from_json(level: Level, data: Any) -> State:
    """Parse :func:`state_to_json` output, raising :class:`ValueError` naming the problem."""
    if not isinstance(data, dict) or set(data) != {"paths"}:
        raise ValueError("state: expected a JSON object with exactly the key paths")
    raw = data["paths"]
    if not isinstance(raw, dict):
        raise ValueError(
            f"paths: expected an object of pair letter -> cells, got {type(raw).__name__}"
        )
    letters = PAIR_LETTERS[: level.n_pairs]
    state = initial_state(level)
    for letter in sorted(raw, key=str):
        if letter not in letters:
            raise ValueError(f"paths: {letter!r} is not a pair of this level (pairs: {letters})")
        cells = parse_cells(level, raw[letter], f"paths.{letter}")
        pair = letters.index(letter)
        reason = path_problem(level, state, pair, cells)
        if reason is not None:
            raise ValueError(f"paths.{letter}: not a valid path: {reason}")
        result = apply(level, state, Connect(pair, cells))
        assert not isinstance(result, Rejected)
        state = result
    return state


def parse_cells(level: Level, value: Any, name: str) -> tuple[int, ...]:
    """A JSON list of ``[row, col]`` pairs inside the grid as cell indices (ValueError naming
    ``name`` otherwise)."""
    if not isinstance(value, list | tuple) or len(value) > level.n_cells:
        raise ValueError(f"{name}: expected a list of at most {level.n_cells} [row, col] pairs")
    out = []
    for j, item in enumerate(value):
        r, c = grid_cell(item, f"{name}[{j}]", level.height, level.width)
        out.append(level.index(r, c))
    return tuple(out)


__all__ = [
    "Connect",
    "Level",
    "Move",
    "PAIR_LETTERS",
    "Remove",
    "State",
    "TIERS",
    "apply",
    "canonical",
    "initial_state",
    "is_solved",
    "legal_moves",
    "pair_paths",
    "parse_cells",
    "path_problem",
    "potential",
    "state_from_json",
    "state_to_json",
]
