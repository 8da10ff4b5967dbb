"""Tiny Lamps' view: the lamps as discs on the board panel; a click on a lamp switches it."""

from __future__ import annotations

from typing import Any

from PIL import ImageDraw

from puzzlegym.base.actions import Click
from puzzlegym.game import StatelessUI, ViewOutcome
from puzzlegym.screen.grid import GridLayout
from puzzlegym.screen.input import Gesture
from puzzlegym.screen.palette import SCREEN_STYLE, TRAINING_DARK, TRAINING_LIGHT, TRAINING_STYLE
from puzzlegym.screen.panel import paint_panel, panel_rect
from puzzlegym.screen.render import Rect, Widget

from .colours import DARK, LIT


def layout(level: Any, area: Rect) -> GridLayout:
    return GridLayout.board(area, 1, level.n)


def _paint_board(draw: ImageDraw.ImageDraw, img: Any, key: Any) -> None:
    style, panel = key
    paint_panel(draw, img.size, panel, style)


def _paint_lamp(draw: ImageDraw.ImageDraw, img: Any, key: Any) -> None:
    lit, style = key
    w, h = img.size
    draw.rectangle((0, 0, w, h), fill=(0, 0, 0, 0))
    if style == TRAINING_STYLE:
        fill = TRAINING_DARK if lit else TRAINING_LIGHT
        draw.ellipse((w // 6, h // 6, w - w // 6, h - h // 6), fill=fill, outline=TRAINING_DARK)
    else:
        draw.ellipse((w // 8, h // 8, w - w // 8, h - h // 8), fill=LIT if lit else DARK)


class LampsView(StatelessUI):
    def widgets(
        self, level: Any, state: Any, ui: Any, area: Rect, style: str = SCREEN_STYLE
    ) -> list[Widget]:
        g = layout(level, area)
        panel = self.panel(level, area)
        local = Rect(panel.x - area.x, panel.y - area.y, panel.w, panel.h)
        out = [Widget("board", area, _paint_board, (style, local))]
        for i in range(level.n):
            lit = bool(state.lit >> i & 1)
            out.append(Widget(f"lamp{i}", g.cell_rect(0, i), _paint_lamp, (lit, style), False))
        return out

    def panel(self, level: Any, area: Rect) -> Rect:
        return panel_rect(layout(level, area).rect)

    def on_gesture(
        self, level: Any, state: Any, ui: Any, gesture: Gesture, area: Rect
    ) -> ViewOutcome:
        if gesture.kind != "click":
            return ViewOutcome()
        cell = layout(level, area).cell_at(gesture.x, gesture.y)
        return ViewOutcome() if cell is None else ViewOutcome(move=cell[1])

    def actions_for_move(self, level: Any, state: Any, ui: Any, move: int, area: Rect) -> list:
        return [Click(*layout(level, area).center(0, move))]

    def board_targets(self, level: Any, state: Any, ui: Any, area: Rect) -> list:
        g = layout(level, area)
        return [Click(*g.center(0, i)) for i in range(level.n)]
