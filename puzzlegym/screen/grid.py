"""GridLayout: a board of square cells centred in an area, the one piece of grid geometry every
grid view shares (cell size and origin, a cell's rectangle, the cell under a pixel), and
:func:`fit_unit`, the one size rule of every board.

The size rule: a board is measured in its game's units (grid cells, lattice pitches, bolt
columns) plus a frame of fixed pixels on each side (a curb, an exit marker); it is drawn at
the largest whole number of pixels per unit that fits the board area with the panel's
padding (:data:`~puzzlegym.screen.theme.PANEL_PAD`) around it, and never above
:data:`~puzzlegym.screen.theme.CELL_CAP`. So every board fills the area along its limiting
side, whatever game it is.

All arithmetic is on integers (or exact fractions), so a layout is exact: the same area and
grid size always give the same pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from puzzlegym.screen.render import Rect
from puzzlegym.screen.theme import CELL_CAP, PANEL_PAD


def fit_unit(
    area: Rect,
    units_w: int | Fraction,
    units_h: int | Fraction,
    margin_x: int = 0,
    margin_y: int = 0,
) -> int:
    """The pixels per unit of a board ``units_w`` x ``units_h`` units large with ``margin_x``
    / ``margin_y`` pixels of frame on each side: the largest whole number that fits ``area``
    inside the panel's padding, at most ``CELL_CAP`` (the module's size rule)."""
    if units_w <= 0 or units_h <= 0:
        raise ValueError(
            f"fit_unit: a board needs a positive size, got {units_w} x {units_h} units"
        )
    room_w = area.w - 2 * (PANEL_PAD + margin_x)
    room_h = area.h - 2 * (PANEL_PAD + margin_y)
    return max(
        1,
        min(
            CELL_CAP,
            int(Fraction(room_w) / Fraction(units_w)),
            int(Fraction(room_h) / Fraction(units_h)),
        ),
    )


@dataclass(frozen=True)
class GridLayout:
    """``rows`` x ``cols`` square cells of ``cell`` pixels, the top-left one at ``(x0, y0)``
    (screen coordinates)."""

    rows: int
    cols: int
    cell: int
    x0: int
    y0: int

    @staticmethod
    def fit(
        area: Rect, rows: int, cols: int, max_cell: int, margin_x: int = 0, margin_y: int = 0
    ) -> GridLayout:
        """The largest cells (at most ``max_cell`` pixels) that fit ``area`` with
        ``margin_x``/``margin_y`` pixels kept free on each side (a frame, a curb, an exit
        marker), the grid centred in ``area``. Cached per arguments."""
        return _fit(area, rows, cols, max_cell, margin_x, margin_y)

    @staticmethod
    def board(area: Rect, rows: int, cols: int, margin_x: int = 0, margin_y: int = 0) -> GridLayout:
        """A game's board of ``rows`` x ``cols`` cells sized by the shared rule
        (:func:`fit_unit`), ``margin_x``/``margin_y`` pixels of the game's own frame on each
        side, centred in ``area``."""
        cell = fit_unit(area, cols, rows, margin_x, margin_y)
        return _fit(area, rows, cols, cell, 0, 0)

    @property
    def rect(self) -> Rect:
        """The pixels of the whole grid."""
        return Rect(self.x0, self.y0, self.cell * self.cols, self.cell * self.rows)

    def cell_rect(self, row: int, col: int, rows: int = 1, cols: int = 1) -> Rect:
        """The pixels of cell ``(row, col)`` (or of the ``rows`` x ``cols`` block of cells whose
        top-left cell it is)."""
        cell = self.cell
        return Rect(self.x0 + col * cell, self.y0 + row * cell, cols * cell, rows * cell)

    def center(self, row: int, col: int) -> tuple[int, int]:
        """The centre pixel of cell ``(row, col)`` (``cell_rect(row, col).center``)."""
        return self.cell_rect(row, col).center

    def cell_at(self, x: int, y: int) -> tuple[int, int] | None:
        """The ``(row, col)`` under pixel ``(x, y)``, or None outside the grid."""
        if x < self.x0 or y < self.y0:
            return None
        row, col = (y - self.y0) // self.cell, (x - self.x0) // self.cell
        if row >= self.rows or col >= self.cols:
            return None
        return row, col


@lru_cache(maxsize=256)
def _fit(
    area: Rect, rows: int, cols: int, max_cell: int, margin_x: int, margin_y: int
) -> GridLayout:
    cell = min(max_cell, (area.w - 2 * margin_x) // cols, (area.h - 2 * margin_y) // rows)
    x0 = area.x + (area.w - cell * cols) // 2
    y0 = area.y + (area.h - cell * rows) // 2
    return GridLayout(rows, cols, cell, x0, y0)


__all__ = ["GridLayout"]
