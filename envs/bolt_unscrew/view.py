"""Bolt Unscrew's view: the backplate, layered wooden boards and screws as widgets; clicks on
screws and anchors as moves.

The picture draws exactly the shapes the rules decide covering with (:mod:`.geometry`):
anchors and board holes are discs of radius ``ANCHOR_R``, bars capsules of half-width
``BAR_HALF`` between their end holes, pads discs of radius ``PAD_R`` -- all in pitch units of
the lattice. Board holes are transparent, so whatever lies below (an anchor, a screw, a lower
board) shows through them. Each layer has its own wood tone and a deeper drop shadow.

Interaction state (``ui``): the selected screw's anchor, or None. Click a selectable screw to
select it (a ring shows the selection), click it again to deselect, click another selectable
screw to switch; with a screw selected, click an anchor to move it there.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from puzzlegym.actions import Click
from puzzlegym.game import SelectionUI, ViewOutcome
from puzzlegym.screen.input import Gesture
from puzzlegym.screen.render import Rect, Widget

from . import geometry as G
from . import rules
from .rules import Level, State, bits

MAX_PITCH = 104
SS = 3  # supersampling factor for smooth edges

BOARD_BG = (244, 241, 234)
PLATE = (171, 181, 192)
PLATE_EDGE = (120, 130, 142)
PLATE_LIGHT = (190, 199, 209)
ANCHOR = (30, 33, 40)
ANCHOR_RIM = (112, 120, 132)
# wood per layer, bottom to top: (face, edge, grain)
WOODS = (
    ((150, 96, 54), (92, 56, 28), (136, 86, 46)),
    ((190, 132, 74), (118, 76, 38), (174, 118, 64)),
    ((214, 164, 102), (140, 96, 52), (198, 150, 90)),
    ((230, 190, 132), (156, 114, 66), (214, 174, 118)),
    ((200, 116, 70), (124, 66, 34), (184, 104, 60)),
    ((236, 206, 160), (166, 130, 84), (222, 192, 146)),
)
SCREW_FACE = (206, 210, 216)
SCREW_RIM = (112, 116, 124)
SCREW_LIGHT = (240, 242, 246)
SCREW_SLOT = (64, 68, 76)
RING = (255, 190, 0)
RING_EDGE = (40, 40, 48)

SELECT_HINT = "Now click a free hole"
NEED_SCREW = "Select a screw first"


@lru_cache(maxsize=256)
def layout(size: tuple[int, int], area: Rect) -> tuple[int, int, int]:
    """Pitch and the pixel of lattice point (0, 0) inside ``area``."""
    cols, rows = size
    # room for a pad (radius 1 pitch) and its shadow around the outer lattice points
    pitch = int(min(MAX_PITCH, area.w / (cols + 1.5), area.h / (rows + 1.5)))
    ox = area.x + (area.w - (cols - 1) * pitch) // 2
    oy = area.y + (area.h - (rows - 1) * pitch) // 2
    return pitch, ox, oy


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
    plate, anchors, r = key
    w, h = img.size
    big = Image.new("RGB", (w * SS, h * SS), BOARD_BG)
    d = ImageDraw.Draw(big)
    x0, y0, x1, y1 = (v * SS for v in plate)
    d.rounded_rectangle((x0 + 3 * SS, y0 + 4 * SS, x1 + 3 * SS, y1 + 4 * SS), radius=18 * SS, fill=(205, 200, 190))
    d.rounded_rectangle((x0, y0, x1, y1), radius=18 * SS, fill=PLATE_EDGE)
    d.rounded_rectangle((x0 + 3 * SS, y0 + 3 * SS, x1 - 3 * SS, y1 - 3 * SS), radius=15 * SS, fill=PLATE)
    d.rounded_rectangle((x0 + 6 * SS, y0 + 6 * SS, x1 - 6 * SS, y0 + 14 * SS), radius=4 * SS, fill=PLATE_LIGHT)
    for cx, cy in anchors:
        cx, cy = cx * SS, cy * SS
        rr = r * SS
        rim = rr + 3 * SS
        d.ellipse((cx - rim, cy - rim, cx + rim, cy + rim), fill=ANCHOR_RIM)
        d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=ANCHOR)
    img.paste(big.reduce(SS))


def _capsule(d: ImageDraw.ImageDraw, p0, p1, r: float, fill) -> None:
    (x0, y0), (x1, y1) = p0, p1
    d.ellipse((x0 - r, y0 - r, x0 + r, y0 + r), fill=fill)
    d.ellipse((x1 - r, y1 - r, x1 + r, y1 + r), fill=fill)
    if (x0, y0) != (x1, y1):
        dx, dy = x1 - x0, y1 - y0
        n = (dx * dx + dy * dy) ** 0.5
        ux, uy = -dy / n * r, dx / n * r
        d.polygon([(x0 + ux, y0 + uy), (x1 + ux, y1 + uy), (x1 - ux, y1 - uy), (x0 - ux, y0 - uy)], fill=fill)


def _paint_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    """A board: drop shadow, dark edge, wood face with grain, transparent holes."""
    kind, p0, p1, radius, holes, hole_r, layer, shadow = key
    face, edge, grain = WOODS[layer % len(WOODS)]
    w, h = img.size
    big = Image.new("RGBA", (w * SS, h * SS), (*edge, 0))
    d = ImageDraw.Draw(big)

    def s(p, off=0.0):
        return (p[0] + off) * SS, (p[1] + off) * SS

    _capsule(d, s(p0, shadow), s(p1, shadow), radius * SS, (20, 16, 12, 80))
    _capsule(d, s(p0), s(p1), radius * SS, (*edge, 255))
    _capsule(d, s(p0), s(p1), (radius - 3) * SS, (*face, 255))
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
            d.line((x0 + nx * off, y0 + ny * off, x1 + nx * off, y1 + ny * off), fill=(*grain, 255), width=SS)
    for hx, hy in holes:
        cx, cy = s((hx, hy))
        rim = (hole_r + 3) * SS
        d.ellipse((cx - rim, cy - rim, cx + rim, cy + rim), fill=(*edge, 255))
        rr = hole_r * SS
        d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=(*edge, 0))
    img.paste(big.reduce(SS))


def _paint_screw(draw: ImageDraw.ImageDraw, img, key) -> None:
    r, slot = key
    w, h = img.size
    big = Image.new("RGBA", (w * SS, h * SS), (*SCREW_RIM, 0))
    d = ImageDraw.Draw(big)
    c = w * SS / 2
    rr = r * SS
    d.ellipse((c - rr + 2 * SS, c - rr + 3 * SS, c + rr + 2 * SS, c + rr + 3 * SS), fill=(0, 0, 0, 90))
    d.ellipse((c - rr, c - rr, c + rr, c + rr), fill=(*SCREW_RIM, 255))
    ri = rr - 2.5 * SS
    d.ellipse((c - ri, c - ri, c + ri, c + ri), fill=(*SCREW_FACE, 255))
    rl = ri * 0.55
    d.ellipse((c - ri * 0.75 - rl * 0.2, c - ri * 0.75 - rl * 0.2, c - ri * 0.75 + rl * 1.6, c - ri * 0.75 + rl * 1.6), fill=(*SCREW_LIGHT, 255))
    arm = ri * 0.62
    sw = max(2, round(slot)) * SS
    d.line((c - arm, c, c + arm, c), fill=(*SCREW_SLOT, 255), width=sw)
    d.line((c, c - arm, c, c + arm), fill=(*SCREW_SLOT, 255), width=sw)
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


# ----------------------------------------------------------------------------- static tables
@lru_cache(maxsize=64)
def _tables(level: Level, area: Rect):
    """Per level: the plate widget, one widget per board, per-anchor screw widgets, the ring."""
    pitch, ox, oy = layout(level.size, area)
    cols, rows = level.size
    m = round(pitch * 1.18)
    plate = (
        max(0, ox - m - area.x), max(0, oy - m - area.y),
        min(area.w - 1, ox + (cols - 1) * pitch + m - area.x), min(area.h - 1, oy + (rows - 1) * pitch + m - area.y),
    )
    r_anchor = float(G.ANCHOR_R) * pitch
    anchors_local = tuple((ox + x * pitch - area.x, oy + y * pitch - area.y) for x, y in level.anchors)
    plate_w = Widget("bolt:plate", area, _paint_plate, (plate, anchors_local, r_anchor))
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
        local = tuple((x - bx0, y - by0) for x, y in pts)
        key = (bd.kind, local[0], local[-1], radius, local, r_anchor, bd.layer, shadow)
        boards.append(Widget(f"bolt:board{b}", rect, _paint_board, key, opaque=False))
    r_screw = float(G.SCREW_R) * pitch
    half = int(r_screw) + 7
    screws = []
    for a in range(len(level.anchors)):
        x, y = anchor_xy(level, a, area)
        screws.append(Widget(f"bolt:screw{a}", Rect(x - half, y - half, 2 * half, 2 * half), _paint_screw, (r_screw, pitch * 0.06), opaque=False))
    rh = int(r_screw) + 16
    rings = []
    for a in range(len(level.anchors)):
        x, y = anchor_xy(level, a, area)
        rings.append(Widget("bolt:ring", Rect(x - rh, y - rh, 2 * rh, 2 * rh), _paint_ring, (r_screw + 7,), opaque=False))
    layers = sorted({bd.layer for bd in level.boards})
    return plate_w, tuple(boards), tuple(screws), tuple(rings), tuple(layers)


class BoltUnscrewView(SelectionUI):
    """Layout, drawing and input mapping (ui = the selected screw's anchor or None)."""

    selected_item = "anchor index"

    def widgets(self, level: Level, state: State, ui: Any, area: Rect) -> list[Widget]:
        plate, boards, screws, rings, layers = _tables(level, area)
        rem, occ = state.remaining, state.occupied
        holed = level.holed_boards
        # each screw is drawn just above the top remaining board it passes through
        by_layer: dict[int, list[int]] = {}
        for a in bits(occ):
            top = -1
            for b in bits(holed[a] & rem):
                top = max(top, level.boards[b].layer)
            by_layer.setdefault(top, []).append(a)
        out = [plate]
        out.extend(screws[a] for a in by_layer.get(-1, ()))
        for layer in layers:
            out.extend(boards[b] for b in bits(rem) if level.boards[b].layer == layer)
            out.extend(screws[a] for a in by_layer.get(layer, ()))
        if ui is not None and 0 <= ui < len(rings):
            out.append(rings[ui])
        return out

    def on_gesture(self, level: Level, state: State, ui: Any, gesture: Gesture, area: Rect) -> ViewOutcome:
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

    def actions_for_move(self, level: Level, state: State, ui: Any, move: Any, area: Rect) -> list:
        """Click the screw (unless it is already selected), then click the target anchor."""
        src, dst = move
        out = [] if ui == src else [Click(*anchor_xy(level, src, area))]
        out.append(Click(*anchor_xy(level, dst, area)))
        return out
