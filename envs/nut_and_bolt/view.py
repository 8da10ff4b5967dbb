"""Nut and Bolt's view: bolts as widgets, click a source bolt then a destination bolt.

Interaction state (``ui``): ``None`` or the index of the selected source bolt. Clicking a bolt
with nuts selects it (its top run lifts above the bolt and the bolt is outlined); clicking
the same bolt again deselects; clicking another bolt asks the rules for the transfer. A
rejected transfer leaves the board and the selection as they were and shows the rules' neutral
reason; an applied one clears the selection. A click on the board between bolts deselects.

Every colour is the palette's (:data:`puzzlegym.screen.palette.PIECES`: nut colour ``k`` is
``PIECES[k]``) and, so that no nut depends on hue alone, its letter is printed on the nut.

Geometry follows the shared size rule (:func:`puzzlegym.screen.grid.fit_unit`): the unit is a
nut's height; a nut is :data:`NUT_W` units wide, a bolt's column :data:`COLUMN`; a row of
bolts is tall enough for a full bolt plus its lifted run; the bolts are centred in the board
area on the shared panel.

In the training style (``puzzlegym.screen.palette.TRAINING_STYLE``) a nut is a flat block of
its colour's training twin (no letter, no outline, so its grey level is its colour's own),
rods and base plates are near-black, and the selected bolt gets a thick near-black frame
besides its lifted run.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from PIL import ImageDraw

from puzzlegym.base.actions import Click
from puzzlegym.game import SelectionUI, ViewOutcome
from puzzlegym.screen import theme
from puzzlegym.screen.grid import fit_unit
from puzzlegym.screen.input import Gesture
from puzzlegym.screen.palette import (
    EDGE,
    PIECES,
    SCREEN_STYLE,
    TRAINING_DARK,
    TRAINING_LIGHT,
    TRAINING_STYLE,
)
from puzzlegym.screen.panel import paint_panel, panel_rect
from puzzlegym.screen.render import Rect, Widget, font

from .rules import Level, State, top_run

PALETTE = PIECES  # nut colour k is PALETTE[k]
ROD = (150, 155, 165)
ROD_EDGE = (95, 100, 110)
BASE = (88, 94, 108)
SELECT = (46, 111, 188)
NUT_EDGE = EDGE
NUT_W = Fraction(9, 5)  # a nut's width, in nut heights (the unit)
COLUMN = Fraction(12, 5)  # a bolt's column, in nut heights
ROW_EXTRA = Fraction(3, 5)  # a row's height beyond (capacity + 1) nuts: rod top and base plate
ROW_GAP = Fraction(1, 2)  # between two rows of bolts
MAX_ROWS = 2

EMPTY_BOLT_FEEDBACK = "That bolt has no nuts"


@lru_cache(maxsize=256)
def _geometry(n_bolts: int, capacity: int, area: Rect) -> tuple[tuple[Rect, ...], int, int]:
    """The column rectangle of every bolt, the nut height and the nut width: the bolts on
    one or two rows, whichever lets the nuts be larger (one row on a tie)."""
    row_units = (capacity + 1) + ROW_EXTRA

    def unit(rows: int) -> int:
        per_row = -(-n_bolts // rows)
        return fit_unit(area, per_row * COLUMN, rows * row_units + (rows - 1) * ROW_GAP)

    rows = max(range(1, MAX_ROWS + 1), key=lambda r: (unit(r), -r))
    per_row = -(-n_bolts // rows)
    nut_h = unit(rows)
    col, nut_w = int(nut_h * COLUMN), int(nut_h * NUT_W) // 2 * 2
    row_h, gap = int(nut_h * row_units), int(nut_h * ROW_GAP)
    y0 = area.y + (area.h - rows * row_h - (rows - 1) * gap) // 2
    rects = []
    for i in range(n_bolts):
        r, c = divmod(i, per_row)
        in_row = min(per_row, n_bolts - r * per_row)
        x0 = area.x + (area.w - in_row * col) // 2
        rects.append(Rect(x0 + c * col, y0 + r * (row_h + gap), col, row_h))
    return tuple(rects), nut_h, nut_w


def bolt_rects(level: Level, area: Rect) -> tuple[Rect, ...]:
    return _geometry(level.n_bolts, level.capacity, area)[0]


def bolt_at(level: Level, area: Rect, x: int, y: int) -> int | None:
    for i, rect in enumerate(bolt_rects(level, area)):
        if rect.contains(x, y):
            return i
    return None


def board_rect(level: Level, area: Rect) -> Rect:
    """The pixels of the bolts (every column), the panel's inside."""
    rects = bolt_rects(level, area)
    x0, y0 = min(r.x for r in rects), min(r.y for r in rects)
    return Rect(x0, y0, max(r.x1 for r in rects) - x0, max(r.y1 for r in rects) - y0)


def _paint_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    (panel,) = key
    paint_panel(draw, img.size, panel)


def _paint_bolt(draw: ImageDraw.ImageDraw, img, key) -> None:
    nuts, capacity, nut_h, nut_w, lifted, selected = key
    w, h = img.width, img.height
    draw.rectangle((0, 0, w, h), fill=theme.BOARD_PANEL)
    if selected:
        draw.rounded_rectangle((3, 3, w - 4, h - 4), radius=12, outline=SELECT, width=4)
    cx = w // 2
    base_h = max(6, nut_h // 5)
    base_y = h - base_h - 4  # top of the base plate
    rod_top = base_y - capacity * nut_h - nut_h // 4
    rod = max(5, nut_h // 9)
    draw.rounded_rectangle(
        (cx - rod, rod_top, cx + rod, base_y), radius=rod, fill=ROD, outline=ROD_EDGE
    )
    draw.rounded_rectangle(
        (cx - nut_w // 2 - 8, base_y, cx + nut_w // 2 + 8, base_y + base_h), radius=3, fill=BASE
    )
    f = font(max(12, nut_h * 11 // 20), True)
    n = len(nuts)
    lift_from = n - lifted
    for k, colour in enumerate(nuts):
        y1 = base_y - k * nut_h - 1
        if k >= lift_from:
            y1 -= nut_h + 4
        y0 = y1 - nut_h + 3
        piece = PALETTE[colour]
        x0, x1 = cx - nut_w // 2, cx + nut_w // 2
        cut = max(4, nut_h // 4)  # hexagon-like nut outline
        mid = (y0 + y1) // 2
        draw.polygon(
            [(x0 + cut, y0), (x1 - cut, y0), (x1, mid), (x1 - cut, y1), (x0 + cut, y1), (x0, mid)],
            fill=piece.rgb,
            outline=NUT_EDGE,
            width=2,
        )
        draw.text((cx, mid), piece.letter, font=f, fill=piece.text, anchor="mm")


def _paint_training_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    (panel,) = key
    paint_panel(draw, img.size, panel, TRAINING_STYLE)


def _paint_training_bolt(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The training style's bolt: the screen's geometry, flat nut blocks, a near-black rod
    and plate, a thick near-black frame round a selected bolt."""
    nuts, capacity, nut_h, nut_w, lifted, selected = key
    w, h = img.width, img.height
    draw.rectangle((0, 0, w, h), fill=TRAINING_LIGHT)
    if selected:
        draw.rectangle((0, 0, w - 1, h - 1), outline=TRAINING_DARK, width=max(4, nut_h // 4))
    cx = w // 2
    base_h = max(6, nut_h // 5)
    base_y = h - base_h - 4
    rod_top = base_y - capacity * nut_h - nut_h // 4
    rod = max(5, nut_h // 9)
    draw.rectangle((cx - rod, rod_top, cx + rod, base_y), fill=TRAINING_DARK)
    plate = (cx - nut_w // 2 - 8, base_y, cx + nut_w // 2 + 8, base_y + base_h)
    draw.rectangle(plate, fill=TRAINING_DARK)
    lift_from = len(nuts) - lifted
    for k, colour in enumerate(nuts):
        y1 = base_y - k * nut_h - 1
        if k >= lift_from:
            y1 -= nut_h + 4
        nut = (cx - nut_w // 2, y1 - nut_h + 3, cx + nut_w // 2, y1)
        draw.rectangle(nut, fill=PALETTE[colour].training)


_PAINTERS = {  # (board, bolt) painters per style
    SCREEN_STYLE: (_paint_board, _paint_bolt),
    TRAINING_STYLE: (_paint_training_board, _paint_training_bolt),
}


class NutAndBoltView(SelectionUI):
    """Layout and input mapping (see module docstring)."""

    selected_item = "bolt index"

    def widgets(
        self, level: Level, state: State, ui: Any, area: Rect, style: str = SCREEN_STYLE
    ) -> list[Widget]:
        rects, nut_h, nut_w = _geometry(level.n_bolts, level.capacity, area)
        panel = self.panel(level, area)
        paint_board, paint_bolt = _PAINTERS[style]
        local = Rect(panel.x - area.x, panel.y - area.y, panel.w, panel.h)
        out = [Widget("board", area, paint_board, (local,))]
        cap = level.capacity
        for i, (rect, nuts) in enumerate(zip(rects, state.bolts, strict=True)):
            selected = ui == i
            lifted = top_run(nuts) if selected else 0
            key = (nuts, cap, nut_h, nut_w, lifted, selected)
            out.append(Widget(f"bolt{i}", rect, paint_bolt, key))
        return out

    def panel(self, level: Level, area: Rect) -> Rect:
        return panel_rect(board_rect(level, area))

    def on_gesture(
        self, level: Level, state: State, ui: Any, gesture: Gesture, area: Rect
    ) -> ViewOutcome:
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

    def target_changes(self, level: Level, state: State, ui: Any) -> list[bool]:
        """Whether each bolt's click would change the board or the selection: with nothing
        selected, the bolts with nuts (a click selects them); with a bolt selected, that bolt
        (a click deselects it) and every bolt the rules let its top run go to."""
        bolts = state.bolts
        if ui is None:
            return [bool(bolt) for bolt in bolts]
        source = bolts[ui]
        if not source:  # the rules reject every transfer from an empty bolt
            return [j == ui for j in range(len(bolts))]
        top, cap = source[-1], level.capacity
        return [
            j == ui or (len(bolt) < cap and (not bolt or bolt[-1] == top))
            for j, bolt in enumerate(bolts)
        ]

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
