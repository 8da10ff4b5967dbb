"""What puzzlegym's shared tests need of Bolt Unscrew (every game package has this module):
the board observation's shape per tier, how many training levels the splits test draws, and
a symmetric copy of a level document."""

from __future__ import annotations

import random

# per tier: (the game's own planes, level bits, then BoardObservation's (C, H, W))
BOARD_SHAPES = {"Easy": (9, 3, 17, 5, 6), "Hard": (10, 3, 18, 6, 9)}
# per tier: how many training levels the splits test draws
SPLIT_SAMPLES = {"Easy": 30, "Hard": 3}


def symmetric_copy(doc: dict, rng: random.Random) -> dict:
    """A level document that plays the same as ``doc``: turned, mirrored, re-listed or
    re-coloured as the game allows (the shared tests check that its hash is the original's)."""
    (w, h), points = doc["size"], [list(p) for p in doc["anchors"]]
    for _ in range(rng.randrange(4)):
        points = [[h - 1 - y, x] for x, y in points]  # clockwise on the lattice (y down)
        w, h = h, w
    if rng.random() < 0.5:
        points = [[w - 1 - x, y] for x, y in points]
    order = rng.sample(range(len(points)), len(points))  # new anchor i is old anchor order[i]
    new_index = {old: new for new, old in enumerate(order)}
    boards = []
    for bd in doc["boards"]:
        holes = [new_index[a] for a in bd["holes"]]
        boards.append({**bd, "holes": holes[::-1] if rng.random() < 0.5 else holes})
    rng.shuffle(boards)
    screws = [new_index[a] for a in doc["screws"]]
    rng.shuffle(screws)
    return {
        **doc,
        "size": [w, h],
        "anchors": [points[o] for o in order],
        "boards": boards,
        "screws": screws,
    }
