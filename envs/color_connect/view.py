"""Color Connect's view: the grid as widgets, paths drawn by clicks.

Interaction state (``ui``): ``None`` or a :class:`Drawing`, the path being drawn (its pair and
its cells so far, from the endpoint where it started). The controls:

* with no path being drawn, a click on a dot starts a path there (the dot gets a ring); a
  click on a dot of a connected pair removes that pair's path instead;
* while drawing, a click on a cell in the same row or column as the path's last cell extends
  the path straight to it, filling the cells between; the segment is refused when it would
  cross a blocked cell, another dot, another path or the path itself;
* a click on an earlier cell of the path cuts the path back to that cell, a click on the
  starting dot cancels the path, and a click on the matching dot (reached by a valid
  segment) completes the pair: the rules then add the path to the board.

A refused click leaves the board and the path being drawn as they were and shows a neutral
feedback line. Drags do nothing but say that the game is played with clicks.

Pair ``k`` has the palette's colour ``k`` (:data:`puzzlegym.screen.palette.PIECES`) and that
colour's letter on both dots (the same letter a nut of that colour shows), so no pair
depends on hue alone. Finished paths are wide lines; the path being drawn is
a narrower line with a ring on its last cell, so it reads as unfinished at a glance.

In the training style (``puzzlegym.screen.palette.TRAINING_STYLE``) cells are flat
near-white, blocked cells and the frame near-black, dots and paths their colours' training
twins without letters. The path being drawn is a line of its colour cased in near-black, its
starting dot lies on a near-black square and its last cell carries a near-black square with
the colour inside, so starting, extending or cutting a path changes whole blocks of pixels,
not a thin ring.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import ImageDraw

from puzzlegym.base.actions import Click
from puzzlegym.game import ResetUI, ViewOutcome
from puzzlegym.screen.grid import GridLayout
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

from . import rules
from .rules import PAIR_LETTERS, Connect, Level, Remove, State

FRAME = 6  # the frame around the grid
CELL = (250, 248, 243)
GRID_LINE = (206, 200, 188)
FRAME_FILL = (150, 142, 128)
BLOCKED = (74, 80, 98)
BLOCKED_HATCH = (98, 105, 124)
RING = (33, 37, 41)
MAX_DRAWING = rules.MAX_SIZE * rules.MAX_SIZE

START_HINT = "Click a colored dot to start a path"
LINE_HINT = "Click a cell in the same row or column as the path's end"
PARTNER_HINT = "The path ends where it reaches its matching dot"
DRAG_HINT = "Draw paths with clicks, not drags"

# the sides a path leaves a cell by (bit flags of a cell's line)
UP, DOWN, LEFT, RIGHT = 1, 2, 4, 8


@dataclass(frozen=True)
class Drawing:
    """The path being drawn: pair index and its cells as ``(row, col)``, start first."""

    pair: int
    cells: tuple[tuple[int, int], ...]


def layout(level: Level, area: Rect) -> GridLayout:
    """The grid's cells inside ``area`` (room left for the frame)."""
    return _layout(level.height, level.width, area)


@lru_cache(maxsize=256)
def _layout(height: int, width: int, area: Rect) -> GridLayout:
    return GridLayout.board(area, height, width, FRAME, FRAME)


def cell_rect(level: Level, index: int, area: Rect) -> Rect:
    return layout(level, area).cell_rect(*divmod(index, level.width))


def cell_at(level: Level, area: Rect, x: int, y: int) -> int | None:
    """The cell under pixel ``(x, y)``, or None outside the grid."""
    rc = layout(level, area).cell_at(x, y)
    return None if rc is None else level.index(*rc)


def turning_cells(cells: tuple[int, ...]) -> list[int]:
    """The cells where a path changes direction, in order."""
    return [y for x, y, z in zip(cells, cells[1:], cells[2:], strict=False) if y - x != z - y]


def path_clicks(cells: tuple[int, ...]) -> list[int]:
    """The cells to click to draw a path: its start, every turn, its end."""
    return [cells[0], *turning_cells(cells), cells[-1]]


def _side(level: Level, x: int, y: int) -> int:
    d = y - x
    if d == -level.width:
        return UP
    if d == level.width:
        return DOWN
    return LEFT if d == -1 else RIGHT


# ----------------------------------------------------------------------------- painters


def board_rect(level: Level, area: Rect) -> Rect:
    """The board's own pixels: the grid and its frame."""
    g = layout(level, area).rect
    return Rect(g.x - FRAME, g.y - FRAME, g.w + 2 * FRAME, g.h + 2 * FRAME)


def _paint_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    cell, ox, oy, height, width, blocked = key
    framed = Rect(ox - FRAME, oy - FRAME, width * cell + 2 * FRAME, height * cell + 2 * FRAME)
    paint_panel(draw, img.size, panel_rect(framed))
    draw.rounded_rectangle(
        (framed.x, framed.y, framed.x1 - 1, framed.y1 - 1), radius=FRAME, fill=FRAME_FILL
    )
    draw.rectangle((ox, oy, ox + width * cell - 1, oy + height * cell - 1), fill=GRID_LINE)
    for r, c in blocked:
        x, y = ox + c * cell, oy + r * cell
        draw.rectangle((x, y, x + cell - 1, y + cell - 1), fill=BLOCKED)
        step = max(6, cell // 5)
        for k in range(-cell, cell, step):  # diagonal hatching
            draw.line(
                (
                    x + max(0, k),
                    y + max(0, -k),
                    x + min(cell - 1, cell - 1 + k),
                    y + min(cell - 1, cell - 1 - k),
                ),
                fill=BLOCKED_HATCH,
                width=2,
            )


def _line(draw: ImageDraw.ImageDraw, s: int, sides: int, h: float, fill, joint) -> None:
    """A path's line through an ``s``-pixel cell: from the centre out of every side in
    ``sides``, ``h`` pixels either side of its axis, the centre covered by ``joint``
    (``draw.ellipse``: round, ``draw.rectangle``: square)."""
    c = (s - 1) / 2
    if sides & UP:
        draw.rectangle((c - h, 0, c + h, c), fill=fill)
    if sides & DOWN:
        draw.rectangle((c - h, c, c + h, s), fill=fill)
    if sides & LEFT:
        draw.rectangle((0, c - h, c, c + h), fill=fill)
    if sides & RIGHT:
        draw.rectangle((c, c - h, s, c + h), fill=fill)
    joint((c - h, c - h, c + h, c + h), fill=fill)


def _paint_cell(draw: ImageDraw.ImageDraw, img, key) -> None:
    """One cell: background, the path's line through it, the dot, rings. ``key`` is
    ``(colour or -1, sides, active, dot, ring)``: ``dot`` whether the cell holds a dot of
    colour ``colour``, ``ring`` "start", "head" or ""."""
    colour, sides, active, dot, ring = key
    s = img.width
    draw.rectangle((0, 0, s, s), fill=GRID_LINE)
    draw.rectangle((1, 1, s - 2, s - 2), fill=CELL)
    c = (s - 1) / 2
    if colour >= 0 and sides:
        rgb = PIECES[colour].rgb
        half = max(3, round(s * (0.12 if active else 0.2)))
        edge = 2
        for grow, fill in ((edge, EDGE), (0, rgb)):
            _line(draw, s, sides, half + grow, fill, draw.ellipse)
    if ring:
        rad = s * 0.46
        draw.ellipse((c - rad, c - rad, c + rad, c + rad), outline=RING, width=max(3, s // 16))
    if dot:
        piece = PIECES[colour]
        rad = s * 0.36
        draw.ellipse((c - rad, c - rad, c + rad, c + rad), fill=piece.rgb, outline=EDGE, width=2)
        f = font(max(11, round(s * 0.36)), True)
        draw.text((c, c + 1), piece.letter, font=f, fill=piece.text, anchor="mm")


def _paint_training_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The training style's board: the frame and the blocked cells one near-black block
    (the other cells are widgets of their own)."""
    cell, ox, oy, height, width, _blocked = key
    framed = Rect(ox - FRAME, oy - FRAME, width * cell + 2 * FRAME, height * cell + 2 * FRAME)
    paint_panel(draw, img.size, panel_rect(framed), TRAINING_STYLE)
    draw.rectangle((framed.x, framed.y, framed.x1 - 1, framed.y1 - 1), fill=TRAINING_DARK)


def _paint_training_cell(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The training style's cell (see the module docstring): a path is a wide line of its
    colour, a dot a large disc; the path being drawn is cased in near-black, its start on a
    near-black square, its head a near-black square holding the colour."""
    colour, sides, active, dot, ring = key
    s = img.width
    draw.rectangle((0, 0, s, s), fill=TRAINING_DARK if ring == "start" else TRAINING_LIGHT)
    c = (s - 1) / 2
    rgb = PIECES[colour].training if colour >= 0 else TRAINING_LIGHT
    if colour >= 0 and sides:
        half = round(s * 0.2)
        for grow, fill in (((round(s * 0.14), TRAINING_DARK),) if active else ()) + ((0, rgb),):
            _line(draw, s, sides, half + grow, fill, draw.rectangle)
    if ring == "head":
        h = s * 0.4
        draw.rectangle((c - h, c - h, c + h, c + h), fill=TRAINING_DARK)
        h = s * 0.22
        draw.rectangle((c - h, c - h, c + h, c + h), fill=rgb)
    if dot:
        rad = s * 0.4
        draw.ellipse((c - rad, c - rad, c + rad, c + rad), fill=rgb)


_PAINTERS = {  # (board, cell) painters per style
    SCREEN_STYLE: (_paint_board, _paint_cell),
    TRAINING_STYLE: (_paint_training_board, _paint_training_cell),
}


# ----------------------------------------------------------------------------- the view


class ColorConnectView(ResetUI):
    """Layout, drawing and the click controls (see the module docstring); no path is being
    drawn when a level starts or after a move (``ResetUI``)."""

    # -- interaction state --------------------------------------------------------------------

    def ui_to_json(self, ui: Drawing | None) -> Any:
        if ui is None:
            return None
        return {"pair": PAIR_LETTERS[ui.pair], "cells": [list(rc) for rc in ui.cells]}

    def ui_from_json(self, data: Any) -> Drawing | None:
        """Parse :meth:`ui_to_json` output (the level-dependent checks are :meth:`check_ui`)."""
        if data is None:
            return None
        if not isinstance(data, dict) or set(data) != {"pair", "cells"}:
            raise ValueError("ui: expected null or an object with exactly the keys pair, cells")
        pair = data["pair"]
        if not isinstance(pair, str) or len(pair) != 1 or pair not in PAIR_LETTERS:
            raise ValueError(
                f"ui.pair: expected a pair letter {PAIR_LETTERS[0]}..{PAIR_LETTERS[-1]}, "
                f"got {pair!r}"
            )
        raw = data["cells"]
        if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_DRAWING:
            raise ValueError(f"ui.cells: expected a list of 1..{MAX_DRAWING} [row, col] pairs")
        cells = []
        for j, item in enumerate(raw):
            if (
                not isinstance(item, list)
                or len(item) != 2
                or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in item)
            ):
                raise ValueError(
                    f"ui.cells[{j}]: expected [row, col] as two non-negative integers, got {item!r}"
                )
            cells.append((item[0], item[1]))
        return Drawing(PAIR_LETTERS.index(pair), tuple(cells))

    def check_ui(self, level: Level, state: State, ui: Drawing | None) -> None:
        """Raise ValueError unless ``ui`` is a path this view could be drawing on ``state``."""
        if ui is None:
            return
        k = ui.pair
        if k >= level.n_pairs:
            raise ValueError(f"ui.pair: {PAIR_LETTERS[k]} is not a pair of this level")
        if state.paths[k] is not None:
            raise ValueError(f"ui.pair: {PAIR_LETTERS[k]} is already connected")
        cells = rules.parse_cells(level, [list(rc) for rc in ui.cells], "ui.cells")
        a, b = level.endpoints[k]
        if cells[0] not in (a, b):
            raise ValueError(
                f"ui.cells[0]: a path being drawn starts on a dot of {PAIR_LETTERS[k]}"
            )
        partner = b if cells[0] == a else a
        if len(set(cells)) != len(cells):
            raise ValueError("ui.cells: the path visits a cell twice")
        for j, (x, y) in enumerate(zip(cells, cells[1:], strict=False)):
            if y not in level.neighbours[x]:
                raise ValueError(f"ui.cells[{j + 1}]: not next to the cell before it")
        for j, x in enumerate(cells[1:], start=1):
            if x == partner or level.owner[x] != -1 or state.occupied >> x & 1:
                raise ValueError(f"ui.cells[{j}]: a path being drawn crosses only free cells")

    # -- input ----------------------------------------------------------------------------------

    def on_gesture(
        self, level: Level, state: State, ui: Any, gesture: Gesture, area: Rect
    ) -> ViewOutcome:
        if gesture.kind == "drag":
            return ViewOutcome(ui=ui, feedback=DRAG_HINT)
        if gesture.kind != "click":
            return ViewOutcome(ui=ui)
        index = cell_at(level, area, gesture.x, gesture.y)
        if index is None:
            return ViewOutcome(ui=ui)
        return click(level, state, ui, index)

    def actions_for_move(self, level: Level, state: State, ui: Any, move: Any, area: Rect) -> list:
        """Clicks that perform ``move``: (cancel the path being drawn,) then the dot of a
        pair to remove, or the start, every turn and the end of a path to connect."""
        cells: list[int] = []
        if ui is not None:
            cells.append(level.index(*ui.cells[0]))
        if isinstance(move, Remove):
            cells.append(level.endpoints[move.pair][0])
        elif isinstance(move, Connect):
            cells.extend(path_clicks(move.cells))
        else:
            raise ValueError(f"move: expected Connect or Remove, got {move!r}")
        return [Click(*cell_rect(level, x, area).center) for x in cells]

    def board_targets(self, level: Level, state: State, ui: Any, area: Rect) -> list:
        """A click on the centre of every cell, row-major."""
        return [Click(*cell_rect(level, x, area).center) for x in range(level.n_cells)]

    def target_changes(self, level: Level, state: State, ui: Any) -> list[bool]:
        """Whether each of :meth:`board_targets`' clicks would change the board or the path
        being drawn, in one pass over the grid (see :func:`click_changes`)."""
        return click_changes(level, state, ui)

    # -- drawing --------------------------------------------------------------------------------

    def panel(self, level: Level, area: Rect) -> Rect:
        return panel_rect(board_rect(level, area))

    def widgets(
        self, level: Level, state: State, ui: Any, area: Rect, style: str = SCREEN_STYLE
    ) -> list[Widget]:
        board, cells = _widget_table(level, area, style)
        paint_cell = _PAINTERS[style][1]
        keys: dict[int, tuple] = {}
        w = level.width

        def trace(path: tuple[int, ...], colour: int, active: bool) -> None:
            for j, x in enumerate(path):
                sides = 0
                if j > 0:
                    sides |= _side(level, x, path[j - 1])
                if j + 1 < len(path):
                    sides |= _side(level, x, path[j + 1])
                keys[x] = (colour, sides, active)

        for k, path in enumerate(state.paths):
            if path is not None:
                trace(path, k, False)
        drawing = None
        if ui is not None:
            drawing = tuple(r * w + c for r, c in ui.cells)
            trace(drawing, ui.pair, True)
        owner = level.owner
        out = [board]
        for index, rect in cells:
            o = owner[index]
            colour, sides, active = keys.get(index, (o, 0, False))
            ring = ""
            if drawing is not None:
                if index == drawing[0]:
                    ring = "start"
                elif index == drawing[-1]:
                    ring = "head"
            key = (colour, sides, active, o >= 0, ring)
            out.append(Widget(f"cell{index}", rect, paint_cell, key))
        return out


def click(level: Level, state: State, ui: Drawing | None, index: int) -> ViewOutcome:
    """What a click on cell ``index`` does (see the module docstring)."""
    owner = level.owner
    w = level.width
    o = owner[index]
    if ui is None:
        if o >= 0:
            if state.paths[o] is not None:
                return ViewOutcome(move=Remove(o), ui=None, feedback="")
            return ViewOutcome(ui=Drawing(o, (divmod(index, w),)), feedback="")
        return ViewOutcome(ui=None, feedback=START_HINT)
    cells = [r * w + c for r, c in ui.cells]
    k = ui.pair
    if index == cells[0]:
        return ViewOutcome(ui=None, feedback="")  # cancel
    if index in cells:
        return ViewOutcome(ui=Drawing(k, ui.cells[: cells.index(index) + 1]), feedback="")
    head = cells[-1]
    hr, hc = divmod(head, w)
    r, c = divmod(index, w)
    if r != hr and c != hc:
        return ViewOutcome(ui=ui, feedback=LINE_HINT)
    step = (w if r > hr else -w) if c == hc else (1 if c > hc else -1)
    segment = list(range(head + step, index + step, step))
    a, b = level.endpoints[k]
    partner = b if cells[0] == a else a
    taken = set(cells)
    for x in segment:
        if x == partner and x != index:
            return ViewOutcome(ui=ui, feedback=PARTNER_HINT)
        if x in taken:
            return ViewOutcome(ui=ui, feedback=rules.SELF_REASON)
        if owner[x] == -2:
            return ViewOutcome(ui=ui, feedback=rules.BLOCKED_REASON)
        if owner[x] >= 0 and x != partner:
            return ViewOutcome(ui=ui, feedback=rules.DOT_REASON)
        if state.occupied >> x & 1:
            return ViewOutcome(ui=ui, feedback=rules.CROSS_REASON)
    path = cells + segment
    if index == partner:
        return ViewOutcome(move=Connect(k, tuple(path)), ui=ui, feedback="")
    return ViewOutcome(ui=Drawing(k, tuple(divmod(x, w) for x in path)), feedback="")


def click_changes(level: Level, state: State, ui: Drawing | None) -> list[bool]:
    """Per cell, whether :func:`click` there would change the board or the path being drawn:
    with no path being drawn, the dots (a dot starts a path, or removes its pair's path);
    while drawing, the starting dot (cancel), the path's other cells but its last (cut
    back) and, along the last cell's row and column, each cell up to the first one a segment
    may not cross (a blocked cell, a dot, a path, the path itself), and that one too when it
    is the partner dot and the rules accept the path it completes."""
    owner = level.owner
    if ui is None:
        return [o >= 0 for o in owner]
    w = level.width
    out = [False] * level.n_cells
    cells = [r * w + c for r, c in ui.cells]
    for x in cells[:-1]:
        out[x] = True
    out[cells[0]] = True  # the starting dot cancels, also when it is the last cell
    head = cells[-1]
    a, b = level.endpoints[ui.pair]
    partner = b if cells[0] == a else a
    blocked = set(cells) | {i for i, o in enumerate(owner) if o != -1}
    occupied = state.occupied
    hr, hc = divmod(head, w)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c, segment = hr + dr, hc + dc, []
        while 0 <= r < level.height and 0 <= c < w:
            x = r * w + c
            segment.append(x)
            if x == partner:
                path = (*cells, *segment)
                out[x] = rules.path_problem(level, state, ui.pair, path) is None
                break
            if x in blocked or occupied >> x & 1:
                break
            out[x] = True
            r, c = r + dr, c + dc
    return out


@lru_cache(maxsize=256)
def _widget_table(
    level: Level, area: Rect, style: str
) -> tuple[Widget, tuple[tuple[int, Rect], ...]]:
    """The board widget and the rectangle of every cell that is not blocked, built once per
    level, area and style."""
    grid = layout(level, area)
    blocked = tuple(level.cell(i) for i, o in enumerate(level.owner) if o == -2)
    key = (grid.cell, grid.x0 - area.x, grid.y0 - area.y, level.height, level.width, blocked)
    board = Widget("board", area, _PAINTERS[style][0], key)
    cells = tuple((i, cell_rect(level, i, area)) for i, o in enumerate(level.owner) if o != -2)
    return board, cells


__all__ = [
    "ColorConnectView",
    "Drawing",
    "cell_at",
    "cell_rect",
    "click",
    "click_changes",
    "path_clicks",
    "turning_cells",
]
