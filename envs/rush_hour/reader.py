"""Rush Hour read from the pixels: the grid, its walls, every vehicle where it stands (the red
target car apart), and a slide performed as a drag from the vehicle's centre to its centre
at the new position.

The floor cells (colours of ``docs/gallery.md``) are outlined by lines that give the cell
size. A vehicle is drawn inside its cells with a margin, so the floor shows between two
vehicles that touch and never inside one: neighbouring covered cells belong to one vehicle
exactly when no floor shows across their common edge.
"""

from __future__ import annotations

import numpy as np

from puzzlegym.base.actions import Drag, to_dict
from puzzlegym.screen.palette import colour
from puzzlegym.vision.pixels import Grid, ReadError, cell_groups, is_colour, measure_grid
from puzzlegym.vision.reader import Reading

from . import rules

__all__ = ["READER", "ReadError", "RushHourReader"]

FLOOR = (206, 210, 216)  # #ced2d8
FLOOR_LINE = (186, 190, 198)  # #babec6
WALL = (92, 88, 84)  # #5c5854, hatched
TARGET = colour("red").rgb
EMPTY = 0.9  # share of floor in a cell's middle that makes it empty
SOLID = 0.2  # share of wall (or of red) that makes a cell a wall (or the target car's)


def measure(frame: np.ndarray) -> Grid:
    return measure_grid(
        frame,
        "rush hour",
        (FLOOR, FLOOR_LINE),
        0,
        (FLOOR,),
        FLOOR_LINE,
        range(rules.MIN_SIZE, rules.MAX_SIZE + 1),
    )


class RushHourReader:
    game = "RushHour"

    def read(self, frame: np.ndarray, tier: str) -> Reading:
        g = measure(frame)
        height, width = g.rows, g.cols
        cell = g.cell
        floor = is_colour(frame, FLOOR) | is_colour(frame, FLOOR_LINE)
        walls, covered, red = [], set(), set()
        q = cell // 4
        for r in range(height):
            for c in range(width):
                x, y = g.corner(r, c)
                if floor[y + q : y + cell - q, x + q : x + cell - q].mean() >= EMPTY:
                    continue
                part = frame[y : y + cell, x : x + cell]
                if is_colour(part, WALL).mean() >= SOLID:
                    walls.append((r, c))
                    continue
                covered.add((r, c))
                if is_colour(part, TARGET).mean() >= SOLID:
                    red.add((r, c))

        def joined(a, b) -> bool:  # no floor across the edge between cells a and b
            (r, c), (r2, c2) = a, b
            if r == r2:
                x = g.x0 + max(c, c2) * cell
                y = g.y0 + r * cell + cell // 2
                return not floor[y - cell // 8 : y + cell // 8, x - 3 : x + 3].any()
            x = g.x0 + c * cell + cell // 2
            y = g.y0 + max(r, r2) * cell
            return not floor[y - 3 : y + 3, x - cell // 8 : x + cell // 8].any()

        vehicles = [_vehicle(group) for group in cell_groups(covered, joined)]
        targets = [v for v in vehicles if set(rules.Level.cells(_one(v), 0, v.position)) <= red]
        if len(targets) != 1:
            raise ReadError(f"rush hour: expected one red target car, saw {len(targets)}")
        others = sorted((v for v in vehicles if v is not targets[0]), key=lambda v: (v.row, v.col))
        level = rules.Level(
            id="seen",
            tier=tier,
            width=width,
            height=height,
            vehicles=(targets[0], *others),
            walls=tuple(sorted(walls)),
        )
        return Reading(level, rules.initial_state(level), g)

    def actions(self, reading: Reading, move: tuple[int, int]) -> list[dict]:
        i, to = move
        level, g = reading.level, reading.geometry
        x0, y0 = g.block_center(level.cells(i, reading.state.positions[i]))
        x1, y1 = g.block_center(level.cells(i, to))
        return [to_dict(Drag(x0, y0, x1, y1))]

    def public(self, level, state):
        placed = [
            (cells[0], v.length, v.horizontal)
            for i, v in enumerate(level.vehicles)
            for cells in [level.cells(i, state.positions[i])]
        ]
        return level.width, level.height, frozenset(level.walls), placed[0], frozenset(placed[1:])


def _one(v: rules.Vehicle) -> rules.Level:
    """A level holding only ``v`` (to ask the rules for its cells)."""
    return rules.Level(
        id="one", tier="Easy", width=rules.MAX_SIZE, height=rules.MAX_SIZE, vehicles=(v,)
    )


def _vehicle(cells: list[tuple[int, int]]) -> rules.Vehicle:
    rows = {r for r, _ in cells}
    cols = {c for _, c in cells}
    if len(cells) not in rules.LENGTHS or (len(rows) != 1 and len(cols) != 1):
        raise ReadError(f"rush hour: cells {cells} are not one car or truck")
    (r, c) = cells[0]
    return rules.Vehicle(r, c, len(cells), horizontal=len(rows) == 1)


READER = RushHourReader()
