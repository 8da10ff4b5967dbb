"""What puzzlegym's shared tests need of Nut and Bolt (every game package has this module):
the board observation's shape per tier, how many training levels the splits test draws, and
a symmetric copy of a level document."""

from __future__ import annotations

import random

# per tier: (the game's own planes, level bits, then BoardObservation's (C, H, W))
BOARD_SHAPES = {
    "Easy": (7, 2, 15, 4, 6),
    "Medium": (10, 2, 18, 4, 9),
    "Hard": (14, 2, 22, 6, 13),
    "Extreme": (17, 2, 25, 5, 16),
    "Nightmare": (12, 1, 19, 8, 11),
}
# per tier: how many training levels the splits test draws
SPLIT_SAMPLES = {"Easy": 200, "Medium": 20, "Hard": 3, "Extreme": 2, "Nightmare": 2}


def symmetric_copy(doc: dict, rng: random.Random) -> dict:
    """A level document that plays the same as ``doc``: turned, mirrored, re-listed or
    re-coloured as the game allows (the shared tests check that its hash is the original's)."""
    colours = sorted({n for bolt in doc["bolts"] for n in bolt})
    renamed = dict(zip(colours, rng.sample(colours, len(colours)), strict=True))
    bolts = [[renamed[n] for n in bolt] for bolt in doc["bolts"]]
    rng.shuffle(bolts)
    return {**doc, "bolts": bolts}
