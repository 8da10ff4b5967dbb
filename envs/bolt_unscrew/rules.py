"""Bolt Unscrew: the pure rules model.

A level has **anchors** (holes in a backplate, at integer lattice points), wooden **boards**
(bars with 2-4 holes, round pads with one) lying in **layers** over the backplate, each board
hole over an anchor, and **screws** in some anchors. A screw attaches every board that has a
hole at its anchor.

* A screw is *selectable* when no board above it covers its anchor (a board covering the
  anchor without a hole there, lying above every board the screw passes through).
* An anchor is *available* when it is empty and no remaining board covers it -- a board over
  an anchor blocks it even where the board has a hole there.
* A move ``(source, target)`` takes the screw at anchor ``source`` (selectable) to anchor
  ``target`` (available). Nothing covers ``target``, so the screw attaches nothing there.
  Every board that loses its last screw is released and falls out of the level (released
  boards exit at once: a settled state has no released board left on the backplate), which
  uncovers the anchors it covered. A board keeping another screw stays, and the anchor the
  screw left stays blocked under it.
* The level is solved when every board has fallen out.

Covering is decided on exact shapes (:mod:`.geometry`). Anchors and boards are addressed by
index; sets of them are ``int`` bitmasks, so a :class:`State` is two ints: the remaining
boards and the occupied anchors. This module does no I/O and no drawing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from puzzlegym.base.errors import LevelError, shown
from puzzlegym.base.fields import check_count, is_int
from puzzlegym.base.symmetry import SYMMETRIES
from puzzlegym.game import Rejected
from puzzlegym.game.catalogue import check_id, check_level_header, check_tier

from . import geometry as G

TIERS: tuple[str, ...] = ("Easy", "Hard")
KINDS: tuple[str, ...] = ("bar", "pad")
MAX_SIZE = 16  # lattice columns / rows
MAX_ANCHORS = 96
MAX_BOARDS = 40

NO_SCREW_REASON = "There is no screw there"
COVERED_SCREW_REASON = "That screw is held down by a board"
BAD_TARGET_REASON = "That screw cannot move there"

_JSON_REQUIRED = ("id", "tier", "size", "anchors", "boards", "screws")
_JSON_OPTIONAL = ("solution",)  # catalogue metadata: the reference solution, checked by tests


def bits(mask: int):
    """The indices of the set bits of ``mask``, ascending."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@dataclass(frozen=True)
class Board:
    """One wooden board: ``kind`` ("bar" or "pad"), its ``layer`` (0 = lowest) and its hole
    anchors (a bar's in order along it, the first and last being its ends)."""

    kind: str
    layer: int
    holes: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "layer": self.layer, "holes": list(self.holes)}


@dataclass(frozen=True)
class Level:
    """One Bolt Unscrew level (see module docstring). ``size`` is the lattice's (columns,
    rows); ``anchors`` their (x, y) lattice points; ``screws`` the initially occupied anchors.

    Equality and hashing use the fields only; derived masks are cached on the instance. The
    constructor does not validate; :meth:`from_json` (or :meth:`validate`) does.
    """

    id: str
    tier: str
    size: tuple[int, int]
    anchors: tuple[tuple[int, int], ...]
    boards: tuple[Board, ...]
    screws: tuple[int, ...]

    game: ClassVar[str] = "BoltUnscrew"

    # -- exact geometry --------------------------------------------------------------------
    def segment(self, b: int) -> G.Segment:
        """The core segment of board ``b`` (a point for a pad)."""
        holes = self.boards[b].holes
        return (self.anchors[holes[0]], self.anchors[holes[-1]])

    def radius(self, b: int):
        return G.PAD_R if self.boards[b].kind == "pad" else G.BAR_HALF

    @cached_property
    def cover_masks(self) -> tuple[int, ...]:
        """Per board: the anchors its shape covers (its holes included)."""
        out = []
        for b in range(len(self.boards)):
            seg, r = self.segment(b), self.radius(b)
            mask = 0
            for a, p in enumerate(self.anchors):
                if G.covers(seg, r, p):
                    mask |= 1 << a
            out.append(mask)
        return tuple(out)

    @cached_property
    def hole_masks(self) -> tuple[int, ...]:
        return tuple(sum(1 << a for a in set(bd.holes)) for bd in self.boards)

    @cached_property
    def holed_boards(self) -> tuple[int, ...]:
        """Per anchor: the boards with a hole there (those a screw there attaches)."""
        out = [0] * len(self.anchors)
        for b, bd in enumerate(self.boards):
            for a in bd.holes:
                out[a] |= 1 << b
        return tuple(out)

    @cached_property
    def pinners(self) -> tuple[int, ...]:
        """Per anchor: the boards *above* a screw there -- covering the anchor without a hole
        there, in a layer above every board with a hole there. Any remaining one pins it."""
        out = []
        for a in range(len(self.anchors)):
            holed = [self.boards[b].layer for b in bits(self.holed_boards[a])]
            top = max(holed) if holed else -1
            mask = 0
            for b in bits(self.cover_masks_by_anchor[a] & ~self.holed_boards[a]):
                if self.boards[b].layer > top:
                    mask |= 1 << b
            out.append(mask)
        return tuple(out)

    @cached_property
    def cover_masks_by_anchor(self) -> tuple[int, ...]:
        """Per anchor: the boards covering it."""
        out = [0] * len(self.anchors)
        for b, mask in enumerate(self.cover_masks):
            for a in bits(mask):
                out[a] |= 1 << b
        return tuple(out)

    @cached_property
    def all_anchors(self) -> int:
        return (1 << len(self.anchors)) - 1

    @cached_property
    def all_boards(self) -> int:
        return (1 << len(self.boards)) - 1

    @cached_property
    def screw_mask(self) -> int:
        return sum(1 << a for a in self.screws)

    def covered(self, remaining: int) -> int:
        """The anchors covered by the boards in ``remaining``."""
        mask = 0
        cm = self.cover_masks
        for b in bits(remaining):
            mask |= cm[b]
        return mask

    # -- validation and JSON ---------------------------------------------------------------
    def validate(self) -> None:
        """Raise :class:`LevelError` if this level is malformed or physically impossible."""
        check_id(self.id)
        check_tier(self.tier, TIERS)
        cols, rows = self.size
        if not (1 <= cols <= MAX_SIZE and 1 <= rows <= MAX_SIZE):
            raise LevelError(
                f"size: expected 1..{MAX_SIZE} columns and rows, got {list(self.size)}"
            )
        if not 1 <= len(self.anchors) <= MAX_ANCHORS:
            raise LevelError(f"anchors: expected 1..{MAX_ANCHORS} anchors, got {len(self.anchors)}")
        seen = set()
        for i, (x, y) in enumerate(self.anchors):
            if not (0 <= x < cols and 0 <= y < rows):
                raise LevelError(f"anchors[{i}]: [{x}, {y}] is outside the {cols}x{rows} lattice")
            if (x, y) in seen:
                raise LevelError(f"anchors[{i}]: [{x}, {y}] is listed twice")
            seen.add((x, y))
        if not 1 <= len(self.boards) <= MAX_BOARDS:
            raise LevelError(f"boards: expected 1..{MAX_BOARDS} boards, got {len(self.boards)}")
        n = len(self.anchors)
        for b, bd in enumerate(self.boards):
            where = f"boards[{b}]"
            if bd.kind not in KINDS:
                raise LevelError(
                    f"{where}.kind: expected one of {', '.join(KINDS)}, got {shown(bd.kind)}"
                )
            check_count(bd.layer, f"{where}.layer", 0, 15, LevelError)
            want = (1, 1) if bd.kind == "pad" else (2, 4)
            if not want[0] <= len(bd.holes) <= want[1]:
                raise LevelError(
                    f"{where}.holes: a {bd.kind} has {want[0]}..{want[1]} holes, "
                    f"got {len(bd.holes)}"
                )
            for a in bd.holes:
                check_count(a, f"{where}.holes", 0, n - 1, LevelError, what="an anchor index")
            if len(set(bd.holes)) != len(bd.holes):
                raise LevelError(f"{where}.holes: an anchor is listed twice")
            if bd.kind == "bar":
                p0, p1 = self.anchors[bd.holes[0]], self.anchors[bd.holes[-1]]
                prev = 0
                for a in bd.holes[1:-1]:
                    q = self.anchors[a]
                    if not G.on_segment_strict(p0, p1, q):
                        raise LevelError(
                            f"{where}.holes: anchor {a} is not on the bar between its end holes"
                        )
                    t = (q[0] - p0[0]) * (p1[0] - p0[0]) + (q[1] - p0[1]) * (p1[1] - p0[1])
                    if t <= prev:
                        raise LevelError(
                            f"{where}.holes: holes must be listed in order along the bar"
                        )
                    prev = t
        for b in range(len(self.boards)):
            for c in range(b + 1, len(self.boards)):
                if self.boards[b].layer == self.boards[c].layer and G.shapes_intersect(
                    self.segment(b), self.radius(b), self.segment(c), self.radius(c)
                ):
                    raise LevelError(
                        f"boards[{b}] and boards[{c}] overlap in the same layer "
                        f"{self.boards[b].layer}"
                    )
        for a in self.screws:
            check_count(a, "screws", 0, n - 1, LevelError, what="an anchor index")
        if len(set(self.screws)) != len(self.screws):
            raise LevelError("screws: an anchor is listed twice")
        for a in self.screws:
            holed = self.holed_boards[a]
            if not holed:
                raise LevelError(f"screws: the screw in anchor {a} attaches no board")
            top = max(self.boards[b].layer for b in bits(holed))
            for b in bits(self.cover_masks_by_anchor[a] & ~holed):
                if self.boards[b].layer <= top:
                    raise LevelError(
                        f"screws: the screw in anchor {a} would pass through boards[{b}], "
                        "which has no hole there"
                    )
        for b in range(len(self.boards)):
            if not self.hole_masks[b] & self.screw_mask:
                raise LevelError(f"boards[{b}]: no screw holds it (it would fall at once)")
        if self.screw_mask & ~self.covered(self.all_boards):
            raise LevelError("screws: every screw must start in a board")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tier": self.tier,
            "size": list(self.size),
            "anchors": [list(p) for p in self.anchors],
            "boards": [bd.to_json() for bd in self.boards],
            "screws": list(self.screws),
        }

    @classmethod
    def from_json(cls, data: Any) -> Level:
        """Build a level from its JSON document, validating strictly (errors name the field).

        Required keys: ``id``, ``tier``, ``size``, ``anchors``, ``boards``, ``screws``; the
        optional catalogue key ``solution`` (reference moves) is type-checked and ignored.
        """
        check_level_header(data, _JSON_REQUIRED, _JSON_OPTIONAL, TIERS)
        if "solution" in data:
            sol = data["solution"]
            if not isinstance(sol, list) or not all(_int_pair(m) for m in sol):
                raise LevelError("solution: expected a list of [source, target] anchor pairs")
        if not _int_pair(data["size"]):
            raise LevelError(f"size: expected [columns, rows], got {shown(data['size'])}")
        raw = data["anchors"]
        if not isinstance(raw, list) or not all(_int_pair(p) for p in raw):
            raise LevelError("anchors: expected a list of [x, y] integer pairs")
        rb = data["boards"]
        if not isinstance(rb, list):
            raise LevelError("boards: expected a list of board objects")
        boards = []
        for i, item in enumerate(rb):
            if not isinstance(item, dict) or set(item) != {"kind", "layer", "holes"}:
                raise LevelError(f"boards[{i}]: expected an object with exactly kind, layer, holes")
            if not isinstance(item["holes"], list):
                raise LevelError(f"boards[{i}].holes: expected a list of anchor indices")
            boards.append(Board(item["kind"], item["layer"], tuple(item["holes"])))
        screws = data["screws"]
        if not isinstance(screws, list):
            raise LevelError("screws: expected a list of anchor indices")
        level = cls(
            id=data["id"],
            tier=data["tier"],
            size=(data["size"][0], data["size"][1]),
            anchors=tuple((p[0], p[1]) for p in raw),
            boards=tuple(boards),
            screws=tuple(screws),
        )
        level.validate()
        return level


def canonical(level: Level) -> dict[str, Any]:
    """The puzzle of ``level`` without its names (id, tier), the same document for every
    level that plays the same: anchors, boards and screws by their lattice points instead of
    indices, sorted (their order does not matter; a bar's holes read from its smaller end),
    under the least of the lattice's eight turns and mirror images (the shapes are exact
    discs and capsules, so a turned level covers the same anchors) (:mod:`puzzlegym.game.levelhash`
    hashes it)."""
    cols, rows = level.size

    def form(sym) -> tuple:
        points = [list(sym.cell(y, x, rows, cols))[::-1] for x, y in level.anchors]  # [x, y]
        boards = []
        for bd in level.boards:
            holes = [points[a] for a in bd.holes]
            boards.append([bd.kind, bd.layer, min(holes, holes[::-1])])
        new_rows, new_cols = sym.shape(rows, cols)
        return (
            [new_cols, new_rows],
            sorted(points),
            sorted(boards),
            sorted(points[a] for a in level.screws),
        )

    size, anchors, boards, screws = min(form(sym) for sym in SYMMETRIES)
    return {"size": size, "anchors": anchors, "boards": boards, "screws": screws}


def _int_pair(v: Any) -> bool:
    return isinstance(v, list | tuple) and len(v) == 2 and all(is_int(x) for x in v)


@dataclass(frozen=True, slots=True)
class State:
    """The remaining boards and the occupied anchors, as bitmasks."""

    remaining: int
    occupied: int


def initial_state(level: Level) -> State:
    return State(level.all_boards, level.screw_mask)


def available(level: Level, state: State) -> int:
    """Bitmask of the available anchors: empty and covered by no remaining board."""
    return level.all_anchors & ~state.occupied & ~level.covered(state.remaining)


def free_anchors(level: Level, state: State) -> int:
    """How many anchors are available (the scarce resource)."""
    return available(level, state).bit_count()


def selectable(level: Level, state: State, anchor: int) -> bool:
    """Whether the screw in ``anchor`` can be picked (there is one and nothing above it)."""
    return bool(state.occupied >> anchor & 1) and not level.pinners[anchor] & state.remaining


def legal_moves(level: Level, state: State) -> tuple[tuple[int, int], ...]:
    """Every (source, target): a selectable screw and an available anchor, in index order."""
    targets = list(bits(available(level, state)))
    if not targets:
        return ()
    pin, rem = level.pinners, state.remaining
    return tuple((s, t) for s in bits(state.occupied) if not pin[s] & rem for t in targets)


def _check_move(level: Level, move: Any) -> tuple[int, int]:
    n = len(level.anchors)
    if (
        not isinstance(move, list | tuple)
        or len(move) != 2
        or not all(is_int(v, 0, n - 1) for v in move)
    ):
        raise ValueError(
            f"move: expected (source anchor, target anchor), indices 0..{n - 1}; got {shown(move)}"
        )
    return move[0], move[1]


def apply(level: Level, state: State, move: Any) -> State | Rejected:
    """The state after moving a screw (see module docstring); :class:`Rejected` (nothing
    changes) when the source holds no selectable screw or the target is not available."""
    src, dst = _check_move(level, move)
    occ, rem = state.occupied, state.remaining
    if not occ >> src & 1:
        return Rejected(NO_SCREW_REASON)
    if level.pinners[src] & rem:
        return Rejected(COVERED_SCREW_REASON)
    if not available(level, state) >> dst & 1:
        return Rejected(BAD_TARGET_REASON)
    occ = occ & ~(1 << src) | 1 << dst
    fall = 0
    hm = level.hole_masks
    for b in bits(level.holed_boards[src] & rem):
        if not hm[b] & occ:
            fall |= 1 << b
    return State(rem & ~fall, occ)


def released(level: Level, state: State) -> int:
    """Bitmask of remaining boards without a screw (released, not yet out). Always 0 in a
    settled state: a released board exits in the same step."""
    hm = level.hole_masks
    return sum(1 << b for b in bits(state.remaining) if not hm[b] & state.occupied)


def is_solved(level: Level, state: State) -> bool:
    return state.remaining == 0


def potential(level: Level, state: State) -> float:
    """``(b_exit + 0.5 * b_released) / b_total``: 0 at the start, 1 exactly when solved."""
    total = len(level.boards)
    rel = released(level, state).bit_count()
    exited = total - state.remaining.bit_count()
    return (exited + 0.5 * rel) / total


def deadlock_certificate(level: Level, state: State) -> bool:
    """The paper's certificate: the board is stable (settled, nothing pending) and unsolved,
    and no admissible screw -> anchor relocation exists (no available anchor, or no
    selectable screw)."""
    if state.remaining == 0 or released(level, state):
        return False
    return not legal_moves(level, state)


def state_to_json(level: Level, state: State) -> dict[str, Any]:
    return {"remaining": list(bits(state.remaining)), "screws": list(bits(state.occupied))}


def state_from_json(level: Level, data: Any) -> State:
    """Parse :func:`state_to_json` output, raising :class:`ValueError` naming the problem."""
    if not isinstance(data, dict) or set(data) != {"remaining", "screws"}:
        raise ValueError("state: expected an object with exactly remaining, screws")
    rem = _index_mask(data["remaining"], len(level.boards), "remaining")
    occ = _index_mask(data["screws"], len(level.anchors), "screws")
    if occ.bit_count() != len(level.screws):
        raise ValueError(f"screws: expected {len(level.screws)} screws, got {occ.bit_count()}")
    state = State(rem, occ)
    if released(level, state):
        raise ValueError("remaining: a remaining board has no screw (not a settled state)")
    cov = level.covered(rem)
    for a in bits(occ & cov):
        if level.holed_boards[a] & ~rem:
            raise ValueError(f"screws: the screw in anchor {a} holds a board listed as gone")
    return state


def _index_mask(raw: Any, n: int, name: str) -> int:
    if not isinstance(raw, list):
        raise ValueError(f"{name}: expected a list of indices")
    mask = 0
    for v in raw:
        check_count(v, name, 0, n - 1, what="an index")
        if mask >> v & 1:
            raise ValueError(f"{name}: {v} is listed twice")
        mask |= 1 << v
    return mask


__all__ = [
    "Board",
    "Level",
    "State",
    "TIERS",
    "apply",
    "available",
    "bits",
    "canonical",
    "deadlock_certificate",
    "free_anchors",
    "initial_state",
    "is_solved",
    "legal_moves",
    "potential",
    "selectable",
    "state_from_json",
    "state_to_json",
]
