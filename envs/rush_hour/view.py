"""Rush Hour's view: the parking grid, walls, the exit and the vehicles as widgets; drags as
slides.

Drag a vehicle along its axis: it follows the drag and settles on the cell nearest to where
the drag ends (the drag's length along the axis in whole cells, rounded), stopping before the
first wall or vehicle in the way. A drag that starts on no vehicle does nothing; a drag across
the vehicle's axis (not a clear swipe along it, the input layer's rule) moves nothing and
shows a hint. Clicks do nothing.

Cars (2 cells) have a windscreen and a rear window; trucks (3 cells) a cab and a ribbed cargo
box. The target car is red with a white arrow pointing to the exit, which is an opening in the
right side of the frame in its row, marked with an arrow and the word EXIT.

The view has no interaction state (``ui`` is None).

In the training style (``puzzlegym.screen.palette.TRAINING_STYLE``) the floor is flat
near-white, the frame and the walls near-black with the exit an opening in the frame and a
near-black arrow beside it, and every vehicle a flat rounded block of its colour's training
twin (the target car's red among them), the blocks apart by a margin of floor.

On the human page the dragged vehicle follows the pointer along its axis, up to the first
wall or vehicle in the way (:meth:`RushHourView.drag_preview`), and a slide made otherwise
(an agent's drag replayed) glides to its cell (:meth:`RushHourView.motion_frames`).
Observations show the settled board only.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from puzzlegym.base.actions import Drag
from puzzlegym.game import StatelessUI, ViewOutcome
from puzzlegym.screen.grid import GridLayout
from puzzlegym.screen.input import SWIPE_MIN_PX, Gesture
from puzzlegym.screen.palette import (
    SCREEN_STYLE,
    TRAINING_DARK,
    TRAINING_LIGHT,
    TRAINING_STYLE,
    colour,
)
from puzzlegym.screen.panel import paint_panel, panel_rect
from puzzlegym.screen.render import Rect, Widget, font

from .rules import BLOCKED_REASON, TARGET, Level, State, slide_range, slide_ranges

FRAME = 18  # the frame around the grid
EXIT_W = 120  # room right of the frame for the exit marker
SS = 3  # supersampling of vehicle images (smooth rounded corners)
MOTION_STEPS = 6  # a glide's in-between frames, plus one

FRAME_FILL = (74, 80, 96)
FRAME_EDGE = (52, 56, 68)
FLOOR = (206, 210, 216)
FLOOR_LINE = (186, 190, 198)
WALL = (92, 88, 84)
WALL_HATCH = (130, 124, 118)
EXIT = (46, 140, 87)
EXIT_TEXT = (255, 255, 255)
TARGET_RED = colour("red").rgb
TARGET_MARK = (255, 255, 255)
GLASS = (52, 62, 78)
OUTLINE = (40, 40, 48)
# the other vehicles' colours, from the shared palette (none red-like: red is the target car's)
VEHICLE_COLOURS = tuple(
    colour(name)
    for name in (
        "yellow",
        "blue",
        "green",
        "purple",
        "orange",
        "teal",
        "brown",
        "sky blue",
        "navy",
        "pink",
        "olive",
        "grey",
        "white",
        "black",
    )
)
PALETTE: tuple[tuple[int, int, int], ...] = tuple(c.rgb for c in VEHICLE_COLOURS)

ACROSS_HINT = "Drag a vehicle along its length"


def layout(level: Level, area: Rect) -> GridLayout:
    """The grid's cells inside ``area``: the frame, the grid and the exit marker right of it
    are centred together (the shared size rule)."""
    return _layout(level.height, level.width, area)


@lru_cache(maxsize=256)
def _layout(height: int, width: int, area: Rect) -> GridLayout:
    centred = GridLayout.board(area, height, width, FRAME + EXIT_W // 2, FRAME)
    return GridLayout(height, width, centred.cell, centred.x0 - EXIT_W // 2, centred.y0)


def board_rect(level: Level, area: Rect) -> Rect:
    """The board's own pixels: the frame around the grid and the exit marker."""
    g = layout(level, area).rect
    return Rect(g.x - FRAME, g.y - FRAME, g.w + 2 * FRAME + EXIT_W, g.h + 2 * FRAME)


def grid_rect(level: Level, area: Rect) -> Rect:
    return layout(level, area).rect


def cell_at(level: Level, area: Rect, x: int, y: int) -> tuple[int, int] | None:
    """The ``(row, col)`` under pixel ``(x, y)``, or None outside the grid."""
    return layout(level, area).cell_at(x, y)


def vehicle_rect(level: Level, vehicle: int, position: int, area: Rect) -> Rect:
    """The pixels of ``vehicle`` at ``position``."""
    v = level.vehicles[vehicle]
    r, c = level.cells(vehicle, position)[0]
    w, h = (v.length, 1) if v.horizontal else (1, v.length)
    return layout(level, area).cell_rect(r, c, rows=h, cols=w)


@lru_cache(maxsize=256)
def _centres(level: Level, area: Rect) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per vehicle and position, the centre of the vehicle's pixels (``vehicle_rect``)."""
    return tuple(
        tuple(vehicle_rect(level, i, p, area).center for p in range(level.span(i)))
        for i in range(level.n_vehicles)
    )


def vehicle_at(level: Level, state: State, cell: tuple[int, int]) -> int | None:
    """The vehicle covering ``cell`` in ``state``, or None."""
    for i, p in enumerate(state.positions):
        if cell in level.cells(i, p):
            return i
    return None


# ----------------------------------------------------------------------------- painting


def _paint_floor(draw: ImageDraw.ImageDraw, x: int, y: int, cell: int) -> None:
    """One floor cell with its top-left corner at ``(x, y)`` (the same pixels everywhere)."""
    draw.rectangle((x, y, x + cell - 1, y + cell - 1), fill=FLOOR)
    draw.rectangle((x, y, x + cell - 1, y + cell - 1), outline=FLOOR_LINE)


def _paint_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    height, width, walls, exit_row, cell, gx, gy = key  # gx, gy: grid origin inside the widget
    gw, gh = cell * width, cell * height
    paint_panel(
        draw,
        img.size,
        panel_rect(Rect(gx - FRAME, gy - FRAME, gw + 2 * FRAME + EXIT_W, gh + 2 * FRAME)),
    )
    draw.rounded_rectangle(
        (gx - FRAME, gy - FRAME, gx + gw + FRAME - 1, gy + gh + FRAME - 1),
        radius=14,
        fill=FRAME_FILL,
        outline=FRAME_EDGE,
        width=2,
    )
    for r in range(height):
        for c in range(width):
            _paint_floor(draw, gx + c * cell, gy + r * cell, cell)
    for r, c in walls:
        x, y = gx + c * cell, gy + r * cell
        draw.rectangle((x + 2, y + 2, x + cell - 3, y + cell - 3), fill=WALL)
        for k in range(-cell, cell, max(8, cell // 6)):  # diagonal hatching, clipped to the cell
            x_a, y_a, x_b, y_b = x + 2 + k, y + cell - 3, x + 2 + k + cell - 5, y + 2
            if x_a < x + 2:
                y_a -= x + 2 - x_a
                x_a = x + 2
            if x_b > x + cell - 3:
                y_b += x_b - (x + cell - 3)
                x_b = x + cell - 3
            if x_a <= x_b:
                draw.line((x_a, y_a, x_b, y_b), fill=WALL_HATCH, width=3)
        draw.rectangle((x + 2, y + 2, x + cell - 3, y + cell - 3), outline=OUTLINE, width=2)
    # the exit: an opening in the frame at the exit row, an arrow and the word EXIT
    ey = gy + exit_row * cell
    draw.rectangle((gx + gw, ey + 4, gx + gw + FRAME + 1, ey + cell - 5), fill=EXIT)
    ax = gx + gw + FRAME + 10
    mid = ey + cell // 2
    f = font(min(22, max(14, cell // 4)), True)  # the marker stays inside EXIT_W
    label_w = int(draw.textlength("EXIT", font=f)) + 20
    head = min(24, cell // 4)
    draw.rectangle((ax, mid - cell // 3, ax + label_w, mid + cell // 3), fill=EXIT)
    draw.polygon(
        [
            (ax + label_w, mid - cell // 3 - 6),
            (ax + label_w + head, mid),
            (ax + label_w, mid + cell // 3 + 6),
        ],
        fill=EXIT,
    )
    draw.text((ax + label_w // 2, mid), "EXIT", font=f, fill=EXIT_TEXT, anchor="mm")


# each vehicle colour's training twin, by its RGB value (a vehicle's key holds the RGB value)
_TRAINING = {c.rgb: c.training for c in (colour("red"), *VEHICLE_COLOURS)}


def _paint_training_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The training style's board: flat floor, near-black frame and walls, the exit an
    opening in the frame with a near-black arrow beside it."""
    height, width, walls, exit_row, cell, gx, gy = key
    gw, gh = cell * width, cell * height
    board = Rect(gx - FRAME, gy - FRAME, gw + 2 * FRAME + EXIT_W, gh + 2 * FRAME)
    paint_panel(draw, img.size, panel_rect(board), TRAINING_STYLE)
    draw.rectangle((board.x, board.y, board.x1 - 1 - EXIT_W, board.y1 - 1), fill=TRAINING_DARK)
    draw.rectangle((gx, gy, gx + gw - 1, gy + gh - 1), fill=TRAINING_LIGHT)
    for r, c in walls:
        x, y = gx + c * cell, gy + r * cell
        draw.rectangle((x, y, x + cell - 1, y + cell - 1), fill=TRAINING_DARK)
    ey = gy + exit_row * cell
    draw.rectangle((gx + gw, ey, gx + gw + FRAME - 1, ey + cell - 1), fill=TRAINING_LIGHT)
    ax, mid, half = gx + gw + FRAME + 10, ey + cell // 2, cell * 2 // 5
    tip = ax + min(EXIT_W - 20, cell * 4 // 5)
    draw.polygon([(ax, mid - half), (tip, mid), (ax, mid + half)], fill=TRAINING_DARK)


def _paint_training_vehicle(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The training style's vehicle: a flat rounded block of its colour's training twin on
    the floor (opaque)."""
    cell, length, horizontal, colour, target = key
    w, h = img.size
    draw.rectangle((0, 0, w, h), fill=TRAINING_LIGHT)
    m = cell // 10
    draw.rounded_rectangle((m, m, w - 1 - m, h - 1 - m), radius=cell // 5, fill=_TRAINING[colour])


def _paint_vehicle(draw: ImageDraw.ImageDraw, img, key) -> None:
    """A parked vehicle with the floor under it (opaque)."""
    cell, length, horizontal, colour, target = key
    for k in range(length):
        _paint_floor(draw, k * cell if horizontal else 0, 0 if horizontal else k * cell, cell)
    body = _body(key)
    img.paste(body, (0, 0), body)


def _paint_moving(draw: ImageDraw.ImageDraw, img, key) -> None:
    """A vehicle on the move: the body alone, over the floor of the board (transparent)."""
    img.paste(_body(key), (0, 0))


def _body(key) -> Image.Image:
    """The vehicle's body, its cells' size, transparent around it."""
    cell, length, horizontal, colour, target = key
    w, h = length * cell, cell
    big = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    _draw_body(ImageDraw.Draw(big), w * SS, h * SS, cell * SS, length, colour, target)
    body = big.resize((w, h), Image.Resampling.LANCZOS)
    if not horizontal:
        body = body.transpose(Image.Transpose.ROTATE_270)  # the front (right) points down
    return body


def _moved(widget: Widget, x: int, y: int) -> Widget:
    """``widget`` (a parked vehicle) on the move, its top-left corner at ``(x, y)``."""
    return Widget(
        widget.id, Rect(x, y, widget.rect.w, widget.rect.h), _paint_moving, widget.key, opaque=False
    )


def _shade(rgb: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    return tuple(max(0, min(255, round(v * f))) for v in rgb)  # type: ignore[return-value]


def _draw_body(
    d: ImageDraw.ImageDraw, w: int, h: int, cell: int, length: int, colour, target: bool
) -> None:
    """A vehicle lying horizontally in a ``w × h`` image, its front to the right."""
    m = cell // 10  # margin to the cell edges
    edge = max(2, cell // 40)
    x0, y0, x1, y1 = m, m, w - 1 - m, h - 1 - m
    fill = TARGET_RED if target else colour
    dark = _shade(fill, 0.7)
    if length == 3:  # truck: one chassis carrying a ribbed cargo box and a cab at the front
        cab_x = x1 - int(cell * 0.9)
        gap = max(2, cell // 24)
        d.rounded_rectangle(
            (x0, y0 + cell // 10, x1, y1 - cell // 10),
            radius=cell // 8,
            fill=_shade(fill, 0.5),
            outline=OUTLINE,
            width=edge,
        )
        d.rounded_rectangle(
            (x0, y0, cab_x - gap, y1), radius=cell // 12, fill=fill, outline=OUTLINE, width=edge
        )
        for k in range(1, 6):  # ribs on the cargo box
            rx = x0 + (cab_x - gap - x0) * k // 6
            d.line((rx, y0 + cell // 8, rx, y1 - cell // 8), fill=dark, width=edge * 2)
        d.rounded_rectangle(
            (cab_x + gap, y0 + cell // 16, x1, y1 - cell // 16),
            radius=cell // 5,
            fill=fill,
            outline=OUTLINE,
            width=edge,
        )
        gx0 = x1 - cell // 3
        d.rounded_rectangle(
            (gx0, y0 + cell // 5, x1 - cell // 12, y1 - cell // 5), radius=cell // 16, fill=GLASS
        )
        return
    # car: a rounded body, a windscreen at the front, a rear window
    d.rounded_rectangle((x0, y0, x1, y1), radius=cell // 4, fill=fill, outline=OUTLINE, width=edge)
    d.rounded_rectangle(
        (x0 + cell // 5, y0 + cell // 6, x1 - cell // 5, y1 - cell // 6),
        radius=cell // 8,
        fill=_shade(fill, 0.88),
    )
    wx = x1 - cell * 2 // 5
    d.rounded_rectangle(
        (wx, y0 + cell // 7, wx + cell // 6, y1 - cell // 7), radius=cell // 20, fill=GLASS
    )
    rx = x0 + cell // 4
    d.rounded_rectangle(
        (rx, y0 + cell // 5, rx + cell // 8, y1 - cell // 5), radius=cell // 24, fill=GLASS
    )
    if target:  # a white arrow on the roof, pointing to the exit
        cy = (y0 + y1) // 2
        ax0, ax1 = x0 + cell * 9 // 20, wx - cell // 10
        t = cell // 9
        d.rectangle((ax0, cy - t // 2, ax1 - cell // 6, cy + t // 2), fill=TARGET_MARK)
        d.polygon(
            [(ax1 - cell // 6, cy - t * 3 // 2), (ax1, cy), (ax1 - cell // 6, cy + t * 3 // 2)],
            fill=TARGET_MARK,
        )


# ----------------------------------------------------------------------------- the view


class RushHourView(StatelessUI):
    """Layout, drawing and drag mapping; Rush Hour has no interaction state (ui is None)."""

    def widgets(
        self, level: Level, state: State, ui: Any, area: Rect, style: str = SCREEN_STYLE
    ) -> list[Widget]:
        board, keys = _static(level, area, style)
        paint = _PAINTERS[style][1]
        out = [board]
        for i, p in enumerate(state.positions):
            out.append(Widget(f"rush:v{i}", vehicle_rect(level, i, p, area), paint, keys[i]))
        return out

    def panel(self, level: Level, area: Rect) -> Rect:
        return panel_rect(board_rect(level, area))

    def on_gesture(
        self, level: Level, state: State, ui: Any, gesture: Gesture, area: Rect
    ) -> ViewOutcome:
        if gesture.kind != "drag":
            return ViewOutcome()
        cell = cell_at(level, area, gesture.x0, gesture.y0)
        i = None if cell is None else vehicle_at(level, state, cell)
        if i is None:
            return ViewOutcome()
        v = level.vehicles[i]
        along_axis = ("left", "right") if v.horizontal else ("up", "down")
        if gesture.swipe not in along_axis:
            return ViewOutcome(
                feedback=ACROSS_HINT if gesture.swipe is not None or _long(gesture) else None
            )
        size = layout(level, area).cell
        shift = (gesture.x - gesture.x0) if v.horizontal else (gesture.y - gesture.y0)
        steps = (2 * shift + size) // (2 * size)  # whole cells, rounded to the nearest
        if steps == 0:
            return ViewOutcome()
        p = state.positions[i]
        lo, hi = slide_range(level, state, i)
        to = min(hi, max(lo, p + steps))
        if to == p:
            return ViewOutcome(feedback=BLOCKED_REASON)
        return ViewOutcome(move=(i, to))

    def drag_preview(
        self, level: Level, state: State, ui: Any, x0: int, y0: int, x: int, y: int, area: Rect
    ) -> list[Widget] | None:
        """The board while a drag that grabbed a vehicle at ``(x0, y0)`` is held at ``(x, y)``:
        the vehicle shifted by the drag along its axis, within its free run. None when the
        drag did not start on a vehicle."""
        cell = cell_at(level, area, x0, y0)
        i = None if cell is None else vehicle_at(level, state, cell)
        if i is None:
            return None
        v = level.vehicles[i]
        size = layout(level, area).cell
        p = state.positions[i]
        lo, hi = slide_range(level, state, i)
        shift = min((hi - p) * size, max((lo - p) * size, (x - x0) if v.horizontal else (y - y0)))
        out = self.widgets(level, state, ui, area)
        r = out[1 + i].rect
        dx, dy = (shift, 0) if v.horizontal else (0, shift)
        out.append(_moved(out.pop(1 + i), r.x + dx, r.y + dy))  # on top of the others
        return out

    def motion_frames(
        self,
        level: Level,
        state: State,
        ui: Any,
        move: tuple[int, int],
        result: State | None,
        area: Rect,
    ) -> list[list[Widget]]:
        """The board while vehicle ``move[0]`` glides from its position to ``move[1]``."""
        if result is None:
            return []
        i, to = move
        a = vehicle_rect(level, i, state.positions[i], area)
        b = vehicle_rect(level, i, to, area)
        out = []
        for k in range(1, MOTION_STEPS):
            frame = self.widgets(level, state, ui, area)
            x, y = a.x + (b.x - a.x) * k // MOTION_STEPS, a.y + (b.y - a.y) * k // MOTION_STEPS
            frame.append(_moved(frame.pop(1 + i), x, y))
            out.append(frame)
        return out

    def actions_for_move(
        self, level: Level, state: State, ui: Any, move: tuple[int, int], area: Rect
    ) -> list:
        """A drag from the vehicle's centre to its centre at the new position."""
        i, to = move
        return [self._drag(level, state, i, to, area)]

    def board_targets(self, level: Level, state: State, ui: Any, area: Rect) -> list:
        """For each vehicle in order and each position along its axis, the drag that takes it
        there from where it stands (None for the position it holds)."""
        out: list = []
        for p, centres in zip(state.positions, _centres(level, area), strict=True):
            x0, y0 = centres[p]
            out.extend(None if q == p else Drag(x0, y0, x, y) for q, (x, y) in enumerate(centres))
        return out

    def target_changes(self, level: Level, state: State, ui: Any) -> list[bool]:
        """Whether each of :meth:`board_targets`' drags would slide its vehicle: the drag
        stops before the first wall or vehicle in the way, so it moves the vehicle exactly
        when its position lies on a side the vehicle's free run reaches
        (``rules.slide_ranges``)."""
        out: list[bool] = []
        for (lo, hi), p, span in zip(
            slide_ranges(level, state),
            state.positions,
            (level.span(i) for i in range(level.n_vehicles)),
            strict=True,
        ):
            out.extend((q < p and lo < p) or (q > p and hi > p) for q in range(span))
        return out

    @staticmethod
    def _drag(level: Level, state: State, vehicle: int, to: int, area: Rect) -> Drag:
        x0, y0 = vehicle_rect(level, vehicle, state.positions[vehicle], area).center
        x1, y1 = vehicle_rect(level, vehicle, to, area).center
        return Drag(x0, y0, x1, y1)


def _long(gesture: Gesture) -> bool:
    return max(abs(gesture.x - gesture.x0), abs(gesture.y - gesture.y0)) >= SWIPE_MIN_PX


_PAINTERS = {  # (board, parked vehicle) painters per style
    SCREEN_STYLE: (_paint_board, _paint_vehicle),
    TRAINING_STYLE: (_paint_training_board, _paint_training_vehicle),
}


@lru_cache(maxsize=256)
def _static(
    level: Level, area: Rect, style: str = SCREEN_STYLE
) -> tuple[Widget, tuple[tuple, ...]]:
    """The board widget and each vehicle's paint key, built once per level and style."""
    grid = layout(level, area)
    cell = grid.cell
    board = Widget(
        "rush:board",
        area,
        _PAINTERS[style][0],
        (
            level.height,
            level.width,
            level.walls,
            level.exit_row,
            cell,
            grid.x0 - area.x,
            grid.y0 - area.y,
        ),
    )
    keys = []
    others = 0
    for i, v in enumerate(level.vehicles):
        if i == TARGET:
            keys.append((cell, v.length, v.horizontal, TARGET_RED, True))
        else:
            keys.append((cell, v.length, v.horizontal, PALETTE[others % len(PALETTE)], False))
            others += 1
    return board, tuple(keys)
