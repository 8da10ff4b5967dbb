"""JAX baselines: masked PPO on the twin (``puzzlegym train agent=jax_ppo``), several seeds
an objective. Every run is tested on both held-out sets: the tier's catalogue and a generated
held-out set of 1,000 levels it never trained on (:mod:`puzzlegym.game.heldout`). Each run
plays both random policies beside the trained one. One row an objective, with rliable's 95 %
stratified-bootstrap intervals over seeds and levels (:func:`puzzlegym.rl.report.aggregate`)
and the per-seed figures.

    .venv/bin/python benchmarks/jax_baselines.py                # every game's first tier
    .venv/bin/python benchmarks/jax_baselines.py --objectives MazePaint-Easy NutAndBolt-Easy \\
        --seeds 0 1 2 --timesteps 4000000

Every other setting is ``configs/agent/jax_ppo.yaml``'s. Resumable: the runs live under
``--root`` (``runs/jax_baselines/<Game>-<Tier>/seed<s>``). Started again after a kill, a
finished run (its ``result.json``) is read back and an unfinished one continues from its
checkpoint (``--resume``: the figures of an unbroken run). Writes the rows to ``--json``
(default ``<root>/baselines.json``: ``objective``, ``seeds``, ``timesteps``,
``catalogue_success``, ``catalogue_ci``, ``generated_success``, ``generated_ci``,
``random_masked_generated_success``, ``random_masked_generated_ci``, ... shares in 0..1,
intervals ``[low, high]``) and prints a Markdown table; the last line is the rows as JSON.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from puzzlegym import cli
from puzzlegym.base import jsonio
from puzzlegym.game.twin import has_twin
from puzzlegym.rl.report import aggregate
from puzzlegym.run import env_config_name
from puzzlegym.suite.registry import games, parse_env_id

ROOT = Path(__file__).resolve().parent.parent


def run_dir(root: Path, objective: str, seed: int) -> Path:
    return root / objective / f"seed{seed}"


def train(objective: str, seed: int, timesteps: int, out: Path) -> dict:
    """The run's result: read back when finished, else trained (or resumed) now."""
    done = out / "result.json"
    if done.exists():
        result = json.loads(done.read_text())
        config = result["config"]
        if (config["seed"], config["timesteps"], result["env_id"]) != (
            seed,
            timesteps,
            f"LongPuzzle/{objective}",
        ):
            raise SystemExit(f"{out}: a run of another objective, seed or length; move it away")
        return result
    game, tier = parse_env_id(f"LongPuzzle/{objective}")
    args = [
        "train",
        "agent=jax_ppo",
        f"env={env_config_name(game.package, tier)}",
        f"seed={seed}",
        f"agent.timesteps={timesteps}",
        "agent.progress=false",
        "--out",
        str(out),
    ]
    if (out / "config.json").exists():
        args.append("--resume")
    code = cli.main(args)
    if code != 0:
        raise SystemExit(f"{objective} seed {seed}: puzzlegym train exited with {code}")
    return json.loads(done.read_text())


def row(objective: str, results: list[dict]) -> dict:
    """One objective's row (see the module docstring)."""
    agg = aggregate(results)

    def pair(name: str) -> tuple[float, list[float]]:
        figure = agg[name]
        return round(figure["mean"], 4), [round(v, 4) for v in figure["mean_ci"]]

    out: dict = {"objective": objective, "seeds": agg["seeds"], "timesteps": agg["timesteps"]}
    for key, name in (
        ("catalogue", "trained_test"),
        ("random_masked_catalogue", "random_masked_test"),
        ("random_uniform_catalogue", "random_uniform_test"),
        ("generated", "trained_generated"),
        ("random_masked_generated", "random_masked_generated"),
        ("train", "trained_train"),
    ):
        out[f"{key}_success"], out[f"{key}_ci"] = pair(name)
    out["generated_levels"] = agg["levels"]["generated"]
    out["catalogue_levels"] = agg["levels"]["test"]
    out["beats_masked_catalogue"] = agg["beats_masked"]
    out["beats_masked_generated"] = agg["beats_masked_generated"]
    out["per_seed"] = [
        {
            "seed": r["config"]["seed"],
            "catalogue": round(r["trained"]["test"]["success"], 4),
            "generated": r["generated"]["trained"]["success"],
            "random_masked_generated": r["generated"]["random_masked"]["success"],
            "train_fps": r["train_fps"],
            "seconds": r["total_s"],
        }
        for r in results
    ]
    out["train_fps"] = round(agg["train_fps"], 1)
    return out


def table(rows: list[dict]) -> str:
    def pct(value: float, ci: list[float]) -> str:
        return f"{100 * value:.1f} [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"

    lines = [
        "| objective | seeds | steps | catalogue | masked random | generated | masked random |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['objective']} | {len(r['seeds'])} | {r['timesteps']:,} | "
            f"{pct(r['catalogue_success'], r['catalogue_ci'])} | "
            f"{pct(r['random_masked_catalogue_success'], r['random_masked_catalogue_ci'])} | "
            f"{pct(r['generated_success'], r['generated_ci'])} | "
            f"{pct(r['random_masked_generated_success'], r['random_masked_generated_ci'])} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--objectives", nargs="+", default=None, help="default: every game's first tier"
    )
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--timesteps", type=int, default=4_000_000)
    parser.add_argument("--root", type=Path, default=ROOT / "runs" / "jax_baselines")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.objectives is None:
        firsts = [game.env_id(game.tiers[0]) for game in games().values() if has_twin(game)]
        args.objectives = [env_id.split("/", 1)[1] for env_id in firsts]
    for objective in args.objectives:
        parse_env_id(f"LongPuzzle/{objective}")  # a bad name stops here, before any run
    started = time.perf_counter()
    rows = []
    for objective in args.objectives:
        results = [
            train(objective, s, args.timesteps, run_dir(args.root, objective, s))
            for s in args.seeds
        ]
        rows.append(row(objective, results))
    print(table(rows))
    print(f"wall time {time.perf_counter() - started:.0f} s (a finished run is read back, not run)")
    jsonio.write_json(args.json or args.root / "baselines.json", rows)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
