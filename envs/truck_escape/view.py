"""Truck Escape's view: the parking lot and its trucks as widgets; a click on a truck requests
its departure.

The lot is a dark grid of parking cells with a light curb around it (the board's edge, where
trucks drive out). Each truck is drawn from above inside its cells: a cargo box, a cab at the
front with a windshield across its nose, and a white arrow pointing where it will drive. Every
truck is painted facing right and turned by exact quarter turns, so all four headings are the
same picture. Neighbouring trucks get different colours (a greedy colouring of the trucks that
touch), and the heading never depends on colour.

In the training style (``puzzlegym.screen.palette.TRAINING_STYLE``) the lot is flat
near-white inside a near-black curb, and a truck is a flat block of its colour's training twin
with a dark outline and a large triangle in its front cell, near-black or near-white
(whichever stands out on the body), base at the cell's back and tip at the truck's nose: the
heading is the side the grey level falls towards even when a one-cell truck is a few pixels
wide.

A click anywhere on a truck's cells asks it to leave; a blocked truck stays and the rules'
feedback line says so. Clicks on empty cells or off the lot, drags and keys do nothing. The
view has no interaction state (``ui`` is None).

On the human page a request moves (:meth:`TruckEscapeView.motion_frames`): a truck that
leaves drives to the lot's edge; a blocked one rolls up to its blocker and back, as the rules
say. Observations show the settled board only.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from puzzlegym.actions import Click
from puzzlegym.game import StatelessUI, ViewOutcome
from puzzlegym.screen.grid import GridLayout
from puzzlegym.screen.input import Gesture
from puzzlegym.screen.palette import (
    SCREEN_STYLE,
    TRAINING_DARK,
    TRAINING_LIGHT,
    TRAINING_STYLE,
    colour,
)
from puzzlegym.screen.panel import paint_panel, panel_rect
from puzzlegym.screen.render import Rect, Widget

from .rules import DELTAS, Level, State

CURB = 18  # width of the curb around the lot, in pixels
MOTION_STEPS = 5  # frames of a blocked truck's roll to its blocker (and as many back)
SS = 3  # supersampling factor for smooth truck outlines

CURB_FILL = (200, 196, 186)
CURB_EDGE = (150, 146, 138)
LOT = (64, 70, 82)
CELL = (92, 99, 113)
CELL_LINE = (76, 82, 95)
WINDSHIELD = (196, 228, 246)
WINDSHIELD_EDGE = (40, 48, 60)
ARROW = (255, 255, 255)
WHEEL = (28, 30, 36)
OUTLINE = (30, 32, 40)

# (name, body RGB) from the shared palette: hues far enough apart to tell neighbours apart,
# and none too dark for the dark lot
PALETTE: tuple[tuple[str, tuple[int, int, int]], ...] = tuple(
    (name, colour(name).rgb)
    for name in (
        "red",
        "orange",
        "yellow",
        "green",
        "sky blue",
        "blue",
        "purple",
        "pink",
        "grey",
        "white",
    )
)

_TURN = {
    "right": None,
    "up": Image.Transpose.ROTATE_90,
    "left": Image.Transpose.ROTATE_180,
    "down": Image.Transpose.ROTATE_270,
}


def layout(level: Level, area: Rect) -> GridLayout:
    """The lot's cells inside ``area`` (room left for the curb; the shared size rule)."""
    return GridLayout.board(area, level.rows, level.cols, CURB, CURB)


def cell_rect(level: Level, row: int, col: int, area: Rect) -> Rect:
    """The pixel rectangle of cell ``(row, col)``."""
    return layout(level, area).cell_rect(row, col)


def cell_at(level: Level, area: Rect, x: int, y: int) -> tuple[int, int] | None:
    """The cell under pixel ``(x, y)``, or None off the grid."""
    return layout(level, area).cell_at(x, y)


def truck_rect(level: Level, index: int, area: Rect) -> Rect:
    """The pixel rectangle covering every cell of truck ``index``."""
    cells = level.trucks[index].cells
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    top, left = (
        cell_rect(level, min(rows), min(cols), area),
        cell_rect(level, max(rows), max(cols), area),
    )
    return Rect(top.x, top.y, left.x1 - top.x, left.y1 - top.y)


def truck_at(level: Level, state: State, area: Rect, x: int, y: int) -> int | None:
    """The truck still on the board whose cells contain pixel ``(x, y)``, or None."""
    cell = cell_at(level, area, x, y)
    if cell is None:
        return None
    i = level.occupant.get(cell)
    if i is None or not state.remaining >> i & 1:
        return None
    return i


def click_point(level: Level, index: int, area: Rect) -> tuple[int, int]:
    """Where a click requests truck ``index``'s departure: the centre of its cab cell."""
    truck = level.trucks[index]
    return cell_rect(level, truck.row, truck.col, area).center


@lru_cache(maxsize=256)
def truck_colours(level: Level) -> tuple[int, ...]:
    """A palette index per truck; trucks with side-by-side cells never share one."""
    touching: list[set[int]] = [set() for _ in level.trucks]
    occupant = level.occupant
    for (r, c), i in occupant.items():
        for dr, dc in DELTAS.values():
            j = occupant.get((r + dr, c + dc))
            if j is not None and j != i:
                touching[i].add(j)
    n_colours = len(PALETTE)
    colours: list[int] = []
    for i in range(len(level.trucks)):
        used = {colours[j] for j in touching[i] if j < i}
        start = (i * 3) % n_colours
        colours.append(
            next(
                (start + k) % n_colours
                for k in range(n_colours)
                if (start + k) % n_colours not in used
            )
        )
    return tuple(colours)


# ----------------------------------------------------------------------------- painters


def _paint_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The curb, the lot and its grid of parking cells."""
    rows, cols, cell, ox, oy = key
    gw, gh = cols * cell, rows * cell
    paint_panel(
        draw, img.size, panel_rect(Rect(ox - CURB, oy - CURB, gw + 2 * CURB, gh + 2 * CURB))
    )
    draw.rounded_rectangle(
        (ox - CURB, oy - CURB, ox + gw + CURB - 1, oy + gh + CURB - 1),
        radius=14,
        fill=CURB_FILL,
        outline=CURB_EDGE,
        width=2,
    )
    draw.rectangle((ox - 4, oy - 4, ox + gw + 3, oy + gh + 3), fill=LOT)
    for r in range(rows):
        for c in range(cols):
            x, y = ox + c * cell, oy + r * cell
            draw.rectangle((x, y, x + cell - 1, y + cell - 1), fill=CELL_LINE)
            draw.rectangle((x + 2, y + 2, x + cell - 3, y + cell - 3), fill=CELL)


def _darker(rgb: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    return tuple(int(v * f) for v in rgb)  # type: ignore[return-value]


def _paint_truck(draw: ImageDraw.ImageDraw, img, key) -> None:
    """A truck seen from above, painted facing right at ``SS`` x scale, then turned."""
    facing, length, cell, colour = key
    body = PALETTE[colour][1]
    cab_fill = _darker(body, 0.78)
    u = cell * SS  # one cell, supersampled
    w, h = length * u, u
    big = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    m = round(0.09 * u)  # margin inside the cells
    line = max(SS, round(0.03 * u))
    # wheels peeking out under the sides
    wheel_w, wheel_h = round(0.2 * u), round(0.07 * u)
    axles = [w - m - round(0.38 * u)]
    if length > 1:
        axles += [m + round(0.3 * u)]
    if length > 2:
        axles += [m + round(0.3 * u) + u]
    for ax in axles:
        for y0 in (m - wheel_h // 2, h - m - wheel_h + wheel_h // 2):
            d.rounded_rectangle(
                (ax - wheel_w // 2, y0, ax + wheel_w // 2, y0 + wheel_h),
                radius=wheel_h // 2,
                fill=(*WHEEL, 255),
            )
    # the cab: the front cell (a little shorter on a 1-cell truck, which is all cab)
    cab_len = round(0.78 * u) if length > 1 else w - 2 * m
    cab = (w - m - cab_len, m + round(0.05 * u), w - m, h - m - round(0.05 * u))
    if length > 1:
        cargo = (m, m, cab[0] - round(0.06 * u), h - m)
        hitch_y = h // 2
        d.rectangle(
            (cargo[2] - line, hitch_y - round(0.08 * u), cab[0] + line, hitch_y + round(0.08 * u)),
            fill=(*OUTLINE, 255),
        )
        d.rounded_rectangle(
            cargo, radius=round(0.1 * u), fill=(*body, 255), outline=(*OUTLINE, 255), width=line
        )
        # ribs across the cargo box
        for k in range(1, 2 * length - 1):
            x = cargo[0] + (cargo[2] - cargo[0]) * k // (2 * length - 1)
            d.line(
                (x, cargo[1] + 2 * line, x, cargo[3] - 2 * line),
                fill=(*_darker(body, 0.88), 255),
                width=max(1, line // 2),
            )
        arrow_box = (cargo[0], cargo[1], cargo[2], cargo[3])
    d.rounded_rectangle(
        cab, radius=round(0.16 * u), fill=(*cab_fill, 255), outline=(*OUTLINE, 255), width=line
    )
    # windshield across the nose of the cab
    ws = (
        cab[2] - round(0.26 * u),
        cab[1] + round(0.1 * u),
        cab[2] - round(0.09 * u),
        cab[3] - round(0.1 * u),
    )
    d.rounded_rectangle(
        ws,
        radius=round(0.05 * u),
        fill=(*WINDSHIELD, 255),
        outline=(*WINDSHIELD_EDGE, 255),
        width=max(1, line // 2),
    )
    if length == 1:
        arrow_box = (cab[0] + round(0.06 * u), cab[1], ws[0] - round(0.04 * u), cab[3])
    # the arrow: where the truck will drive
    x0, y0, x1, y1 = arrow_box
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    size = min(x1 - x0, y1 - y0)
    half = round(0.34 * size)
    tip, back = cx + half, cx - half
    shaft = round(0.12 * size)
    head = round(0.38 * size)
    neck = tip - round(0.42 * size)
    d.polygon(
        [
            (back, cy - shaft),
            (neck, cy - shaft),
            (neck, cy - head),
            (tip, cy),
            (neck, cy + head),
            (neck, cy + shaft),
            (back, cy + shaft),
        ],
        fill=(*ARROW, 255),
        outline=(*OUTLINE, 255),
    )
    small = big.reduce(SS)
    turn = _TURN[facing]
    if turn is not None:
        small = small.transpose(turn)
    img.paste(small, (0, 0))


def _paint_training_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The training style's lot: flat near-white inside a near-black curb."""
    rows, cols, cell, ox, oy = key
    gw, gh = cols * cell, rows * cell
    curb = Rect(ox - CURB, oy - CURB, gw + 2 * CURB, gh + 2 * CURB)
    paint_panel(draw, img.size, panel_rect(curb), TRAINING_STYLE)
    draw.rectangle((curb.x, curb.y, curb.x1 - 1, curb.y1 - 1), fill=TRAINING_DARK)
    draw.rectangle((ox, oy, ox + gw - 1, oy + gh - 1), fill=TRAINING_LIGHT)


def _luma(rgb: tuple[int, int, int]) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def _paint_training_truck(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The training style's truck (see the module docstring), painted facing right, then
    turned."""
    facing, length, cell, colour_index = key
    body = colour(PALETTE[colour_index][0]).training
    mark = TRAINING_DARK if _luma(body) >= 128 else TRAINING_LIGHT
    w, h = length * cell, cell
    big = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    m = round(0.09 * cell)
    d.rounded_rectangle(
        (m, m, w - 1 - m, h - 1 - m),
        radius=round(0.12 * cell),
        fill=(*body, 255),
        outline=(*TRAINING_DARK, 255),
        width=max(2, cell // 20),
    )
    back, tip, inset = w - cell + m, w - 1 - m, round(0.1 * cell)
    base = back + inset
    nose = (tip - inset // 2, h // 2)
    d.polygon([(base, m + inset), nose, (base, h - 1 - m - inset)], fill=(*mark, 255))
    turn = _TURN[facing]
    img.paste(big if turn is None else big.transpose(turn), (0, 0))


class TruckEscapeView(StatelessUI):
    """Layout and input mapping (see module docstring); no interaction state."""

    def widgets(
        self, level: Level, state: State, ui: Any, area: Rect, style: str = SCREEN_STYLE
    ) -> list[Widget]:
        board, trucks = _widget_table(level, area, style)
        remaining = state.remaining
        return [board, *(w for i, w in enumerate(trucks) if remaining >> i & 1)]

    def panel(self, level: Level, area: Rect) -> Rect:
        g = layout(level, area).rect
        return panel_rect(Rect(g.x - CURB, g.y - CURB, g.w + 2 * CURB, g.h + 2 * CURB))

    def on_gesture(
        self, level: Level, state: State, ui: Any, gesture: Gesture, area: Rect
    ) -> ViewOutcome:
        if gesture.kind != "click":
            return ViewOutcome()
        i = truck_at(level, state, area, gesture.x, gesture.y)
        if i is None:
            return ViewOutcome()
        return ViewOutcome(move=i)

    def motion_frames(
        self, level: Level, state: State, ui: Any, move: int, result: State | None, area: Rect
    ) -> list[list[Widget]]:
        """The board while truck ``move`` drives out (``result`` is the board after it left)
        or, blocked (``result`` None), rolls up to the first truck on its path and back."""
        if not state.remaining >> move & 1:
            return []
        truck = level.trucks[move]
        path = truck.path(level.rows, level.cols)
        cell = layout(level, area).cell
        if result is None:
            free = next(
                (
                    k
                    for k, c in enumerate(path)
                    if (j := level.occupant.get(c)) is not None and state.remaining >> j & 1
                ),
                len(path),
            )
            reach = free * cell + cell // 6  # up to the blocker, nudging it
            steps = [reach * k // MOTION_STEPS for k in range(1, MOTION_STEPS + 1)]
            offsets = steps + steps[-2::-1] if len(steps) > 1 else steps
        else:
            reach = len(path) * cell + CURB  # to the lot's edge and onto the curb
            offsets = [reach * k // (2 * MOTION_STEPS) for k in range(1, 2 * MOTION_STEPS + 1)]
        board, trucks = _widget_table(level, area)
        dr, dc = DELTAS[truck.facing]
        still = [w for i, w in enumerate(trucks) if state.remaining >> i & 1 and i != move]
        moving = trucks[move]
        out = []
        for d in offsets:
            r = moving.rect
            shifted = Widget(
                moving.id,
                Rect(r.x + dc * d, r.y + dr * d, r.w, r.h),
                moving.painter,
                moving.key,
                opaque=False,
            )
            out.append([board, *still, shifted])
        return out

    def actions_for_move(self, level: Level, state: State, ui: Any, move: int, area: Rect) -> list:
        """One click on the truck's cab."""
        return [Click(*click_point(level, move, area))]

    def board_targets(self, level: Level, state: State, ui: Any, area: Rect) -> list:
        """One click per truck, in the level's truck order; None once that truck has left."""
        remaining = state.remaining
        return [
            Click(*click_point(level, i, area)) if remaining >> i & 1 else None
            for i in range(len(level.trucks))
        ]

    def target_changes(self, level: Level, state: State, ui: Any) -> list[bool]:
        """Whether each truck's click would send it off: the rules' legal moves (on the lot,
        nothing remaining on its path)."""
        remaining, blockers = state.remaining, level.blockers
        return [
            bool(remaining >> i & 1) and not blockers[i] & remaining
            for i in range(len(level.trucks))
        ]


_PAINTERS = {  # (board, truck) painters per style
    SCREEN_STYLE: (_paint_board, _paint_truck),
    TRAINING_STYLE: (_paint_training_board, _paint_training_truck),
}


@lru_cache(maxsize=256)
def _widget_table(
    level: Level, area: Rect, style: str = SCREEN_STYLE
) -> tuple[Widget, tuple[Widget, ...]]:
    """The board widget and every truck's widget, built once per level and style."""
    grid = layout(level, area)
    cell = grid.cell
    paint_board, paint_truck = _PAINTERS[style]
    board = Widget(
        "board",
        area,
        paint_board,
        (level.rows, level.cols, cell, grid.x0 - area.x, grid.y0 - area.y),
    )
    colours = truck_colours(level)
    trucks = tuple(
        Widget(
            f"truck{i}",
            truck_rect(level, i, area),
            paint_truck,
            (t.facing, t.length, cell, colours[i]),
            opaque=False,
        )
        for i, t in enumerate(level.trucks)
    )
    return board, trucks
