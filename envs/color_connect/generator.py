"""Seeded Color Connect level generator and the catalogue builder.

``generate(tier, seed)`` is deterministic for ``(tier, seed)``: all randomness comes from one
``random.Random`` seeded from both, and every check is the pure-Python search with a node
budget (node counts, never timings, decide), so the same levels come out on every install.
It samples candidates until one passes every check:

1. a random path through every cell of the board (a Hamiltonian path, shuffled by
   "backbite" moves from a zigzag) is cut into one segment per pair plus, in Hard, a few
   short segments that become blocked cells; the two ends of each pair's segment are its dots.
   The board is solvable by construction (the segments themselves);
2. it is rejected when a pair's dots touch, and when its *forced detour* is below the tier's
   minimum: the detour is the least ``d`` such that some solution has every path at most
   ``d`` cells longer than its pair's shortest route on the empty board. It is measured
   exactly with the bounded search (each bound ``0, 2, 4, ...`` below ``d`` refuted
   exhaustively, a solution found at ``d``), which proves that straight routes cannot solve
   the board: pairs interlock and some path must go the long way round;
3. the solver's own search must settle the level within :data:`AUTO_NODES` nodes, so the
   solver agent's solution (and its click count) does not depend on the install.

Run ``python -m puzzlegym.envs.color_connect.generator --write`` to rebuild the catalogue in
``levels/{easy,hard}.json`` (``--check`` compares instead of writing).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count
from puzzlegym.game.catalogue import generator_main

from .catalogue import CATALOGUE
from .rules import BLOCKED, FREE, PAIR_LETTERS, TIERS, Level


@dataclass(frozen=True)
class TierSpec:
    sizes: tuple[int, int]  # inclusive range of the board side (square boards)
    pairs: tuple[int, int]  # inclusive range of the number of pairs
    walls: tuple[int, int]  # inclusive range of short segments turned into blocked cells
    min_detour: int  # least forced detour (cells)
    slots: tuple[tuple[int, int], ...]  # (side, pairs) of the 10 catalogue levels, in order


TIER_SPECS: dict[str, TierSpec] = {
    "Easy": TierSpec(
        sizes=(5, 7),
        pairs=(4, 7),
        walls=(0, 0),
        min_detour=2,
        slots=((5, 4), (5, 4), (5, 5), (6, 5), (6, 5), (6, 6), (6, 6), (7, 6), (7, 7), (7, 7)),
    ),
    "Hard": TierSpec(
        sizes=(8, 12),
        pairs=(8, 14),
        walls=(1, 3),
        min_detour=4,
        slots=(
            (8, 8),
            (8, 9),
            (9, 9),
            (9, 10),
            (10, 10),
            (10, 11),
            (11, 11),
            (11, 12),
            (12, 13),
            (12, 14),
        ),
    ),
}

CATALOGUE_SIZE = 10
MAX_ATTEMPTS = 20_000
CHECK_NODES = 6_000  # node budget of each bounded search while measuring the detour
MAX_DETOUR = 24
MIN_SEGMENT = 3


def _spec(tier: str) -> TierSpec:
    if tier not in TIER_SPECS:
        raise ConfigError(f"tier: expected one of {', '.join(TIERS)}, got {tier!r}")
    return TIER_SPECS[tier]


def _rng(tier: str, seed: int) -> random.Random:
    # A string seed is hashed with SHA-512 by random.Random: stable across runs and platforms.
    return random.Random(f"puzzlegym/ColorConnect/{tier}/{seed}")


def hamiltonian_path(rng: random.Random, side: int) -> list[int]:
    """A random path through every cell of a ``side`` x ``side`` board: a zigzag shuffled by
    backbite moves (step to a neighbour of an end, reverse the part of the path beyond it)."""
    path = []
    for r in range(side):
        cols = range(side) if r % 2 == 0 else range(side - 1, -1, -1)
        path += [r * side + c for c in cols]
    n = side * side
    pos = [0] * n
    for i, c in enumerate(path):
        pos[c] = i
    nbrs = []
    for c in range(n):
        r, cc = divmod(c, side)
        nbrs.append(
            [
                rr * side + c2
                for rr, c2 in ((r - 1, cc), (r + 1, cc), (r, cc - 1), (r, cc + 1))
                if 0 <= rr < side and 0 <= c2 < side
            ]
        )
    for _ in range(12 * n):
        if rng.random() < 0.5:
            x = rng.choice([y for y in nbrs[path[-1]] if pos[y] != n - 2])
            lo, hi = pos[x] + 1, n
        else:
            x = rng.choice([y for y in nbrs[path[0]] if pos[y] != 1])
            lo, hi = 0, pos[x]
        path[lo:hi] = path[lo:hi][::-1]
        for i in range(lo, hi):
            pos[path[i]] = i
    return path


def _candidate(
    rng: random.Random, tier: str, side: int, n_pairs: int, n_walls: int
) -> Level | None:
    path = hamiltonian_path(rng, side)
    n_segments = n_pairs + n_walls
    if len(path) < MIN_SEGMENT * n_segments:
        return None
    # cut points: segment lengths are MIN_SEGMENT plus a random share of the rest
    spare = len(path) - MIN_SEGMENT * n_segments
    marks = sorted(rng.randint(0, spare) for _ in range(n_segments - 1))
    lengths = [MIN_SEGMENT + b - a for a, b in zip([0, *marks], [*marks, spare], strict=True)]
    segments, start = [], 0
    for length in lengths:
        segments.append(path[start : start + length])
        start += length
    walls = set(rng.sample(range(n_segments), n_walls))
    grid = [[FREE] * side for _ in range(side)]
    letter = 0
    for i, seg in enumerate(segments):
        if i in walls:
            if len(seg) > 5:
                return None  # walls are short bars
            for c in seg:
                grid[c // side][c % side] = BLOCKED
            continue
        a, b = seg[0], seg[-1]
        if abs(a // side - b // side) + abs(a % side - b % side) == 1:
            return None  # touching dots make a trivial pair
        for c in (a, b):
            grid[c // side][c % side] = PAIR_LETTERS[letter]
        letter += 1
    return Level("candidate", tier, tuple("".join(row) for row in grid))


def forced_detour(level: Level, max_nodes: int = CHECK_NODES) -> tuple[int, dict] | None:
    """``(detour, paths)``: the level's forced detour and a solution within it, or None when
    some bounded search ran out of nodes (or the detour exceeds :data:`MAX_DETOUR`)."""
    from .solver.search import search

    for slack in range(0, MAX_DETOUR + 1, 2):
        result = search(level, slack=slack, max_nodes=max_nodes)
        if not result.complete:
            return None
        if result.paths is not None:
            return slack, result.paths
    return None


def generate(tier: str, seed: int, *, side: int | None = None, pairs: int | None = None) -> Level:
    """A solver-verified level of ``tier`` for ``seed`` (deterministic): solvable, forced
    detour at least the tier's minimum, settled by the solver's search within its budget.
    ``side`` and ``pairs`` pin the board size and pair count (default: drawn from the tier's
    ranges). Its id is ``color-<tier>-seed<seed>``."""
    from .solver import AUTO_NODES, SearchLimitReached, route_search

    spec = _spec(tier)
    check_count(seed, "seed", None, None, ConfigError)
    rng = _rng(tier, seed)
    if side is None:
        side = rng.randint(*spec.sizes)
    if pairs is None:
        pairs = rng.randint(spec.pairs[0], min(spec.pairs[1], side + 2))
    for _attempt in range(MAX_ATTEMPTS):
        level = _candidate(rng, tier, side, pairs, rng.randint(*spec.walls))
        if level is None:
            continue
        measured = forced_detour(level)
        if measured is None or measured[0] < spec.min_detour:
            continue
        try:
            paths, _nodes = route_search(level, range(level.n_pairs), 0, max_nodes=AUTO_NODES)
        except SearchLimitReached:
            continue
        assert paths is not None
        level = Level(f"color-{tier.lower()}-seed{seed}", tier, level.grid)
        level.validate()
        return level
    raise RuntimeError(f"no {tier} level found for seed {seed} in {MAX_ATTEMPTS} attempts")


def level_facts(level: Level) -> dict[str, int]:
    """Catalogue metadata: the clicks of the solver agent's solution (from the empty board,
    no path being drawn), the cells its paths cover, and the forced detour."""
    from .solver import solve
    from .view import path_clicks

    sol = solve(level, engine="search")
    measured = forced_detour(level)
    assert measured is not None
    return {
        "clicks": sum(len(path_clicks(m.cells)) for m in sol.moves),
        "path_cells": sum(len(m.cells) for m in sol.moves),
        "detour": measured[0],
    }


def build_catalogue(tier: str, log=None) -> list[tuple[Level, dict]]:
    """The canonical levels of ``tier`` with their metadata, in catalogue order: slot ``i``
    gets ``generate(tier, seed=i, side=..., pairs=...)`` from the tier's slot list."""
    spec = _spec(tier)
    out: list[tuple[Level, dict]] = []
    seen = set()
    for i, (side, n_pairs) in enumerate(spec.slots):
        seed = i
        while True:
            level = generate(tier, seed, side=side, pairs=n_pairs)
            if level.grid not in seen:
                break
            seed += 1000  # the same board drawn twice: take another seed
        seen.add(level.grid)
        level = Level(f"color-{tier.lower()}-{i + 1:02d}", tier, level.grid)
        facts = level_facts(level)
        out.append((level, facts))
        if log:
            log(
                f"  {level.id}: seed {seed}, {side}x{side}, {n_pairs} pairs, "
                f"detour {facts['detour']}, "
                f"{facts['clicks']} clicks, {facts['path_cells']} path cells"
            )
    return out


def main(argv: list[str] | None = None) -> int:
    return generator_main(
        argv,
        game_title="Color Connect",
        module="puzzlegym.envs.color_connect.generator",
        catalogue=CATALOGUE,
        generate=generate,
        build=build_catalogue,
        summarize=lambda tier, entries: f"total {sum(m['clicks'] for _, m in entries)} clicks",
    )


if __name__ == "__main__":
    raise SystemExit(main())
