"""The vision agent's baseline, measured through ``puzzlegym serve``: one real server process
(simulated clock, 1 s per action, the objective protocol's 3,600 s budget, from the home
screen), the pixel-only HTTP client on every objective and seed in turn; the server writes
the episode records (``RUN/episode-NNNNNN``, agent ``http:vision``), which
``puzzlegym report`` reads beside the other agents' records.

    .venv/bin/python scripts/vision_baselines.py --run-dir runs/baselines/vision [--seeds 0,1,2]
        [--objectives MazePaint-Easy,...]

Prints, per objective, the levels won as the server recorded them (out of the objective's
levels) and the total over all objectives (the catalogue's 114 levels per seed); each
client result line goes to ``RUN/results.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from puzzlegym.agents.vision.__main__ import Client, play  # noqa: E402
from puzzlegym.base.jsonio import write_atomic  # noqa: E402
from puzzlegym.game.registry import env_ids, get_game  # noqa: E402
from puzzlegym.service.launch import start_service  # noqa: E402

START_TIMEOUT_S = 60


def start_server(run_dir: Path) -> tuple[subprocess.Popen, str]:
    try:
        return start_service(
            ["serve", "--clock", "sim", "--record-dir", str(run_dir)],
            timeout_s=START_TIMEOUT_S,
            cwd=ROOT,
        )
    except RuntimeError as exc:
        raise SystemExit(str(exc)) from None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", default="runs/baselines/vision")
    parser.add_argument("--seeds", default="0")
    parser.add_argument(
        "--objectives", default="all", help="comma list such as MazePaint-Easy, or all"
    )
    args = parser.parse_args()
    run = Path(args.run_dir)
    if run.exists() and any(run.iterdir()):
        raise SystemExit(f"--run-dir: {run} is not empty; records are never overwritten")
    run.mkdir(parents=True, exist_ok=True)
    objectives = (
        [i.split("/", 1)[1] for i in env_ids()]
        if args.objectives == "all"
        else args.objectives.split(",")
    )
    seeds = [int(s) for s in args.seeds.split(",")]
    server, url = start_server(run)
    lines, rows = [], []
    try:
        for objective in objectives:
            game, tier = objective.split("-")
            n = len(get_game(game).catalogue(tier))
            for seed in seeds:
                t0 = time.perf_counter()
                result = play(Client(url, session="vision"), objective, seed, max_actions=10_000)
                record = json.loads((Path(result["record"]) / "manifest.json").read_text())[
                    "result"
                ]
                won = len(record["levels_won"])
                rows.append((objective, seed, won, n, result["failure"]))
                lines.append(json.dumps(result))
                print(
                    f"{objective:24s} seed {seed}: {won:2d}/{n} levels won (recorded), "
                    f"{result['steps']} steps, {time.perf_counter() - t0:.0f} s"
                    + (f"  [{result['failure']}]" if result["failure"] else ""),
                    flush=True,
                )
    finally:
        server.terminate()
        server.wait(timeout=30)
        write_atomic(run / "results.jsonl", "".join(line + "\n" for line in lines))
    for seed in seeds:
        won = sum(r[2] for r in rows if r[1] == seed)
        total = sum(r[3] for r in rows if r[1] == seed)
        solved = sum(r[2] == r[3] for r in rows if r[1] == seed)
        print(
            f"seed {seed}: {won}/{total} levels won, {solved}/{len(objectives)} objectives complete"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
