"""Rush Hour solver benchmark (prints JSON).

For each board, from a cold memo:

* ``bfs``: ``solvers.solve`` by breadth-first search to the first solved state (the optimal
  move count, states expanded, wall and CPU seconds, states expanded per CPU second);
* ``table``: the whole cluster's exact distance table (``cluster_table``: every state of the
  cluster, then a multi-source search from the solved states; what the potential reads),
  with its size and rate; then ``solve`` again, which walks down the table.

Boards: the published hardest 6×6 positions (36-character notation, from public databases,
with the move counts and cluster sizes published for them) and every catalogue level; the
``slowest_catalogue`` entry names the catalogue level whose BFS took longest. The target is
at most 1 s per board on this machine (``within_1s``). CPU seconds are reported beside wall
seconds because the machine is shared.

Run: ``.venv/bin/python benchmarks/bench_rush_hour.py`` (``--no-catalogue`` for the
published boards only).
"""

from __future__ import annotations

import argparse
import json
import time

from puzzlegym.envs.rush_hour import rules as R
from puzzlegym.envs.rush_hour import solver as S
from puzzlegym.envs.rush_hour.catalogue import load_catalogue

# (notation, published optimal moves, published cluster size)
PUBLISHED = {
    "hardest (60 moves, a wall)": ("IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM", 60, 2332),
    "hardest-list board, 2 walls (a)": ("BBoKMxDDDKMoIAALooIoJLEEooJFFNoGGoxN", None, None),
    "hardest without walls (51 moves)": ("PBBoEoPCDoEFPCDAAFGGGHoFooIHJJLLIMMo", 51, None),
    "hardest-list board, 2 walls (b)": ("oxCCMoDDDKMoAAJKooooJLEEIFFLoNIGGoxN", None, None),
    "hardest-list board, 1 wall": ("BBBKCCDDoKoLIAAKoLIoJEEMFFJooMooxoHH", None, None),
}


def measure(level: R.Level) -> dict:
    S.clear_memo()
    w0, c0 = time.perf_counter(), time.process_time()
    sol = S.solve(level)
    bfs_wall, bfs_cpu = time.perf_counter() - w0, time.process_time() - c0
    w0, c0 = time.perf_counter(), time.process_time()
    table = S.cluster_table(level)
    table_wall, table_cpu = time.perf_counter() - w0, time.process_time() - c0
    walked = S.solve(level)
    assert (
        walked.length
        == sol.length
        == table.distances[S.packer(level).encode(R.initial_state(level))]
    )
    return {
        "moves": sol.length,
        "bfs": {
            "expanded": sol.expanded,
            "wall_s": round(bfs_wall, 4),
            "cpu_s": round(bfs_cpu, 4),
            "expanded_per_cpu_s": round(sol.expanded / max(bfs_cpu, 1e-9)),
        },
        "table": {
            "cluster_states": table.n_states,
            "expanded": table.expanded,
            "wall_s": round(table_wall, 4),
            "cpu_s": round(table_cpu, 4),
            "expanded_per_cpu_s": round(table.expanded / max(table_cpu, 1e-9)),
            "farthest": table.farthest()[0],
        },
        "within_1s": bfs_wall <= 1.0 and table_wall <= 1.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-catalogue", action="store_true", help="only the published boards")
    args = parser.parse_args(argv)
    out: dict = {"published": {}, "catalogue": {}}
    for name, (notation, moves, states) in PUBLISHED.items():
        row = measure(R.Level.from_notation(notation, id=name))
        row["notation"] = notation
        if moves is not None:
            row["published_moves"] = moves
        if states is not None:
            row["published_cluster_states"] = states
        out["published"][name] = row
    if not args.no_catalogue:
        for tier in R.TIERS:
            for level in load_catalogue(tier):
                out["catalogue"][level.id] = measure(level)
        slowest = max(
            out["catalogue"],
            key=lambda k: (
                out["catalogue"][k]["bfs"]["wall_s"] + out["catalogue"][k]["table"]["wall_s"]
            ),
        )
        out["slowest_catalogue"] = {"id": slowest, **out["catalogue"][slowest]}
    rows = list(out["published"].values()) + list(out["catalogue"].values())
    out["all_within_1s"] = all(r["within_1s"] for r in rows)
    out["bfs_expanded_per_cpu_s_median"] = sorted(r["bfs"]["expanded_per_cpu_s"] for r in rows)[
        len(rows) // 2
    ]
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
