"""What puzzlegym's shared tests need of Maze Paint (every game package has this module):
the board observation's shape per tier, how many training levels the splits test draws, and
a symmetric copy of a level document."""

from __future__ import annotations

import random

# per tier: (the game's own planes, level bits, then BoardObservation's (C, H, W))
BOARD_SHAPES = {"Easy": (4, 4, 13, 8, 8), "Medium": (4, 4, 13, 10, 10), "Hard": (4, 4, 13, 12, 12)}
# per tier: how many training levels the splits test draws
SPLIT_SAMPLES = {"Easy": 200, "Medium": 60, "Hard": 20}


def _turn(rows: list[str]) -> list[str]:
    """The rows turned a quarter clockwise."""
    return ["".join(column) for column in zip(*rows[::-1], strict=True)]


def symmetric_copy(doc: dict, rng: random.Random) -> dict:
    """A level document that plays the same as ``doc``: turned, mirrored, re-listed or
    re-coloured as the game allows (the shared tests check that its hash is the original's)."""
    grid, (r, c) = doc["grid"], doc["start"]
    for _ in range(rng.randrange(4)):
        r, c = c, len(grid) - 1 - r
        grid = _turn(grid)
    if rng.random() < 0.5:
        grid, c = [row[::-1] for row in grid], len(grid[0]) - 1 - c
    return {**doc, "grid": grid, "start": [r, c]}
