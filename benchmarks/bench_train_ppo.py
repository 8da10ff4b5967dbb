"""The README's one command, ten times: ``examples/train_ppo.py`` (``configs/train_ppo.yaml``)
with seeds 0..9, each run measuring its held-out success beside both random policies on the
same levels. Prints one line per seed and whether the trained policy beat masked random in
that run, and writes ``docs/rl-demo.md`` (the ten figures; the README quotes it).

    .venv/bin/python benchmarks/bench_train_ppo.py [--seeds 10] [--jobs 2]
        [--root runs/bench_train_ppo]
    .venv/bin/python benchmarks/bench_train_ppo.py --no-docs agent.timesteps=20000 # Hydra overrides

Resumable like every sweep (:mod:`puzzlegym.rl.sweep`): killed and started again, finished
seeds are read back and an interrupted one runs again.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from hydra import compose, initialize_config_module

from puzzlegym.base.jsonio import write_atomic
from puzzlegym.levels.generate import warm_cache
from puzzlegym.rl.sweep import Run, run_sweep
from puzzlegym.run import train_config
from puzzlegym.training.results import summary

ROOT = Path(__file__).resolve().parent.parent


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def render(rows: list[dict], config, meta: dict) -> str:
    wins = sum(r["heldout_success"] > r["random_masked_success"] for r in rows)
    p = config.protocol
    lines = [
        "# The one-command PPO demo, ten seeds",
        "",
        "<!-- written by benchmarks/bench_train_ppo.py from the runs under "
        f"{meta['root']}; do not edit by hand -->",
        "",
        "The README's command (`scripts/setup.sh dev && .venv/bin/python examples/train_ppo.py`) "
        f"trains MaskablePPO on {p.env_id} for {config.timesteps:,} steps: the symbolic board "
        f"read by `{config.extractor}`, board actions, learning rate "
        f"{config.hyperparameters.get('learning_rate', 3e-4):g}, {p.num_levels} generated training "
        "levels, one level per episode; it tests "
        f"on the tier's catalogue levels within {p.budget_multiple:g}× each level's solver "
        "solution "
        f"({config.episodes} episodes per level) beside the uniform and the masked-uniform random "
        "policy on the same levels and episodes. Here it ran with seeds "
        f"0..{len(rows) - 1} (`seed=N`), {meta['jobs']} at a time:",
        "",
        "```bash",
        meta["command"],
        "```",
        "",
        "| seed | held-out success (trained) | masked random | uniform random | train success | "
        "beats masked random | wall time |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        beat = "yes" if r["heldout_success"] > r["random_masked_success"] else "no"
        lines.append(
            f"| {r['seed']} | {_pct(r['heldout_success'])} | {_pct(r['random_masked_success'])} | "
            f"{_pct(r['random_success'])} | {_pct(r['train_success'])} | {beat} | "
            f"{r['seconds'] / 60:.1f} min |"
        )
    held = [r["heldout_success"] for r in rows]
    masked = [r["random_masked_success"] for r in rows]
    lines += [
        "",
        f"The trained policy beat masked random (a higher held-out success in the same run) in "
        f"**{wins} of {len(rows)}** runs; held-out success "
        f"{_pct(min(held))}–{_pct(max(held))} (median {_pct(statistics.median(held))}) "
        "against masked "
        f"random's {_pct(min(masked))}–{_pct(max(masked))} "
        f"(median {_pct(statistics.median(masked))}); "
        f"runs took {min(r['seconds'] for r in rows) / 60:.1f}–"
        f"{max(r['seconds'] for r in rows) / 60:.1f} "
        "minutes each (training, both random baselines, the curve and the final evaluations), "
        f"{meta['jobs']} at a time on the shared 2-core machine beside other work; page written on "
        f"{meta['date']}.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--root", default="runs/bench_train_ppo")
    parser.add_argument("--no-docs", action="store_true")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of configs/train_ppo.yaml")
    args = parser.parse_args(argv)
    if not 1 <= args.seeds <= 100:
        parser.error(f"--seeds: expected 1..100, got {args.seeds}")
    with initialize_config_module("puzzlegym.configs", version_base=None):
        cfgs = [
            compose(
                "train_ppo",
                overrides=[*args.overrides, f"seed={s}", "out_dir=null", "agent.progress=false"],
            )
            for s in range(args.seeds)
        ]
    configs = [train_config(c) for c in cfgs]
    p = configs[0].protocol
    warm_cache(
        p.env_id, p.num_levels, p.start_level, workers=1, log=lambda line: print(line, flush=True)
    )
    runs = [Run(f"seed{s}", c) for s, c in enumerate(configs)]
    results = run_sweep(runs, args.root, jobs=args.jobs, log=lambda line: print(line, flush=True))
    rows = [summary(results[f"seed{s}"]) for s in range(args.seeds)]
    for r in rows:
        print(json.dumps(r))
    wins = sum(r["heldout_success"] > r["random_masked_success"] for r in rows)
    print(
        json.dumps(
            {
                "seeds": args.seeds,
                "beats_masked_random": wins,
                "heldout_success": [r["heldout_success"] for r in rows],
                "random_masked_success": [r["random_masked_success"] for r in rows],
            }
        )
    )
    if not args.no_docs:
        meta = {
            "root": args.root,
            "jobs": args.jobs,
            "date": time.strftime("%Y-%m-%d"),
            "command": ".venv/bin/python benchmarks/bench_train_ppo.py"
            + (f" --seeds {args.seeds}" if args.seeds != 10 else ""),
        }
        write_atomic(ROOT / "docs" / "rl-demo.md", render(rows, configs[0], meta))
        print("wrote docs/rl-demo.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
