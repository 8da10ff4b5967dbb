"""Truck Escape's symbolic board (``format.md`` lists the planes): the lot's cells, each
truck still on it (its cells, its cab) and its facing."""

from __future__ import annotations

from typing import Any

import numpy as np

from puzzlegym.game.planes import Planes

from .rules import DIRECTIONS, Level, State

CELL, TRUCK, CAB = range(3)
FACING = {d: 3 + k for k, d in enumerate(DIRECTIONS)}  # up, down, left, right


class TruckEscapePlanes(Planes):
    fixed = ("cell", "truck", "cab", *DIRECTIONS)

    def dims(self, level: Level) -> tuple[int, int, int]:
        return 0, level.rows, level.cols

    def static(self, level: Level, out: np.ndarray) -> None:
        out[CELL, : level.rows, : level.cols] = 1

    def tables(self, level: Level, shape: tuple[int, int, int]) -> tuple:
        """Per truck: the flat indices of the planes it sets while on the lot."""
        out = []
        for truck in level.trucks:
            cells = truck.cells
            idx = [
                np.ravel_multi_index((k, r, c), shape)
                for k in (TRUCK, FACING[truck.facing])
                for r, c in cells
            ]
            idx.append(np.ravel_multi_index((CAB, *cells[0]), shape))
            out.append(np.array(idx, dtype=np.intp))
        return tuple(out)

    def dynamic(self, level: Level, state: State, ui: Any, out: np.ndarray) -> None:
        table = self.table(level, out.shape)
        remaining = state.remaining
        on_lot = [table[i] for i in range(level.n_trucks) if remaining >> i & 1]
        if on_lot:
            out.reshape(-1)[np.concatenate(on_lot)] = 1


PLANES = TruckEscapePlanes()
