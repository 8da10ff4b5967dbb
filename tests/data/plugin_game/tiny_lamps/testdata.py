"""What puzzlegym's shared tests need of Tiny Lamps (every game package has this module)."""

from __future__ import annotations

# per tier: (the game's own planes, level bits, then BoardObservation's (C, H, W))
BOARD_SHAPES = {"Easy": (2, 2, 9, 1, 5)}
# per tier: how many training levels the splits test draws
SPLIT_SAMPLES = {"Easy": 20}


def symmetric_copy(doc: dict, rng) -> dict:
    """A level document that plays the same as ``doc``: the row read from the other end."""
    lamps = doc["lamps"] if rng.random() < 0.5 else doc["lamps"][::-1]
    return {**doc, "lamps": lamps}
