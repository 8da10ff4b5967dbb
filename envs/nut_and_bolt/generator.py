"""Seeded Nut and Bolt level generator and the catalogue builder.

``generate(tier, seed)`` is deterministic for ``(tier, seed)``: all randomness comes from one
``random.Random`` seeded from both. A candidate is ``colours`` full bolts holding a shuffle of
``capacity`` nuts of each colour, plus two empty bolts. It is kept when

1. no bolt starts complete and the lower bound ``runs − colours`` on the solution length
   reaches the tier's minimum (the Nightmare level needs at least 50 transfers);
2. the solver solves it (A* proves the shortest solution within its budget where it can;
   on Hard and Extreme it must prove it within the tier's ``proof_budget`` expansions, so
   those levels stay quick to solve and their stored lengths are optimal);
3. dead ends are reachable by plausible play: of :data:`PLAYOUTS` random playouts from the
   start (uniform legal transfers, at most :data:`PLAYOUT_MOVES`), at least the tier's share
   reaches a certified dead end (30% from Hard up; Medium needs some).

Run ``python -m puzzlegym.envs.nut_and_bolt.generator --write`` to rebuild
``levels/<tier>.json`` (``--check`` compares instead of writing).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count
from puzzlegym.game.catalogue import generator_main

from . import rules as R
from .catalogue import CATALOGUE
from .rules import TIERS, Level

PLAYOUTS = 100
PLAYOUT_MOVES = 200
MAX_ATTEMPTS = 500


@dataclass(frozen=True)
class TierSpec:
    sizes: tuple[tuple[int, int], ...]  # (colours, capacity) of each catalogue slot
    min_dead_share: float  # least share of random playouts reaching a dead end
    min_lower_bound: int  # least runs − colours of the start
    # when set: A* must prove the shortest solution within this many expansions (keeps the
    # solver fast on the large boards, and every such level's solution length is optimal)
    proof_budget: int | None = None


# Sizes are chosen so that the mean shortest solution never falls from one tier to the next
# (means: Easy 7, Medium 18, Hard 38, Extreme 52, Nightmare 59 transfers): Hard spans 7–11
# colours at capacity 5–6, Extreme 12–14 colours at capacity 5.
TIER_SPECS: dict[str, TierSpec] = {
    "Easy": TierSpec(sizes=((3, 3), (3, 4), (4, 4)), min_dead_share=0.0, min_lower_bound=3),
    "Medium": TierSpec(sizes=((5, 4), (6, 4), (7, 4)), min_dead_share=0.05, min_lower_bound=10),
    "Hard": TierSpec(
        sizes=((7, 6), (9, 5), (11, 5)),
        min_dead_share=0.30,
        min_lower_bound=20,
        proof_budget=30_000,
    ),
    "Extreme": TierSpec(
        sizes=((12, 5), (13, 5), (14, 5)),
        min_dead_share=0.30,
        min_lower_bound=40,
        proof_budget=30_000,
    ),
    "Nightmare": TierSpec(sizes=((9, 8),), min_dead_share=0.30, min_lower_bound=50),
}


def _spec(tier: str) -> TierSpec:
    if tier not in TIER_SPECS:
        raise ConfigError(f"tier: expected one of {', '.join(TIERS)}, got {tier!r}")
    return TIER_SPECS[tier]


def _rng(tier: str, seed: int, slot: int) -> random.Random:
    # A string seed is hashed with SHA-512 by random.Random: stable across runs and platforms.
    return random.Random(f"puzzlegym/NutAndBolt/{tier}/{slot}/{seed}")


def candidate(rng: random.Random, tier: str, colours: int, capacity: int) -> Level:
    nuts = [c for c in range(colours) for _ in range(capacity)]
    rng.shuffle(nuts)
    bolts = tuple(tuple(nuts[i * capacity : (i + 1) * capacity]) for i in range(colours))
    return Level("candidate", tier, capacity, bolts + ((), ()))


def random_playout(
    level: Level, rng: random.Random, max_moves: int = PLAYOUT_MOVES
) -> tuple[R.State, int]:
    """Uniformly random legal transfers from the start until solved, stuck or ``max_moves``;
    the final board and the number of transfers made."""
    state = R.initial_state(level)
    for n in range(max_moves):
        if R.is_solved(level, state):
            return state, n
        moves = R.legal_moves(level, state)
        if not moves:
            return state, n
        after = R.apply(level, state, rng.choice(moves))
        assert isinstance(after, R.State), after  # a legal move is never rejected
        state = after
    return state, max_moves


def dead_end_share(level: Level, playouts: int = PLAYOUTS, seed: int = 0) -> float:
    """The share of random playouts that reach a certified dead end. A dead end stays dead
    whatever follows, so a playout reached one exactly when its final board is one."""
    from .solver import certify

    rng = random.Random(f"puzzlegym/NutAndBolt/playouts/{seed}")
    dead = 0
    for _ in range(playouts):
        state, _n = random_playout(level, rng)
        dead += certify(level, state) == "dead_end"
    return dead / playouts


def generate(tier: str, seed: int, *, slot: int | None = None) -> Level:
    """A solver-verified level of ``tier`` for ``seed`` (deterministic); its size is that of
    catalogue slot ``slot`` (default: ``seed`` modulo the tier's slot count). Its id is
    ``nut-<tier>-seed<seed>``."""
    from .solver import Unsolvable, clear_memo, lower_bound, solve

    spec = _spec(tier)
    check_count(seed, "seed", None, None, ConfigError)
    if slot is None:
        slot = seed % len(spec.sizes)
    colours, capacity = spec.sizes[slot]
    rng = _rng(tier, seed, slot)
    for _attempt in range(MAX_ATTEMPTS):
        level = candidate(rng, tier, colours, capacity)
        if any(b.count(b[0]) == capacity for b in level.bolts if b):
            continue
        if lower_bound(level) < spec.min_lower_bound:
            continue
        try:
            if spec.proof_budget is None:
                solve(level)
            else:
                # the proof budget counts A* expansions, which the shared dead-end memo can
                # shorten: start each proof from an empty memo so generation is reproducible
                clear_memo()
                if not solve(level, optimal_budget=spec.proof_budget).optimal:
                    continue
        except Unsolvable:
            continue
        if dead_end_share(level) < spec.min_dead_share or (
            spec.min_dead_share > 0 and dead_end_share(level) == 0
        ):
            continue
        level = Level(f"nut-{tier.lower()}-seed{seed}", tier, level.capacity, level.bolts)
        level.validate()
        return level
    raise RuntimeError(f"no {tier} level found for seed {seed} in {MAX_ATTEMPTS} attempts")


def build_catalogue(tier: str, log=None) -> list[tuple[Level, int, bool]]:
    """The canonical levels of ``tier``: slot ``i`` is ``generate(tier, seed=i, slot=i)``."""
    from .solver import solve

    out = []
    for i in range(len(_spec(tier).sizes)):
        level = generate(tier, i, slot=i)
        level = Level(f"nut-{tier.lower()}-{i + 1:02d}", tier, level.capacity, level.bolts)
        sol = solve(level)
        out.append((level, sol.length, sol.optimal))
        if log:
            log(
                f"  {level.id}: {level.n_colours} colors x {level.capacity}, "
                f"{level.n_bolts} bolts, "
                f"{sol.length} transfers ({'optimal' if sol.optimal else 'not proved optimal'}), "
                f"dead-end playouts {dead_end_share(level):.0%}"
            )
    return out


def catalogue_document(tier: str, entries: list[tuple[Level, int, bool]]) -> dict:
    return CATALOGUE.document(
        tier, ((level, {"solution_length": n, "optimal": opt}) for level, n, opt in entries)
    )


def main(argv: list[str] | None = None) -> int:
    return generator_main(
        argv,
        game_title="Nut and Bolt",
        module="puzzlegym.envs.nut_and_bolt.generator",
        catalogue=CATALOGUE,
        generate=generate,
        build=build_catalogue,
        document=catalogue_document,
    )


if __name__ == "__main__":
    raise SystemExit(main())
