"""Tiny Lamps read from the pixels: the lamps are the discs of the two lamp colours on the
board panel, left to right; a move is a click on a lamp's centre."""

from __future__ import annotations

from typing import Any

import numpy as np

from puzzlegym.vision.pixels import ReadError, boxes, check_frame, click, pack, panel_box, pixel
from puzzlegym.vision.reader import Reading

from . import rules
from .colours import DARK, LIT

MIN_DISC = 50  # pixels of a lamp's disc, at least


class LampsReader:
    game = "TinyLamps"

    def read(self, frame: np.ndarray, tier: str) -> Reading:
        frame = check_frame(frame, "tiny lamps")
        x0, y0, x1, y1 = panel_box(pack(frame), "tiny lamps")
        panel = frame[y0:y1, x0:x1]
        mask = np.all(panel == LIT, axis=-1) | np.all(panel == DARK, axis=-1)
        discs = sorted(boxes(mask, MIN_DISC), key=lambda b: b.x0)
        if not rules.MIN_LAMPS <= len(discs) <= rules.MAX_LAMPS:
            raise ReadError(f"tiny lamps: expected 3..7 lamps, saw {len(discs)}")
        lit, centres = 0, []
        for i, disc in enumerate(discs):
            x, y = disc.center[0] + x0, disc.center[1] + y0
            if pixel(frame, x, y) == LIT:
                lit |= 1 << i
            centres.append((x, y))
        lamps = "".join("*" if lit >> i & 1 else "." for i in range(len(discs)))
        return Reading(rules.Level("seen", tier, lamps), rules.State(lit), tuple(centres))

    def actions(self, reading: Reading, move: Any) -> list[dict]:
        n = len(reading.geometry)
        if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move < n:
            raise ValueError(f"move: expected a lamp index 0..{n - 1}, got {move!r}")
        return [click(*reading.geometry[move])]

    def public(self, level: Any, state: Any) -> tuple[int, int]:
        """The row's length and its lit lamps: all the screen shows (not how the level
        started)."""
        return level.n, state.lit


READER = LampsReader()
