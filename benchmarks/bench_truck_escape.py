"""Truck Escape benchmark (prints one JSON line per catalogue level):

* the level: grid, trucks, longest blocking chain, trucks free at the start;
* solver time: median and max seconds of ``solvers.solve`` over ``--repeats`` runs, cold (a
  fresh ``Level`` object each run, so the blocking table is built too) and warm (tables
  cached); certification time of the start board likewise (warm);
* requests: the solver's (one per truck, none rejected) beside the baseline of a random
  clicker (uniform over the trucks still on the board, blocked or not; median of
  ``--playouts`` playouts), as a ratio;
* rules transitions per second (``apply`` on the random clicker's requests).

Run: ``.venv/bin/python benchmarks/bench_truck_escape.py`` (``--repeats N``, ``--playouts N``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from puzzlegym.envs.truck_escape import rules as R
from puzzlegym.envs.truck_escape import solver as S
from puzzlegym.envs.truck_escape.catalogue import load_catalogue
from puzzlegym.game import Rejected


def timed(fn, repeats: int) -> dict:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return {"median_s": round(statistics.median(times), 7), "max_s": round(max(times), 7)}


def random_clicker(level, playouts: int, seed: int = 0) -> tuple[list[int], float]:
    """Requests a uniform random clicker needs per playout, and rules transitions per second."""
    rng = random.Random(seed)
    counts, applied, elapsed = [], 0, 0.0
    for _ in range(playouts):
        state, n = R.initial_state(level), 0
        t0 = time.perf_counter()
        while state.remaining:
            on_board = list(R.bits(state.remaining))
            result = R.apply(level, state, rng.choice(on_board))
            n += 1
            if not isinstance(result, Rejected):
                state = result
        elapsed += time.perf_counter() - t0
        applied += n
        counts.append(n)
    return counts, applied / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--playouts", type=int, default=200)
    args = parser.parse_args(argv)
    rows = []
    for level in load_catalogue("Default"):
        facts = S.describe(level)

        def cold(level=level):
            fresh = R.Level(level.id, level.tier, level.rows, level.cols, level.trucks)
            S.solve(fresh)

        start = R.initial_state(level)
        counts, rate = random_clicker(level, args.playouts)
        sol = S.solve(level)
        rows.append(
            {
                **facts,
                "solve_cold": timed(cold, args.repeats),
                "solve_warm": timed(lambda level=level: S.solve(level), args.repeats),
                "certify_warm": timed(
                    lambda level=level, start=start: S.certify(level, start), args.repeats
                ),
                "requests_solver": sol.length,
                "requests_random_median": statistics.median(counts),
                "random_over_solver": round(statistics.median(counts) / sol.length, 2),
                "rules_transitions_per_s": round(rate),
            }
        )
    for row in rows:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
