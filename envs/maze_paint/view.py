"""Maze Paint's view: the grid as widgets, swipes (drags) and arrow keys as moves.

In the training style (``puzzlegym.screen.palette.TRAINING_STYLE``) walls and the frame are
near-black, floor near-white, paint and ball their palette colours' training twins, the ball
with a thick dark rim so it stands out on the paint it always lies on.

On the human page a slide rolls (:meth:`MazePaintView.motion_frames`): the ball passes cell
by cell, painting as it goes. Observations show the settled board only.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import ImageDraw

from puzzlegym.actions import SCREEN_HEIGHT, SCREEN_WIDTH, Drag
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

from . import rules
from .rules import Level, State

FRAME = 8  # the dark frame around the maze
WALL = (58, 64, 84)
WALL_EDGE = (42, 46, 62)
FLOOR = (226, 222, 212)
PAINT_COLOUR, BALL_COLOUR = colour("orange"), colour("white")
PAINT = PAINT_COLOUR.rgb
BALL = BALL_COLOUR.rgb
BALL_EDGE = (60, 60, 72)

KEY_MOVES = {"ArrowUp": "up", "ArrowDown": "down", "ArrowLeft": "left", "ArrowRight": "right"}
_DELTAS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
MAX_ROLL = 10  # in-between frames of a slide, at most
SWIPE_HINT = "Swipe straight up, down, left or right"


def layout(level: Level, area: Rect) -> GridLayout:
    """The grid's cells inside ``area`` (room left for the frame)."""
    return GridLayout.board(area, level.height, level.width, FRAME, FRAME)


def cell_rect(level: Level, index: int, area: Rect) -> Rect:
    return layout(level, area).cell_rect(*divmod(index, level.width))


def board_rect(level: Level, area: Rect) -> Rect:
    """The maze's own pixels: the grid and its frame."""
    g = layout(level, area).rect
    return Rect(g.x - FRAME, g.y - FRAME, g.w + 2 * FRAME, g.h + 2 * FRAME)


def _paint_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    grid, cell, ox, oy = key
    gw, gh = cell * len(grid[0]), cell * len(grid)
    framed = Rect(ox - FRAME, oy - FRAME, gw + 2 * FRAME, gh + 2 * FRAME)
    paint_panel(draw, img.size, panel_rect(framed))
    draw.rounded_rectangle(
        (framed.x, framed.y, framed.x1 - 1, framed.y1 - 1), radius=FRAME, fill=WALL_EDGE
    )
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch == rules.WALL_CHAR:
                x, y = ox + c * cell, oy + r * cell
                draw.rectangle((x, y, x + cell - 1, y + cell - 1), fill=WALL, outline=WALL_EDGE)


def _paint_cell(draw: ImageDraw.ImageDraw, img, key) -> None:
    painted, ball = key
    w, h = img.width, img.height
    draw.rectangle((0, 0, w, h), fill=WALL_EDGE)
    draw.rectangle((1, 1, w - 2, h - 2), fill=PAINT if painted else FLOOR)
    if ball:
        m = max(3, w // 6)
        draw.ellipse(
            (m, m, w - 1 - m, h - 1 - m), fill=BALL, outline=BALL_EDGE, width=max(2, w // 16)
        )


def _paint_training_board(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The training style's board: the frame and every wall one near-black block (the floor
    cells are widgets of their own)."""
    grid, cell, ox, oy = key
    gw, gh = cell * len(grid[0]), cell * len(grid)
    framed = Rect(ox - FRAME, oy - FRAME, gw + 2 * FRAME, gh + 2 * FRAME)
    paint_panel(draw, img.size, panel_rect(framed), TRAINING_STYLE)
    draw.rectangle((framed.x, framed.y, framed.x1 - 1, framed.y1 - 1), fill=TRAINING_DARK)


def _paint_training_cell(draw: ImageDraw.ImageDraw, img, key) -> None:
    """The training style's floor cell: flat floor or paint, the ball large with a thick
    dark rim."""
    painted, ball = key
    w, h = img.width, img.height
    draw.rectangle((0, 0, w, h), fill=PAINT_COLOUR.training if painted else TRAINING_LIGHT)
    if ball:
        m = max(2, w // 8)
        draw.ellipse(
            (m, m, w - 1 - m, h - 1 - m),
            fill=BALL_COLOUR.training,
            outline=TRAINING_DARK,
            width=max(2, w // 8),
        )


_PAINTERS = {  # (board, cell) painters per style
    SCREEN_STYLE: (_paint_board, _paint_cell),
    TRAINING_STYLE: (_paint_training_board, _paint_training_cell),
}


class MazePaintView(StatelessUI):
    """Layout and input mapping; Maze Paint has no interaction state (ui is None)."""

    def widgets(
        self, level: Level, state: State, ui: Any, area: Rect, style: str = SCREEN_STYLE
    ) -> list[Widget]:
        board, cells = _widget_table(level, area, style)
        painted, ball = state.painted, state.ball
        out = [board]
        out.extend(
            variants[(painted >> index & 1) * 2 + (index == ball)] for index, variants in cells
        )
        return out

    def panel(self, level: Level, area: Rect) -> Rect:
        return panel_rect(board_rect(level, area))

    def on_gesture(
        self, level: Level, state: State, ui: Any, gesture: Gesture, area: Rect
    ) -> ViewOutcome:
        if gesture.kind == "drag":
            if gesture.swipe is None:
                return ViewOutcome(feedback=SWIPE_HINT)
            return ViewOutcome(move=gesture.swipe)
        if gesture.kind == "key" and gesture.value in KEY_MOVES:
            return ViewOutcome(move=KEY_MOVES[gesture.value])
        return ViewOutcome()

    def motion_frames(
        self, level: Level, state: State, ui: Any, move: str, result: State | None, area: Rect
    ) -> list[list[Widget]]:
        """The board while the ball rolls from its cell to ``result``'s, one cell a frame
        (evenly spaced frames when the slide is longer than ``MAX_ROLL`` cells)."""
        if result is None or result.ball == state.ball:
            return []
        dr, dc = _DELTAS[move]
        step = dr * level.width + dc
        cells = list(range(state.ball + step, result.ball, step))  # passed before it stops
        if len(cells) > MAX_ROLL:
            cells = [cells[len(cells) * (k + 1) // MAX_ROLL - 1] for k in range(MAX_ROLL)]
        out = []
        for ball in cells:
            crossed = range(state.ball, ball + step, step)
            painted = state.painted | sum(1 << x for x in crossed)
            out.append(self.widgets(level, State(ball, painted), ui, area))
        return out

    def actions_for_move(self, level: Level, state: State, ui: Any, move: str, area: Rect) -> list:
        """GUI actions that perform ``move``: a swipe starting on the ball."""
        x, y = cell_rect(level, state.ball, area).center
        dx, dy = {"up": (0, -120), "down": (0, 120), "left": (-120, 0), "right": (120, 0)}[move]
        x1 = min(max(x + dx, 0), SCREEN_WIDTH - 1)
        y1 = min(max(y + dy, 0), SCREEN_HEIGHT - 1)
        return [Drag(x, y, x1, y1)]

    def board_targets(self, level: Level, state: State, ui: Any, area: Rect) -> list:
        """The four swipes from the ball (up, down, left, right: ``rules.DIRECTIONS``)."""
        return [self.actions_for_move(level, state, ui, move, area)[0] for move in rules.DIRECTIONS]

    def target_changes(self, level: Level, state: State, ui: Any) -> list[bool]:
        """Whether each swipe would roll the ball: the rules' legal moves (a slide of the
        level's table from the ball's cell)."""
        table, base = level.slide_table, state.ball * 4
        return [table[base + d] is not None for d in range(len(rules.DIRECTIONS))]


@lru_cache(maxsize=256)
def _widget_table(
    level: Level, area: Rect, style: str
) -> tuple[Widget, tuple[tuple[int, tuple[Widget, ...]], ...]]:
    """The board widget and, for every floor cell, its four widgets (painted × ball), built
    once per level and style so a frame's scene is assembled by lookups."""
    grid = layout(level, area)
    paint_board, paint_cell = _PAINTERS[style]
    key = (level.grid, grid.cell, grid.x0 - area.x, grid.y0 - area.y)
    board = Widget("board", area, paint_board, key)
    cells = []
    for r, row in enumerate(level.grid):
        for c, ch in enumerate(row):
            if ch != rules.FLOOR_CHAR:
                continue
            index = r * level.width + c
            rect = grid.cell_rect(r, c)
            variants = tuple(
                Widget(f"cell{index}", rect, paint_cell, (bool(k >> 1), bool(k & 1)))
                for k in range(4)
            )
            cells.append((index, variants))
    return board, tuple(cells)
