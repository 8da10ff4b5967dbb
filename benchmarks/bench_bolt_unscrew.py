"""Bolt Unscrew benchmark: dead-end rates, shortest solutions, certification times.

For every catalogue level:

* ``dead_end_rate``: share of 100 random playouts from the start (uniform over the rules'
  legal moves until none is left) that end in a dead end; every end state is checked
  with the exhaustive certifier (a stuck unsolved board must certify ``dead_end``);
* ``solution_length`` / ``optimal``: the solver's solution from the start (provably shortest,
  see ``envs/bolt_unscrew/solver.py``) and whether it matches the committed reference length;
* certification times over states sampled from random play: ``cold`` with an empty memo
  before each state (the worst case: the first certificate on a level), ``warm`` with the
  memo shared across the level's states (as the evaluator uses it);
* ``first_dead_move``: median move number of the first unsolvable board in dead-end playouts
  (the exhaustive certifier) and of the paper's certificate (no legal move), showing how much
  earlier exhaustive search proves a board lost;
* ``hidden_share``: among the dead-end playouts, the share whose first unsolvable board still
  had a free anchor (the dead end hid behind free holes), and the median number of free
  anchors on that board.

Usage: ``python benchmarks/bench_bolt_unscrew.py [--playouts 100] [--states 60]``; prints JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from puzzlegym.envs.bolt_unscrew import rules as R
from puzzlegym.envs.bolt_unscrew import solver as S
from puzzlegym.envs.bolt_unscrew.catalogue import load_catalogue, reference_solutions


def bench_level(level, reference, playouts: int, n_states: int) -> dict:
    rng = random.Random(f"bench/{level.id}")
    dead = 0
    first_dead, paper_dead, free_at_dead = [], [], []
    pool = []
    for _ in range(playouts):
        solved, states = S.random_playout(level, rng)
        pool.extend(states)
        if not solved:
            dead += 1
            assert S.certify(level, states[-1]) == "dead_end"
            assert R.deadlock_certificate(level, states[-1])
            k = next(i for i, st in enumerate(states) if S.certify(level, st) == "dead_end")
            first_dead.append(k)
            paper_dead.append(len(states) - 1)
            free_at_dead.append(R.free_anchors(level, states[k]))
    sample = random.Random(f"sample/{level.id}").sample(pool, min(n_states, len(pool)))
    cold = []
    for st in sample:
        S.model.cache_clear()
        t0 = time.perf_counter()
        S.certify(level, st)
        cold.append(time.perf_counter() - t0)
    S.model.cache_clear()
    warm = []
    for st in sample:
        t0 = time.perf_counter()
        S.certify(level, st)
        warm.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    sol = S.solve(level)
    solve_s = time.perf_counter() - t0
    init = R.initial_state(level)
    return {
        "id": level.id,
        "boards": len(level.boards),
        "anchors": len(level.anchors),
        "screws": len(level.screws),
        "free_anchors_at_start": R.free_anchors(level, init),
        "solution_length": sol.length,
        "optimal": sol.optimal and sol.length == len(reference),
        "solve_s": round(solve_s, 4),
        "dead_end_rate": dead / playouts,
        "first_dead_move_median": statistics.median(first_dead) if first_dead else None,
        "paper_certificate_move_median": statistics.median(paper_dead) if paper_dead else None,
        "hidden_share": sum(f > 0 for f in free_at_dead) / len(free_at_dead)
        if free_at_dead
        else None,
        "free_anchors_at_first_dead_median": statistics.median(free_at_dead)
        if free_at_dead
        else None,
        "certify_cold_median_s": statistics.median(cold),
        "certify_cold_max_s": max(cold),
        "certify_warm_median_s": statistics.median(warm),
        "certify_warm_max_s": max(warm),
        "states_timed": len(sample),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--playouts", type=int, default=100)
    ap.add_argument("--states", type=int, default=60)
    args = ap.parse_args(argv)
    out = {"levels": []}
    for tier in R.TIERS:
        for level, ref in zip(load_catalogue(tier), reference_solutions(tier), strict=True):
            out["levels"].append(
                {"tier": tier, **bench_level(level, ref, args.playouts, args.states)}
            )
    rows = out["levels"]
    cold = [r["certify_cold_max_s"] for r in rows]
    out["summary"] = {
        "certify_cold_median_s_worst_level": max(r["certify_cold_median_s"] for r in rows),
        "certify_cold_max_s": max(cold),
        "certify_warm_max_s": max(r["certify_warm_max_s"] for r in rows),
        "hard_min_dead_end_rate": min(r["dead_end_rate"] for r in rows if r["tier"] == "Hard"),
        "easy_max_dead_end_rate": max(r["dead_end_rate"] for r in rows if r["tier"] == "Easy"),
        "hard_min_hidden_share": min(r["hidden_share"] or 0.0 for r in rows if r["tier"] == "Hard"),
        "easy_max_hidden_share": max(r["hidden_share"] or 0.0 for r in rows if r["tier"] == "Easy"),
        "all_optimal": all(r["optimal"] for r in rows),
    }
    for tier in R.TIERS:
        sub = [r for r in rows if r["tier"] == tier]
        out["summary"][f"{tier.lower()}_mean_dead_end_rate"] = round(
            statistics.mean(r["dead_end_rate"] for r in sub), 4
        )
        out["summary"][f"{tier.lower()}_mean_solution_length"] = round(
            statistics.mean(r["solution_length"] for r in sub), 2
        )
        out["summary"][f"{tier.lower()}_mean_hidden_share"] = round(
            statistics.mean(r["hidden_share"] or 0.0 for r in sub), 4
        )
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
