"""Bolt Unscrew from the pixels: the lattice, the anchors one sees, the screws (pickable or
held), the boards (bars and pads, their layers, what they cover, which screws attach them)
and the selected screw.

What the frame shows (``docs/gallery.md``, Bolt Unscrew): a steel plate that reaches 1.2
pitches beyond the outermost lattice points; anchors at lattice points, *free* (a dark hole
``#1e2128`` in a green rim ``#009e73``) or *closed* (a grey cap ``#929ca8``, rim
``#808a96``); screws bright (face ``#ced2d8``) when they can be picked, dim (``#686c74``)
when a board above holds them down, each drawn just above the top board it passes through;
boards are the exact shapes of ``envs/bolt_unscrew/geometry.py`` (a bar is a capsule of
half-width 0.4 pitch between its end holes, a pad a disc of radius 1 pitch round its hole)
with a dark outline, a drop shadow and their layer's wood (four tints, bottom to top); holes
are transparent discs of the anchor's radius; the selected screw has a yellow ring.

How it is read:

* the lattice (pitch, the pixel of point (0, 0), columns and rows) is the one whose plate
  extent matches the plate's pixels and whose points show the most anchor and screw centres;
* every lattice point is classified by the exact colours around it: a screw (and whether
  its face is bright or dim), a free anchor, a closed anchor, or nothing visible;
* boards are fitted layer by layer to the pixels of that layer's wood: every pad (a lattice
  point) and bar (two lattice points) whose shape shows nothing that lies below it (the
  plate, an anchor, a lower layer's wood) outside the holes it may have, and whose ends show
  holes, is a candidate; candidates are taken greedily by how much of the layer's visible wood
  they explain (the shortest first among equals), never two overlapping in one layer, until
  all of the layer's wood is explained;
* a board has holes at its ends (a pad at its centre) and at every lattice point of its
  segment that shows a screw or a hole; a screw attaches the boards with a hole at it.

What the pixels cannot show, and so :meth:`public` leaves out (``docs/gallery.md`` lists it
too): an anchor entirely under boards without a hole there (it appears when they fall); a
board entirely under boards above it (a pad under a pad with the same centre: it falls with
it, so nothing a player decides depends on it); a screw whose head lies between boards above
it (e.g. between Easy 2's pads at (5, 1) and (5, 3): the sliver outside them lies within 0.03
pitch of their edges, under their antialiased rims and shadows, and at most 0.4% of the
head's pixels show a screw's colours), and so which board such a screw holds. Layers are
told apart by their four tints: a fifth layer would look like the first (no catalogue level
has one).

For planning, the reading completes what stays hidden the way the rules allow: a board
stays on the plate only while a screw holds it, so a board that shows no screw gets screws
in its hidden end holes (``PlateGeometry.assumed_screws``); an anchor may lie wherever
boards hide the plate entirely, so the reading puts one at each such lattice point
(``assumed_anchors``: the optimistic guess; the agent replans when a board falls and shows
what was under it). Planning on that reading and replanning after every move solves every
catalogue level in its optimal number of moves (``tests/test_vision_bolt_unscrew.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from puzzlegym.vision.pixels import ReadError, bbox, check_frame, click, code, pack
from puzzlegym.vision.reader import Reading, check_pair

from . import geometry as G
from . import rules

__all__ = ["READER", "BoltUnscrewReader", "PlateGeometry"]

GAME = "BoltUnscrew"
MARGIN = 1.2  # pitches the plate reaches beyond the outermost lattice points
# the looks, by exact colour
PLATE = (code((171, 181, 192)), code((120, 130, 142)), code((190, 199, 209)))
PLATE_EDGE = code((120, 130, 142))
HOLE = code((30, 33, 40))  # a free anchor's hole
FREE_RIM = code((0, 158, 115))
CLOSED = (code((146, 156, 168)), code((128, 138, 150)))
WOODS = (
    ((112, 72, 42), (56, 34, 18), (98, 62, 36)),
    ((186, 106, 58), (98, 52, 24), (168, 94, 50)),
    ((226, 186, 112), (128, 92, 44), (208, 170, 100)),
    ((244, 230, 196), (150, 130, 92), (226, 212, 178)),
)
OUTLINE = code((28, 24, 20))
BRIGHT = (code((206, 210, 216)), code((240, 242, 246)))  # a pickable screw's face and shine
DIM = (code((104, 108, 116)),)  # a held screw's face
SCREW = (
    (code((112, 116, 124)), code((64, 68, 76)), code((72, 76, 84)), code((56, 60, 66)))
    + BRIGHT
    + DIM
)
RING = (code((255, 190, 0)),)

# pixel classes
UNKNOWN, C_PLATE, C_FREE, C_CLOSED, C_SCREW, C_RING, C_OUTLINE = -1, 10, 11, 12, 13, 14, 15
N_LAYERS = len(WOODS)

# shown-or-hidden thresholds (the visible share of a disc, a board's visible area): real
# boards fall far from them on either side (docs/gallery.md)
SHOWN_SHARE = 0.1  # of an anchor's or a screw head's disc
SHOWN_AREA = 0.05  # pitch^2 of a board
PIXEL_SHARE = 0.02  # exact-colour pixels of the disc's area that show an anchor or a screw


def _class_table() -> tuple[np.ndarray, np.ndarray]:
    pairs = [(c, C_PLATE) for c in PLATE] + [(HOLE, C_FREE), (FREE_RIM, C_FREE)]
    pairs += (
        [(c, C_CLOSED) for c in CLOSED]
        + [(c, C_SCREW) for c in SCREW]
        + [(c, C_RING) for c in RING]
    )
    pairs += [(OUTLINE, C_OUTLINE)]
    pairs += [(code(rgb), layer) for layer, wood in enumerate(WOODS) for rgb in wood]
    pairs.sort()
    return np.array([c for c, _ in pairs], np.int64), np.array([k for _, k in pairs], np.int64)


_CODES, _CLASSES = _class_table()


def classes(codes: np.ndarray) -> np.ndarray:
    """The class of every pixel (a layer 0..3 for wood, C_* otherwise, UNKNOWN)."""
    i = np.searchsorted(_CODES, codes).clip(0, len(_CODES) - 1)
    return np.where(_CODES[i] == codes, _CLASSES[i], UNKNOWN)


@dataclass(frozen=True)
class PlateGeometry:
    """What the reader measured: the pixel of lattice point (0, 0), the pitch in pixels, the
    lattice's (columns, rows) and the selected screw's lattice point (None: no selection);
    and what the reading assumed where the pixels show nothing (lattice points): anchors
    wherever boards hide the plate entirely, screws in the hidden end holes of a board that
    shows none."""

    x0: int
    y0: int
    pitch: int
    size: tuple[int, int]
    selected: tuple[int, int] | None
    assumed_anchors: tuple[tuple[int, int], ...] = ()
    assumed_screws: tuple[tuple[int, int], ...] = ()

    def pixel(self, point: tuple[int, int]) -> tuple[int, int]:
        return self.x0 + point[0] * self.pitch, self.y0 + point[1] * self.pitch


class _Samples:
    """The pixel classes of a layer's fit on a grid every ``g`` pixels from (x0, y0): where
    the layer's wood shows and where something lies that is below it."""

    def __init__(self, grid: np.ndarray, x0: int, y0: int, g: int, layer: int) -> None:
        self.x0, self.y0, self.g = x0, y0, g
        self.wood = grid == layer
        self.below = (
            (grid == C_PLATE)
            | (grid == C_FREE)
            | (grid == C_CLOSED)
            | ((grid >= 0) & (grid < layer))
        )

    def explained(self, kind, a, b, r: float, p: int, ox: int, oy: int) -> np.ndarray | None:
        """The flat indices of the wood samples a pad or bar from lattice point ``a`` to ``b``
        (radius ``r`` px) explains, or None when its shape shows something that lies below it
        (outside the holes it may have; 3 px of antialiased rim are not judged)."""
        ax, ay, bx, by = ox + a[0] * p, oy + a[1] * p, ox + b[0] * p, oy + b[1] * p
        h, w = self.wood.shape
        holes = [a] if kind == "pad" else [a, *_between(a, b), b]
        hole_r2 = (float(G.ANCHOR_R) * p + 4) ** 2
        if kind == "bar":  # first the centre line alone: most wrong bars cross the plate there
            t = np.linspace(0.0, 1.0, int(math.dist((ax, ay), (bx, by)) / self.g) + 2)
            lx, ly = ax + t * (bx - ax), ay + t * (by - ay)
            away = np.ones(len(t), bool)
            for q in holes:
                away &= (lx - ox - q[0] * p) ** 2 + (ly - oy - q[1] * p) ** 2 > hole_r2
            li = np.clip(np.round((ly - self.y0) / self.g).astype(int), 0, h - 1)
            lj = np.clip(np.round((lx - self.x0) / self.g).astype(int), 0, w - 1)
            if np.any(self.below[li, lj] & away):
                return None
        j0 = max(0, int((min(ax, bx) - r - self.x0) // self.g))
        j1 = min(w, int((max(ax, bx) + r - self.x0) // self.g) + 2)
        i0 = max(0, int((min(ay, by) - r - self.y0) // self.g))
        i1 = min(h, int((max(ay, by) + r - self.y0) // self.g) + 2)
        if i0 >= i1 or j0 >= j1:
            return None
        ys = (self.y0 + self.g * np.arange(i0, i1, dtype=float))[:, None]
        xs = (self.x0 + self.g * np.arange(j0, j1, dtype=float))[None, :]
        d = _seg_dist(xs, ys, ax, ay, bx, by)
        core = d < r - 3
        for q in holes:
            qx, qy = ox + q[0] * p, oy + q[1] * p
            core &= (xs - qx) ** 2 + (ys - qy) ** 2 > hole_r2
        if np.any(core & self.below[i0:i1, j0:j1]):
            return None
        iy, ix = np.nonzero(self.wood[i0:i1, j0:j1] & (d < r + 1))
        return (iy + i0) * w + (ix + j0)


@dataclass(frozen=True)
class _Look:
    point: tuple[int, int]
    kind: str  # "free", "closed", "screw", "held"


class BoltUnscrewReader:
    """The Bolt Unscrew reader (see the module docstring)."""

    game = GAME

    def read(self, frame: np.ndarray, tier: str) -> Reading:
        frame = check_frame(frame, GAME)
        codes = pack(frame)
        box = bbox(codes == PLATE_EDGE)
        if box is None:
            raise ReadError(f"{GAME}: no steel plate on the screen (is it the level screen?)")
        px0, py0, px1, py1 = box
        cls = np.full(codes.shape, UNKNOWN, np.int64)
        cls[py0:py1, px0:px1] = classes(codes[py0:py1, px0:px1])
        p, ox, oy, cols, rows = self._lattice(cls, box)
        points = [(x, y) for y in range(rows) for x in range(cols)]
        looks = [
            look
            for pt in points
            if (look := self._look(cls, codes, ox + pt[0] * p, oy + pt[1] * p, p, pt))
        ]
        boards = []
        for layer in range(N_LAYERS - 1, -1, -1):
            boards += self._fit_layer(cls, layer, p, ox, oy, cols, rows, box)
        screws = {lk.point for lk in looks if lk.kind in ("screw", "held")}
        built = []
        for kind, layer, (a, b) in boards:
            if kind == "pad":
                holes = (a,)
            else:
                inner = [
                    q
                    for q in _between(a, b)
                    if q in screws or self._shows_hole(cls, ox + q[0] * p, oy + q[1] * p, p, layer)
                ]
                holes = (a, *inner, b)
            built.append((kind, layer, holes))
        shown = {lk.point for lk in looks}
        level, state = _build(
            tier, (cols, rows), shown | {q for _, _, hs in built for q in hs}, built, screws
        )
        # what the rules imply where the pixels show nothing: a board stays only while a screw
        # holds it, so a board showing none has screws in its hidden end holes; and an anchor
        # may lie wherever boards hide the plate entirely
        assumed_screws = set()
        for b, bd in enumerate(level.boards):
            if level.hole_masks[b] & state.occupied:
                continue
            ends = {level.anchors[bd.holes[0]], level.anchors[bd.holes[-1]]}
            hidden = {
                q
                for q in ends
                if not _screw_shown(level, state, level.anchors.index(q), assume=True)
            }
            if not hidden:
                raise ReadError(
                    f"{GAME}: a {bd.kind} of layer {bd.layer} at {sorted(ends)} shows no screw "
                    "and no hidden hole"
                )
            assumed_screws |= hidden
        if assumed_screws:
            level, state = _build(
                tier, (cols, rows), set(level.anchors), built, screws | assumed_screws
            )
        everything = list(range(len(level.boards)))
        assumed_anchors = {
            (x, y)
            for y in range(rows)
            for x in range(cols)
            if (x, y) not in set(level.anchors)
            and _visible(level, _disc(float(G.ANCHOR_R)) + (x, y), everything) < SHOWN_SHARE
        }
        if assumed_anchors:
            level, state = _build(
                tier,
                (cols, rows),
                set(level.anchors) | assumed_anchors,
                built,
                screws | assumed_screws,
            )
        selected = self._selected(codes, p, ox, oy, screws)
        geometry = PlateGeometry(
            ox, oy, p, (cols, rows), selected, _sorted(assumed_anchors), _sorted(assumed_screws)
        )
        return Reading(level, state, geometry)

    # -- the lattice ----------------------------------------------------------------------
    def _lattice(self, cls: np.ndarray, box) -> tuple[int, int, int, int, int]:
        px0, py0, px1, py1 = box
        w, h = px1 - px0 + 1, py1 - py0 + 1  # the exact-colour box misses the antialiased rim
        best = None
        for cols in range(1, rules.MAX_SIZE + 1):
            for p in range(max(8, int(w / (cols + 1.4)) - 2), int(w / (cols + 1.4)) + 3):
                if abs((cols - 1) * p + 2 * int(MARGIN * p) - w) > 2:
                    continue
                rows = round((h - 2 * int(MARGIN * p)) / p) + 1
                if (
                    not 1 <= rows <= rules.MAX_SIZE
                    or abs((rows - 1) * p + 2 * int(MARGIN * p) - h) > 2
                ):
                    continue
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        ox, oy = px0 - 1 + int(MARGIN * p) + dx, py0 - 1 + int(MARGIN * p) + dy
                        xs = ox + p * np.arange(cols)
                        ys = oy + p * np.arange(rows)
                        if xs[-1] >= cls.shape[1] or ys[-1] >= cls.shape[0]:
                            continue
                        centre = cls[np.ix_(ys, xs)]
                        hits = int(np.isin(centre, (C_FREE, C_CLOSED, C_SCREW)).sum())
                        if best is None or hits > best[0]:
                            best = (hits, p, ox, oy, cols, rows)
        if best is None or best[0] == 0:
            raise ReadError(f"{GAME}: the plate at {box} fits no lattice of anchors")
        return best[1:]

    # -- what each lattice point shows -----------------------------------------------------
    def _look(self, cls, codes, x: int, y: int, p: int, point) -> _Look | None:
        r = int(G.SCREW_R * p) + 6
        patch = cls[y - r : y + r + 1, x - r : x + r + 1]
        cpatch = codes[y - r : y + r + 1, x - r : x + r + 1]
        d = _radii(r)
        rs, ra = float(G.SCREW_R) * p, float(G.ANCHOR_R) * p
        screw = np.count_nonzero((patch == C_SCREW) & (d <= rs))
        if screw >= PIXEL_SHARE * math.pi * rs * rs:
            inside = d <= rs
            bright = np.count_nonzero(np.isin(cpatch, BRIGHT) & inside)
            dim = np.count_nonzero(np.isin(cpatch, DIM) & inside)
            if bright and dim or not (bright or dim):
                raise ReadError(
                    f"{GAME}: the screw at ({x}, {y}) is neither plainly bright nor plainly dim"
                )
            return _Look(point, "screw" if bright else "held")
        free = np.count_nonzero((patch == C_FREE) & (d <= ra + 5))
        if free >= PIXEL_SHARE * math.pi * (ra + 5) ** 2:
            return _Look(point, "free")
        closed = np.count_nonzero((patch == C_CLOSED) & (d <= ra + 2))
        if closed >= PIXEL_SHARE * math.pi * (ra + 2) ** 2:
            return _Look(point, "closed")
        return None

    def _shows_hole(self, cls, x: int, y: int, p: int, layer: int) -> bool:
        """Whether a board of ``layer`` over lattice pixel (x, y) shows a hole there: inside
        the hole's radius none of its wood, and something of what lies below."""
        r = int(0.12 * p)
        patch = cls[y - r : y + r + 1, x - r : x + r + 1][_radii(r) <= r]
        if np.any(patch == layer):
            return False
        below = (patch == C_CLOSED) | (patch == C_SCREW) | ((patch >= 0) & (patch < layer))
        return bool(np.any(below))

    def _selected(self, codes, p, ox, oy, screws) -> tuple[int, int] | None:
        ys, xs = np.nonzero(np.isin(codes, RING))
        if not len(xs):
            return None
        cx, cy = (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2
        point = (round((cx - ox) / p), round((cy - oy) / p))
        if point not in screws or (xs.max() - xs.min()) > 2 * (float(G.SCREW_R) * p + 24):
            raise ReadError(
                f"{GAME}: a selection ring at ({cx:.0f}, {cy:.0f}) is not round one screw"
            )
        return point

    # -- boards ---------------------------------------------------------------------------
    def _fit_layer(self, cls, layer, p, ox, oy, cols, rows, box) -> list[tuple[str, int, tuple]]:
        """The boards of one layer: (kind, layer, (end, end))."""
        g = max(2, p // 12)
        px0, py0, px1, py1 = box
        samples = _Samples(cls[py0:py1:g, px0:px1:g], px0, py0, g, layer)
        if not samples.wood.any():
            return []
        points = [(x, y) for y in range(rows) for x in range(cols)]
        ends = [
            q
            for q in points
            if self._hole_or_hidden(cls, ox + q[0] * p, oy + q[1] * p, p, layer)
            and self._end_plausible(cls, ox + q[0] * p, oy + q[1] * p, p, layer)
        ]
        cands = [("pad", (q, q), G.PAD_R) for q in ends]
        cands += [("bar", (a, b), G.BAR_HALF) for i, a in enumerate(ends) for b in ends[i + 1 :]]
        scored = []
        for kind, (a, b), radius in cands:
            expl = samples.explained(kind, a, b, float(radius) * p, p, ox, oy)
            if expl is not None and len(expl):
                scored.append((kind, (a, b), radius, expl))
        chosen: list[tuple[str, tuple, Any, np.ndarray]] = []
        left = samples.wood.ravel().copy()
        while left.any():
            best = None
            for kind, seg, radius, expl in scored:
                n = int(np.count_nonzero(left[expl]))
                if not n:
                    continue
                key = (n, -math.dist(*seg))
                if best is not None and key <= best[0]:
                    continue
                if any(G.shapes_intersect(seg, radius, c[1], c[2]) for c in chosen):
                    continue
                best = (key, (kind, seg, radius, expl))
            if best is None:
                iy, ix = np.divmod(np.flatnonzero(left), samples.wood.shape[1])
                raise ReadError(
                    f"{GAME}: layer {layer}'s wood near ({px0 + g * ix.mean():.0f}, "
                    f"{py0 + g * iy.mean():.0f}) fits no pad or bar ({len(ix)} samples)"
                )
            chosen.append(best[1])
            left[best[1][3]] = False
        return [(kind, layer, seg) for kind, seg, _, _ in chosen]

    def _hole_or_hidden(self, cls, x, y, p, layer) -> bool:
        """No wood of ``layer`` within a hole's radius of the point: a board of that layer
        may end (or sit) there."""
        r = int(0.12 * p)
        patch = cls[y - r : y + r + 1, x - r : x + r + 1][_radii(r) <= r]
        return not np.any(patch == layer)

    def _end_plausible(self, cls, x, y, p, layer) -> bool:
        """Nothing that lies below a board of ``layer`` within a bar's half-width of the point
        (outside the hole)."""
        r = int(float(G.BAR_HALF) * p) - 3
        d = _radii(r)
        patch = cls[y - r : y + r + 1, x - r : x + r + 1]
        ring = (d <= r) & (d > float(G.ANCHOR_R) * p + 4)
        sel = patch[ring]
        return not np.any(
            (sel == C_PLATE) | (sel == C_FREE) | (sel == C_CLOSED) | ((sel >= 0) & (sel < layer))
        )

    # -- acting ---------------------------------------------------------------------------
    def actions(self, reading: Reading, move: Any) -> list[dict]:
        """Click the screw (unless it is the selected one), then the target anchor."""
        level, geo = reading.level, reading.geometry
        n = len(level.anchors)
        check_pair(move, n, "(source anchor, target anchor)")
        src, dst = (level.anchors[v] for v in move)
        out = [] if geo.selected == src else [click(*geo.pixel(src))]
        out.append(click(*geo.pixel(dst)))
        return out

    def public(self, level: Any, state: Any) -> Any:
        """What the pixels show: ``(size, anchors, boards)``.

        ``anchors`` are the shown lattice points with their look ("free"; "closed"; "screw",
        pickable; "held", pinned by a board above): every free anchor; a closed one when at
        least 10% of its disc lies more than 0.02 pitch outside every board without a hole
        there; a screw when at least 10% of its head lies that far outside every board above
        the top board it passes through. ``boards`` are the remaining boards with at least
        0.05 pitch^2 of their own wood that far outside the boards above them, each as
        (layer, kind, end points, the shown screws in its holes). Left out because the pixels
        cannot show them: hidden anchors, hidden boards (a pad under a same-centred pad),
        hidden screws and which boards they hold. Catalogue boards fall far from these
        thresholds either way (shown anchors at least 30% visible, hidden ones 0%; shown screws
        at least 20%, hidden ones at most 1.5%).
        """
        return public_view(level, state)


# ----------------------------------------------------------------------------- geometry
def _between(a, b):
    """The lattice points strictly between ``a`` and ``b`` on their segment, in order."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    k = math.gcd(dx, dy)
    return [(a[0] + dx // k * i, a[1] + dy // k * i) for i in range(1, k)]


@lru_cache(maxsize=64)
def _radii(r: int) -> np.ndarray:
    y, x = np.mgrid[-r : r + 1, -r : r + 1]
    return np.sqrt(x * x + y * y)


def _seg_dist(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    dd = dx * dx + dy * dy
    if dd == 0:
        return np.hypot(px - ax, py - ay)
    t = np.clip(((px - ax) * dx + (py - ay) * dy) / dd, 0.0, 1.0)
    return np.hypot(px - (ax + t * dx), py - (ay + t * dy))


STEP = 0.04  # pitch: the sampling step of the visibility measure
# pitch: a sliver thinner than this along a board's edge does not count as visible (the
# board's antialiased rim and drop shadow cover it in the pixels)
EDGE_MARGIN = 0.02


@lru_cache(maxsize=8)
def _disc(radius: float) -> np.ndarray:
    n = int(radius / STEP) + 1
    g = np.arange(-n, n + 1) * STEP
    x, y = np.meshgrid(g, g)
    keep = x * x + y * y < radius * radius
    return np.stack([x[keep], y[keep]], axis=1)


def _shape_samples(level, b: int) -> np.ndarray:
    (x0, y0), (x1, y1) = level.segment(b)
    r = float(level.radius(b))
    xs = np.arange(min(x0, x1) - r, max(x0, x1) + r + 1e-9, STEP)
    ys = np.arange(min(y0, y1) - r, max(y0, y1) + r + 1e-9, STEP)
    x, y = np.meshgrid(xs, ys)
    pts = np.stack([x.ravel(), y.ravel()], axis=1)
    pts = pts[_seg_dist(pts[:, 0], pts[:, 1], x0, y0, x1, y1) < r]
    return _outside_holes(level, b, pts)


def _outside_holes(level, b: int, pts: np.ndarray) -> np.ndarray:
    keep = np.ones(len(pts), bool)
    ra = float(G.ANCHOR_R)
    for a in level.boards[b].holes:
        hx, hy = level.anchors[a]
        keep &= (pts[:, 0] - hx) ** 2 + (pts[:, 1] - hy) ** 2 >= ra * ra
    return pts[keep]


def _hides(level, b: int, pts: np.ndarray) -> np.ndarray:
    """Which of ``pts`` board ``b``'s wood hides: inside its shape or within
    :data:`EDGE_MARGIN` of it, and not that far inside one of its holes."""
    (x0, y0), (x1, y1) = level.segment(b)
    inside = _seg_dist(pts[:, 0], pts[:, 1], x0, y0, x1, y1) < float(level.radius(b)) + EDGE_MARGIN
    ra = float(G.ANCHOR_R) - EDGE_MARGIN
    for a in level.boards[b].holes:
        hx, hy = level.anchors[a]
        inside &= (pts[:, 0] - hx) ** 2 + (pts[:, 1] - hy) ** 2 >= ra * ra
    return inside


def _visible(level, pts: np.ndarray, occluders) -> float:
    """The share of ``pts`` that no board of ``occluders`` hides."""
    if not len(pts):
        return 0.0
    seen = np.ones(len(pts), bool)
    for c in occluders:
        seen &= ~_hides(level, c, pts)
    return float(seen.mean())


def _sorted(points) -> tuple:
    return tuple(sorted(points, key=lambda q: (q[1], q[0])))


def _build(tier: str, size, anchor_points, built, screws) -> tuple[Any, Any]:
    """A rules Level and its settled State from lattice points: every anchor, the boards as
    (kind, layer, hole points), the screws."""
    points = _sorted(anchor_points)
    index = {q: i for i, q in enumerate(points)}
    boards = tuple(
        rules.Board(kind, layer, tuple(index[q] for q in hs)) for kind, layer, hs in built
    )
    level = rules.Level("read", tier, size, points, boards, tuple(sorted(index[q] for q in screws)))
    return level, rules.State(level.all_boards, level.screw_mask)


def _screw_shown(level, state, a: int, assume: bool = False) -> bool:
    """Whether a screw in anchor ``a`` shows (at least :data:`SHOWN_SHARE` of its head):
    it lies just above the top remaining board with a hole there; boards above it hide it.
    ``assume``: judge a screw that is not (yet) in the state as if it were."""
    layers = [level.boards[b].layer for b in rules.bits(level.holed_boards[a] & state.remaining)]
    top = max(layers, default=-1)
    above = [b for b in rules.bits(state.remaining) if level.boards[b].layer > top]
    return _visible(level, _disc(float(G.SCREW_R)) + level.anchors[a], above) >= SHOWN_SHARE


def public_view(level, state) -> tuple:
    """The public projection of ``(level, state)`` (see :meth:`BoltUnscrewReader.public`)."""
    remaining = list(rules.bits(state.remaining))
    layer = {b: level.boards[b].layer for b in remaining}
    looks = []
    shown_screws = set()
    free = rules.available(level, state)
    for a, point in enumerate(level.anchors):
        if state.occupied >> a & 1:
            if _screw_shown(level, state, a):
                looks.append((point, "screw" if rules.selectable(level, state, a) else "held"))
                shown_screws.add(a)
        elif free >> a & 1:
            looks.append((point, "free"))
        else:
            over = [b for b in remaining if a not in level.boards[b].holes]
            if _visible(level, _disc(float(G.ANCHOR_R)) + point, over) >= SHOWN_SHARE:
                looks.append((point, "closed"))
    boards = []
    for b in remaining:
        pts = _shape_samples(level, b)
        above = [c for c in remaining if layer[c] > layer[b]]
        area = _visible(level, pts, above) * len(pts) * STEP * STEP
        if area < SHOWN_AREA:
            continue
        bd = level.boards[b]
        ends = tuple(sorted({level.anchors[bd.holes[0]], level.anchors[bd.holes[-1]]}))
        held_by = tuple(sorted(level.anchors[a] for a in bd.holes if a in shown_screws))
        boards.append((bd.layer, bd.kind, ends, held_by))
    return (tuple(level.size), tuple(sorted(looks)), tuple(sorted(boards)))


READER = BoltUnscrewReader()
