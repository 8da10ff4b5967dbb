"""Seeded Truck Escape level generator and the catalogue builder.

Levels are built backwards from an empty lot, so they can be cleared by construction: a truck
may only be parked where its own path to the edge is clear of the trucks parked before it.
Read in reverse, the parking order is then a departure order (the last truck parked has a
clear path; once it has left, so has the one before it, and so on), so the blocking graph has
no cycle. Depth comes from where new trucks go: a truck parked on the path of an earlier one
blocks it, and a candidate's weight grows with the longest chain of trucks it would extend
(``(1 + chain) ** DEPTH_POWER``), so chains of trucks waiting on trucks waiting on trucks grow.

``generate(tier, seed)`` is deterministic for ``(tier, seed)``: all randomness comes from one
``random.Random`` seeded from both. Each catalogue slot fixes the grid, the truck count and a
band for the longest blocking chain; a candidate is kept when it has exactly that many trucks,
its chain (from the solver) is in the band, no more than ``MAX_FREE_SHARE`` of its trucks can
leave at the start, and every heading occurs. Trucks are listed in reading order of their
cabs, so a truck's index says nothing about when it may leave.

Run ``python -m puzzlegym.envs.truck_escape.generator --write`` to rebuild
``levels/default.json`` (``--check`` compares instead of writing).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count
from puzzlegym.game.catalogue import generator_main

from .catalogue import CATALOGUE
from .rules import DELTAS, DIRECTIONS, TIERS, Level, Truck

MAX_ATTEMPTS = 2000
DEPTH_POWER = 3.0
LENGTH_WEIGHTS = (1, 4, 4)  # relative weight of 1-, 2- and 3-cell trucks among candidates
MAX_FREE_SHARE = 0.5


@dataclass(frozen=True)
class SlotSpec:
    rows: int
    cols: int
    trucks: int
    chain: tuple[int, int]  # inclusive band of the longest blocking chain


# the five Default levels: growing in size (8 to 40 trucks) and depth (chains 3 to 8+)
TIER_SPECS: dict[str, tuple[SlotSpec, ...]] = {
    "Default": (
        SlotSpec(6, 6, 8, (3, 3)),
        SlotSpec(7, 7, 15, (4, 4)),
        SlotSpec(8, 8, 23, (5, 5)),
        SlotSpec(9, 9, 31, (6, 7)),
        SlotSpec(10, 10, 40, (8, 12)),
    ),
}


def _slots(tier: str) -> tuple[SlotSpec, ...]:
    if tier not in TIER_SPECS:
        raise ConfigError(f"tier: expected one of {', '.join(TIERS)}, got {tier!r}")
    return TIER_SPECS[tier]


def _rng(tier: str, seed: int, slot: int) -> random.Random:
    # A string seed is hashed with SHA-512 by random.Random: stable across runs and platforms.
    return random.Random(f"puzzlegym/TruckEscape/{tier}/{slot}/{seed}")


def park(rng: random.Random, rows: int, cols: int, n: int) -> list[Truck]:
    """Park up to ``n`` trucks one at a time, each where its path to the edge is clear of the
    trucks parked before it (see the module docstring); returns them in parking order."""
    occupied: set[tuple[int, int]] = set()
    crossing: dict[tuple[int, int], list[int]] = {}  # cell -> parked trucks whose path crosses it
    trucks: list[Truck] = []
    chain: list[
        int
    ] = []  # per parked truck: the longest chain of trucks waiting on it, itself included
    for _ in range(n):
        candidates, weights = [], []
        for r in range(rows):
            for c in range(cols):
                if (r, c) in occupied:
                    continue
                for facing in DIRECTIONS:
                    dr, dc = DELTAS[facing]
                    rr, cc = r + dr, c + dc
                    clear = True
                    while 0 <= rr < rows and 0 <= cc < cols:
                        if (rr, cc) in occupied:
                            clear = False
                            break
                        rr, cc = rr + dr, cc + dc
                    if not clear:
                        continue
                    for length in (1, 2, 3):
                        cells = [(r - k * dr, c - k * dc) for k in range(length)]
                        tr, tc = cells[-1]
                        if not (0 <= tr < rows and 0 <= tc < cols) or (tr, tc) in occupied:
                            break
                        blocked = {i for cell in cells for i in crossing.get(cell, ())}
                        extends = max((chain[i] for i in blocked), default=0)
                        candidates.append((Truck(r, c, facing, length), cells, extends))
                        weights.append(LENGTH_WEIGHTS[length - 1] * (1 + extends) ** DEPTH_POWER)
        if not candidates:
            break
        truck, cells, extends = rng.choices(candidates, weights)[0]
        index = len(trucks)
        trucks.append(truck)
        chain.append(1 + extends)
        occupied.update(cells)
        for cell in truck.path(rows, cols):
            crossing.setdefault(cell, []).append(index)
    return trucks


def generate(tier: str, seed: int, *, slot: int | None = None) -> Level:
    """A solver-checked level of ``tier`` for ``seed`` (deterministic), sized like catalogue
    slot ``slot`` (default: ``seed`` modulo the number of slots, so the generated variants
    of an objective follow the catalogue's growth). Its id is ``truck-<tier>-seed<seed>``."""
    from .solver import rounds

    slots = _slots(tier)
    check_count(seed, "seed", None, None, ConfigError)
    if slot is None:
        slot = seed % len(slots)
    check_count(slot, "slot", 0, len(slots) - 1, ConfigError)
    spec = slots[slot]
    rng = _rng(tier, seed, slot)
    for _attempt in range(MAX_ATTEMPTS):
        trucks = park(rng, spec.rows, spec.cols, spec.trucks)
        if len(trucks) != spec.trucks or {t.facing for t in trucks} != set(DIRECTIONS):
            continue
        trucks.sort(key=lambda t: (t.row, t.col))
        level = Level(f"truck-{tier.lower()}-seed{seed}", tier, spec.rows, spec.cols, tuple(trucks))
        layers, stuck = rounds(level)
        if stuck:  # cannot happen (parked backwards); the solver checks it anyway
            raise AssertionError(f"{level.id}: generated a blocking cycle")
        if not spec.chain[0] <= len(layers) <= spec.chain[1]:
            continue
        if len(layers[0]) > MAX_FREE_SHARE * spec.trucks:
            continue
        level.validate()
        return level
    raise RuntimeError(
        f"no {tier} level found for seed {seed} (slot {slot}) in {MAX_ATTEMPTS} attempts"
    )


def build_catalogue(tier: str, log=None) -> list[tuple[Level, int]]:
    """The canonical levels of ``tier`` with their longest blocking chains: slot ``i`` is
    ``generate(tier, seed=i, slot=i)``, renamed ``truck-<tier>-<i+1>``."""
    from .solver import describe, longest_chain

    out = []
    for i in range(len(_slots(tier))):
        level = generate(tier, i, slot=i)
        level = Level(
            f"truck-{tier.lower()}-{i + 1:02d}", tier, level.rows, level.cols, level.trucks
        )
        chain = longest_chain(level)
        out.append((level, chain))
        if log:
            facts = describe(level)
            log(
                f"  {level.id}: {level.rows}x{level.cols}, {level.n_trucks} trucks, "
                f"longest blocking chain {chain}, {facts['free_at_start']} free at the start"
            )
    return out


def catalogue_document(tier: str, entries: list[tuple[Level, int]]) -> dict:
    return CATALOGUE.document(tier, ((level, {"longest_chain": chain}) for level, chain in entries))


def main(argv: list[str] | None = None) -> int:
    return generator_main(
        argv,
        game_title="Truck Escape",
        module="puzzlegym.envs.truck_escape.generator",
        catalogue=CATALOGUE,
        generate=generate,
        build=build_catalogue,
        document=catalogue_document,
        summarize=lambda tier, entries: (
            "trucks "
            + ", ".join(str(level.n_trucks) for level, _ in entries)
            + "; longest chains "
            + ", ".join(str(chain) for _, chain in entries)
        ),
    )


if __name__ == "__main__":
    raise SystemExit(main())
