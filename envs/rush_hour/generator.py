"""Seeded Rush Hour level generator and the catalogue builder.

Levels are made the way databases of hard positions are built: from whole connected state
clusters. A *cluster* is every state reachable from a placement of vehicles (moves are
reversible, so every state of a cluster reaches every other). For a candidate placement the
generator

1. places the target car in the exit row (row 2 of the 6×6 board), then walls and vehicles at
   random free places (no horizontal vehicle in the exit row, no wall in it);
2. enumerates the placement's whole cluster and runs one multi-source breadth-first search from
   its solved states (``puzzlegym.envs.rush_hour.solver.cluster_table``), which gives every
   state's exact distance to the goal;
3. takes the cluster's farthest-from-goal state as the level (on ties, the one whose board
   sorts first, so a cluster always yields the same level whatever placement found it).

Hard levels need more moves than random placements usually give, so for Hard the generator
climbs: it changes the vehicle set of the current farthest state (removes, adds or swaps one
vehicle), enumerates the new cluster, and keeps the change when the cluster's farthest distance
does not fall, until the distance reaches the wanted band. Every candidate is still judged by
its whole cluster.

All randomness comes from one ``random.Random`` seeded from the tier and seed, so
``generate(tier, seed)`` is deterministic. ``build_catalogue`` fills each tier's ten slots in
order (slot ``k`` from seed ``k``, moving on by 1000 when the level repeats an earlier one);
``python -m puzzlegym.envs.rush_hour.generator --write`` rebuilds ``levels/*.json`` and
``--check`` verifies the committed files are exactly what it builds (a few minutes; the tests
check the stored solver results instead, see ``tests/test_rush_hour_catalogue.py``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_count, is_int
from puzzlegym.game.catalogue import generator_main

from .catalogue import CATALOGUE
from .rules import TIERS, Level, State, Vehicle

SIZE = 6
EXIT_ROW = 2
NO_LIMIT = 99


@dataclass(frozen=True)
class TierSpec:
    band: tuple[int, int]  # inclusive range of optimal move counts of the tier's levels
    vehicles: tuple[int, int]  # inclusive range of vehicles placed (target car included)
    truck_share: float  # chance that a placed vehicle is a truck
    walls: tuple[int, int]  # inclusive range of fixed walls
    climb_steps: int  # vehicle-set changes tried per candidate (0: plain random placements)
    max_states: int  # clusters larger than this are skipped (keeps generation quick)
    profile: tuple[tuple[int, int], ...]  # the catalogue's slots: (least, most) optimal moves


TIER_SPECS: dict[str, TierSpec] = {
    "Easy": TierSpec(
        band=(3, 8),
        vehicles=(5, 8),
        truck_share=0.25,
        walls=(0, 0),
        climb_steps=0,
        max_states=20_000,
        profile=((3, 3), (4, 4), (4, 4), (5, 5), (5, 5), (6, 6), (6, 6), (7, 7), (8, 8), (8, 8)),
    ),
    "Medium": TierSpec(
        band=(9, 16),
        vehicles=(9, 13),
        truck_share=0.3,
        walls=(0, 1),
        climb_steps=0,
        max_states=20_000,
        profile=(
            (9, 9),
            (10, 10),
            (11, 11),
            (12, 12),
            (12, 12),
            (13, 13),
            (14, 14),
            (14, 14),
            (15, 15),
            (16, 16),
        ),
    ),
    "Hard": TierSpec(
        band=(17, NO_LIMIT),
        vehicles=(11, 14),
        truck_share=0.3,
        walls=(0, 2),
        climb_steps=60,
        max_states=20_000,
        profile=(
            (17, 18),
            (19, 20),
            (21, 22),
            (23, 24),
            (25, 26),
            (27, 28),
            (29, 30),
            (30, 34),
            (31, 38),
            (33, 45),
        ),
    ),
}
CATALOGUE_SIZE = 10
MAX_ATTEMPTS = 20_000
PLACE_TRIES = 60


def _spec(tier: str) -> TierSpec:
    if tier not in TIER_SPECS:
        raise ConfigError(f"tier: expected one of {', '.join(TIERS)}, got {shown(tier)}")
    return TIER_SPECS[tier]


def _rng(tier: str, seed: int) -> random.Random:
    # A string seed is hashed with SHA-512 by random.Random: stable across runs and platforms.
    return random.Random(f"puzzlegym/RushHour/{tier}/{seed}")


def _cells(v: Vehicle) -> set[tuple[int, int]]:
    if v.horizontal:
        return {(v.row, v.col + k) for k in range(v.length)}
    return {(v.row + k, v.col) for k in range(v.length)}


def _random_vehicle(rng: random.Random, taken: set, truck_share: float) -> Vehicle | None:
    """A vehicle on free cells (never horizontal in the exit row), or None after some tries."""
    for _ in range(PLACE_TRIES):
        length = 3 if rng.random() < truck_share else 2
        if rng.random() < 0.5:
            row = rng.randrange(SIZE)
            if row == EXIT_ROW:
                continue
            v = Vehicle(row, rng.randrange(SIZE - length + 1), length, True)
        else:
            v = Vehicle(rng.randrange(SIZE - length + 1), rng.randrange(SIZE), length, False)
        if not _cells(v) & taken:
            return v
    return None


def _placement(
    rng: random.Random, spec: TierSpec
) -> tuple[list[Vehicle], tuple[tuple[int, int], ...]]:
    target = Vehicle(EXIT_ROW, rng.randrange(SIZE - 2), 2, True)
    taken = _cells(target)
    walls = []
    for _ in range(rng.randint(*spec.walls)):
        for _try in range(PLACE_TRIES):
            cell = (rng.randrange(SIZE), rng.randrange(SIZE))
            if cell[0] != EXIT_ROW and cell not in taken:
                walls.append(cell)
                taken.add(cell)
                break
    vehicles = [target]
    for _ in range(rng.randint(*spec.vehicles) - 1):
        v = _random_vehicle(rng, taken, spec.truck_share)
        if v is None:
            break
        vehicles.append(v)
        taken |= _cells(v)
    return vehicles, tuple(sorted(walls))


def _board_key(level: Level, state: State) -> tuple:
    """A key of the board a state shows that does not depend on the vehicles' order."""
    return tuple(
        sorted(
            (*level.cells(i, p)[0], v.length, v.horizontal)
            for i, (v, p) in enumerate(zip(level.vehicles, state.positions, strict=True))
        )
    )


def _canonical(level: Level, state: State, id: str, tier: str) -> Level:
    """The level showing ``state``: target car first, the other vehicles by top-left cell."""
    moved = [
        Vehicle(*level.cells(i, p)[0], v.length, v.horizontal)
        for i, (v, p) in enumerate(zip(level.vehicles, state.positions, strict=True))
    ]
    others = sorted(moved[1:], key=lambda v: (v.row, v.col))
    return Level(id, tier, level.width, level.height, (moved[0], *others), level.walls)


def farthest_level(
    level: Level, id: str, tier: str, max_states: int | None = None
) -> tuple[Level, int, int] | None:
    """The farthest-from-goal level of ``level``'s cluster: ``(level, optimal moves, cluster
    states)``, or None when the cluster has no solved state or more than ``max_states``."""
    from .solver import (
        MAX_CLUSTER_STATES,
        SearchLimitReached,
        cluster_table,
        packer,
    )

    try:
        table = cluster_table(level, max_states=max_states or MAX_CLUSTER_STATES)
    except SearchLimitReached:
        return None
    if not table.solvable:
        return None
    best = table.farthest_distance()
    packed = packer(level)
    states = [State(packed.decode(k)) for k, d in table.distances.items() if d == best]
    state = min(states, key=lambda s: _board_key(level, s))
    return _canonical(level, state, id, tier), best, table.n_states


def _evaluate(
    vehicles: list[Vehicle], walls: tuple, tier: str, spec: TierSpec
) -> tuple[Level, int, int] | None:
    level = Level("candidate", tier, SIZE, SIZE, tuple(vehicles), walls)
    return farthest_level(level, "candidate", tier, spec.max_states)


def _change(rng: random.Random, level: Level, spec: TierSpec) -> list[Vehicle] | None:
    """The vehicles of ``level`` with one vehicle removed, added, or swapped for another."""
    vehicles = list(level.vehicles)
    taken = set(level.walls)
    for v in vehicles:
        taken |= _cells(v)
    roll = rng.random()
    if roll < 0.7 and len(vehicles) > 2:
        gone = vehicles.pop(rng.randrange(1, len(vehicles)))
        taken -= _cells(gone)
        if roll < 0.35:
            return vehicles
    added = _random_vehicle(rng, taken, spec.truck_share)
    if added is None:
        return None
    return [*vehicles, added]


def generate(tier: str, seed: int, *, moves: tuple[int, int] | None = None) -> Level:
    """A level of ``tier`` for ``seed`` (deterministic): the farthest-from-goal state of a
    cluster whose farthest distance is in the tier's band (in ``moves``, inclusive, if given).
    Its id is ``rush-<tier>-seed<seed>``."""
    spec = _spec(tier)
    check_count(seed, "seed", None, None, ConfigError)
    lo, hi = spec.band
    if moves is not None:
        if (
            not isinstance(moves, tuple | list)
            or len(moves) != 2
            or not all(is_int(m) for m in moves)
            or not lo <= moves[0] <= moves[1] <= hi
        ):
            raise ConfigError(
                f"moves: expected a range inside {lo}..{hi} for tier {tier}, got {shown(moves)}"
            )
        lo, hi = moves
    return _search(tier, seed, spec, lo, hi)[0]


def _search(tier: str, seed: int, spec: TierSpec, lo: int, hi: int) -> tuple[Level, int, int]:
    rng = _rng(tier, seed)
    for _attempt in range(MAX_ATTEMPTS):
        vehicles, walls = _placement(rng, spec)
        found = _evaluate(vehicles, walls, tier, spec)
        for _step in range(spec.climb_steps):
            if found is not None and found[1] >= lo:
                break
            base = (
                found[0]
                if found is not None
                else Level("candidate", tier, SIZE, SIZE, tuple(vehicles), walls)
            )
            changed = _change(rng, base, spec)
            if changed is None:
                continue
            better = _evaluate(changed, walls, tier, spec)
            if better is not None and (found is None or better[1] >= found[1]):
                found = better
        if found is not None and lo <= found[1] <= hi:
            level, n, states = found
            level = Level(
                f"rush-{tier.lower()}-seed{seed}",
                tier,
                level.width,
                level.height,
                level.vehicles,
                level.walls,
            )
            level.validate()
            return level, n, states
    raise RuntimeError(
        f"no {tier} level with {lo}..{hi} moves found for seed {seed} in {MAX_ATTEMPTS} attempts"
    )


def build_catalogue(tier: str, log=None) -> list[tuple[Level, dict]]:
    """The canonical levels of ``tier`` with their metadata, in catalogue order (optimal move
    count rising). Slot ``k`` of the tier's profile gets ``generate(tier, seed=k,
    moves=profile[k])`` (seed + 1000 while the level repeats an earlier one)."""
    from .solver import solve

    spec = _spec(tier)
    found: list[tuple[Level, int, int, int]] = []
    seen = set()
    for k, window in enumerate(spec.profile):
        seed = k
        while True:
            level, n, states = _search(tier, seed, spec, *window)
            if (level.vehicles, level.walls) not in seen:
                break
            seed += 1000
        seen.add((level.vehicles, level.walls))
        found.append((level, n, states, seed))
        if log:
            log(
                f"  slot {k + 1}: seed {seed}, {level.n_vehicles} vehicles, "
                f"{len(level.walls)} walls, "
                f"{n} moves, cluster of {states} states"
            )
    found.sort(key=lambda item: item[1])
    out = []
    for i, (level, n, states, seed) in enumerate(found):
        level = Level(
            f"rush-{tier.lower()}-{i + 1:02d}",
            tier,
            level.width,
            level.height,
            level.vehicles,
            level.walls,
        )
        assert solve(level).length == n, (tier, seed, n)
        out.append((level, {"optimal_moves": n, "cluster_states": states, "seed": seed}))
    return out


def main(argv: list[str] | None = None) -> int:
    return generator_main(
        argv,
        game_title="Rush Hour",
        module="puzzlegym.envs.rush_hour.generator",
        catalogue=CATALOGUE,
        generate=generate,
        build=build_catalogue,
        summarize=lambda tier, entries: (
            "optimal moves " + ", ".join(str(m["optimal_moves"]) for _, m in entries)
        ),
    )


if __name__ == "__main__":
    raise SystemExit(main())
