"""Nut and Bolt's symbolic board (``format.md`` lists the planes): one column per bolt, one
row per place on it (row 0 the bottom), the nuts by colour, the selected bolt and the nuts it
lifts."""

from __future__ import annotations

from typing import Any

import numpy as np

from puzzlegym.game.planes import Planes

from .rules import Level, State, top_run

SLOT, SELECTED, LIFTED = range(3)
FIRST_COLOUR = 3


class NutAndBoltPlanes(Planes):
    fixed = ("slot", "selected", "lifted")
    numbered = "colour"

    def dims(self, level: Level) -> tuple[int, int, int]:
        return level.n_colours, level.capacity, level.n_bolts

    def static(self, level: Level, out: np.ndarray) -> None:
        out[SLOT, : level.capacity, : level.n_bolts] = 1

    def dynamic(self, level: Level, state: State, ui: Any, out: np.ndarray) -> None:
        for j, bolt in enumerate(state.bolts):
            for k, colour in enumerate(bolt):
                out[FIRST_COLOUR + colour, k, j] = 1
        if ui is not None:
            bolt = state.bolts[ui]
            out[SELECTED, : level.capacity, ui] = 1
            out[LIFTED, len(bolt) - top_run(bolt) : len(bolt), ui] = 1


PLANES = NutAndBoltPlanes()
