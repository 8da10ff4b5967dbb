"""Color Connect's symbolic board (``format.md`` lists the planes): the grid, blocked cells and
dots, every pair's cells (dots, finished path, the path being drawn) by colour, the links
between consecutive cells of a path, and the path being drawn with its end."""

from __future__ import annotations

from typing import Any

import numpy as np

from puzzlegym.game.planes import Planes

from . import rules
from .rules import Level, State

CELL, BLOCKED, DOT, LINK_RIGHT, LINK_DOWN, DRAWING, DRAWING_END = range(7)
FIRST_PAIR = 7


def _link(out: np.ndarray, a: tuple[int, int], b: tuple[int, int]) -> None:
    """Mark the link between adjacent cells ``a`` and ``b`` on the upper or left one."""
    (r0, c0), (r1, _) = min(a, b), max(a, b)
    out[LINK_RIGHT if r0 == r1 else LINK_DOWN, r0, c0] = 1


def _path(out: np.ndarray, pair: int, cells) -> None:
    prev = None
    for cell in cells:
        out[FIRST_PAIR + pair, cell[0], cell[1]] = 1
        if prev is not None:
            _link(out, prev, cell)
        prev = cell


class ColorConnectPlanes(Planes):
    fixed = ("cell", "blocked", "dot", "link_right", "link_down", "drawing", "drawing_end")
    numbered = "pair"

    def dims(self, level: Level) -> tuple[int, int, int]:
        return level.n_pairs, level.height, level.width

    def static(self, level: Level, out: np.ndarray) -> None:
        out[CELL, : level.height, : level.width] = 1
        for r, row in enumerate(level.grid):
            for c, ch in enumerate(row):
                if ch == rules.BLOCKED:
                    out[BLOCKED, r, c] = 1
                elif ch in rules.PAIR_LETTERS:
                    out[DOT, r, c] = 1
                    out[FIRST_PAIR + rules.PAIR_LETTERS.index(ch), r, c] = 1

    def dynamic(self, level: Level, state: State, ui: Any, out: np.ndarray) -> None:
        w = level.width
        for pair, path in enumerate(state.paths):
            if path is not None:
                _path(out, pair, [divmod(i, w) for i in path])
        if ui is not None:
            _path(out, ui.pair, ui.cells)
            for r, c in ui.cells:
                out[DRAWING, r, c] = 1
            r, c = ui.cells[-1]
            out[DRAWING_END, r, c] = 1


PLANES = ColorConnectPlanes()
