"""What puzzlegym's shared tests need of Rush Hour (every game package has this module):
the board observation's shape per tier, how many training levels the splits test draws, and
a symmetric copy of a level document."""

from __future__ import annotations

import random

# per tier: (the game's own planes, level bits, then BoardObservation's (C, H, W))
BOARD_SHAPES = {"Easy": (8, 4, 17, 6, 6), "Medium": (8, 4, 17, 6, 6), "Hard": (8, 4, 17, 6, 6)}
# per tier: how many training levels the splits test draws
SPLIT_SAMPLES = {"Easy": 20, "Medium": 3, "Hard": 2}


def symmetric_copy(doc: dict, rng: random.Random) -> dict:
    """A level document that plays the same as ``doc``: turned, mirrored, re-listed or
    re-coloured as the game allows (the shared tests check that its hash is the original's)."""
    h = doc["height"]
    vehicles, walls = [dict(v) for v in doc["vehicles"]], [list(w) for w in doc.get("walls", [])]
    if rng.random() < 0.5:  # top to bottom: the exit moves with the target car
        for v in vehicles:
            v["row"] = h - 1 - v["row"] if v["axis"] == "horizontal" else h - v["row"] - v["length"]
        walls = [[h - 1 - r, c] for r, c in walls]
    rest = vehicles[1:]
    rng.shuffle(rest)
    rng.shuffle(walls)
    return {**doc, "vehicles": vehicles[:1] + rest, "walls": walls}
