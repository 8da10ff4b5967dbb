"""Nut and Bolt from the pixels: the bolts, their capacity, every stack bottom to top, and
the selected bolt with its lifted run.

What the frame shows (``docs/gallery.md``, Nut and Bolt): the bolts stand on the board panel in
one or two rows, each a rod over a dark base plate ``#585e6c``; nuts are hexagons of a
palette colour with the colour's letter, stacked bottom to top one nut height apart; a
selected bolt is outlined in blue ``#2e6fbc`` and its top run is lifted one nut above the
stack; a rod is as long as a full bolt's stack plus less than one nut.

The reader measures, per bolt, the base plate (the bolt's centre and its row), the nuts on a
vertical line through their left half (away from the letter and the rod: each nut is one run
of one palette colour there), and the rod's top. The nut height is the smallest spacing of
two neighbouring nuts; a nut's slot is its height above the base in nut heights, so a lifted
run shows as a skipped slot; the capacity is the rod's length in whole nut heights (checked
against the level's rule that every colour has exactly ``capacity`` nuts). Every nut's letter
is read (:func:`.text.read_letter`) and must be its colour's.

Every level state is readable: nothing on this screen is hidden, so :meth:`public` is the
whole board (capacity and stacks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlegym.base.errors import LevelError
from puzzlegym.screen.palette import PIECES
from puzzlegym.vision.pixels import ReadError, check_frame, click, code, pack, panel_box, runs
from puzzlegym.vision.reader import Reading, check_pair
from puzzlegym.vision.text import read_letter

from . import rules

__all__ = ["READER", "BoltGeometry", "NutAndBoltReader"]

GAME = "NutAndBolt"
BASE = code((88, 94, 108))  # a bolt's base plate
ROD = (code((150, 155, 165)), code((95, 100, 110)))  # a rod's face and edge
SELECT = code((46, 111, 188))  # the outline of the selected bolt
NUT_CODES = {code(c.rgb): k for k, c in enumerate(PIECES)}
MIN_PLATE = 20  # px: narrower runs of the base colour are not base plates
MIN_NUT_RUN = 4  # px: a nut's fill on the scan line is at least this tall


@dataclass(frozen=True)
class BoltGeometry:
    """What the reader measured: per bolt (in bolt order) the pixel a click selects it at,
    the nut height in pixels, and the selected bolt (None when no bolt is selected)."""

    centres: tuple[tuple[int, int], ...]
    nut_height: int
    selected: int | None


@dataclass(frozen=True)
class _Bolt:
    cx: float
    base_y: int  # the base plate's top row
    width: int  # the base plate's width
    top: int  # the highest row of the bolt's own space (the row above, or the panel)
    band: int


class NutAndBoltReader:
    """The Nut and Bolt reader (see the module docstring)."""

    game = GAME

    def read(self, frame: np.ndarray, tier: str) -> Reading:
        frame = check_frame(frame, GAME)
        codes = pack(frame)
        px0, py0, px1, py1 = panel_box(codes, GAME)
        bolts = self._bolts(codes, px0, py0, px1, py1)
        nuts = [self._nuts(codes, b) for b in bolts]
        spacings = [
            lo - hi
            for stack in nuts
            for (lo, _, _), (hi, _, _) in zip(stack, stack[1:], strict=False)
        ]
        if not spacings:
            raise ReadError(
                f"{GAME}: no two nuts stacked on one bolt: the nut height cannot be measured"
            )
        least = min(spacings)
        h = int(round(float(np.median([s for s in spacings if s < 1.5 * least]))))
        selected = self._selected(codes, bolts, px0, py0, px1, py1)
        stacks = []
        for i, (bolt, stack) in enumerate(zip(bolts, nuts, strict=True)):
            slots = [round((bolt.base_y - 1 - bottom) / h) for bottom, _, _ in stack]
            lifted = _lifted(slots)
            if lifted is None:
                raise ReadError(
                    f"{GAME}: bolt {i} at x={bolt.cx:.0f}: nuts at slots {slots} are not one stack"
                )
            colours = tuple(k for _, _, k in stack)
            if lifted and selected != i:
                raise ReadError(
                    f"{GAME}: bolt {i} at x={bolt.cx:.0f} has a lifted run but no selection outline"
                )
            if selected == i and lifted != rules.top_run(colours):
                raise ReadError(
                    f"{GAME}: bolt {i} is selected but {lifted} nuts are lifted, not its top run"
                )
            for bottom, top, k in stack:
                mid = (bottom + top) // 2
                r = int(0.35 * h)
                box = (int(bolt.cx) - r, mid - r, int(bolt.cx) + r + 1, mid + r + 1)
                letter = read_letter(frame, box, PIECES[k].rgb)
                if letter != PIECES[k].letter:
                    raise ReadError(
                        f"{GAME}: the {PIECES[k].name} nut at ({bolt.cx:.0f}, {mid}) shows the "
                        f"letter {letter!r}, not {PIECES[k].letter!r}"
                    )
            stacks.append(colours)
        capacity = self._capacity(codes, bolts, h, selected)
        state = rules.State(tuple(stacks))
        level = rules.Level("read", tier, capacity, state.bolts)
        try:
            level.validate()
        except LevelError as exc:
            raise ReadError(f"{GAME}: the board read is not a level: {exc}") from None
        centres = tuple((int(round(b.cx)), int(b.base_y - capacity * h // 2)) for b in bolts)
        return Reading(level, state, BoltGeometry(centres, h, selected))

    # -- measuring ------------------------------------------------------------------------
    def _bolts(self, codes: np.ndarray, px0: int, py0: int, px1: int, py1: int) -> list[_Bolt]:
        base = codes[py0:py1, px0:px1] == BASE
        out: list[_Bolt] = []
        top = py0
        for band, (ya, yb) in enumerate(r for r in runs(base.any(axis=1)) if r[1] - r[0] >= 3):
            row = base[(ya + yb) // 2]
            for xa, xb in runs(row):
                if xb - xa >= MIN_PLATE:
                    out.append(_Bolt(px0 + (xa + xb - 1) / 2, py0 + ya, xb - xa, top, band))
            top = py0 + yb
        if len(out) < 2:
            raise ReadError(
                f"{GAME}: found {len(out)} bolt base plates on the panel, expected 2 or more"
            )
        return out

    def _nuts(self, codes: np.ndarray, bolt: _Bolt) -> list[tuple[int, int, int]]:
        """The nuts of one bolt, bottom first: (bottom row, top row, colour)."""
        x = int(round(bolt.cx - 0.25 * bolt.width))
        line = codes[bolt.top : bolt.base_y, x]
        colour = np.array([NUT_CODES.get(int(c), -1) for c in line])
        out = []
        for k in sorted(set(colour.tolist()) - {-1}):
            for a, b in runs(colour == k):
                if b - a >= MIN_NUT_RUN:
                    out.append((bolt.top + b - 1, bolt.top + a, k))
        out.sort(reverse=True)
        return out

    def _selected(self, codes, bolts: list[_Bolt], px0, py0, px1, py1) -> int | None:
        mask = codes[py0:py1, px0:px1] == SELECT
        ys, xs = np.nonzero(mask)
        if not len(xs):
            return None
        box = (px0 + xs.mean(), py0 + ys.max())
        # the outline surrounds one bolt: the one whose plate is nearest its centre, in its row
        return min(
            range(len(bolts)),
            key=lambda i: (abs(bolts[i].base_y - box[1]), abs(bolts[i].cx - box[0])),
        )

    def _capacity(self, codes, bolts: list[_Bolt], h: int, selected: int | None) -> int:
        caps = set()
        for i, bolt in enumerate(bolts):
            if i == selected:
                continue  # a lifted run may cover the rod's top
            line = codes[bolt.top : bolt.base_y, int(round(bolt.cx))]
            rod = np.flatnonzero(np.isin(line, ROD))
            if not len(rod):
                raise ReadError(f"{GAME}: bolt {i} at x={bolt.cx:.0f}: no rod above the base plate")
            caps.add((bolt.base_y - (bolt.top + int(rod[0]))) // h)
        if len(caps) != 1:
            raise ReadError(f"{GAME}: the rods measure different capacities {sorted(caps)}")
        return caps.pop()

    # -- acting ---------------------------------------------------------------------------
    def actions(self, reading: Reading, move: Any) -> list[dict]:
        """Clicks performing the transfer ``move`` = (source, destination): deselect a
        different selected bolt first, select the source unless it is selected, then click
        the destination."""
        geo: BoltGeometry = reading.geometry
        n = len(geo.centres)
        check_pair(move, n, "(source, destination) bolt")
        src, dst = move
        out = []
        if geo.selected is not None and geo.selected != src:
            out.append(click(*geo.centres[geo.selected]))
        if geo.selected != src:
            out.append(click(*geo.centres[src]))
        out.append(click(*geo.centres[dst]))
        return out

    def public(self, level: Any, state: Any) -> Any:
        """The whole board: ``(capacity, stacks bottom to top)`` (nothing is hidden)."""
        return (level.capacity, tuple(tuple(b) for b in state.bolts))


def _lifted(slots: list[int]) -> int | None:
    """How many top nuts are lifted given their slots (0, 1, ..., then one slot skipped),
    or None when the slots are no stack."""
    n = len(slots)
    for lifted in range(n + 1):
        if slots == list(range(n - lifted)) + list(range(n - lifted + 1, n + 1)):
            return lifted
    return None


READER = NutAndBoltReader()
