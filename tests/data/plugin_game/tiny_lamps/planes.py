"""Tiny Lamps' symbolic board: the lamps that exist and the lamps that are lit."""

from __future__ import annotations

from typing import Any

import numpy as np

from puzzlegym.game.planes import Planes

LAMP, LIT = range(2)


class LampsPlanes(Planes):
    fixed = ("lamp", "lit")

    def dims(self, level: Any) -> tuple[int, int, int]:
        return 0, 1, level.n

    def static(self, level: Any, out: np.ndarray) -> None:
        out[LAMP, 0, : level.n] = 1

    def dynamic(self, level: Any, state: Any, ui: Any, out: np.ndarray) -> None:
        for i in range(level.n):
            out[LIT, 0, i] = state.lit >> i & 1


PLANES = LampsPlanes()
