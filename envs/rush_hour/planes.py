"""Rush Hour's symbolic board (``format.md`` lists the planes): the grid, walls and exit, and
each vehicle's cells by axis and length, the target car's and every vehicle's front cell."""

from __future__ import annotations

from typing import Any

import numpy as np

from puzzlegym.game.planes import Planes, set_cells

from .rules import TARGET, Level, State

CELL, WALL, EXIT, TARGET_CAR, HORIZONTAL, VERTICAL, TRUCK, FRONT = range(8)


class RushHourPlanes(Planes):
    fixed = ("cell", "wall", "exit", "target", "horizontal", "vertical", "truck", "front")

    def dims(self, level: Level) -> tuple[int, int, int]:
        return 0, level.height, level.width

    def static(self, level: Level, out: np.ndarray) -> None:
        out[CELL, : level.height, : level.width] = 1
        set_cells(out, WALL, level.walls)
        out[EXIT, level.exit_row, level.width - 1] = 1

    def tables(self, level: Level, shape: tuple[int, int, int]) -> tuple:
        """Per vehicle and position: the flat indices of the planes it sets."""
        out = []
        for i, v in enumerate(level.vehicles):
            planes = [HORIZONTAL if v.horizontal else VERTICAL]
            if v.is_truck:
                planes.append(TRUCK)
            if i == TARGET:
                planes.append(TARGET_CAR)
            per_position = []
            for p in range(level.span(i)):
                cells = level.cells(i, p)
                idx = [np.ravel_multi_index((k, r, c), shape) for k in planes for r, c in cells]
                idx.append(np.ravel_multi_index((FRONT, *cells[0]), shape))
                per_position.append(np.array(idx, dtype=np.intp))
            out.append(tuple(per_position))
        return tuple(out)

    def dynamic(self, level: Level, state: State, ui: Any, out: np.ndarray) -> None:
        table = self.table(level, out.shape)
        out.reshape(-1)[np.concatenate([table[i][p] for i, p in enumerate(state.positions)])] = 1


PLANES = RushHourPlanes()
