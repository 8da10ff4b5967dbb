"""The README's one RL command, ten times: ``puzzlegym train agent=jax_ppo
env=maze_paint_easy`` with seeds 0..9, each a process of its own (as a user runs it), timed
from start to exit. Each run measures held-out success on both sets beside the random
policies. Prints one line per seed, with the generated set's 95 % intervals of the trained
policy and of masked random and whether they lie apart, and writes ``docs/rl-demo-jax.md``.

    .venv/bin/python benchmarks/bench_train_jax.py [--seeds 10] [--root runs/bench_train_jax]
    .venv/bin/python benchmarks/bench_train_jax.py --no-docs -- agent.timesteps=400000

Resumable: a seed whose ``result.json`` exists is read back (its recorded time kept), an
unfinished one continues from its checkpoint (``--resume``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from puzzlegym.base.jsonio import write_atomic, write_json

ROOT = Path(__file__).resolve().parent.parent
COMMAND = ("train", "agent=jax_ppo", "env=maze_paint_easy")
LIMIT_S = 180  # the README's bound on the command


def run_seed(seed: int, out: Path, overrides: list[str]) -> dict:
    """One seed's headline figures (``puzzlegym.training.results.summary``) and its wall time."""
    timing = out.parent / f"{out.name}.wall.json"
    if (out / "result.json").exists() and timing.exists():
        return json.loads(timing.read_text())
    args = [str(ROOT / ".venv" / "bin" / "puzzlegym"), *COMMAND, f"seed={seed}", *overrides]
    args += ["agent.progress=false", "--out", str(out)]
    if (out / "config.json").exists():
        args.append("--resume")
    t = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, timeout=3600, check=False)
    wall = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"seed {seed}: exited with {done.returncode}:\n{done.stderr[-2000:]}")
    line = json.loads(done.stdout.strip().splitlines()[-1])
    line["wall_s"] = round(wall, 1)
    line["resumed"] = "--resume" in args
    write_json(timing, line)
    return line


def apart(line: dict) -> bool:
    return line["heldout_generated_ci"][0] > line["random_masked_generated_ci"][1]


def _ci(value: float, ci: list[float]) -> str:
    return f"{100 * value:.1f}% [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def table(lines: list[dict]) -> list[str]:
    out = [
        "| seed | generated held-out | masked random (generated) | apart | catalogue | "
        "masked random (catalogue) | uniform random (catalogue) | train levels | env steps | "
        "wall time |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for x in lines:
        out.append(
            f"| {x['seed']} | {_ci(x['heldout_generated_success'], x['heldout_generated_ci'])} | "
            f"{_ci(x['random_masked_generated_success'], x['random_masked_generated_ci'])} | "
            f"{'yes' if apart(x) else 'no'} | {100 * x['heldout_success']:.0f}% | "
            f"{100 * x['random_masked_success']:.0f}% | {100 * x['random_success']:.0f}% | "
            f"{100 * x['train_success']:.0f}% | {x['timesteps']:,} | {x['wall_s']:.0f} s |"
        )
    return out


def render(lines: list[dict], meta: dict) -> str:
    walls = [x["wall_s"] for x in lines]
    wins = sum(apart(x) for x in lines)
    gen = [x["heldout_generated_success"] for x in lines]
    return "\n".join(
        [
            "# The one-command JAX PPO run, ten seeds",
            "",
            "<!-- written by benchmarks/bench_train_jax.py from the runs under "
            f"{meta['root']}; do not edit by hand -->",
            "",
            "The README's command (`scripts/setup.sh jax && .venv/bin/puzzlegym train "
            "agent=jax_ppo env=maze_paint_easy`) trains masked PPO in JAX on Maze Paint Easy's "
            "twin, then tests on the tier's 10 catalogue levels (10 episodes a level, beside "
            "both random policies) and on 1,000 generated held-out levels (beside masked "
            "random). Here it ran with seeds "
            f"{lines[0]['seed']}..{lines[-1]['seed']} (`seed=N`), one process a seed, one at a "
            "time, timed from start to exit (the first run also generated the levels into the "
            "level cache). Regenerate with",
            "",
            "```bash",
            meta["command"],
            "```",
            "",
            *table(lines),
            "",
            f"The trained policy's interval lies above masked random's on the generated set in "
            f"{wins} of {len(lines)} seeds; its success there was "
            f"{100 * min(gen):.1f}–{100 * max(gen):.1f}% (median "
            f"{100 * statistics.median(gen):.1f}%). A run took "
            f"{min(walls):.0f}–{max(walls):.0f} s (median {statistics.median(walls):.0f} s; "
            f"the bound is {LIMIT_S} s). Page written on {meta['date']}.",
            "",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--root", type=Path, default=Path("runs") / "bench_train_jax")
    parser.add_argument("--no-docs", action="store_true")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides for every run")
    args = parser.parse_args()
    if not 1 <= args.seeds <= 100:
        parser.error(f"--seeds: expected 1..100, got {args.seeds}")
    if args.overrides and not args.no_docs:
        parser.error("overrides: the page shows the README's command; add --no-docs")
    lines = []
    for seed in range(args.seeds):
        line = run_seed(seed, args.root / f"seed{seed}", args.overrides)
        lines.append(line)
        trained = _ci(line["heldout_generated_success"], line["heldout_generated_ci"])
        masked = _ci(line["random_masked_generated_success"], line["random_masked_generated_ci"])
        verdict = "apart" if apart(line) else "not apart"
        print(
            f"seed {seed}: generated {trained} vs masked random {masked} ({verdict}); "
            f"{line['wall_s']:.0f} s",
            flush=True,
        )
    print("\n".join(table(lines)))
    if not args.no_docs:
        command = ".venv/bin/python benchmarks/bench_train_jax.py" + (
            "" if args.seeds == 10 else f" --seeds {args.seeds}"
        )
        meta = {"root": str(args.root), "command": command, "date": time.strftime("%Y-%m-%d")}
        write_atomic(ROOT / "docs" / "rl-demo-jax.md", render(lines, meta))
        print("wrote docs/rl-demo-jax.md")
    print(json.dumps(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
