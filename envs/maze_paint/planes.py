"""Maze Paint's symbolic board (``format.md`` lists the planes): the grid's floor and walls,
the painted cells and the ball."""

from __future__ import annotations

from typing import Any

import numpy as np

from puzzlegym.game.planes import Planes

from . import rules
from .rules import Level, State

FLOOR, WALL, PAINTED, BALL = range(4)


def bit_grid(mask: int, height: int, width: int) -> np.ndarray:
    """The cells of bitmask ``mask`` (bit ``row * width + col``) as a ``(height, width)`` 0/1
    array."""
    n = height * width
    raw = np.frombuffer(mask.to_bytes((n + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, count=n, bitorder="little").reshape(height, width)


class MazePaintPlanes(Planes):
    fixed = ("floor", "wall", "painted", "ball")

    def dims(self, level: Level) -> tuple[int, int, int]:
        return 0, level.height, level.width

    def static(self, level: Level, out: np.ndarray) -> None:
        for r, row in enumerate(level.grid):
            for c, ch in enumerate(row):
                out[FLOOR if ch == rules.FLOOR_CHAR else WALL, r, c] = 1

    def dynamic(self, level: Level, state: State, ui: Any, out: np.ndarray) -> None:
        h, w = level.height, level.width
        out[PAINTED, :h, :w] = bit_grid(state.painted & level.full_mask, h, w)
        r, c = divmod(state.ball, w)
        out[BALL, r, c] = 1


PLANES = MazePaintPlanes()
