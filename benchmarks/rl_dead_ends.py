"""Does a dead-end intervention in training speed learning? Masked PPO in JAX on Nut and Bolt
Medium (its first tier with reachable dead ends) and Bolt Unscrew Easy, each trained three
ways on the same seeds and levels: as the baseline table trains (``agent.dead_end=none``),
with Restart clicked at once after every action that lands on a certified dead end
(``restart``: what :class:`puzzlegym.wrappers.DeadEndRestart` does in the Python env), and
with a penalty on
every action after which the board is a dead end (``penalty``, ``agent.dead_end_penalty``).
The twin tells a dead end by the dead-end oracle (:mod:`puzzlegym.jax.deadends`: every
training level's state graph enumerated). Every evaluation plays without the intervention.

    .venv/bin/python benchmarks/rl_dead_ends.py                   # 2 x 3 seeds x 3 ways x 10M
    .venv/bin/python benchmarks/rl_dead_ends.py --objectives BoltUnscrew-Easy --seeds 2 \
        --timesteps 2000000 --no-docs

Writes, from the runs under ``--root`` (``runs/rl_dead_ends/<objective>-<way>/seed<s>``,
resumable as ``benchmarks/rl_baselines.py``'s): ``docs/rl-dead-ends.md`` (per objective, the
rows: both
held-out sets beside masked random with rliable's 95 % intervals over seeds and levels,
the learning speed as the mean test and train success over the curve's points, the dead
ends the trained policies walk into), ``docs/rl-dead-ends.json`` (one object a row) and
``docs/img/rl_dead_ends_<objective>.png`` (the curves).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from rl_baselines import TABLE, row, run_dir, train  # noqa: E402

from puzzlegym.base import jsonio  # noqa: E402
from puzzlegym.game.registry import parse_env_id  # noqa: E402
from puzzlegym.training.pages import ci_cell, dead_end_row, pct  # noqa: E402
from puzzlegym.training.plots import plot_sweep  # noqa: E402
from puzzlegym.training.report import summarise  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OBJECTIVES = ("NutAndBolt-Medium", "BoltUnscrew-Easy")
WAYS = ("none", "restart", "penalty")
PLAN = dict(TABLE, seeds=3)  # the baseline table's settings, 3 seeds a way
PENALTY = 0.1  # configs/agent/jax_ppo.yaml's agent.dead_end_penalty


def speed(results: list[dict], key: str) -> tuple[float, list[float]]:
    """The mean over seeds of each run's mean ``key`` over its curve points (the area under
    the learning curve, per step), and the lowest and highest run's."""
    per_run = [float(np.mean([c[key] for c in r["curve"]])) for r in results]
    return round(float(np.mean(per_run)), 4), [round(min(per_run), 4), round(max(per_run), 4)]


def rows_of(objective: str, groups: dict[str, list[dict]]) -> list[dict]:
    summaries = summarise(groups)
    out = []
    for way, results in groups.items():
        r = row(objective, summaries[way], results)
        r["dead_end"] = way
        r["dead_end_penalty"] = PENALTY if way == "penalty" else None
        r["curve_test_mean"], r["curve_test_range"] = speed(results, "test_success")
        r["curve_train_mean"], r["curve_train_range"] = speed(results, "train_success")
        r["training_dead_ends"] = results[0]["training_split"].get("dead_ends")
        r["generated_per_seed"] = [x["generated"]["trained"]["success"] for x in results]
        out.append(r)
    return out


def header(meta: dict) -> list[str]:
    return [
        "# Dead-end interventions in RL training",
        "",
        "Masked PPO in JAX, trained three ways on the same seeds, training levels and steps: "
        "as the baseline table trains (`none`); with Restart clicked at once after each "
        "action that lands on a certified dead end (`restart`, what `DeadEndRestart` does in "
        "the Python env; the click takes an action of the budget); with "
        f"{PENALTY:g} subtracted from the reward of each action after which the board is a "
        "dead end (`penalty`). The twin tells a dead end by its dead-end oracle "
        "(`puzzlegym.jax.deadends`: every training level's whole state graph enumerated, each "
        "board's key looked up in play; the tests check it against the exact solvers' "
        "certificate). Every evaluation plays without the intervention: the catalogue levels "
        "in the Python env, the generated held-out set in the twin. Success has rliable's "
        "95 % stratified-bootstrap intervals over seeds and levels. *Learning speed* is each "
        "run's mean success over its learning-curve points (every "
        f"{meta['curve_every']:,} steps: the area under the curve, per step), averaged over "
        "seeds, with the lowest and highest run's. The seeds' t-interval is the 95 % "
        "t-interval of the mean of the per-seed figures: rliable's intervals resample the "
        "seeds within each of a thousand levels, which averages most of the seeds' own "
        "spread out, so a verdict needs both apart. Regenerate with",
        "",
        "```bash",
        meta["command"],
        "```",
        "",
    ]


def section(rows: list[dict]) -> list[str]:
    base = rows[0]
    dead_ends = next(r["training_dead_ends"] for r in rows if r["training_dead_ends"] is not None)
    objective = base["objective"]
    lines = [
        f"## {objective}",
        "",
        f"Seeds {', '.join(map(str, base['seeds']))}; {dead_ends:,} dead ends in the training "
        "levels' state graphs.",
        "",
        "| training | generated held-out | masked random (generated) | catalogue | "
        "curve: mean test success | curve: mean train success | generated, per seed | "
        "generated: seeds' t-interval | steps | wall time a run |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lo, hi = min(r["seconds"]), max(r["seconds"])
        lines.append(
            f"| `{r['dead_end']}` | {ci_cell(r['generated_success'], r['generated_ci'])} | "
            f"{ci_cell(r['random_masked_generated_success'], r['random_masked_generated_ci'])} | "
            f"{ci_cell(r['catalogue_success'], r['catalogue_ci'])} | "
            f"{pct(r['curve_test_mean'])} ({pct(r['curve_test_range'][0])}–"
            f"{pct(r['curve_test_range'][1])}) | {pct(r['curve_train_mean'])} "
            f"({pct(r['curve_train_range'][0])}–{pct(r['curve_train_range'][1])}) | "
            f"{', '.join(pct(v) for v in r['generated_per_seed'])} | "
            f"[{100 * r['generated_seed_ci'][0]:.1f}, {100 * r['generated_seed_ci'][1]:.1f}] | "
            f"{r['timesteps']:,} | {lo / 60:.1f}–{hi / 60:.1f} min |"
        )
    lines.append("")
    for r in rows[1:]:
        a, b = r["generated_ci"], base["generated_ci"]
        sa, sb = r["generated_seed_ci"], base["generated_seed_ci"]
        if a[0] > b[1] and sa[0] > sb[1]:
            verdict = "it learns more than without it: both intervals apart"
        elif a[1] < b[0] and sa[1] < sb[0]:
            verdict = "it learns less than without it: both intervals apart"
        elif a[0] > b[1] or a[1] < b[0]:
            verdict = (
                "the intervals over seeds and levels lie apart, but the seeds' t-intervals "
                "overlap: with these seeds it is not told apart from training without it"
            )
        else:
            verdict = "it is not told apart from training without it: the intervals overlap"
        lines.append(
            f"* **`{r['dead_end']}`** on the generated held-out set: "
            f"{ci_cell(r['generated_success'], r['generated_ci'])} against "
            f"{ci_cell(base['generated_success'], base['generated_ci'])} (seeds' t-intervals "
            f"[{100 * sa[0]:.1f}, {100 * sa[1]:.1f}] against "
            f"[{100 * sb[0]:.1f}, {100 * sb[1]:.1f}]); {verdict}."
        )
    lines += [
        "",
        "The dead ends of the trained policies (sampled) and of masked random on the catalogue "
        "levels in the Python env, whose evaluator certifies every board, without the "
        "intervention; pooled over seeds (`puzzlegym.record.metrics.dead_end_stats`):",
        "",
        "| training | policy | attempts | reached a dead end | dead-end runs left by "
        "undo/restart | mean delay before leaving (moves) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        for phase, label in (("trained", "PPO (JAX)"), ("random_masked", "masked random")):
            lines.append(
                dead_end_row(f"`{r['dead_end']}`", label, r["dead_ends"][phase], median=False)
            )
    lines += ["", f"![learning curves of {objective}](img/rl_dead_ends_{objective}.png)", ""]
    return lines


def render(sections: dict[str, list[dict]], meta: dict) -> str:
    lines = header(meta)
    for rows in sections.values():
        lines += section(rows)
    lines += [
        f"Wall times as measured on this 2-core machine; the page was written on {meta['date']}.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--objectives", nargs="+", default=list(OBJECTIVES))
    parser.add_argument("--seeds", type=int, default=PLAN["seeds"], help="seeds 0 .. N-1")
    parser.add_argument("--timesteps", type=int, default=PLAN["timesteps"])
    parser.add_argument("--root", type=Path, default=Path("runs") / "rl_dead_ends")
    parser.add_argument("--no-docs", action="store_true", help="print the rows, write no docs")
    args = parser.parse_args()
    for objective in args.objectives:
        parse_env_id(f"LongPuzzle/{objective}")  # a bad name stops here, before any run
    if not 1 <= args.seeds <= 100:
        parser.error(f"--seeds: expected 1..100, got {args.seeds}")
    if not 1 <= args.timesteps <= 10**10:
        parser.error(f"--timesteps: expected 1..10^10, got {args.timesteps}")
    plan = dict(PLAN, seeds=args.seeds, timesteps=args.timesteps)
    started = time.perf_counter()
    runs: dict[str, dict[str, list[dict]]] = {}
    for objective in args.objectives:
        groups = runs[objective] = {}
        for way in WAYS:
            where = args.root / way
            groups[way] = [
                train(objective, s, plan, 0.95, run_dir(where, objective, s), way)
                for s in range(plan["seeds"])
            ]
            print(
                f"{objective} {way}: {plan['seeds']} runs, "
                f"{time.perf_counter() - started:.0f} s in all"
            )
    sections = {objective: rows_of(objective, groups) for objective, groups in runs.items()}
    for rows in sections.values():
        for r in rows:
            print(
                f"{r['objective']} {r['dead_end']}: generated {r['generated_success']:.3f} "
                f"{r['generated_ci']}, catalogue {r['catalogue_success']:.3f} "
                f"{r['catalogue_ci']}, curve test mean {r['curve_test_mean']:.3f}"
            )
    if not args.no_docs:
        command = ".venv/bin/python benchmarks/rl_dead_ends.py"
        if tuple(args.objectives) != OBJECTIVES:
            command += " --objectives " + " ".join(args.objectives)
        if args.seeds != PLAN["seeds"]:
            command += f" --seeds {args.seeds}"
        if args.timesteps != PLAN["timesteps"]:
            command += f" --timesteps {args.timesteps}"
        first = runs[args.objectives[0]]["none"][0]
        meta = {
            "command": command,
            "curve_every": first["curve"][0]["timesteps"],
            "date": time.strftime("%Y-%m-%d"),
        }
        docs = ROOT / "docs"
        jsonio.write_atomic(docs / "rl-dead-ends.md", render(sections, meta))
        jsonio.write_json(docs / "rl-dead-ends.json", [r for rs in sections.values() for r in rs])
        for objective, groups in runs.items():
            titled = {f"{objective}, dead_end={way}": rs for way, rs in groups.items()}
            jsonio.write_atomic(
                docs / "img" / f"rl_dead_ends_{objective}.png",
                lambda tmp, titled=titled: plot_sweep(titled, tmp, cols=3),
            )
        print("wrote docs/rl-dead-ends.md, docs/rl-dead-ends.json and the plots")
    every = [r for rs in sections.values() for r in rs]
    print(json.dumps([{k: v for k, v in r.items() if k != "dead_ends"} for r in every]))


if __name__ == "__main__":
    main()
