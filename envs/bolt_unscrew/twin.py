"""Bolt Unscrew's JAX twin (:class:`puzzlegym.game.twin.Twin`): the rules of ``rules.py``, the
view's selection and the planes of ``planes.py`` as pure functions over padded arrays, for
``puzzlegym.jax``.

Sets are bitmasks as in the rules, cut into ``uint32`` lanes: a set of anchors is
``uint32[anchor_lanes]`` (anchor ``a`` is bit ``a % 32`` of lane ``a // 32``), a set of
boards ``uint32[board_lanes]``, a set of lattice points ``uint32[point_lanes]`` (point
``(x, y)`` is bit ``y * cols + x`` with the twin's padded ``cols``). A level is its tables as
such sets: per board the anchors it covers and its holes and the lattice points it covers;
per anchor the boards with a hole there and the boards that pin a screw there
(``Level.pinners``); the initial screws, every anchor, every board; the board layers and,
per lattice point, the anchor there. The state is the rules' two bitmasks (``remaining``,
``occupied``) as lanes and the selected screw's anchor (``ui``, -1 for none): a step is a
few dozen lane operations per board, whatever the level's size. Board target ``a`` is a click
on anchor ``a``; the game has no Undo.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from puzzlegym.game.twin import Twin, hash_lanes

from . import geometry as G
from .rules import Level, State

LANE = 32  # bits of a uint32 lane


def _lanes(n: int) -> int:
    return max(1, -(-n // LANE))


def _np_lanes(indices: Any, n_lanes: int) -> np.ndarray:
    """The set of ``indices`` as ``uint32[n_lanes]`` (numpy, for the level tables)."""
    out = np.zeros(n_lanes, dtype=np.uint32)
    for i in indices:
        out[i // LANE] |= np.uint32(1 << (i % LANE))
    return out


def _unpack(lanes: Any, n: int) -> Any:
    """``bool[..., n]``: the bits of the lanes' sets."""
    shifts = jnp.arange(LANE, dtype=jnp.uint32)
    bits = (lanes[..., :, None] >> shifts) & jnp.uint32(1)
    return bits.reshape(*lanes.shape[:-1], -1)[..., :n].astype(bool)


def _pack(flags: Any, n_lanes: int) -> Any:
    """``uint32[..., n_lanes]``: the set of the True entries of ``flags`` (``bool[..., n]``)."""
    n = flags.shape[-1]
    padded = jnp.pad(flags, [(0, 0)] * (flags.ndim - 1) + [(0, n_lanes * LANE - n)])
    bits = padded.reshape(*flags.shape[:-1], n_lanes, LANE).astype(jnp.uint32)
    return jnp.sum(bits << jnp.arange(LANE, dtype=jnp.uint32), axis=-1, dtype=jnp.uint32)


def _union(chosen: Any, sets: Any) -> Any:
    """The union of ``sets[i]`` (``uint32[..., n, lanes]``) over the ``i`` where ``chosen``
    (``bool[..., n]``)."""
    picked = jnp.where(chosen[..., None], sets, jnp.uint32(0))
    return jax.lax.reduce(picked, jnp.uint32(0), jax.lax.bitwise_or, (picked.ndim - 2,))


def _bit(lanes: Any, i: Any) -> Any:
    return ((lanes[i // LANE] >> (i % LANE).astype(jnp.uint32)) & jnp.uint32(1)) == 1


def _meets(a: Any, b: Any) -> Any:
    """Whether the sets ``a`` and ``b`` (lanes on the last axis) share a member."""
    return jnp.any((a & b) != 0, axis=-1)


class BoltUnscrewTwin(Twin):
    name = "BoltUnscrew"

    # -- levels as arrays ------------------------------------------------------------------
    def sizes_for(self, levels: Sequence[Level]) -> dict[str, int]:
        return {
            "anchors": max(len(level.anchors) for level in levels),
            "boards": max(len(level.boards) for level in levels),
            "cols": max(level.size[0] for level in levels),
            "rows": max(level.size[1] for level in levels),
            "layers": 1 + max(board.layer for level in levels for board in level.boards),
        }

    def _shape(self) -> tuple[int, int, int, int, int, int]:
        """Anchors, boards, lattice points and the lanes of each."""
        s = self.sizes
        n_a, n_b, n_p = s["anchors"], s["boards"], s["rows"] * s["cols"]
        return n_a, n_b, n_p, _lanes(n_a), _lanes(n_b), _lanes(n_p)

    def encode(self, level: Level) -> dict[str, np.ndarray]:
        n_a, n_b, n_p, la, lb, lp = self._shape()
        cols, rows = level.size
        s = self.sizes
        if (
            len(level.anchors) > n_a
            or len(level.boards) > n_b
            or cols > s["cols"]
            or rows > s["rows"]
            or max(board.layer for board in level.boards) >= s["layers"]
        ):
            raise ValueError(f"level {level.id!r} does not fit the twin's sizes {dict(s)}")
        width = s["cols"]
        cover = np.zeros((n_b, la), dtype=np.uint32)
        holes = np.zeros((n_b, la), dtype=np.uint32)
        points = np.zeros((n_b, lp), dtype=np.uint32)
        layer = np.full(n_b, -1, dtype=np.int32)
        for b, board in enumerate(level.boards):
            cover[b] = _np_lanes(_members(level.cover_masks[b]), la)
            holes[b] = _np_lanes(board.holes, la)
            seg, radius = level.segment(b), level.radius(b)
            covered = [
                y * width + x
                for y in range(rows)
                for x in range(cols)
                if G.covers(seg, radius, (x, y))
            ]
            points[b] = _np_lanes(covered, lp)
            layer[b] = board.layer
        holed = np.zeros((n_a, lb), dtype=np.uint32)
        pinners = np.zeros((n_a, lb), dtype=np.uint32)
        for a in range(len(level.anchors)):
            holed[a] = _np_lanes(_members(level.holed_boards[a]), lb)
            pinners[a] = _np_lanes(_members(level.pinners[a]), lb)
        point_anchor = np.full(n_p, n_a, dtype=np.int32)  # n_a: no anchor there
        for a, (x, y) in enumerate(level.anchors):
            point_anchor[y * width + x] = a
        lattice = np.zeros((s["rows"], width), dtype=bool)
        lattice[:rows, :cols] = True
        return {
            "cover": cover,
            "holes": holes,
            "points": points,
            "layer": layer,
            "holed": holed,
            "pinners": pinners,
            "screws": _np_lanes(level.screws, la),
            "anchors": _np_lanes(range(len(level.anchors)), la),
            "boards": _np_lanes(range(len(level.boards)), lb),
            "point_anchor": point_anchor,
            "lattice": lattice,
            "n_anchors": np.array(len(level.anchors), dtype=np.int32),
            "n_boards": np.array(len(level.boards), dtype=np.int32),
        }

    # -- the rules over lanes --------------------------------------------------------------
    def _available(self, lv: Mapping[str, Any], remaining: Any, occupied: Any) -> Any:
        """The available anchors: empty and covered by no remaining board."""
        covered = _union(_unpack(remaining, self.sizes["boards"]), lv["cover"])
        return lv["anchors"] & ~occupied & ~covered

    def _selectable(self, lv: Mapping[str, Any], state: Any, anchor: Any) -> Any:
        return _bit(state["occupied"], anchor) & ~_meets(lv["pinners"][anchor], state["remaining"])

    # -- the level screen ------------------------------------------------------------------
    def init(self, lv: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "remaining": jnp.asarray(lv["boards"]),
            "occupied": jnp.asarray(lv["screws"]),
            "ui": jnp.int32(-1),
        }

    def target(self, lv: Mapping[str, Any], state: Any, index: Any) -> dict[str, Any]:
        n_a, n_b, *_ = self._shape()
        index = jnp.asarray(index, jnp.int32)
        remaining, occupied, ui = state["remaining"], state["occupied"], state["ui"]
        exists = (index >= 0) & (index < lv["n_anchors"])
        a = jnp.clip(index, 0, n_a - 1)
        s = jnp.maximum(ui, 0)
        screw_here = _bit(occupied, a)
        # a click on a screw: deselect it, pick it (when nothing pins it) or nothing
        deselect = exists & screw_here & (ui == a)
        pick = exists & screw_here & (ui != a) & self._selectable(lv, state, a)
        # a click on an empty anchor with a screw selected: the move, if the rules accept it
        moved = (
            exists
            & ~screw_here
            & (ui >= 0)
            & self._selectable(lv, state, s)
            & _bit(self._available(lv, remaining, occupied), a)
        )
        one = jnp.uint32(1)
        lane = jnp.arange(occupied.shape[0], dtype=jnp.int32)
        src_bit = jnp.where(lane == s // LANE, one << (s % LANE).astype(jnp.uint32), 0)
        dst_bit = jnp.where(lane == a // LANE, one << (a % LANE).astype(jnp.uint32), 0)
        after = (occupied & ~src_bit) | dst_bit
        # the boards the screw held that no screw holds now fall out
        held = _unpack(lv["holed"][s] & remaining, n_b)
        falls = held & ~_meets(lv["holes"], after)
        fallen = _pack(falls, remaining.shape[0])
        return {
            "remaining": jnp.where(moved, remaining & ~fallen, remaining),
            "occupied": jnp.where(moved, after, occupied),
            "ui": jnp.where(pick, a, jnp.where(deselect | moved, -1, ui)),
        }

    def target_mask(self, lv: Mapping[str, Any], state: Any) -> Any:
        n_a = self.sizes["anchors"]
        remaining, occupied, ui = state["remaining"], state["occupied"], state["ui"]
        anchor = jnp.arange(n_a, dtype=jnp.int32)
        screws = _unpack(occupied, n_a)
        pickable = screws & ~_meets(lv["pinners"], remaining[None, :])
        moving = (ui >= 0) & self._selectable(lv, state, jnp.maximum(ui, 0))
        free = _unpack(self._available(lv, remaining, occupied), n_a)
        changes = jnp.where(screws, (anchor == ui) | pickable, moving & free)
        changes = changes & (anchor < lv["n_anchors"])
        k = min(changes.shape[0], self.n_targets)  # the action space's targets
        return jnp.zeros(self.n_targets, dtype=bool).at[:k].set(changes[:k])

    def restart(self, lv: Mapping[str, Any], state: Any) -> dict[str, Any]:
        return self.init(lv)

    def restartable(self, lv: Mapping[str, Any], state: Any) -> Any:
        return (
            jnp.any(state["remaining"] != lv["boards"])
            | jnp.any(state["occupied"] != lv["screws"])
            | (state["ui"] >= 0)
        )

    def planes(self, lv: Mapping[str, Any], state: Any, shape: tuple[int, int, int]) -> Any:
        n_a, n_b, n_p, *_ = self._shape()
        rows, cols = self.sizes["rows"], self.sizes["cols"]
        n_planes, h, w = shape
        layers = n_planes - 6
        if h < rows or w < cols or layers < self.sizes["layers"]:
            raise ValueError(
                f"planes: shape {shape} is smaller than the twin's {rows}x{cols} lattice "
                f"with {self.sizes['layers']} layers"
            )
        remaining, occupied, ui = state["remaining"], state["occupied"], state["ui"]
        on_board = _unpack(remaining, n_b)
        sets = jnp.stack(  # sets of anchors, one per plane
            [
                lv["anchors"],
                occupied,
                _union(on_board, lv["holes"]),
                self._available(lv, remaining, occupied),
            ]
        )
        # each lattice point's anchor's bit (none there: an anchor index no set holds)
        where = lv["point_anchor"]
        lane, bit = where // LANE, (where % LANE).astype(jnp.uint32)
        word = jnp.zeros((sets.shape[0], n_p), dtype=jnp.uint32)
        for i in range(sets.shape[1]):
            word = jnp.where(lane == i, sets[:, i, None], word)
        at_points = ((word >> bit) & jnp.uint32(1)) == 1
        in_layer = on_board[None, :] & (lv["layer"][None, :] == jnp.arange(layers)[:, None])
        covered = _unpack(_union(in_layer, lv["points"][None]), n_p)
        planes = jnp.concatenate(
            [
                lv["lattice"].reshape(1, n_p),
                at_points[:2],
                (where == ui)[None],  # selected
                at_points[2:],
                covered,
            ]
        )
        planes = planes.reshape(n_planes, rows, cols).astype(jnp.uint8)
        return jnp.pad(planes, ((0, 0), (0, h - rows), (0, w - cols)))

    def potential(self, lv: Mapping[str, Any], state: Any) -> Any:
        n_b = self.sizes["boards"]
        remaining, occupied = state["remaining"], state["occupied"]
        released = _unpack(remaining, n_b) & ~_meets(lv["holes"], occupied[None, :])
        left = jnp.sum(jax.lax.population_count(remaining), dtype=jnp.int32)
        total = lv["n_boards"].astype(jnp.float32)
        exited = total - left.astype(jnp.float32)
        return (exited + 0.5 * jnp.sum(released, dtype=jnp.int32).astype(jnp.float32)) / total

    def solved(self, lv: Mapping[str, Any], state: Any) -> Any:
        return jnp.all(state["remaining"] == 0)

    # -- back to Python --------------------------------------------------------------------
    def board_key(self, lv: Mapping[str, Any], state: Any) -> Any:
        """The solver's canonical key (``model.key``: the screws still under a remaining
        board, and the remaining boards) hashed (:func:`hash_lanes`)."""
        remaining = state["remaining"]
        covered = _union(_unpack(remaining, self.sizes["boards"]), lv["cover"])
        return hash_lanes(jnp.concatenate([state["occupied"] & covered, remaining]))

    def from_python(self, level: Level, state: State) -> dict[str, Any]:
        _, _, _, la, lb, _ = self._shape()
        return {
            "remaining": _np_lanes(_members(state.remaining), lb),
            "occupied": _np_lanes(_members(state.occupied), la),
            "ui": np.int32(-1),
        }

    def to_python(self, level: Level, state: Any) -> tuple[State, int | None]:
        ui = int(state["ui"])
        return (
            State(_int(state["remaining"]), _int(state["occupied"])),
            None if ui < 0 else ui,
        )


def _members(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _int(lanes: Any) -> int:
    return sum(int(v) << (LANE * i) for i, v in enumerate(np.asarray(lanes)))


TWIN = BoltUnscrewTwin()
