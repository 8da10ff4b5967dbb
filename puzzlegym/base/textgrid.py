"""TextGrid: the geometry of levels written as a grid of row strings (Maze Paint, Color
Connect): height, width, cell indices; and the strict check of such a ``grid`` field."""

from __future__ import annotations

from typing import Any

from puzzlegym.base.errors import LevelError


class TextGrid:
    """A mixin for a level dataclass with a ``grid`` field (a tuple of equal-length row
    strings): its size and the row-major cell index of ``(row, col)`` and back."""

    grid: tuple[str, ...]

    @property
    def height(self) -> int:
        return len(self.grid)

    @property
    def width(self) -> int:
        return len(self.grid[0]) if self.grid else 0

    @property
    def n_cells(self) -> int:
        return self.height * self.width

    def index(self, row: int, col: int) -> int:
        """The cell index of ``(row, col)``."""
        return row * self.width + col

    def cell(self, index: int) -> tuple[int, int]:
        """The ``(row, col)`` of a cell index."""
        return divmod(index, self.width)


def check_text_grid(
    value: Any, min_size: int, max_size: int, allowed: str, allowed_text: str
) -> tuple[str, ...]:
    """A level's ``grid``: a list of ``min_size..max_size`` row strings of one width in that
    range, made of the characters in ``allowed`` (``allowed_text`` says which, for the
    message). Raises LevelError naming ``grid``; returns the rows as a tuple."""
    if not isinstance(value, list | tuple):
        raise LevelError(f"grid: expected a list of row strings, got {type(value).__name__}")
    grid = tuple(value)
    if not min_size <= len(grid) <= max_size:
        raise LevelError(f"grid: height must be {min_size}..{max_size} rows, got {len(grid)}")
    for r, row in enumerate(grid):
        if not isinstance(row, str):
            raise LevelError(f"grid: row {r} must be a string, got {type(row).__name__}")
    width = len(grid[0])
    if not min_size <= width <= max_size:
        raise LevelError(f"grid: width must be {min_size}..{max_size} columns, got {width}")
    for r, row in enumerate(grid):
        if len(row) != width:
            raise LevelError(
                f"grid: not rectangular, row {r} has {len(row)} columns but row 0 has {width}"
            )
        bad = sorted(set(row) - set(allowed))
        if bad:
            raise LevelError(f"grid: row {r} contains {', '.join(map(repr, bad))}; {allowed_text}")
    return grid


__all__ = ["TextGrid", "check_text_grid"]
