"""Tiny Lamps' generator: a seeded row of lamps the solver can light."""

from __future__ import annotations

import random

from puzzlegym.solvers.types import Unsolvable

from .rules import MAX_LAMPS, MIN_LAMPS, Level
from .solver import solve


def generate(tier: str, seed: int) -> Level:
    rng = random.Random(f"tiny-lamps/{tier}/{seed}")
    while True:
        n = rng.randint(MIN_LAMPS, MAX_LAMPS)
        lamps = "".join(rng.choice("*.") for _ in range(n))
        level = Level(f"lamps-{tier.lower()}-seed{seed}", tier, lamps)
        if "." not in lamps:
            continue
        try:
            solve(level)
        except Unsolvable:
            continue
        return level
