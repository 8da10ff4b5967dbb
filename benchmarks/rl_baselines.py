"""The RL baseline table at scale: masked PPO in JAX (``puzzlegym train agent=jax_ppo``) on
every objective's twin, several seeds each, tested on both held-out sets (the tier's
catalogue, and 1,000 generated levels no training level equals up to symmetry:
:mod:`puzzlegym.game.heldout`) beside both random policies measured in the same runs.

    .venv/bin/python benchmarks/rl_baselines.py                 # every objective, 5 seeds, 10M
    .venv/bin/python benchmarks/rl_baselines.py --objectives MazePaint-Easy --seeds 3 \\
        --timesteps 2000000 --root runs/x --no-docs

Writes, from the runs under ``--root`` alone (``runs/rl_baselines/<Game>-<Tier>/seed<s>``):

* ``docs/rl-baselines.md``: the table of every game's first tier and of the harder tiers,
  the difficulty ladder (success against tier), the dead ends trained and random policies
  walk into (Bolt Unscrew, Nut and Bolt), the generators' distinct boards, the settings;
* ``docs/rl-baselines.json``: one object a row (``objective``, ``seeds``, ``timesteps``,
  ``catalogue_success``, ``catalogue_ci``, ``generated_success``, ``generated_ci``,
  ``random_masked_generated_success``, ``random_masked_generated_ci``, ...; shares in 0..1,
  intervals ``[low, high]``: rliable's 95 % stratified-bootstrap intervals over seeds and
  levels, :func:`puzzlegym.training.report.aggregate`);
* ``docs/img/rl_baselines_<game>.png`` (one plot a game: train and catalogue success
  against steps, every seed, every tier) and ``docs/img/rl_ladder.png``.

Resumable: started again after a kill, a finished run (its ``result.json``) is read back and
an unfinished one continues from its checkpoint (``--resume``: the figures of an unbroken
run). Every setting not named here is ``configs/agent/jax_ppo.yaml``'s; training stops
early once the train levels' success reaches ``--stop`` (95 %).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from puzzlegym import cli
from puzzlegym.base import jsonio
from puzzlegym.game.heldout import generator_size
from puzzlegym.game.registry import games, parse_env_id
from puzzlegym.game.twin import has_twin
from puzzlegym.run import env_config_name
from puzzlegym.training.pages import (
    DEAD_END_HEADER,
    DEAD_END_TEXT,
    INTERVALS_TEXT,
    ci_cell,
    dead_end_row,
    pct,
)
from puzzlegym.training.plots import plot_ladder, plot_sweep
from puzzlegym.training.report import seed_interval, summarise

ROOT = Path(__file__).resolve().parent.parent
DEAD_END_GAMES = ("BoltUnscrew", "NutAndBolt")  # the games whose dead ends the paper studies

# What each row runs. Every game's first tier: the table's settings. The harder tiers: the
# tier after each first tier solved above 50 % at the table's settings, then the rest of the
# difficulty ladder with fewer seeds and levels, sized to what their generators make in
# minutes on this machine (levels a second: Nut and Bolt Extreme 0.14, Nightmare 0.2,
# Rush Hour Hard fewer; Maze Paint Medium 7).
TABLE = dict(seeds=5, timesteps=10_000_000, num_levels=500, heldout=1000)
LADDER = dict(seeds=3, timesteps=5_000_000, num_levels=200, heldout=200)
SLOW = dict(seeds=3, timesteps=5_000_000, num_levels=50, heldout=50)
HARDER = {
    "MazePaint-Medium": TABLE,
    "NutAndBolt-Medium": TABLE,
    "MazePaint-Hard": LADDER,
    "BoltUnscrew-Hard": LADDER,
    "NutAndBolt-Hard": LADDER,
    "ColorConnect-Hard": LADDER,
    "RushHour-Medium": LADDER,
    "NutAndBolt-Nightmare": SLOW,
    "NutAndBolt-Extreme": SLOW,
    "RushHour-Hard": SLOW,
}


def run_dir(root: Path, objective: str, seed: int) -> Path:
    return root / objective / f"seed{seed}"


def train(
    objective: str, seed: int, plan: dict, stop: float, out: Path, dead_end: str = "none"
) -> dict:
    """The run's result: read back when finished, else trained (or resumed) now; ``dead_end``
    is ``agent.dead_end`` (what a certified dead end does in training)."""
    done = out / "result.json"
    if done.exists():
        result = json.loads(done.read_text())
        config = result["config"]
        mine = (
            seed,
            plan["timesteps"],
            stop,
            plan["num_levels"],
            plan["heldout"],
            True,  # distinct_training: each board of the split once
            dead_end,
            f"LongPuzzle/{objective}",
        )
        theirs = (
            config["seed"],
            config["timesteps"],
            config.get("stop_train_success"),
            config["protocol"]["num_levels"],
            config["heldout_generated"],
            config.get("distinct_training", False),  # runs before the field kept repeats
            config.get("dead_end", "none"),
            result["env_id"],
        )
        if theirs != mine:
            raise SystemExit(f"{out}: a run of other settings ({theirs}, not {mine}); move it")
        return result
    game, tier = parse_env_id(f"LongPuzzle/{objective}")
    args = [
        "train",
        "agent=jax_ppo",
        f"env={env_config_name(game.package, tier)}",
        f"seed={seed}",
        f"agent.timesteps={plan['timesteps']}",
        f"agent.stop_train_success={stop}",
        f"agent.protocol.num_levels={plan['num_levels']}",
        f"agent.heldout_generated={plan['heldout']}",
        f"agent.dead_end={dead_end}",
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


def _play(objective: str, policy, level: dict, backend: str) -> tuple[float, int, list[str]]:
    """The trained policy (greedy, :class:`~puzzlegym.jax.policy.policy.JaxAgent`:
    GUI clicks on the board's targets) on one catalogue level of the raw env, from the
    board: (success, actions, a digest of each frame it saw)."""
    import hashlib

    import gymnasium as gym

    from puzzlegym.env.loop import play
    from puzzlegym.jax.policy.policy import JaxAgent

    env = gym.make(
        f"LongPuzzle/{objective}",
        backend=backend,
        start="board",
        level=level["index"],
        budget_s=level["budget_actions"] - 0.5,
    )
    try:
        agent = JaxAgent(env.unwrapped, policy, greedy=True)
        frames: list[str] = []

        def watched(obs, info):
            frames.append(hashlib.sha256(obs.tobytes()).hexdigest())
            return agent(obs, info)

        play(env, watched, seed=0)
        probe = env.unwrapped.probe()
        return float(probe.success), int(probe.actions), frames
    finally:
        env.close()


def transfer(objective: str, out: Path, result: dict) -> dict:
    """Seed 0's policy through the GUI: every catalogue level in the in-process env, greedy,
    against the twin's greedy outcome level by level; level 1 also in a real Chromium page
    (the browser backend), frame for frame against the in-process play. Kept in
    ``out/transfer.json`` (read back when there)."""
    from puzzlegym.jax.policy.policy import Policy

    done = out / "transfer.json"
    if done.exists():
        return json.loads(done.read_text())
    policy = Policy.load(out / "policy.npz")
    native = [_play(objective, policy, level, "native") for level in result["test_levels"]]
    first = result["test_levels"][0]
    browser = _play(objective, policy, first, "browser")
    doc = {
        "gui_per_level": [won for won, _, _ in native],
        "twin_per_level": result["agreement"]["greedy_twin"],
        "browser_level": first["index"],
        "browser": {"success": browser[0], "actions": browser[1]},
        "browser_same_frames": browser[2] == native[0][2],
    }
    doc["gui_equal_twin"] = doc["gui_per_level"] == doc["twin_per_level"]
    jsonio.write_json(done, doc)
    return doc


# ----------------------------------------------------------------------------- the rows
def _pair(figure: dict) -> tuple[float, list[float]]:
    return round(figure["mean"], 4), [round(v, 4) for v in figure["mean_ci"]]


def row(objective: str, summary: dict, results: list[dict]) -> dict:
    """One objective's row (see the module docstring)."""
    out: dict = {
        "objective": objective,
        "seeds": summary["seeds"],
        "timesteps": summary["timesteps"],
        "timesteps_per_seed": [r["timesteps"] for r in results],
        "stopped_early": [bool(r.get("stopped_early")) for r in results],
    }
    for key, name in (
        ("catalogue", "trained_test"),
        ("random_masked_catalogue", "random_masked_test"),
        ("random_uniform_catalogue", "random_uniform_test"),
        ("generated", "trained_generated"),
        ("random_masked_generated", "random_masked_generated"),
        ("train", "trained_train"),
        ("greedy_catalogue", "trained_greedy_test"),
    ):
        out[f"{key}_success"], out[f"{key}_ci"] = _pair(summary[name])
    out["catalogue_levels"] = summary["levels"]["test"]
    out["generated_levels"] = summary["levels"]["generated"]
    out["beats_masked_catalogue"] = summary["beats_masked"]
    out["beats_masked_generated"] = summary["beats_masked_generated"]
    # the seeds' t-intervals: a verdict of "apart" needs these apart too (rliable's resample
    # seeds within each of a thousand levels, which averages most of the seeds' spread out)
    out["generated_seed_ci"] = seed_interval(summary["per_seed_generated"], (0, 1))
    out["random_masked_generated_seed_ci"] = seed_interval(
        summary["per_seed_masked_generated"], (0, 1)
    )
    out["beats_masked_generated_seeds"] = (
        out["generated_seed_ci"][0] > out["random_masked_generated_seed_ci"][1]
    )
    held = results[0]["generated"]["set"]
    train_seeds = results[0]["config"]["protocol"]["num_levels"]
    out["generator"] = {
        "training_seeds": train_seeds,
        "training_distinct": held.get("training_distinct"),
        "heldout_candidates": held["candidates"],
        "heldout_dropped_training": held["dropped_training"],
        "heldout_dropped_repeats": held["dropped_repeats"],
    }
    if held.get("training_distinct") is not None:  # every seed drawn, every board seen
        out["generator"]["space_estimate"] = generator_size(
            train_seeds + held["candidates"], held["training_distinct"] + held["levels"]
        )
    out["per_seed"] = [
        {
            "seed": r["config"]["seed"],
            "catalogue": round(r["trained"]["test"]["success"], 4),
            "generated": r["generated"]["trained"]["success"],
            "generated_ci": r["generated"]["trained"]["ci"],
            "random_masked_generated": r["generated"]["random_masked"]["success"],
            "random_masked_generated_ci": r["generated"]["random_masked"]["ci"],
            "train": round(r["trained"]["train"]["success"], 4),
            "timesteps": r["timesteps"],
            "train_fps": r["train_fps"],
            "seconds": r["total_s"],
        }
        for r in results
    ]
    out["train_fps"] = round(summary["train_fps"], 1)
    out["seconds"] = summary["total_s"]
    out["dead_ends"] = summary["dead_ends"]
    out["agreement_overlap"] = [bool(r["agreement"]["overlap"]) for r in results]
    return out


# ----------------------------------------------------------------------------- the page
def _steps(r: dict) -> str:
    lo, hi = min(r["timesteps_per_seed"]), max(r["timesteps_per_seed"])
    return f"{lo / 1e6:.1f}M" if lo == hi else f"{lo / 1e6:.1f}–{hi / 1e6:.1f}M"


def results_table(rows: list[dict]) -> list[str]:
    lines = [
        "| objective | seeds | env steps | levels: training / held-out | train levels | "
        "catalogue | masked random | uniform random | generated held-out | masked random "
        "(generated) | Python env and twin agree | wall time a run | training steps/s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lo, hi = min(r["seconds"]), max(r["seconds"])
        lines.append(
            f"| {r['objective']} | {len(r['seeds'])} | {_steps(r)} | "
            f"{r['generator']['training_seeds']} / {r['generated_levels']:,} | "
            f"{ci_cell(r['train_success'], r['train_ci'])} | "
            f"{ci_cell(r['catalogue_success'], r['catalogue_ci'])} | "
            f"{ci_cell(r['random_masked_catalogue_success'], r['random_masked_catalogue_ci'])} | "
            f"{ci_cell(r['random_uniform_catalogue_success'], r['random_uniform_catalogue_ci'])} | "
            f"{ci_cell(r['generated_success'], r['generated_ci'])} | "
            f"{ci_cell(r['random_masked_generated_success'], r['random_masked_generated_ci'])} | "
            f"{sum(r['agreement_overlap'])} of {len(r['agreement_overlap'])} | "
            f"{lo / 60:.1f}–{hi / 60:.1f} min | {r['train_fps']:,.0f} |"
        )
    return lines


def per_seed_table(rows: list[dict]) -> list[str]:
    lines = [
        "| objective | seed | env steps | catalogue | generated [95% CI] | "
        "masked random, generated [95% CI] | apart |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        for s in r["per_seed"]:
            apart = s["generated_ci"][0] > s["random_masked_generated_ci"][1]
            lines.append(
                f"| {r['objective']} | {s['seed']} | {s['timesteps']:,} | "
                f"{pct(s['catalogue'])} | {ci_cell(s['generated'], s['generated_ci'])} | "
                f"{ci_cell(s['random_masked_generated'], s['random_masked_generated_ci'])} | "
                f"{'yes' if apart else 'no'} |"
            )
    return lines


def ladder_table(rows: list[dict]) -> list[str]:
    by_game: dict[str, list[dict]] = {}
    for r in rows:
        by_game.setdefault(r["objective"].split("-")[0], []).append(r)
    width = max(len(v) for v in by_game.values())
    lines = [
        "| game | " + " | ".join(f"tier {i + 1}" for i in range(width)) + " |",
        "|---|" + "---|" * width,
    ]
    for game, rs in by_game.items():
        cells = [
            f"{r['objective'].split('-', 1)[1]}: {pct(r['generated_success'])} gen., "
            f"{pct(r['catalogue_success'])} cat."
            for r in rs
        ]
        lines.append(f"| {game} | " + " | ".join(cells + [""] * (width - len(cells))) + " |")
    return lines


def dead_end_table(rows: list[dict]) -> list[str]:
    lines = list(DEAD_END_HEADER)
    for r in rows:
        if r["objective"].split("-")[0] not in DEAD_END_GAMES:
            continue
        for phase, label in (
            ("trained", "PPO (JAX)"),
            ("random_masked", "masked random"),
            ("random_uniform", "uniform random"),
        ):
            lines.append(dead_end_row(r["objective"], label, r["dead_ends"][phase]))
    return lines


def transfer_table(transfers: dict[str, dict]) -> list[str]:
    lines = [
        "| objective | GUI env, greedy (catalogue levels won) | twin, greedy | equal level by "
        "level | Chromium: level | won | actions | frames as in-process |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for objective, t in transfers.items():
        gui, twin = t["gui_per_level"], t["twin_per_level"]
        lines.append(
            f"| {objective} | {sum(gui):.0f} of {len(gui)} | {sum(twin):.0f} of {len(twin)} | "
            f"{'yes' if t['gui_equal_twin'] else 'no'} | {t['browser_level']} | "
            f"{'yes' if t['browser']['success'] else 'no'} | {t['browser']['actions']} | "
            f"{'yes' if t['browser_same_frames'] else 'no'} |"
        )
    return lines


def generator_table(rows: list[dict]) -> list[str]:
    lines = [
        "| objective | training seeds | distinct training boards | generator size (estimate) | "
        "held-out candidates | dropped: a training board | dropped: a repeat | "
        "held-out levels |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        g = r["generator"]
        space = g.get("space_estimate")
        est = "no repeat seen" if space is None else f"about {space:,}"
        lines.append(
            f"| {r['objective']} | {g['training_seeds']} | {g['training_distinct']} | {est} | "
            f"{g['heldout_candidates']:,} | {g['heldout_dropped_training']} | "
            f"{g['heldout_dropped_repeats']} | {r['generated_levels']:,} |"
        )
    return lines


def _seedsci_cell(ci: list[float]) -> str:
    return f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def verdicts(rows: list[dict], firsts: list[str]) -> list[str]:
    """Plain sentences on the issue's goals, from the figures. Trained beats masked random
    only when both intervals lie apart: rliable's over seeds and levels, and the seeds'
    t-intervals of the per-seed figures."""
    out = []
    first_rows = [r for r in rows if r["objective"] in firsts]
    half = [r["objective"] for r in first_rows if r["generated_success"] >= 0.5]
    out.append(
        f"Generated held-out success of at least 50 % on a game's first tier: {len(half)} of "
        f"{len(first_rows)} games" + (f" ({', '.join(half)})." if half else ".")
    )
    open_rows = [r for r in first_rows if r["random_masked_generated_success"] < 0.9]
    beaten = [
        r["objective"]
        for r in open_rows
        if r["beats_masked_generated"] and r["beats_masked_generated_seeds"]
    ]
    out.append(
        f"Trained beats masked random on the generated set with both intervals apart on "
        f"{len(beaten)} of the {len(open_rows)} first tiers where masked random solves below "
        f"90 %" + (f" ({', '.join(beaten)})." if beaten else ".")
    )
    for r in rows:
        masked = r["random_masked_generated_success"]
        name = r["objective"]
        figures = (
            f"{ci_cell(r['generated_success'], r['generated_ci'])} against "
            f"{ci_cell(masked, r['random_masked_generated_ci'])}; the seeds' t-intervals "
            f"{_seedsci_cell(r['generated_seed_ci'])} against "
            f"{_seedsci_cell(r['random_masked_generated_seed_ci'])}"
        )
        if masked >= 0.9:
            out.append(
                f"**{name}**: masked random already solves {pct(masked)} of the generated "
                f"held-out levels; the trained policy {pct(r['generated_success'])}."
            )
        elif r["beats_masked_generated"] and r["beats_masked_generated_seeds"]:
            out.append(
                f"**{name}**: trained beats masked random on the generated set with both "
                f"intervals apart ({figures})."
            )
        elif r["beats_masked_generated"]:
            out.append(
                f"**{name}**: rliable's intervals lie apart but the seeds' t-intervals "
                f"overlap ({figures}): with these seeds, trained is not shown to beat masked "
                f"random."
            )
        else:
            out.append(
                f"**{name}**: trained does not beat masked random with intervals apart on the "
                f"generated set ({figures})."
            )
    return out


def ladder_order(rows: list[dict]) -> list[dict]:
    """The rows each game's tiers in the game's order (the ladder's)."""
    every, _ = objectives_default()
    return sorted(rows, key=lambda r: every.index(r["objective"]))


def render(rows: list[dict], firsts: list[str], meta: dict) -> str:
    table_rows = [r for r in rows if r["objective"] in firsts] + [
        r for r in rows if r["objective"] not in firsts
    ]
    games_shown = sorted({r["objective"].split("-")[0] for r in rows})
    lines = [
        "# RL baselines",
        "",
        f"<!-- written by benchmarks/rl_baselines.py from the runs under {meta['root']}; "
        "do not edit by hand -->",
        "",
        "Masked PPO in JAX (`puzzlegym train agent=jax_ppo`, `puzzlegym.jax.ppo`) on each "
        "objective's twin, trained on generated levels and tested on both held-out sets: the "
        "tier's catalogue levels, and a generated held-out set (1,000 levels on the first "
        "tiers) from level seeds "
        "disjoint from training, none equal to a training level or to another up to the game's "
        "symmetries (`puzzlegym.game.heldout`). Beside it, the uniform and the masked-uniform "
        "random policy, measured in the same runs. Regenerate the page (the runs took "
        f"{meta['minutes']:.0f} minutes here, one at a time) with",
        "",
        "```bash",
        meta["command"],
        "```",
        "",
        "## Protocol",
        "",
        "* **Training**: 256 twins in one jitted loop, one level per episode drawn from the "
        "distinct boards of the row's generated training levels (`num_levels` seeds, from "
        "`start_level=0`; a board that several seeds give is one level), within 2× the "
        "longest solver solution of the tier's catalogue; the symbolic board, board actions "
        "with the level screen's buttons, masks, the potential reward; an MLP of 64 features "
        "(`configs/agent/jax_ppo.yaml`). A run trains the row's env steps, or stops at the "
        f"first curve point (every {meta['curve_every']:,} steps) whose train-level success "
        f"reaches {meta['stop']:.0%}.",
        "* **Rows**: every game's first tier with "
        f"{TABLE['seeds']} seeds, {TABLE['timesteps']:,} steps, {TABLE['num_levels']} training "
        f"levels and {TABLE['heldout']:,} generated held-out levels; the harder tiers as the "
        "table's columns say (their generators are slower: fewer levels and seeds, sized to "
        "minutes of generation here).",
        "* **Catalogue success**: the tier's catalogue levels in the Python env (board actions "
        "from the board, within 2× each level's solver solution), 10 episodes a level of the "
        "sampled policy.",
        "* **Generated held-out success**: the generated held-out levels in the twin, "
        "10 episodes a level each within twice its own solver solution (the catalogue's "
        "rule), the sampled policy and masked random "
        "(the same network with zero weights: uniform over the legal actions).",
        "* **Train success**: the split's first 10 training levels, as for the catalogue.",
        "* **Transfer to the GUI env**: the catalogue figure comes from the Python env, whose "
        "board actions are clicks on the board's targets; each run also plays the same levels "
        "in the twin, and `Python env and twin agree` counts the runs whose two 95 % intervals "
        "(over episodes) overlap.",
        "* **Wall time**: a run's process from its start (random policies, compile, training, "
        "tests), the level generation before it not counted.",
        f"* **Intervals**: {INTERVALS_TEXT}; per seed, the generated set's interval over "
        "levels and episodes. The seeds' "
        "t-interval is the 95 % t-interval of the mean of the per-seed figures: rliable's "
        "intervals resample the seeds within each of a thousand levels, which averages most of "
        "the seeds' own spread out, so *apart* in the verdicts needs both apart.",
        "",
        "## Results",
        "",
        *results_table(table_rows),
        "",
        "What the figures say:",
        "",
        *[f"* {v}" for v in verdicts(table_rows, firsts)],
        "",
        "Per seed, on the generated held-out set (`apart`: the trained policy's interval lies "
        "above masked random's):",
        "",
        *per_seed_table(table_rows),
        "",
        "## Learning curves",
        "",
        "Train-level (dashed) and catalogue (solid) success of the sampled policy in the twin, "
        f"10 episodes a level every {meta['curve_every']:,} steps, one line per seed; the "
        "dotted lines are the random policies' catalogue success (mean over seeds).",
        "",
    ]
    for game in games_shown:
        lines += [f"![{game}](img/rl_baselines_{game}.png)", ""]
    lines += [
        "## The difficulty ladder",
        "",
        "Held-out success against tier, each game's tiers in order (generated set, then "
        "catalogue; the runs of the table above):",
        "",
        *ladder_table(ladder_order(table_rows)),
        "",
        "![The difficulty ladder](img/rl_ladder.png)",
        "",
        "## Dead ends of trained agents",
        "",
        "The trained policies and both random policies played through the Python env on the "
        f"catalogue levels. {DEAD_END_TEXT} The paper's Figure 2c, for RL agents:",
        "",
        *dead_end_table(table_rows),
        "",
        "## Transfer to the GUI",
        "",
        "Each game's first tier, seed 0's trained policy, greedy "
        "(`puzzlegym.jax.policy.policy.JaxAgent`, the agent of `puzzlegym run --agent "
        "jax:PATH`): it reads the board and answers GUI clicks on the board's targets. It "
        "played every catalogue level from the board in the in-process env, within the "
        "catalogue budget, beside the twin's greedy play of the same levels; and the first "
        "level in a real Chromium page (the browser backend), whose frames it saw are compared "
        "with the in-process play's, one by one:",
        "",
        *transfer_table(meta["transfers"]),
        "",
        "## The generators' distinct boards",
        "",
        "Seeds are not boards: a small generator space gives one board to several seeds. Each "
        "tier's training seeds (500 on the table's rows) gave the distinct boards below "
        "(equal up to symmetry, "
        "`puzzlegym.game.levelhash`), each trained on once (`agent.distinct_training`); the "
        "generated held-out set drops every candidate equal "
        "to a training board or to one kept before it. From all the seeds drawn (training and "
        "held-out candidates) and the distinct boards they gave, the size of a uniform "
        "generator giving as many is estimated (`N (1 - (1 - 1/N)^draws) = distinct`; a "
        "generator that favours some boards is larger than its estimate).",
        "",
        *generator_table(table_rows),
        "",
        f"Wall times are as measured on this 2-core machine; the page was written on "
        f"{meta['date']}.",
        "",
    ]
    return "\n".join(lines)


def objectives_default() -> tuple[list[str], list[str]]:
    """Every objective with a twin, each game's tiers in order, and the first tiers."""
    every, firsts = [], []
    for game in games().values():
        if not has_twin(game):
            continue
        ids = [game.env_id(tier).split("/", 1)[1] for tier in game.tiers]
        every += ids
        firsts.append(ids[0])
    return every, firsts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--objectives", nargs="+", default=None, help="default: every one")
    parser.add_argument("--seeds", type=int, default=None, help="seeds 0 .. N-1 (every row)")
    parser.add_argument("--timesteps", type=int, default=None, help="steps a run (every row)")
    parser.add_argument("--stop", type=float, default=0.95, help="train success to stop at")
    parser.add_argument("--root", type=Path, default=Path("runs") / "rl_baselines")
    parser.add_argument("--no-docs", action="store_true", help="print the rows, write no docs")
    args = parser.parse_args()
    every, firsts = objectives_default()
    # the first tiers first (the table's rows), then the harder tiers in HARDER's order
    objectives = args.objectives or firsts + [o for o in HARDER if o in every]
    for objective in objectives:
        parse_env_id(f"LongPuzzle/{objective}")  # a bad name stops here, before any run
    if args.seeds is not None and not 1 <= args.seeds <= 100:
        parser.error(f"--seeds: expected 1..100, got {args.seeds}")
    if args.timesteps is not None and not 1 <= args.timesteps <= 10**10:
        parser.error(f"--timesteps: expected 1..10^10, got {args.timesteps}")
    if not 0 < args.stop <= 1:
        parser.error(f"--stop: expected a share in (0, 1], got {args.stop}")
    plans = {}
    for objective in objectives:
        plan = dict(HARDER.get(objective, TABLE))
        plan["seeds"] = args.seeds or plan["seeds"]
        plan["timesteps"] = args.timesteps or plan["timesteps"]
        plans[objective] = plan
    started = time.perf_counter()
    groups = {}
    for objective, plan in plans.items():
        groups[objective] = [
            train(objective, s, plan, args.stop, run_dir(args.root, objective, s))
            for s in range(plan["seeds"])
        ]
        print(f"{objective}: {plan['seeds']} runs, {time.perf_counter() - started:.0f} s in all")
    summaries = summarise(groups)
    rows = [row(o, summaries[o], groups[o]) for o in objectives]
    transfers = {
        o: transfer(o, run_dir(args.root, o, 0), groups[o][0]) for o in objectives if o in firsts
    }
    for line in results_table(rows):
        print(line)
    if not args.no_docs:
        command = ".venv/bin/python benchmarks/rl_baselines.py"
        for flag, value in (("--seeds", args.seeds), ("--timesteps", args.timesteps)):
            command += "" if value is None else f" {flag} {value}"
        command += "" if args.stop == 0.95 else f" --stop {args.stop}"
        if args.objectives:
            command += " --objectives " + " ".join(objectives)
        meta = {
            "root": str(args.root),
            "command": command,
            "stop": args.stop,
            "curve_every": groups[objectives[0]][0]["curve"][0]["timesteps"],
            "transfers": transfers,
            "minutes": sum(sum(r["seconds"]) for r in rows) / 60,
            "date": time.strftime("%Y-%m-%d"),
        }
        docs = ROOT / "docs"
        jsonio.write_atomic(docs / "rl-baselines.md", render(rows, firsts, meta))
        jsonio.write_json(docs / "rl-baselines.json", rows)
        for game in sorted({o.split("-")[0] for o in objectives}):
            mine = {o: rs for o, rs in groups.items() if o.split("-")[0] == game}
            jsonio.write_atomic(
                docs / "img" / f"rl_baselines_{game}.png",
                lambda tmp, mine=mine: plot_sweep(mine, tmp, cols=min(3, len(mine))),
            )
        jsonio.write_atomic(
            docs / "img" / "rl_ladder.png", lambda tmp: plot_ladder(ladder_order(rows), tmp)
        )
        print("wrote docs/rl-baselines.md, docs/rl-baselines.json and the plots")
    print(json.dumps([{k: v for k, v in r.items() if k != "dead_ends"} for r in rows]))


if __name__ == "__main__":
    main()
