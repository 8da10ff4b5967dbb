"""Color Connect solver benchmark: generated boards up to 14x14 with up to 16 colours, each
solved or refuted, with the time of every engine.

Three kinds of board, seeded, for every (side, pairs) of the grid below:

* ``cut``: a random path through every cell cut into one segment per pair (the generator's
  candidates, before its detour filter): solvable, with long interlocking pairs;
* ``swapped``: a ``cut`` board with the dots of two pairs exchanged: close to solvable, often
  not, the hardest refutations;
* ``random``: dots (and a few blocked cells) placed uniformly: mostly unsolvable.

Each board is solved by ``solve(level, engine=E)`` for E in ``auto`` (the default: search up
to its node budget, then SAT), ``sat`` and ``search`` (the pure-Python engine, stopped at
``--search-nodes`` nodes; its settled share is reported). Reported per engine: boards solved
/ refuted / not settled, the median and the slowest time, and the slowest board. The target
is every board solved or refuted within 2 s by the default engine.

Usage: ``python benchmarks/bench_color_connect.py [--boards 4] [--search-nodes 20000]
[--seed 0] [--engines auto,sat,search]``; prints JSON (wall times in seconds, measured in
this run on this machine, with CPU times beside them; the slowest solved and the slowest
refuted board are quoted apart, because refutations are the hard case).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from puzzlegym.envs.color_connect import rules as R
from puzzlegym.envs.color_connect import solver as S
from puzzlegym.envs.color_connect.generator import _candidate
from puzzlegym.envs.color_connect.solver import sat as color_connect_sat
from puzzlegym.solvers.types import Unsolvable

GRID = [(8, 8), (10, 10), (10, 12), (12, 12), (12, 16), (14, 12), (14, 16)]
TARGET_S = 2.0


def cut_board(rng: random.Random, side: int, pairs: int) -> R.Level:
    while True:
        level = _candidate(rng, "Hard", side, pairs, rng.randint(0, 2))
        if level is not None:
            return level


def swapped_board(rng: random.Random, side: int, pairs: int) -> R.Level:
    level = cut_board(rng, side, pairs)
    cells = [list(row) for row in level.grid]
    i, j = rng.sample(range(pairs), 2)
    a = level.endpoints[i][rng.randint(0, 1)]
    b = level.endpoints[j][rng.randint(0, 1)]
    (ra, ca), (rb, cb) = divmod(a, side), divmod(b, side)
    cells[ra][ca], cells[rb][cb] = cells[rb][cb], cells[ra][ca]
    return R.Level("swapped", "Hard", tuple("".join(row) for row in cells))


def random_board(rng: random.Random, side: int, pairs: int) -> R.Level:
    blocked = rng.randint(0, side)
    cells = rng.sample(range(side * side), 2 * pairs + blocked)
    grid = [["."] * side for _ in range(side)]
    for k, c in enumerate(cells):
        grid[c // side][c % side] = R.PAIR_LETTERS[k // 2] if k < 2 * pairs else "#"
    return R.Level("random", "Hard", tuple("".join(row) for row in grid))


def run_engine(level: R.Level, engine: str, search_nodes: int) -> tuple[str, float, float]:
    """``(answer, wall seconds, CPU seconds of this process)``: CPU time is what the solver
    itself used, so it is quoted beside wall time on a machine shared with other work."""
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        if engine == "search":
            paths, _ = S.route_search(level, range(level.n_pairs), 0, max_nodes=search_nodes)
            answer = "solved" if paths is not None else "refuted"
        else:
            S.solve(level, engine=engine)
            answer = "solved"
    except Unsolvable:
        answer = "refuted"
    except S.SearchLimitReached:
        answer = "unsettled"
    return answer, time.perf_counter() - t0, time.process_time() - c0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=4, help="boards of each kind per (side, pairs)")
    ap.add_argument("--search-nodes", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--engines", default="auto,sat,search", help="comma-separated engines to time")
    args = ap.parse_args(argv)
    if not 1 <= args.boards <= 100:
        ap.error("--boards: expected 1..100")
    engines = args.engines.split(",")
    unknown = [e for e in engines if e not in S.ENGINES]
    if unknown or not engines:
        ap.error(f"--engines: expected some of {', '.join(S.ENGINES)}, got {args.engines!r}")
    if not color_connect_sat.AVAILABLE and "sat" in engines:
        engines.remove("sat")
    rng = random.Random(f"bench/color-connect/{args.seed}")
    makers = {"cut": cut_board, "swapped": swapped_board, "random": random_board}
    rows = []
    for side, pairs in GRID:
        for kind, make in makers.items():
            for _ in range(args.boards):
                level = make(rng, side, pairs)
                row = {"side": side, "pairs": pairs, "kind": kind, "grid": list(level.grid)}
                for engine in engines:
                    row[engine] = run_engine(level, engine, args.search_nodes)
                answers = {row[e][0] for e in engines} - {"unsettled"}
                assert len(answers) == 1, f"engines disagree on {level.grid}: {row}"
                rows.append(row)
    out = {"boards": len(rows), "target_s": TARGET_S, "sat_available": color_connect_sat.AVAILABLE}
    for engine in engines:
        times = [r[engine][1] for r in rows]
        worst = max(rows, key=lambda r: r[engine][1])
        out[engine] = {
            "solved": sum(r[engine][0] == "solved" for r in rows),
            "refuted": sum(r[engine][0] == "refuted" for r in rows),
            "unsettled": sum(r[engine][0] == "unsettled" for r in rows),
            "median_s": round(statistics.median(times), 4),
            "slowest_s": round(worst[engine][1], 3),
            "within_target": sum(t <= TARGET_S for t in times),
            "slowest_solved_s": round(
                max((r[engine][1] for r in rows if r[engine][0] == "solved"), default=0), 3
            ),
            "slowest_refuted_s": round(
                max((r[engine][1] for r in rows if r[engine][0] == "refuted"), default=0), 3
            ),
            "cpu_slowest_s": round(max(r[engine][2] for r in rows), 3),
            "cpu_within_target": sum(r[engine][2] <= TARGET_S for r in rows),
            "slowest_board": {k: worst[k] for k in ("side", "pairs", "kind", "grid")},
        }
        by_kind = {}
        for kind in makers:
            ts = [r[engine][1] for r in rows if r["kind"] == kind]
            by_kind[kind] = {
                "median_s": round(statistics.median(ts), 4),
                "slowest_s": round(max(ts), 3),
            }
        out[engine]["by_kind"] = by_kind
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
