"""Nut and Bolt benchmark (prints JSON).

* certification: 200 boards sampled from random play on the Nightmare level (a random
  playout of uniform legal transfers, up to 200, and a uniformly chosen board along it),
  each certified once with a cold memo (cleared before every board) and once with the memo
  shared across calls (as the evaluator uses it); median and max seconds, and the verdicts;
* solver: search transitions per second (successor boards generated and canonicalised) in
  the A* solve of the Nightmare level from scratch, and rules-model transitions per second
  (``legal_moves`` + ``apply``);
* random playouts: the share of 100 playouts reaching a certified dead end, per level.

Run: ``.venv/bin/python benchmarks/bench_nut_and_bolt.py`` (``--boards N`` to change 200).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from puzzlegym.envs.nut_and_bolt import rules as R
from puzzlegym.envs.nut_and_bolt import solver as S
from puzzlegym.envs.nut_and_bolt.catalogue import load_catalogue
from puzzlegym.envs.nut_and_bolt.generator import dead_end_share


def sample_boards(level, n: int, seed: int = 0) -> list:
    rng = random.Random(seed)
    boards = []
    for _ in range(n):
        state = R.initial_state(level)
        path = [state]
        for _ in range(200):
            if R.is_solved(level, state):
                break
            moves = R.legal_moves(level, state)
            if not moves:
                break
            state = R.apply(level, state, rng.choice(moves))
            path.append(state)
        boards.append(rng.choice(path))
    return boards


def certification(level, boards) -> dict:
    out = {}
    for mode in ("cold", "shared"):
        S.clear_memo()
        times, verdicts = [], []
        for state in boards:
            if mode == "cold":
                S.clear_memo()
            t0 = time.perf_counter()
            verdicts.append(S.certify(level, state))
            times.append(time.perf_counter() - t0)
        out[mode] = {
            "median_s": round(statistics.median(times), 6),
            "max_s": round(max(times), 6),
            "mean_s": round(statistics.fmean(times), 6),
            "dead_end": verdicts.count("dead_end"),
            "solvable": verdicts.count("solvable"),
        }
    return out


def solver_rate(level) -> dict:
    S.clear_memo()
    counted = {"n": 0}
    original = S.successors

    def counting(board, cap):
        for item in original(board, cap):
            counted["n"] += 1
            yield item

    S.successors = counting
    try:
        t0 = time.perf_counter()
        sol = S.solve(level)
        dt = time.perf_counter() - t0
    finally:
        S.successors = original
    # rules-model transitions: enumerate the legal moves and apply a random one
    rng = random.Random(0)
    state = R.initial_state(level)
    n = 0
    t1 = time.perf_counter()
    while n < 100_000:
        moves = R.legal_moves(level, state)
        if not moves or R.is_solved(level, state):
            state = R.initial_state(level)
            continue
        state = R.apply(level, state, rng.choice(moves))
        n += 1
    rules_dt = time.perf_counter() - t1
    return {
        "nightmare_solution_length": sol.length,
        "nightmare_optimal": sol.optimal,
        "astar_expanded": sol.expanded,
        "astar_seconds": round(dt, 3),
        "search_transitions_per_s": round(counted["n"] / dt),
        "rules_transitions_per_s": round(n / rules_dt),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200)
    args = parser.parse_args(argv)
    nightmare = load_catalogue("Nightmare")[0]
    boards = sample_boards(nightmare, args.boards)
    result = {
        "certification_nightmare": {"boards": len(boards), **certification(nightmare, boards)},
        "solver": solver_rate(nightmare),
        "random_playout_dead_end_share": {
            level.id: dead_end_share(level, playouts=100)
            for tier in R.TIERS
            for level in load_catalogue(tier)
        },
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
