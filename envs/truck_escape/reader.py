"""Truck Escape read from the pixels: the lot's grid, every truck still on it (its cells, its
cab and where it faces), and a departure performed as a click on the truck's cab.

The lot's parking cells (colours of ``docs/gallery.md``) are outlined by lines that give the
cell size. A truck is a run of cells of one palette colour (its cargo box in the colour, its
cab the colour at 78 %); trucks that touch never share a colour, so same-coloured
neighbouring cells are one truck. The cab is the cell with the light-blue windshield, which
sits at the cab's nose: the truck faces from its tail towards its cab (a one-cell truck
towards its windshield).
"""

from __future__ import annotations

import numpy as np

from puzzlegym.screen.palette import PALETTE
from puzzlegym.vision.pixels import (
    Grid,
    ReadError,
    cell_groups,
    click,
    code,
    is_colour,
    measure_grid,
    pack,
)
from puzzlegym.vision.reader import Reading

from . import rules

__all__ = ["READER", "ReadError", "TruckEscapeReader"]

CELL = (92, 99, 113)  # #5c6371, a parking cell
CELL_LINE = (76, 82, 95)  # #4c525f, the lines between cells
WINDSHIELD = (196, 228, 246)  # #c4e4f6
CAB_SHADE = 0.78  # a cab is its truck's colour at this brightness
OCCUPIED = 0.08  # share of a cell in one truck colour that makes it a truck's cell
GLASS = 0.02  # share of a cell in windshield colour that makes it a cab


# every truck colour, as a body and as a cab, packed into one integer, sorted; and its index
_KEYS = sorted(
    (code(rgb), k)
    for k, c in enumerate(PALETTE)
    for rgb in (c.rgb, tuple(int(v * CAB_SHADE) for v in c.rgb))
)
_SORTED = np.array([key for key, _ in _KEYS], np.int32)
_INDEX = np.array([k for _, k in _KEYS], np.int16)


def _colour_index(frame: np.ndarray) -> np.ndarray:
    """Each pixel's palette colour (its index in PALETTE) as a body or a cab, else -1."""
    keys = pack(frame)
    at = np.minimum(np.searchsorted(_SORTED, keys), len(_SORTED) - 1)
    return np.where(_SORTED[at] == keys, _INDEX[at], -1).astype(np.int16)


def measure(frame: np.ndarray) -> Grid:
    return measure_grid(
        frame,
        "truck escape",
        (CELL, CELL_LINE),
        0,
        (CELL,),
        CELL_LINE,
        range(rules.MIN_SIZE, rules.MAX_SIZE + 1),
    )


class TruckEscapeReader:
    game = "TruckEscape"

    def read(self, frame: np.ndarray, tier: str) -> Reading:
        g = measure(frame)
        rows, cols = g.rows, g.cols
        area = g.cell * g.cell
        index_all = _colour_index(frame[g.y0 : g.y0 + rows * g.cell, g.x0 : g.x0 + cols * g.cell])
        colours: dict[tuple[int, int], int] = {}
        glass: dict[tuple[int, int], tuple[float, float]] = {}
        for r in range(rows):
            for c in range(cols):
                x, y = g.corner(r, c)
                part = frame[y : y + g.cell, x : x + g.cell]
                index = index_all[r * g.cell : (r + 1) * g.cell, c * g.cell : (c + 1) * g.cell]
                counts = np.bincount(index[index >= 0].ravel(), minlength=len(PALETTE))
                k = int(counts.argmax())
                if counts[k] < OCCUPIED * area:
                    continue
                colours[(r, c)] = k
                wy, wx = np.nonzero(is_colour(part, WINDSHIELD))
                if wy.size >= GLASS * area:
                    glass[(r, c)] = (float(wx.mean()) - g.cell / 2, float(wy.mean()) - g.cell / 2)
        # trucks that touch never share a colour: a run of one colour is one truck
        groups = cell_groups(colours, lambda a, b: colours[a] == colours[b])
        trucks = [_truck(group, glass) for group in groups]
        level = rules.Level(id="seen", tier=tier, rows=rows, cols=cols, trucks=tuple(trucks))
        return Reading(level, rules.initial_state(level), g)

    def actions(self, reading: Reading, move: int) -> list[dict]:
        truck = reading.level.trucks[move]
        return [click(*reading.geometry.center(truck.row, truck.col))]

    def public(self, level, state):
        remaining = frozenset(t for i, t in enumerate(level.trucks) if state.remaining >> i & 1)
        return level.rows, level.cols, remaining


def _truck(cells: list[tuple[int, int]], glass: dict) -> rules.Truck:
    """The truck on ``cells`` (one colour, connected), its cab the cell with a windshield."""
    cabs = [cell for cell in cells if cell in glass]
    if len(cabs) != 1 or len(cells) > rules.MAX_LENGTH:
        raise ReadError(f"truck escape: the truck on cells {cells} shows {len(cabs)} windshields")
    ((r, c),) = cabs
    if len(cells) == 1:
        dx, dy = glass[(r, c)]
        facing = (
            ("right" if dx > 0 else "left") if abs(dx) > abs(dy) else ("down" if dy > 0 else "up")
        )
    else:
        behind = next(
            (name for name, (dr, dc) in rules.DELTAS.items() if (r - dr, c - dc) in cells), None
        )
        if behind is None:
            raise ReadError(
                f"truck escape: the cab at [{r}, {c}] is not at an end of cells {cells}"
            )
        facing = behind
    truck = rules.Truck(r, c, facing, len(cells))
    if sorted(truck.cells) != cells:
        raise ReadError(f"truck escape: cells {cells} are not one straight truck")
    return truck


READER = TruckEscapeReader()
