"""Seeded Maze Paint level generator and the catalogue builder.

``generate(tier, seed)`` is deterministic for ``(tier, seed)``: all randomness comes from one
``random.Random`` seeded from both. It samples candidate mazes until one passes every check:

1. scatter walls over an interior of the tier's size (each cell a wall with a tier-dependent
   probability) and put the ball on a cell where a slide can stop;
2. turn floor cells that no slide can ever paint into walls, repeating until every floor cell
   is paintable (walls change slides, hence the loop), then crop to the floor's bounding box
   plus a one-cell wall border;
3. reject sparse boards, boards whose ball graph is not strongly connected, boards whose full
   state space exceeds a size cap (keeps the solver and tests fast), boards with any dead-end
   state, and boards whose optimal slide count (exact BFS) is outside the tier's band.

Run ``python -m puzzlegym.envs.maze_paint.generator --write`` to rebuild the canonical
catalogue in ``levels/{easy,medium,hard}.json`` (``--check`` compares instead of writing).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count
from puzzlegym.game.catalogue import generator_main

from .catalogue import CATALOGUE
from .rules import FLOOR_CHAR, TIERS, WALL_CHAR, Level


@dataclass(frozen=True)
class TierSpec:
    band: tuple[int, int]  # inclusive range of optimal slide counts
    rows: tuple[int, int]  # inclusive range of interior heights
    cols: tuple[int, int]  # inclusive range of interior widths
    wall_prob: tuple[float, float]  # range of the per-cell wall probability
    min_floor_frac: float  # least fraction of interior cells left as floor
    max_states: int  # cap on the reachable (ball, painted) state count
    profile: tuple[int, ...]  # optimal lengths of the 10 catalogue levels (sum = target total)


TIER_SPECS: dict[str, TierSpec] = {
    "Easy": TierSpec(
        band=(7, 12),
        rows=(5, 6),
        cols=(5, 6),
        wall_prob=(0.25, 0.35),
        min_floor_frac=0.45,
        max_states=20_000,
        profile=(7, 7, 8, 8, 9, 9, 9, 10, 10, 11),  # 88
    ),
    "Medium": TierSpec(
        band=(13, 16),
        rows=(7, 8),
        cols=(7, 8),
        wall_prob=(0.30, 0.38),
        min_floor_frac=0.42,
        max_states=60_000,
        profile=(13, 13, 13, 14, 14, 14, 14, 14, 15, 16),  # 140
    ),
    "Hard": TierSpec(
        band=(18, 25),
        rows=(9, 10),
        cols=(9, 10),
        wall_prob=(0.35, 0.42),
        min_floor_frac=0.38,
        max_states=100_000,
        profile=(18, 19, 20, 21, 22, 22, 23, 23, 24, 25),  # 217
    ),
}

TARGET_TOTALS = {"Easy": 88, "Medium": 140, "Hard": 217}
CATALOGUE_SIZE = 10
MAX_ATTEMPTS = 200_000


def _spec(tier: str) -> TierSpec:
    if tier not in TIER_SPECS:
        raise ConfigError(f"tier: expected one of {', '.join(TIERS)}, got {tier!r}")
    return TIER_SPECS[tier]


def _candidate(rng: random.Random, spec: TierSpec, tier: str) -> Level | None:
    """One random board with every floor cell paintable, or None if it is unusable."""
    h = rng.randint(*spec.rows)
    w = rng.randint(*spec.cols)
    p = rng.uniform(*spec.wall_prob)
    cells = [[WALL_CHAR] * (w + 2) for _ in range(h + 2)]
    for r in range(1, h + 1):
        for c in range(1, w + 1):
            if rng.random() >= p:
                cells[r][c] = FLOOR_CHAR
    # The ball must start where a slide can also end, or it could never come back.
    stops = []
    for r in range(1, h + 1):
        for c in range(1, w + 1):
            if cells[r][c] != FLOOR_CHAR:
                continue
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                if cells[r + dr][c + dc] == WALL_CHAR and cells[r - dr][c - dc] == FLOOR_CHAR:
                    stops.append((r, c))
                    break
    if not stops:
        return None
    start = rng.choice(stops)
    while True:
        level = Level("candidate", tier, tuple("".join(row) for row in cells), start)
        missing = level.full_mask & ~level.paintable_mask
        if not missing:
            break
        for i in range(missing.bit_length()):
            if missing >> i & 1:
                r, c = level.cell(i)
                cells[r][c] = WALL_CHAR
    if level.n_paintable < spec.min_floor_frac * h * w:
        return None
    return _crop(level)


def _crop(level: Level) -> Level:
    """Trim to the floor's bounding box plus a one-cell wall border."""
    floor = [
        (r, c) for r, row in enumerate(level.grid) for c, ch in enumerate(row) if ch == FLOOR_CHAR
    ]
    r0 = min(r for r, _ in floor) - 1
    r1 = max(r for r, _ in floor) + 1
    c0 = min(c for _, c in floor) - 1
    c1 = max(c for _, c in floor) + 1
    grid = tuple(row[c0 : c1 + 1] for row in level.grid[r0 : r1 + 1])
    start = (level.start[0] - r0, level.start[1] - c0)
    return Level(level.id, level.tier, grid, start)


def _rng(tier: str, seed: int) -> random.Random:
    # A string seed is hashed with SHA-512 by random.Random: stable across runs and platforms.
    return random.Random(f"puzzlegym/MazePaint/{tier}/{seed}")


def generate(tier: str, seed: int, *, length: int | None = None) -> Level:
    """A solver-verified level of ``tier`` for ``seed`` (deterministic).

    The level's optimal slide count is in the tier's band (exactly ``length`` if given), every
    floor cell is paintable, its ball graph is strongly connected and no reachable state is a
    dead end. Its id is ``maze-<tier>-seed<seed>``.
    """
    from .solver import (
        SearchLimitReached,
        ball_graph_strongly_connected,
        reachable_stats,
        solve,
    )

    spec = _spec(tier)
    check_count(seed, "seed", None, None, ConfigError)
    lo, hi = spec.band
    check_count(length, "length", lo, hi, ConfigError, optional=True, what=f"for tier {tier}")
    rng = _rng(tier, seed)
    for _attempt in range(MAX_ATTEMPTS):
        level = _candidate(rng, spec, tier)
        if level is None or not ball_graph_strongly_connected(level):
            continue
        try:
            n = solve(level, max_states=spec.max_states).length
        except SearchLimitReached:
            continue
        if not (lo <= n <= hi) or (length is not None and n != length):
            continue
        stats = reachable_stats(level, max_states=spec.max_states)
        if not stats.complete or stats.n_dead_ends:
            continue
        level = Level(f"maze-{tier.lower()}-seed{seed}", tier, level.grid, level.start)
        level.validate()
        return level
    raise RuntimeError(f"no {tier} level found for seed {seed} in {MAX_ATTEMPTS} attempts")


def build_catalogue(tier: str, log=None) -> list[tuple[Level, int]]:
    """The canonical levels of ``tier`` with their optimal slide counts, in catalogue order.

    Slot ``i`` of the tier's length profile gets ``generate(tier, seed=i, length=profile[i])``;
    the profile sums to the tier's target total, so the totals are exact.
    """
    from .solver import solve

    spec = _spec(tier)
    out: list[tuple[Level, int]] = []
    seen_grids = set()
    for i, want in enumerate(sorted(spec.profile)):
        seed = i
        while True:
            level = generate(tier, seed, length=want)
            if (level.grid, level.start) not in seen_grids:
                break
            seed += 1000  # identical board drawn twice: take another seed
        seen_grids.add((level.grid, level.start))
        n = solve(level).length
        assert n == want, (tier, seed, n, want)
        level = Level(f"maze-{tier.lower()}-{i + 1:02d}", tier, level.grid, level.start)
        out.append((level, n))
        if log:
            log(f"  {level.id}: seed {seed}, {level.height}x{level.width}, {n} slides")
    return out


def catalogue_document(tier: str, entries: list[tuple[Level, int]]) -> dict:
    return CATALOGUE.document(tier, ((level, {"optimal_slides": n}) for level, n in entries))


def main(argv: list[str] | None = None) -> int:
    return generator_main(
        argv,
        game_title="Maze Paint",
        module="puzzlegym.envs.maze_paint.generator",
        catalogue=CATALOGUE,
        generate=generate,
        build=build_catalogue,
        document=catalogue_document,
        summarize=lambda tier, entries: (
            f"total {sum(n for _, n in entries)} (target {TARGET_TOTALS[tier]})"
        ),
    )


if __name__ == "__main__":
    raise SystemExit(main())
