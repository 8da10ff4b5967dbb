"""Bolt Unscrew's view: the backplate, layered wooden boards and screws as widgets; clicks on
screws and anchors as moves.

The picture draws exactly the shapes the rules decide covering with (:mod:`.geometry`):
anchors and board holes are discs of radius ``ANCHOR_R``, bars capsules of half-width
``BAR_HALF`` between their end holes, pads discs of radius ``PAD_R`` -- all in pitch units of
the lattice. Board holes are transparent, so whatever lies below (an anchor, a screw, a lower
board) shows through them.

Every rule that decides a move is in the pixels:

* an anchor is drawn one of two ways: **free** (empty and touched by no remaining board: a
  dark hole with a green rim, the only places a screw can go) or **closed** (covered by a
  remaining board, even where the board has a hole there: a grey capped disc, so its visible
  part never looks like a hole);
* a screw is drawn **bright** when it can be picked and **dim** (dark face, no shine) when a
  board above holds it down; it lies just above the top board it passes through, so a board
  that pins it is drawn over it;
* each layer has its own wood tint, darker to lighter from the bottom layer up, and every
  board a dark outline and a drop shadow that deepens with its layer.

In the training style (``puzzlegym.screen.palette.TRAINING_STYLE``) the panel and the plate
are one flat near-white surface, a free anchor a near-black disc, a closed anchor's cap the
near-white of the plate, every board a flat face at its layer's training luma (48, 92, 164,
204 from the bottom layer up) with a near-black outline, a screw that can be picked white and
one held down mid-grey (128), both with a near-black rim; the selected screw is covered by a
near-black disc reaching 15 pixels beyond it all round, with a white centre.

Interaction state (``ui``): the selected screw's anchor, or None. Click a selectable screw to
select it (a ring shows the selection), click it again to deselect, click another selectable
screw to switch; with a screw selected, click an anchor to move it there.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from puzzlegym.base.actions import Click
from puzzlegym.game import SelectionUI, ViewOutcome
from puzzlegym.screen.grid import fit_unit
from puzzlegym.screen.input import Gesture
from puzzlegym.screen.palette import SCREEN_STYLE, TRAINING_DARK, TRAINING_LIGHT, TRAINING_STYLE
from puzzlegym.screen.panel import paint_panel, panel_rect
from puzzlegym.screen.render import Rect, Widget

from . import geometry as G
from . import rules
from .rules import Level, State, bits

PLATE_MARGIN = Fraction(6, 5)  # the plate reaches this many pitches beyond the outer anchors
SS = 3  # supersampling factor for smooth edges

PLATE = (171, 181, 192)
PLATE_EDGE = (120, 130, 142)
PLATE_LIGHT = (190, 199, 209)
ANCHOR = (30, 33, 40)  # a free anchor's hole
FREE_RIM = (0, 158, 115)  # the rim that marks a free anchor
CLOSED = (146, 156, 168)  # a closed (covered) anchor's cap
CLOSED_RIM = (128, 138, 150)
# wood per layer, bottom to top: (face, edge, grain); tints far apart in lightness and hue
WOODS = (
    ((112, 72, 42), (56, 34, 18), (98, 62, 36)),
    ((186, 106, 58), (98, 52, 24), (168, 94, 50)),
    ((226, 186, 112), (128, 92, 44), (208, 170, 100)),
    ((244, 230, 196), (150, 130, 92), (226, 212, 178)),
)
OUTLINE = (28, 24, 20)  # every board's outline
SCREW_FACE = (206, 210, 216)
SCREW_RIM = (112, 116, 124)
SCREW_LIGHT = (240, 242, 246)
SCREW_SLOT = (64, 68, 76)
HELD_FACE = (104, 108, 116)  # a screw held down by a board above it
HELD_RIM = (72, 76, 84)
HELD_SLOT = (56, 60, 66)
RING = (255, 190, 0)
RING_EDGE = (40, 40, 48)
# the training style's board faces per layer, bottom to top: the woods' hues at lumas 48, 92,
# 164 and 204
TRAINING_WOODS = ((67, 43, 25), (138, 78, 43), (196, 161, 97), (216, 204, 174))
TRAINING_HELD = (125, 128, 135)  # luma 128
TRAINING_SCREW = (255, 255, 255)

SELECT_HINT = "Now click a free hole"
NEED_SCREW = "Select a screw first"


@lru_cache(maxsize=256)
def layout(size: tuple[int, int], area: Rect) -> tuple[int, int, int]:
    """Pitch and the pixel of lattice point (0, 0) inside ``area`` (the shared size rule: the
    plate, :data:`PLATE_MARGIN` pitches beyond the outer anchors, fills the area)."""
    cols, rows = size
    pitch = fit_unit(area, cols - 1 + 2 * PLATE_MARGIN, rows - 1 + 2 * PLATE_MARGIN)
    ox = area.x + (area.w - (cols - 1) * pitch) // 2
    oy = area.y + (area.h - (rows - 1) * pitch) // 2
    return pitch, ox, oy


def plate_rect(level: Level, area: Rect) -> Rect:
    """The backplate's pixels."""
    pitch, ox, oy = layout(level.size, area)
    cols, rows = level.size
    m = int(PLATE_MARGIN * pitch)
    return Rect(ox - m, oy - m, (cols - 1) * pitch + 2 * m, (rows - 1) * pitch + 2 * m)


def anchor_xy(level: Level, a: int, area: Rect) -> tuple[int, int]:
    pitch, ox, oy = layout(level.size, area)
    x, y = level.anchors[a]
    return ox + x * pitch, oy + y * pitch


def hit_anchor(level: Level, area: Rect, px: int, py: int) -> int | None:
    """The anchor under pixel (px, py): within 0.45 pitch of its centre, nearest first."""
    pitch, ox, oy = layout(level.size, area)
    best, best_d = None, (0.45 * pitch) ** 2
    for a, (x, y) in enumerate(level.anchors):
        d = (ox + x * pitch - px) ** 2 + (oy + y * pitch - py) ** 2
        if d <= best_d:
            best, best_d = a, d
    return best


def _px(v, pitch: int) -> float:
    return float(v) * pitch


# ----------------------------------------------------------------------------- painters
def _paint_plate(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The shared panel and the steel backplate (the anchors are widgets of their own)."""
    panel, plate = key
    w, h = img.size
    paint_panel(draw, img.size, panel)
    big = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    x0, y0, x1, y1 = (v * SS for v in plate)
    d.rounded_rectangle(
        (x0 + 3 * SS, y0 + 4 * SS, x1 + 3 * SS, y1 + 4 * SS), radius=18 * SS, fill=(20, 16, 12, 60)
    )
    d.rounded_rectangle((x0, y0, x1, y1), radius=18 * SS, fill=(*PLATE_EDGE, 255))
    d.rounded_rectangle(
        (x0 + 3 * SS, y0 + 3 * SS, x1 - 3 * SS, y1 - 3 * SS), radius=15 * SS, fill=(*PLATE, 255)
    )
    d.rounded_rectangle(
        (x0 + 6 * SS, y0 + 6 * SS, x1 - 6 * SS, y0 + 14 * SS),
        radius=4 * SS,
        fill=(*PLATE_LIGHT, 255),
    )
    small = big.reduce(SS)
    img.paste(small, (0, 0), small)


def _paint_anchor(draw: ImageDraw.ImageDraw, img, key) -> None:
    """An anchor: free (dark hole, green rim) or closed (grey cap)."""
    r, free = key
    w, _ = img.size
    big = Image.new("RGBA", (w * SS, w * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    c = w * SS / 2
    rr = r * SS
    if free:
        rim = rr + 5 * SS
        d.ellipse((c - rim, c - rim, c + rim, c + rim), fill=(*FREE_RIM, 255))
        d.ellipse((c - rr, c - rr, c + rr, c + rr), fill=(*ANCHOR, 255))
    else:
        rim = rr + 2 * SS
        d.ellipse((c - rim, c - rim, c + rim, c + rim), fill=(*CLOSED_RIM, 255))
        d.ellipse((c - rr, c - rr, c + rr, c + rr), fill=(*CLOSED, 255))
    img.paste(big.reduce(SS))


def _capsule(d: ImageDraw.ImageDraw, p0, p1, r: float, fill) -> None:
    (x0, y0), (x1, y1) = p0, p1
    d.ellipse((x0 - r, y0 - r, x0 + r, y0 + r), fill=fill)
    d.ellipse((x1 - r, y1 - r, x1 + r, y1 + r), fill=fill)
    if (x0, y0) != (x1, y1):
        dx, dy = x1 - x0, y1 - y0
        n = (dx * dx + dy * dy) ** 0.5
        ux, uy = -dy / n * r, dx / n * r
        d.polygon(
            [(x0 + ux, y0 + uy), (x1 + ux, y1 + uy), (x1 - ux, y1 - uy), (x0 - ux, y0 - uy)],
            fill=fill,
        )


def _paint_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    """A board: drop shadow, dark outline, the layer's edge and wood face with grain,
    transparent holes."""
    kind, p0, p1, radius, holes, hole_r, layer, shadow = key
    face, edge, grain = WOODS[layer % len(WOODS)]
    w, h = img.size
    big = Image.new("RGBA", (w * SS, h * SS), (*edge, 0))
    d = ImageDraw.Draw(big)

    def s(p, off=0.0):
        return (p[0] + off) * SS, (p[1] + off) * SS

    _capsule(d, s(p0, shadow), s(p1, shadow), radius * SS, (20, 16, 12, 90))
    _capsule(d, s(p0), s(p1), radius * SS, (*OUTLINE, 255))
    _capsule(d, s(p0), s(p1), (radius - 2) * SS, (*edge, 255))
    _capsule(d, s(p0), s(p1), (radius - 5) * SS, (*face, 255))
    # grain: thin lines along a bar, rings on a pad
    if kind == "pad":
        for k in (0.35, 0.6):
            rr = radius * k * SS
            cx, cy = s(p0)
            d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), outline=(*grain, 255), width=SS)
    else:
        (x0, y0), (x1, y1) = s(p0), s(p1)
        dx, dy = x1 - x0, y1 - y0
        n = (dx * dx + dy * dy) ** 0.5
        nx, ny = -dy / n, dx / n
        for k in (-0.45, 0.1, 0.55):
            off = radius * k * SS
            d.line(
                (x0 + nx * off, y0 + ny * off, x1 + nx * off, y1 + ny * off),
                fill=(*grain, 255),
                width=SS,
            )
    _cut_holes(d, holes, hole_r, edge, edge)
    img.paste(big.reduce(SS))


def _cut_holes(d: ImageDraw.ImageDraw, holes, hole_r: float, rim, clear) -> None:
    """Every hole of a board, drawn ``SS`` x supersampled: a 3-pixel rim of ``rim`` round a
    transparent disc (``clear`` at alpha 0)."""
    for hx, hy in holes:
        cx, cy = hx * SS, hy * SS
        r = (hole_r + 3) * SS
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(*rim, 255))
        r = hole_r * SS
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(*clear, 0))


def _paint_screw(draw: ImageDraw.ImageDraw, img, key) -> None:
    """A screw head: bright when it can be picked, dim when a board above holds it down."""
    r, slot, held = key
    face, rim, cross = (
        (HELD_FACE, HELD_RIM, HELD_SLOT) if held else (SCREW_FACE, SCREW_RIM, SCREW_SLOT)
    )
    w, h = img.size
    big = Image.new("RGBA", (w * SS, h * SS), (*rim, 0))
    d = ImageDraw.Draw(big)
    c = w * SS / 2
    rr = r * SS
    d.ellipse(
        (c - rr + 2 * SS, c - rr + 3 * SS, c + rr + 2 * SS, c + rr + 3 * SS), fill=(0, 0, 0, 90)
    )
    d.ellipse((c - rr, c - rr, c + rr, c + rr), fill=(*rim, 255))
    ri = rr - 2.5 * SS
    d.ellipse((c - ri, c - ri, c + ri, c + ri), fill=(*face, 255))
    if not held:
        rl = ri * 0.55
        d.ellipse(
            (
                c - ri * 0.75 - rl * 0.2,
                c - ri * 0.75 - rl * 0.2,
                c - ri * 0.75 + rl * 1.6,
                c - ri * 0.75 + rl * 1.6,
            ),
            fill=(*SCREW_LIGHT, 255),
        )
    arm = ri * 0.62
    sw = max(2, round(slot)) * SS
    d.line((c - arm, c, c + arm, c), fill=(*cross, 255), width=sw)
    d.line((c, c - arm, c, c + arm), fill=(*cross, 255), width=sw)
    img.paste(big.reduce(SS))


def _paint_ring(draw: ImageDraw.ImageDraw, img, key) -> None:
    (r,) = key
    w, h = img.size
    big = Image.new("RGBA", (w * SS, h * SS), (*RING, 0))
    d = ImageDraw.Draw(big)
    c = w * SS / 2
    for rad, col, width in ((r + 3, RING_EDGE, 10), (r, RING, 6)):
        rr = rad * SS
        d.ellipse((c - rr, c - rr, c + rr, c + rr), outline=(*col, 255), width=width * SS)
    img.paste(big.reduce(SS))


def _paint_training_plate(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The training style: the panel and the plate are one flat surface."""
    panel, _plate = key
    paint_panel(draw, img.size, panel, TRAINING_STYLE)


def _paint_training_anchor(draw: ImageDraw.ImageDraw, img, key) -> None:
    """A free anchor is a near-black disc; a closed one's cap is the plate's near-white."""
    r, free = key
    w, _ = img.size
    c = (w - 1) / 2
    rr = r + (4 if free else 2)
    fill = TRAINING_DARK if free else TRAINING_LIGHT
    draw.ellipse((c - rr, c - rr, c + rr, c + rr), fill=(*fill, 255))


def _paint_training_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    """A board: a near-black outline round a flat face at its layer's training luma,
    transparent holes."""
    kind, p0, p1, radius, holes, hole_r, layer, _shadow = key
    face = TRAINING_WOODS[layer % len(TRAINING_WOODS)]
    w, h = img.size
    big = Image.new("RGBA", (w * SS, h * SS), (*face, 0))
    d = ImageDraw.Draw(big)

    def s(p):
        return p[0] * SS, p[1] * SS

    _capsule(d, s(p0), s(p1), radius * SS, (*TRAINING_DARK, 255))
    _capsule(d, s(p0), s(p1), (radius - 4) * SS, (*face, 255))
    _cut_holes(d, holes, hole_r, TRAINING_DARK, face)
    img.paste(big.reduce(SS))


def _paint_training_screw(draw: ImageDraw.ImageDraw, img, key) -> None:
    """A screw head: white when it can be picked, mid-grey when held down; a near-black rim."""
    r, _slot, held = key
    w, _ = img.size
    c = (w - 1) / 2
    draw.ellipse((c - r, c - r, c + r, c + r), fill=(*TRAINING_DARK, 255))
    ri = r - max(2, r / 4)
    fill = TRAINING_HELD if held else TRAINING_SCREW
    draw.ellipse((c - ri, c - ri, c + ri, c + ri), fill=(*fill, 255))


def _paint_training_ring(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The selection: a near-black disc over the screw as large as the ring's widget (the
    screw's radius and 15 pixels), with a white centre."""
    w, _ = img.size
    c = (w - 1) / 2
    draw.ellipse((0, 0, w - 1, w - 1), fill=(*TRAINING_DARK, 255))
    ri = w * 0.16
    draw.ellipse((c - ri, c - ri, c + ri, c + ri), fill=(*TRAINING_SCREW, 255))


# (plate, anchor, board, screw, ring) painters per style
_PAINTERS = {
    SCREEN_STYLE: (_paint_plate, _paint_anchor, _paint_board, _paint_screw, _paint_ring),
    TRAINING_STYLE: (
        _paint_training_plate,
        _paint_training_anchor,
        _paint_training_board,
        _paint_training_screw,
        _paint_training_ring,
    ),
}


# ----------------------------------------------------------------------------- static tables
@lru_cache(maxsize=64)
def _tables(level: Level, area: Rect, style: str = SCREEN_STYLE):
    """Per level and style: the plate widget, one widget per board, per anchor its free and
    closed widgets and its bright and held screw widgets, and the selection ring per
    anchor."""
    paint_plate, paint_anchor, paint_board, paint_screw, paint_ring = _PAINTERS[style]
    pitch, ox, oy = layout(level.size, area)
    plate = plate_rect(level, area)
    panel = panel_rect(plate)
    local = (plate.x - area.x, plate.y - area.y, plate.x1 - 1 - area.x, plate.y1 - 1 - area.y)
    plate_w = Widget(
        "bolt:plate",
        area,
        paint_plate,
        (Rect(panel.x - area.x, panel.y - area.y, panel.w, panel.h), local),
    )
    r_anchor = float(G.ANCHOR_R) * pitch
    boards = []
    for b, bd in enumerate(level.boards):
        radius = float(level.radius(b)) * pitch
        shadow = 3 + 2 * bd.layer
        pts = [anchor_xy(level, a, area) for a in bd.holes]
        p0, p1 = pts[0], pts[-1]
        pad = int(radius) + shadow + 3
        bx0, by0 = min(p0[0], p1[0]) - pad, min(p0[1], p1[1]) - pad
        bx1, by1 = max(p0[0], p1[0]) + pad, max(p0[1], p1[1]) + pad
        rect = Rect(bx0, by0, bx1 - bx0, by1 - by0)
        pts_local = tuple((x - bx0, y - by0) for x, y in pts)
        key = (bd.kind, pts_local[0], pts_local[-1], radius, pts_local, r_anchor, bd.layer, shadow)
        boards.append(Widget(f"bolt:board{b}", rect, paint_board, key, opaque=False))
    r_screw = float(G.SCREW_R) * pitch

    def around(a: int, half: int) -> Rect:
        x, y = anchor_xy(level, a, area)
        return Rect(x - half, y - half, 2 * half, 2 * half)

    n, ha, hs, hr = len(level.anchors), int(r_anchor) + 8, int(r_screw) + 7, int(r_screw) + 16
    anchors = tuple(
        tuple(
            Widget(f"bolt:anchor{a}", around(a, ha), paint_anchor, (r_anchor, free), opaque=False)
            for free in (False, True)
        )
        for a in range(n)
    )
    screws = tuple(
        tuple(
            Widget(
                f"bolt:screw{a}",
                around(a, hs),
                paint_screw,
                (r_screw, pitch * 0.06, held),
                opaque=False,
            )
            for held in (False, True)
        )
        for a in range(n)
    )
    rings = tuple(
        Widget("bolt:ring", around(a, hr), paint_ring, (r_screw + 7,), opaque=False)
        for a in range(n)
    )
    layers = sorted({bd.layer for bd in level.boards})
    return plate_w, tuple(boards), anchors, screws, rings, tuple(layers)


class BoltUnscrewView(SelectionUI):
    """Layout, drawing and input mapping (ui = the selected screw's anchor or None)."""

    selected_item = "anchor index"

    def panel(self, level: Level, area: Rect) -> Rect:
        return panel_rect(plate_rect(level, area))

    def widgets(
        self, level: Level, state: State, ui: Any, area: Rect, style: str = SCREEN_STYLE
    ) -> list[Widget]:
        plate, boards, anchors, screws, rings, layers = _tables(level, area, style)
        rem, occ = state.remaining, state.occupied
        holed = level.holed_boards
        free = rules.available(level, state)
        # each screw is drawn just above the top remaining board it passes through
        by_layer: dict[int, list[int]] = {}
        for a in bits(occ):
            top = -1
            for b in bits(holed[a] & rem):
                top = max(top, level.boards[b].layer)
            by_layer.setdefault(top, []).append(a)
        pinned = level.pinners

        def screw(a: int) -> Widget:
            return screws[a][bool(pinned[a] & rem)]

        out = [plate]
        out.extend(anchors[a][free >> a & 1] for a in range(len(anchors)) if not occ >> a & 1)
        out.extend(screw(a) for a in by_layer.get(-1, ()))
        for layer in layers:
            out.extend(boards[b] for b in bits(rem) if level.boards[b].layer == layer)
            out.extend(screw(a) for a in by_layer.get(layer, ()))
        if ui is not None and 0 <= ui < len(rings):
            out.append(rings[ui])
        return out

    def on_gesture(
        self, level: Level, state: State, ui: Any, gesture: Gesture, area: Rect
    ) -> ViewOutcome:
        if gesture.kind != "click":
            return ViewOutcome(ui=ui)
        a = hit_anchor(level, area, gesture.x, gesture.y)
        if a is None:
            return ViewOutcome(ui=ui)
        if state.occupied >> a & 1:
            if ui == a:
                return ViewOutcome(ui=None, feedback="")
            if not rules.selectable(level, state, a):
                return ViewOutcome(ui=ui, feedback=rules.COVERED_SCREW_REASON)
            return ViewOutcome(ui=a, feedback=SELECT_HINT)
        if ui is None:
            return ViewOutcome(ui=None, feedback=NEED_SCREW)
        return ViewOutcome(move=(ui, a), ui=ui)

    def board_targets(self, level: Level, state: State, ui: Any, area: Rect) -> list:
        """A click on every anchor, in anchor order (a screw sits in it, or it may take one)."""
        return [Click(*anchor_xy(level, a, area)) for a in range(len(level.anchors))]

    def target_changes(self, level: Level, state: State, ui: Any) -> list[bool]:
        """Whether each anchor's click would change the board or the selection: a screw's
        anchor when its screw is the selected one (a click deselects it) or can be picked (a
        click selects it); an empty anchor when a pickable screw is selected and the anchor
        is available (the rules accept the move there)."""
        occupied, remaining, pinners = state.occupied, state.remaining, level.pinners
        moving = ui is not None and rules.selectable(level, state, ui)
        free = rules.available(level, state) if moving else 0
        return [
            (a == ui or not pinners[a] & remaining) if occupied >> a & 1 else bool(free >> a & 1)
            for a in range(len(level.anchors))
        ]

    def actions_for_move(self, level: Level, state: State, ui: Any, move: Any, area: Rect) -> list:
        """Click the screw (unless it is already selected), then click the target anchor."""
        src, dst = move
        out = [] if ui == src else [Click(*anchor_xy(level, src, area))]
        out.append(Click(*anchor_xy(level, dst, area)))
        return out
