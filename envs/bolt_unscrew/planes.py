"""Bolt Unscrew's symbolic board (``format.md`` lists the planes): the lattice, its anchors,
the screws, the selected screw, the holes of the boards still on it, the free anchors, and
each layer's remaining boards as the lattice points they cover."""

from __future__ import annotations

from typing import Any

import numpy as np

from puzzlegym.game.planes import Planes

from . import geometry as G
from . import rules
from .rules import Level, State, bits

POINT, ANCHOR, SCREW, SELECTED, HOLE, FREE = range(6)
FIRST_LAYER = 6


class BoltUnscrewPlanes(Planes):
    fixed = ("point", "anchor", "screw", "selected", "hole", "free")
    numbered = "layer"

    def dims(self, level: Level) -> tuple[int, int, int]:
        cols, rows = level.size
        return 1 + max(b.layer for b in level.boards), rows, cols

    def static(self, level: Level, out: np.ndarray) -> None:
        cols, rows = level.size
        out[POINT, :rows, :cols] = 1
        for x, y in level.anchors:
            out[ANCHOR, y, x] = 1

    def tables(self, level: Level, shape: tuple[int, int, int]) -> tuple:
        """The flat index of every anchor in plane 0 (add ``plane * H * W``), and per board
        the flat indices of its layer's plane at the lattice points it covers and of the
        hole plane at its holes."""
        cols, rows = level.size
        anchors = np.array(
            [np.ravel_multi_index((0, y, x), shape) for x, y in level.anchors], dtype=np.intp
        )
        boards = []
        for b, board in enumerate(level.boards):
            seg, radius = level.segment(b), level.radius(b)
            plane = FIRST_LAYER + board.layer
            idx = [
                int(np.ravel_multi_index((plane, y, x), shape))
                for y in range(rows)
                for x in range(cols)
                if G.covers(seg, radius, (x, y))
            ]
            idx += [int(anchors[a]) + HOLE * shape[1] * shape[2] for a in board.holes]
            boards.append(np.array(idx, dtype=np.intp))
        return anchors, tuple(boards)

    def dynamic(self, level: Level, state: State, ui: Any, out: np.ndarray) -> None:
        anchors, boards = self.table(level, out.shape)
        plane = out.shape[1] * out.shape[2]
        flat = out.reshape(-1)
        flat[anchors[list(bits(state.occupied))] + SCREW * plane] = 1
        flat[anchors[list(bits(rules.available(level, state)))] + FREE * plane] = 1
        remaining = [boards[b] for b in bits(state.remaining)]
        if remaining:
            flat[np.concatenate(remaining)] = 1
        if ui is not None:
            flat[anchors[ui] + SELECTED * plane] = 1


PLANES = BoltUnscrewPlanes()
