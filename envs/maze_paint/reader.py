"""Maze Paint read from the pixels: the grid of walls and floor, the painted floor and the
ball (colours of ``docs/gallery.md``), and a roll performed as a swipe from the ball.

Every cell, wall or floor, is outlined by a one-pixel line of the frame's colour, so the
lines give the cell size; a cell's inside tells wall, floor or painted floor, and the white
disc at its centre the ball.
"""

from __future__ import annotations

import numpy as np

from puzzlegym.base.actions import SCREEN_HEIGHT, SCREEN_WIDTH, Drag, to_dict
from puzzlegym.screen.palette import colour
from puzzlegym.vision.pixels import Grid, ReadError, measure_grid, pixel
from puzzlegym.vision.reader import Reading

from . import rules

__all__ = ["READER", "MazePaintReader", "ReadError"]

WALL = (58, 64, 84)  # #3a4054
LINE = (42, 46, 62)  # #2a2e3e, the frame and every cell's outline
FLOOR = (226, 222, 212)  # #e2ded4
PAINT = colour("orange").rgb
BALL = colour("white").rgb
SWIPE = 120  # px of a swipe


def measure(frame: np.ndarray) -> Grid:
    """The grid: the box of the cells' insides (each inside a one-pixel outline), divided by
    the outlines."""
    inside = (WALL, FLOOR, PAINT)
    return measure_grid(
        frame, "maze paint", inside, 1, inside, LINE, range(rules.MIN_SIZE, rules.MAX_SIZE + 1)
    )


class MazePaintReader:
    game = "MazePaint"

    def read(self, frame: np.ndarray, tier: str) -> Reading:
        g = measure(frame)
        grid, painted, ball = [], 0, []
        for r in range(g.rows):
            row = []
            for c in range(g.cols):
                x, y = g.corner(r, c)
                inside = pixel(frame, x + 2, y + 2)
                if inside == WALL:
                    row.append(rules.WALL_CHAR)
                    continue
                if inside not in (FLOOR, PAINT):
                    raise ReadError(
                        f"maze paint: cell [{r}, {c}] is neither wall nor floor: {inside}"
                    )
                row.append(rules.FLOOR_CHAR)
                index = r * g.cols + c
                if inside == PAINT:
                    painted |= 1 << index
                if pixel(frame, x + g.cell // 2, y + g.cell // 2) == BALL:
                    ball.append(index)
            grid.append("".join(row))
        if len(ball) != 1:
            raise ReadError(f"maze paint: expected one ball, saw {len(ball)}")
        start = divmod(ball[0], g.cols)
        level = rules.Level(id="seen", tier=tier, grid=tuple(grid), start=start)
        return Reading(level, rules.State(ball[0], painted | 1 << ball[0]), g)

    def actions(self, reading: Reading, move: str) -> list[dict]:
        x, y = reading.geometry.center(*divmod(reading.state.ball, reading.geometry.cols))
        dx, dy = {"up": (0, -SWIPE), "down": (0, SWIPE), "left": (-SWIPE, 0), "right": (SWIPE, 0)}[
            move
        ]
        return [
            to_dict(
                Drag(
                    x,
                    y,
                    min(max(x + dx, 0), SCREEN_WIDTH - 1),
                    min(max(y + dy, 0), SCREEN_HEIGHT - 1),
                )
            )
        ]

    def public(self, level, state):
        w = level.width
        painted = frozenset(
            divmod(i, w) for i in range(state.painted.bit_length()) if state.painted >> i & 1
        )
        return level.grid, divmod(state.ball, w), painted


READER = MazePaintReader()
