"""What puzzlegym's shared tests need of Truck Escape (every game package has this module):
the board observation's shape per tier, how many training levels the splits test draws, and
a symmetric copy of a level document."""

from __future__ import annotations

import random

# per tier: (the game's own planes, level bits, then BoardObservation's (C, H, W))
BOARD_SHAPES = {"Default": (7, 3, 15, 10, 10)}
# per tier: how many training levels the splits test draws
SPLIT_SAMPLES = {"Default": 20}


TURN = {"up": "right", "right": "down", "down": "left", "left": "up"}  # a quarter turn
MIRROR = {"left": "right", "right": "left", "up": "up", "down": "down"}  # left to right


def symmetric_copy(doc: dict, rng: random.Random) -> dict:
    """A level document that plays the same as ``doc``: turned, mirrored, re-listed or
    re-coloured as the game allows (the shared tests check that its hash is the original's)."""
    rows, cols, trucks = doc["rows"], doc["cols"], [dict(t) for t in doc["trucks"]]
    for _ in range(rng.randrange(4)):
        for t in trucks:
            r, c = t["cab"]
            t["cab"], t["facing"] = [c, rows - 1 - r], TURN[t["facing"]]
        rows, cols = cols, rows
    if rng.random() < 0.5:
        for t in trucks:
            t["cab"], t["facing"] = [t["cab"][0], cols - 1 - t["cab"][1]], MIRROR[t["facing"]]
    rng.shuffle(trucks)
    return {**doc, "rows": rows, "cols": cols, "trucks": trucks}
