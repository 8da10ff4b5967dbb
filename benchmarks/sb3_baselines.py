"""The RL baseline table: MaskablePPO on the symbolic board of every game's first tier,
trained on generated levels and tested on the catalogue (:mod:`puzzlegym.training.protocol`),
several seeds each, beside the uniform and the masked-uniform random policy measured in the
same runs; writes ``docs/rl-baselines-sb3.md`` (the table, the dead ends of Bolt Unscrew and Nut
and Bolt, the settings) and ``docs/img/sb3_baselines.png`` (every learning curve).

    .venv/bin/python benchmarks/sb3_baselines.py                # all six, 3 seeds, 2 at a time
    .venv/bin/python benchmarks/sb3_baselines.py --seeds 5 --root runs/sb3_baselines_5
    .venv/bin/python benchmarks/sb3_baselines.py --only MazePaint-Easy --no-docs

Resumable: the runs live under ``--root`` (``runs/sb3_baselines``); started again after a
kill, finished runs are read back, an interrupted one is moved to ``superseded/`` and run
again (:mod:`puzzlegym.rl.sweep`). The training levels are generated into the level cache
first (``puzzlegym levels generate``; timed apart from the runs). Every figure on the page
comes from the runs under ``--root``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from puzzlegym.base.jsonio import write_atomic
from puzzlegym.levels.generate import warm_cache
from puzzlegym.rl.sweep import Run, run_sweep
from puzzlegym.rl.train import TrainConfig
from puzzlegym.training.pages import (
    DEAD_END_HEADER,
    DEAD_END_TEXT,
    INTERVALS_TEXT,
    dead_end_row,
    pct,
)
from puzzlegym.training.plots import plot_sweep
from puzzlegym.training.protocol import Protocol
from puzzlegym.training.report import summarise

ROOT = Path(__file__).resolve().parent.parent

# The protocol and the training settings every game shares (those of the README's one command,
# configs/train_ppo.yaml, but 5 episodes per level in the final evaluations) ...
PROTOCOL = dict(num_levels=500, start_level=0, budget_multiple=2.0, train_levels=10)
TRAIN = dict(
    algo="maskable_ppo",
    extractor="board_cnn",
    net_arch=[128, 128],
    n_envs=8,
    episodes=5,
    curve_every=10_000,
    curve_episodes=2,
    torch_threads=1,
    hyperparameters=dict(
        n_steps=128, batch_size=256, n_epochs=4, learning_rate=1e-3, ent_coef=0.01, gamma=0.99
    ),
)
# ... and what differs: the recovery controls where the paper studies dead ends (Bolt
# Unscrew: restart; Nut and Bolt: restart and undo), and the training steps, sized so that a
# run (random baselines, training, curve, final evaluations) stays within 5 minutes on the
# shared 2-core machine, two at a time (the games' step costs differ 7x)
GAMES = {
    "MazePaint-Easy": dict(buttons=[], timesteps=50_000),
    "NutAndBolt-Easy": dict(buttons=["restart", "undo"], timesteps=40_000),
    "BoltUnscrew-Easy": dict(buttons=["restart"], timesteps=30_000),
    "TruckEscape-Default": dict(buttons=[], timesteps=30_000),
    "RushHour-Easy": dict(buttons=[], timesteps=30_000),
    "ColorConnect-Easy": dict(buttons=[], timesteps=20_000),
}
# Beyond the table: Nut and Bolt Medium, whose levels have dead ends (Easy's have none), and
# the same protocol from the training view's 84x84 grayscale pixels (SB3's CnnPolicy, NatureCNN)
EXTRA = {
    "NutAndBolt-Medium": dict(buttons=["restart", "undo"], timesteps=40_000),
    "pixels-MazePaint-Easy": dict(game="MazePaint-Easy", buttons=[], timesteps=30_000, pixels=True),
    "pixels-NutAndBolt-Easy": dict(
        game="NutAndBolt-Easy", buttons=["restart", "undo"], timesteps=30_000, pixels=True
    ),
}
PIXELS = dict(view="board", size=[84, 84], grayscale=True)
GROUPS = {**GAMES, **EXTRA}
DEAD_END_GAMES = ("BoltUnscrew-Easy", "NutAndBolt-Easy", "NutAndBolt-Medium")


def config(key: str, seed: int) -> TrainConfig:
    g = GROUPS[key]
    if g.get("pixels"):
        wrappers, train = (
            {**PIXELS, "buttons": list(g["buttons"])},
            {**TRAIN, "extractor": "flatten"},
        )
    else:
        wrappers, train = dict(observation="board", buttons=list(g["buttons"])), TRAIN
    protocol = Protocol(f"LongPuzzle/{g.get('game', key)}", wrappers=wrappers, **PROTOCOL)
    return TrainConfig(
        protocol=protocol, timesteps=g["timesteps"], seed=seed, progress=False, **train
    )


# ----------------------------------------------------------------------------- the page
def _pct(x: float | None) -> str:
    return pct(x, digits=0)


def _ci(d: dict, key: str = "mean") -> str:
    lo, hi = d[f"{key}_ci"]
    return f"{_pct(d[key])} [{_pct(lo)}, {_pct(hi)}]"


def verdicts(rows: dict) -> list[str]:
    """Plain sentences from the figures: where masked random already solves a game, where
    PPO beats it (intervals apart) and where it does not."""
    out = []
    for game, r in rows.items():
        masked, trained = r["random_masked_test"], r["trained_test"]
        if masked["mean"] >= 0.9:
            out.append(
                f"**{game}**: masked random already solves {_pct(masked['mean'])} of the held-out "
                f"levels: the mask shows which moves change the board, and here that is nearly the "
                f"whole game; the trained policy reaches {_pct(trained['mean'])}."
            )
        elif trained["mean"] == 0 and masked["mean"] == 0:
            out.append(
                f"**{game}**: neither PPO nor masked random solved a held-out level in "
                f"{r['timesteps']:,} steps (train levels: {_pct(r['trained_train']['mean'])})."
            )
        elif r["beats_masked"]:
            out.append(
                f"**{game}**: PPO beats masked random with intervals apart "
                f"({_ci(trained)} against {_ci(masked)})."
            )
        else:
            out.append(
                f"**{game}**: PPO does not beat masked random: its interval {_ci(trained)} "
                f"overlaps or lies below masked random's {_ci(masked)}."
            )
    slow = {g: max(r["total_s"]) for g, r in rows.items() if max(r["total_s"]) > 300}
    for g, worst in slow.items():
        out.append(
            f"**{g}**: runs took up to {worst / 60:.1f} minutes, over the 5 minutes each run "
            "was meant to stay within (its steps were sized before the runs; the figures are "
            "those of the steps given)."
        )
    solved = [g for g, r in rows.items() if r["trained_test"]["mean"] >= 0.5]
    out.append(
        f"Held-out levels solved at least half the time on average: {len(solved)} game(s)"
        + (f" ({', '.join(solved)})." if solved else ".")
    )
    return out


def render(rows: dict, meta: dict) -> str:
    lines = [
        "# RL baselines in Stable-Baselines3",
        "",
        "<!-- written by benchmarks/sb3_baselines.py from the runs under "
        f"{meta['root']}; do not edit by hand -->",
        "",
        "MaskablePPO (sb3-contrib) on the symbolic board of each game's first tier (and Truck "
        "Escape's one tier), trained on generated levels and tested on the catalogue's levels of "
        f"the same tier, {meta['seeds']} seeds per game, beside the uniform and the "
        "masked-uniform random policy measured in the same runs; rows named `pixels-...` train "
        'the same way from the training view\'s 84×84 grayscale pixels (`view="board"`, '
        "SB3's `CnnPolicy`), and Nut and Bolt Medium is there for its dead ends (Easy has none). "
        "Regenerate the page (about "
        f"{meta['sweep_minutes']:.0f} minutes of runs here, {meta['jobs']} at a time, plus the "
        "level "
        "generation) with",
        "",
        "```bash",
        f"{meta['command']}",
        "```",
        "",
        "## Protocol",
        "",
        f'* **Training**: one generated level per episode (`levels="generated"`, `level=1`, '
        f'`start="board"`), drawn uniformly from {PROTOCOL["num_levels"]} training levels '
        f"(`num_levels={PROTOCOL['num_levels']}`, `start_level={PROTOCOL['start_level']}`: level "
        "seeds that never give a catalogue level); the episode's budget is "
        f"{PROTOCOL['budget_multiple']:g}× the longest solver solution of the tier's catalogue.",
        "* **Held-out success**: each catalogue level of the tier, one level per episode from the "
        f"board, within {PROTOCOL['budget_multiple']:g}× its solver solution, counted in board "
        "actions "
        "(one simulated second each: `budget_s` with `action_cost_s=1`); "
        f"{TRAIN['episodes']} episodes per level of the sampled policy (as trained, with the "
        "mask). "
        "A run's score on a level is its share of won episodes; the game's figure is the mean over "
        "levels and seeds.",
        f"* **Train success**: the same on the split's first {PROTOCOL['train_levels']} training "
        "levels (each within the same multiple of its own solver solution): the difference to "
        "held-out success is the generalisation gap.",
        "* **Random policies**: uniform over the action space, and uniform over the indices "
        "`action_masks()` allows, each on the same levels and episodes.",
        f"* **Intervals**: {INTERVALS_TEXT}; the same for the interquartile mean (IQM).",
        f"* **Training**: {TRAIN['n_envs']} envs in one process, `MlpPolicy` with the "
        f"`{TRAIN['extractor']}` extractor (3×3 convolutions over the board's planes, "
        f"`puzzlegym.rl.extractors.BoardCNN`) and {TRAIN['net_arch']} hidden layers (pixels: "
        "`CnnPolicy`, SB3's NatureCNN), PPO "
        f"`{json.dumps(TRAIN['hyperparameters'])}`, the steps of each row's `env steps` column, "
        "the env's potential reward (its shaped default), one torch thread per run. The "
        "recovery controls are actions on the two games whose dead ends the paper studies "
        "(Bolt Unscrew: restart; Nut and Bolt: restart, undo), none elsewhere.",
        "",
        "## Results",
        "",
        "| game | held-out success (mean [95% CI]) | held-out IQM [95% CI] | train success | "
        "masked random | uniform random | greedy policy | env steps | wall time per run | "
        "training steps/s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for game, r in rows.items():
        lo_s, hi_s = min(r["total_s"]), max(r["total_s"])
        lines.append(
            f"| {game} | {_ci(r['trained_test'])} | {_ci(r['trained_test'], 'iqm')} | "
            f"{_ci(r['trained_train'])} | {_ci(r['random_masked_test'])} | "
            f"{_ci(r['random_uniform_test'])} | "
            f"{_pct(r['trained_greedy_test']['mean'])} | {r['timesteps']:,} | "
            f"{lo_s / 60:.1f}–{hi_s / 60:.1f} min | {r['train_fps']:.0f} |"
        )
    lines += [
        "",
        "Per seed, held-out success of the trained policy (and of masked random):",
        "",
        "| game | seeds | trained | masked random |",
        "|---|---|---|---|",
    ]
    for game, r in rows.items():
        lines.append(
            f"| {game} | {', '.join(map(str, r['seeds']))} | "
            f"{', '.join(_pct(x) for x in r['per_seed_test'])} | "
            f"{', '.join(_pct(x) for x in r['per_seed_masked'])} |"
        )
    lines += ["", "What the figures say:", ""] + [f"* {v}" for v in verdicts(rows)]
    lines += [
        "",
        "![Learning curves](img/sb3_baselines.png)",
        "",
        "Learning curves: held-out (solid) and train-level (dashed) success of the sampled policy, "
        f"{TRAIN['curve_episodes']} episodes per level every {TRAIN['curve_every']:,} steps, one "
        "line "
        "per seed; the dotted lines are the random policies' held-out success (mean over seeds).",
        "",
        "## Dead ends of trained agents",
        "",
        f"{DEAD_END_TEXT} Read from the held-out evaluations' `AttemptClosed` events. The "
        "paper's Figure 2c, measured for RL agents:",
        "",
        *DEAD_END_HEADER,
    ]
    for game in DEAD_END_GAMES:
        if game not in rows:
            continue
        for phase, label in (
            ("trained", "MaskablePPO"),
            ("random_masked", "masked random"),
            ("random_uniform", "uniform random"),
        ):
            lines.append(dead_end_row(game, label, rows[game]["dead_ends"][phase]))
    lines += [
        "",
        "Nut and Bolt Easy has no reachable dead end at all (`docs/levels.md`: a dead-end share of "
        "0 % of its reachable states), so its rows can only read 0; Bolt Unscrew Easy's share is "
        "3.24 % of the reachable states and Nut and Bolt Medium's 3.75 % (random playouts reach "
        "one in 12 % and 27 % of them there).",
        "",
        f"Wall times are as measured, {meta['jobs']} runs at a time on the shared 2-core machine "
        f"beside other work (so they vary with its load; the figures do not: runs are bounded by "
        f"steps and seeded); page written on {meta['date']}.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--root", default="runs/sb3_baselines", help="the sweep's directory (resumable)"
    )
    parser.add_argument("--seeds", type=int, default=3, help="seeds per game (0 .. N-1)")
    parser.add_argument(
        "--jobs", type=int, default=2, help="runs at a time (one torch thread each)"
    )
    parser.add_argument(
        "--only", default=None, help="comma-separated groups (default: all: GAMES, then EXTRA)"
    )
    parser.add_argument("--no-docs", action="store_true", help="print the table, write no docs")
    args = parser.parse_args(argv)
    if not 1 <= args.seeds <= 100:
        parser.error(f"--seeds: expected 1..100, got {args.seeds}")
    games = list(GROUPS) if args.only is None else args.only.split(",")
    for g in games:
        if g not in GROUPS:
            parser.error(f"--only: {g!r} is not one of {', '.join(GROUPS)}")
    for g in games:
        warm_cache(
            f"LongPuzzle/{GROUPS[g].get('game', g)}",
            PROTOCOL["num_levels"],
            PROTOCOL["start_level"],
            workers=1,
            log=lambda line: print(line, flush=True),
        )
    runs = [Run(f"{g}-seed{s}", config(g, s)) for g in games for s in range(args.seeds)]
    t1 = time.perf_counter()
    results = run_sweep(runs, args.root, jobs=args.jobs, log=lambda line: print(line, flush=True))
    sweep_s = time.perf_counter() - t1
    groups = {g: [results[f"{g}-seed{s}"] for s in range(args.seeds)] for g in games}
    rows = summarise(groups)
    print(
        json.dumps(
            {
                g: {
                    k: r[k]
                    for k in (
                        "trained_test",
                        "trained_train",
                        "random_masked_test",
                        "random_uniform_test",
                        "timesteps",
                        "train_fps",
                        "total_s",
                        "beats_masked",
                    )
                }
                for g, r in rows.items()
            }
        )
    )
    if not args.no_docs:
        total = sum(sum(r["total_s"]) for r in rows.values())
        meta = {
            "root": args.root,
            "seeds": args.seeds,
            "date": time.strftime("%Y-%m-%d"),
            "jobs": args.jobs,
            "sweep_minutes": total / 60 / max(1, args.jobs),
            "command": ".venv/bin/python benchmarks/sb3_baselines.py"
            + ("" if args.seeds == 3 else f" --seeds {args.seeds}")
            + ("" if args.root == "runs/sb3_baselines" else f" --root {args.root}"),
        }
        write_atomic(ROOT / "docs" / "rl-baselines-sb3.md", render(rows, meta))
        (ROOT / "docs" / "img").mkdir(exist_ok=True)
        write_atomic(
            ROOT / "docs" / "img" / "sb3_baselines.png", lambda tmp: plot_sweep(groups, tmp)
        )
        print(
            "wrote docs/rl-baselines-sb3.md and docs/img/sb3_baselines.png "
            f"(sweep {sweep_s / 60:.1f} min)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
