"""Nut and Bolt's view: bolts as widgets, click a source bolt then a destination bolt.

Interaction state (``ui``): ``None`` or the index of the selected source bolt. Clicking a bolt
with nuts selects it (its top run lifts above the bolt and the bolt is outlined); clicking
the same bolt again deselects; clicking another bolt asks the rules for the transfer. A
rejected transfer leaves the board and the selection as they were and shows the rules' neutral
reason; an applied one clears the selection. A click on the board between bolts deselects.

Every colour has a palette entry chosen to stay distinguishable with the common colour-vision
deficiencies (Okabe–Ito hues first, then light/dark variants) and, so that no nut depends on
hue alone, a letter printed on the nut.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import ImageDraw

from puzzlegym.actions import Click
from puzzlegym.game import SelectionUI, ViewOutcome
from puzzlegym.screen import theme
from puzzlegym.screen.input import Gesture
from puzzlegym.screen.render import Rect, Widget, font

from .rules import Level, State, top_run

# (name, fill RGB, letter): the shared piece colours, each with its own letter.
PALETTE: tuple[tuple[str, tuple[int, int, int], str], ...] = tuple(
    (name, rgb, letter) for (name, rgb), letter in zip(theme.PIECE_COLOURS, "OSGYBVPKWNEAILTM", strict=True)
)

BOARD_BG = (236, 232, 222)
ROD = (150, 155, 165)
ROD_EDGE = (95, 100, 110)
BASE = (88, 94, 108)
SELECT = (46, 111, 188)
NUT_EDGE = theme.PIECE_EDGE
MAX_NUT_H = 48
MAX_NUT_W = 92
MAX_COL_W = 150

EMPTY_BOLT_FEEDBACK = "That bolt has no nuts"


@lru_cache(maxsize=256)
def _geometry(n_bolts: int, capacity: int, area: Rect) -> tuple[tuple[Rect, ...], int, int]:
    """The column rectangle of every bolt, the nut height and the nut width."""
    rows = 1 if n_bolts <= 10 else 2
    per_row = -(-n_bolts // rows)
    col_w = min(MAX_COL_W, area.w // per_row)
    row_h = area.h // rows
    nut_h = min(MAX_NUT_H, (row_h - 40) // (capacity + 1))
    nut_w = min(MAX_NUT_W, col_w - 24)
    rects = []
    for i in range(n_bolts):
        r, c = divmod(i, per_row)
        in_row = min(per_row, n_bolts - r * per_row)
        x0 = area.x + (area.w - in_row * col_w) // 2
        rects.append(Rect(x0 + c * col_w, area.y + r * row_h, col_w, row_h))
    return tuple(rects), nut_h, nut_w


def bolt_rects(level: Level, area: Rect) -> tuple[Rect, ...]:
    return _geometry(level.n_bolts, level.capacity, area)[0]


def bolt_at(level: Level, area: Rect, x: int, y: int) -> int | None:
    for i, rect in enumerate(bolt_rects(level, area)):
        if rect.contains(x, y):
            return i
    return None


def _paint_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    draw.rectangle((0, 0, img.width, img.height), fill=BOARD_BG)


def _paint_bolt(draw: ImageDraw.ImageDraw, img, key) -> None:
    nuts, capacity, nut_h, nut_w, lifted, selected = key
    w, h = img.width, img.height
    draw.rectangle((0, 0, w, h), fill=BOARD_BG)
    if selected:
        draw.rounded_rectangle((3, 3, w - 4, h - 4), radius=12, outline=SELECT, width=4)
    cx = w // 2
    base_y = h - 16  # top of the base plate
    rod_top = base_y - capacity * nut_h - 10
    draw.rounded_rectangle((cx - 5, rod_top, cx + 5, base_y), radius=4, fill=ROD, outline=ROD_EDGE)
    draw.rounded_rectangle((cx - nut_w // 2 - 8, base_y, cx + nut_w // 2 + 8, base_y + 9), radius=3, fill=BASE)
    f = font(max(12, nut_h * 11 // 20), True)
    n = len(nuts)
    lift_from = n - lifted
    for k, colour in enumerate(nuts):
        y1 = base_y - k * nut_h - 1
        if k >= lift_from:
            y1 -= nut_h + 4
        y0 = y1 - nut_h + 3
        _name, rgb, letter = PALETTE[colour]
        x0, x1 = cx - nut_w // 2, cx + nut_w // 2
        cut = max(4, nut_h // 4)  # hexagon-like nut outline
        mid = (y0 + y1) // 2
        draw.polygon(
            [(x0 + cut, y0), (x1 - cut, y0), (x1, mid), (x1 - cut, y1), (x0 + cut, y1), (x0, mid)],
            fill=rgb,
            outline=NUT_EDGE,
            width=2,
        )
        draw.text((cx, mid), letter, font=f, fill=theme.text_colour(rgb), anchor="mm")


class NutAndBoltView(SelectionUI):
    """Layout and input mapping (see module docstring)."""

    selected_item = "bolt index"

    def widgets(self, level: Level, state: State, ui: Any, area: Rect) -> list[Widget]:
        rects, nut_h, nut_w = _geometry(level.n_bolts, level.capacity, area)
        out = [Widget("board", area, _paint_board, ())]
        cap = level.capacity
        for i, (rect, nuts) in enumerate(zip(rects, state.bolts, strict=True)):
            selected = ui == i
            lifted = top_run(nuts) if selected else 0
            out.append(Widget(f"bolt{i}", rect, _paint_bolt, (nuts, cap, nut_h, nut_w, lifted, selected)))
        return out

    def on_gesture(self, level: Level, state: State, ui: Any, gesture: Gesture, area: Rect) -> ViewOutcome:
        if gesture.kind != "click":
            return ViewOutcome(ui=ui)
        i = bolt_at(level, area, gesture.x, gesture.y)
        if i is None:
            return ViewOutcome(ui=None)
        if ui is None:
            if not state.bolts[i]:
                return ViewOutcome(ui=None, feedback=EMPTY_BOLT_FEEDBACK)
            return ViewOutcome(ui=i, feedback="")
        if ui == i:
            return ViewOutcome(ui=None, feedback="")
        # a transfer; if the rules reject it the selection stays as it was
        return ViewOutcome(move=(ui, i), ui=ui)

    def board_targets(self, level: Level, state: State, ui: Any, area: Rect) -> list:
        """A click on the centre of every bolt, in bolt order."""
        return [Click(*rect.center) for rect in bolt_rects(level, area)]

    def actions_for_move(self, level: Level, state: State, ui: Any, move: Any, area: Rect) -> list:
        """Clicks that perform ``move``: (deselect,) source, destination."""
        rects = bolt_rects(level, area)
        src, dst = move
        out = []
        if ui is not None and ui != src:
            out.append(Click(*rects[ui].center))
        if ui != src:
            out.append(Click(*rects[src].center))
        out.append(Click(*rects[dst].center))
        return out
