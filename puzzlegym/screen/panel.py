"""The panel every game's board lies on: one look for the six games.

A board widget covers the board area; its painter calls :func:`paint_panel` first, which
fills the widget with the screen background and draws the panel, a rounded rectangle
:data:`~puzzlegym.screen.theme.PANEL_PAD` pixels larger on each side than the board's own
pixels (:func:`panel_rect`), so every board has the same surround and frame. In the training
style (:data:`~puzzlegym.screen.palette.TRAINING_STYLE`) the whole widget is the panel, one
flat :data:`~puzzlegym.screen.palette.TRAINING_LIGHT` surface with no frame or rounded
corner, so the training view's window (the panel) has no edge of its own to blur into a seam.
"""

from __future__ import annotations

from PIL import ImageDraw

from puzzlegym.screen import theme
from puzzlegym.screen.palette import SCREEN_STYLE, TRAINING_LIGHT, TRAINING_STYLE
from puzzlegym.screen.render import Rect

__all__ = ["paint_panel", "panel_rect"]


def panel_rect(board: Rect) -> Rect:
    """The panel around a board whose own pixels (frame included) are ``board``."""
    pad = theme.PANEL_PAD
    return Rect(board.x - pad, board.y - pad, board.w + 2 * pad, board.h + 2 * pad)


def paint_panel(
    draw: ImageDraw.ImageDraw, size: tuple[int, int], panel: Rect, style: str = SCREEN_STYLE
) -> None:
    """Fill an image of ``size`` with the screen background and draw the panel ``panel``
    (in the image's coordinates) on it; in the training style, fill it with the panel's
    flat training surface."""
    if style == TRAINING_STYLE:
        draw.rectangle((0, 0, size[0], size[1]), fill=TRAINING_LIGHT)
        return
    draw.rectangle((0, 0, size[0], size[1]), fill=theme.BACKGROUND)
    draw.rounded_rectangle(
        (panel.x, panel.y, panel.x1 - 1, panel.y1 - 1),
        radius=theme.PANEL_RADIUS,
        fill=theme.BOARD_PANEL,
        outline=theme.BOARD_PANEL_EDGE,
        width=2,
    )
