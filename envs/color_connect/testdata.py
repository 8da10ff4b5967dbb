"""What puzzlegym's shared tests need of Color Connect (every game package has this module):
the board observation's shape per tier, how many training levels the splits test draws, and
a symmetric copy of a level document."""

from __future__ import annotations

import random

# per tier: (the game's own planes, level bits, then BoardObservation's (C, H, W))
BOARD_SHAPES = {"Easy": (14, 4, 23, 7, 7), "Hard": (21, 4, 30, 12, 12)}
# per tier: how many training levels the splits test draws
SPLIT_SAMPLES = {"Easy": 40, "Hard": 3}


def _turn(rows: list[str]) -> list[str]:
    """The rows turned a quarter clockwise."""
    return ["".join(column) for column in zip(*rows[::-1], strict=True)]


def symmetric_copy(doc: dict, rng: random.Random) -> dict:
    """A level document that plays the same as ``doc``: turned, mirrored, re-listed or
    re-coloured as the game allows (the shared tests check that its hash is the original's)."""
    grid = doc["grid"]
    for _ in range(rng.randrange(4)):
        grid = _turn(grid)
    if rng.random() < 0.5:
        grid = [row[::-1] for row in grid]
    letters = sorted({ch for row in grid for ch in row if ch.isalpha()})
    renamed = dict(zip(letters, rng.sample(letters, len(letters)), strict=True))
    return {**doc, "grid": ["".join(renamed.get(ch, ch) for ch in row) for row in grid]}
