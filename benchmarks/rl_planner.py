"""The planner beside PPO, on the same protocol, levels and budgets: Gumbel MuZero planning
(``puzzlegym train agent=jax_planner``: mctx's search with the twin as its model, a network
trained from the search's targets) and masked PPO (``agent=jax_ppo``) on each objective's twin,
several seeds each, tested on both held-out sets (the catalogue, and generated levels no
training level equals), every held-out level within twice its own solver solution.

    .venv/bin/python benchmarks/rl_planner.py                       # the first tiers, 3 seeds
    .venv/bin/python benchmarks/rl_planner.py --objectives BoltUnscrew-Hard --seeds-hard 1
    .venv/bin/python benchmarks/rl_planner.py --objectives NutAndBolt-Hard --seeds 3 \\
        --planner-steps 400000 --ppo-steps 4000000 --root runs/x --no-docs

A tier past a game's first plays ``--hard-levels`` training and held-out levels (default 50:
its generator is slow) with ``--seeds-hard`` seeds. Each row sets, beside each other and
measured in the same runs:

* **planner (search)**: the trained network searched with ``num_simulations`` a move (in the
  twin; the GUI agent plays the same: ``tests/test_jax_train.py``);
* **planner network**: the same network without search;
* **search alone**: the same search on a network whose weights are all 0 (uniform prior, zero
  value): what the search does with nothing learned;
* **PPO**: masked PPO's policy (sampled), trained for ``--ppo-steps``;
* **masked random**.

Figures: the generated set's success with rliable's 95 % stratified-bootstrap interval over
seeds and levels (:func:`puzzlegym.training.report.interval`) and the seeds' t-interval
(:func:`~puzzlegym.training.report.seed_interval`); the catalogue's in the twin; train success
(the first training levels) beside them; simulations per move and training env steps/s. On
Bolt Unscrew and Nut and Bolt, the dead ends each policy walks into on the catalogue in the
Python env, certified by its exact solver (:func:`puzzlegym.record.metrics.dead_end_stats`):
the share of attempts that reach one, the delay before the attempt ends (the agent leaves it
by Restart or the budget), and recoveries; the planner's search plays there through
:class:`~puzzlegym.jax.policy.search.TwinSearch`, the GUI agent's own search.

Writes ``docs/rl-planner.md`` and ``docs/rl-planner.json`` from the runs under ``--root``
(PPO's under ``--ppo-root`` when given). Resumable: a finished run's ``result.json`` is read
back (refused when its settings are not these). A planner's step costs 10-40 of PPO's (the
search), so the learners get different steps; the page gives both training times.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from puzzlegym import cli
from puzzlegym.base import jsonio
from puzzlegym.env.loop import Observer, play
from puzzlegym.game.registry import games, parse_env_id
from puzzlegym.game.twin import has_twin
from puzzlegym.record.events import LevelReached, LevelWon
from puzzlegym.run import env_config_name
from puzzlegym.training.pages import DEAD_END_HEADER, DEAD_END_TEXT, dead_end_row
from puzzlegym.training.report import interval, pool_dead_ends, seed_interval

ROOT = Path(__file__).resolve().parent.parent
DEAD_END_GAMES = ("BoltUnscrew", "NutAndBolt")
HARD = ("BoltUnscrew-Hard", "NutAndBolt-Hard", "ColorConnect-Hard", "RushHour-Hard")
LEARNERS = ("planner", "ppo")


def first_tiers() -> list[str]:
    out = []
    for game in games().values():
        if has_twin(game):
            out.append(game.env_id(game.tiers[0]).split("/", 1)[1])
    return out


def train(objective: str, learner: str, seed: int, args: Any, out: Path) -> dict:
    """The run's result: read back when finished, else trained (or resumed) now."""
    if objective not in first_tiers():  # a slow generator: fewer levels
        args = argparse.Namespace(
            **{**vars(args), "num_levels": args.hard_levels, "heldout": args.hard_levels}
        )
    done = out / "result.json"
    steps = args.planner_steps if learner == "planner" else args.ppo_steps
    if done.exists():
        result = json.loads(done.read_text())
        config = result["config"]
        mine = (seed, args.episodes, args.num_levels, args.heldout, f"LongPuzzle/{objective}")
        theirs = (
            config["seed"],
            config["episodes"],
            config["protocol"]["num_levels"],
            config["heldout_generated"],
            result["env_id"],
        )
        planner = config.get("planner", {})
        sims = planner.get("num_simulations", args.simulations)
        valued = planner.get("search_value", False)
        if theirs != mine or sims != args.simulations or valued or result["timesteps"] < steps:
            raise SystemExit(f"{out}: a run of other settings ({theirs}); move it aside")
        return result
    game, tier = parse_env_id(f"LongPuzzle/{objective}")
    overrides = [
        "train",
        f"agent=jax_{learner}",
        f"env={env_config_name(game.package, tier)}",
        f"seed={seed}",
        f"agent.timesteps={steps}",
        f"agent.curve_every={steps // 4}",
        f"agent.checkpoint_every={steps // 4}",
        f"agent.episodes={args.episodes}",
        f"agent.protocol.num_levels={args.num_levels}",
        f"agent.heldout_generated={args.heldout}",
        "agent.progress=false",
    ]
    if learner == "planner":
        overrides.append(f"agent.planner.num_simulations={args.simulations}")
    overrides += ["--out", str(out)]
    if (out / "config.json").exists():
        overrides.append("--resume")
    code = cli.main(overrides)
    if code != 0:
        raise SystemExit(f"{objective} {learner} seed {seed}: puzzlegym train exited {code}")
    return json.loads(done.read_text())


def search_dead_ends(objective: str, result: dict, out: Path, episodes: int, seed: int) -> dict:
    """The planner's search on the catalogue in the Python env (sampled, ``episodes`` per
    level, within each level's budget): the dead ends its attempts reach, certified by the
    solver. Kept in ``out/search_dead_ends.json``."""
    done = out / "search_dead_ends.json"
    if done.exists():
        return json.loads(done.read_text())
    from puzzlegym.jax.policy.policy import Policy
    from puzzlegym.jax.policy.search import TwinSearch
    from puzzlegym.record.metrics import dead_end_stats
    from puzzlegym.training.protocol import LevelEnvs, TestLevel, masks, play_levels
    from puzzlegym.wrappers.board_observation import BoardEncoder

    policy = Policy.load(out / "policy.npz")
    info = policy.info
    env_id = f"LongPuzzle/{objective}"
    search = TwinSearch(
        env_id,
        policy.spec.build(policy.n_actions),
        info["search"],
        info["level_bits"],
        info["buttons"],
        seed,
    )
    game, tier = parse_env_id(env_id)
    encoder = BoardEncoder(game, tier, shape=info["board_shape"], level_bits=info["level_bits"])
    rng = np.random.default_rng(seed)

    def choose(obs: Any, env: Any) -> int:
        probe = env.unwrapped.probe()
        planes = encoder.encode(probe)
        board = probe.board
        index = search.choose(policy.params, board.number, planes, not board.history, False)
        return policy.act(planes, masks(env), rng) if index is None else index

    from puzzlegym.jax.train import jax_protocol

    proto = jax_protocol(
        env_id,
        **{
            k: v
            for k, v in result["config"]["protocol"].items()
            if k in ("num_levels", "start_level", "budget_multiple", "train_levels")
        },
    )
    levels = [TestLevel(**t) for t in result["test_levels"]]
    envs = LevelEnvs(proto)
    try:
        played = play_levels(envs, levels, choose, episodes, seed * 1_000_003 + 10_000)
    finally:
        envs.close()
    stats = dead_end_stats([{"attempts": played.pop("attempts")}])
    doc = {
        "success": played["success"],
        "dead_ends": stats["per_game"].get(game.name, {"attempts": 0}),
        "unsynced": search.unsynced,
    }
    jsonio.write_json(done, doc)
    return doc


class _LevelActions(Observer):
    """The actions each won level took, from the action that reached it to its win."""

    def __init__(self) -> None:
        self.reached: dict[int, int] = {}
        self.won: dict[int, int] = {}

    def on_event(self, event: object) -> None:
        if isinstance(event, LevelReached):
            self.reached.setdefault(event.level, event.actions)
        elif isinstance(event, LevelWon) and event.level in self.reached:
            self.won[event.level] = event.actions - self.reached[event.level]


def gui_objective(objective: str, result: dict, out: Path) -> dict:
    """Seed 0's planner as ``puzzlegym run ID --agent jax:PATH`` plays it: the whole objective
    from the home screen in the in-process env, through the GUI, its search over the twin of
    the board shown (sampled, seed 0), within the catalogue's budgets summed plus three
    navigation clicks a level. Kept in ``out/gui.json``."""
    done = out / "gui.json"
    if done.exists():
        return json.loads(done.read_text())
    import gymnasium as gym

    from puzzlegym.jax.policy.policy import JaxAgent, Policy

    budgets = [t["budget_actions"] for t in result["test_levels"]]
    steps = sum(budgets) + 3 * len(budgets)
    env = gym.make(f"LongPuzzle/{objective}")
    levels = _LevelActions()
    try:
        agent = JaxAgent(env.unwrapped, Policy.load(out / "policy.npz"), seed=0)
        t = time.perf_counter()
        play(env, agent, [levels], seed=0, max_steps=steps)
        probe = env.unwrapped.probe()
        doc = {
            "levels": len(budgets),
            "levels_won": list(probe.levels_won),
            "lc": probe.lc,
            "actions": probe.actions,
            "max_actions": steps,
            "unsynced": agent.search.unsynced if agent.search is not None else None,
            # each won level: the actions from reaching it to its win, and its own budget
            "won_actions": [
                [level, levels.won[level], budgets[level - 1]] for level in sorted(levels.won)
            ],
            "wall_s": round(time.perf_counter() - t, 1),
            "twin_search_per_level": result["twin"]["trained"]["test"]["per_level"],
        }
    finally:
        env.close()
    jsonio.write_json(done, doc)
    return doc


# ----------------------------------------------------------------------------- figures
def _figure(per_seed_levels: list[list[float]]) -> dict:
    """A share over seeds x levels: its mean with rliable's interval, the seeds' t-interval."""
    scores = np.array(per_seed_levels, dtype=float)
    agg = interval(scores)
    return {
        "success": round(agg["mean"], 4),
        "ci": [round(v, 4) for v in agg["mean_ci"]],
        "seed_ci": seed_interval(scores.mean(axis=1).tolist(), (0.0, 1.0)),
    }


def row(
    objective: str,
    planner: list[dict],
    ppo: list[dict],
    dead: list[dict],
    gui: dict | None = None,
) -> dict:
    gen = {
        "planner_search": [r["generated"]["trained"]["per_level"] for r in planner],
        "planner_network": [r["generated"]["trained_network"]["per_level"] for r in planner],
        "search_alone": [r["generated"]["search_untrained"]["per_level"] for r in planner],
        "ppo": [r["generated"]["trained"]["per_level"] for r in ppo],
        "random_masked": [r["generated"]["random_masked"]["per_level"] for r in ppo],
    }
    cat = {
        "planner_search": [r["twin"]["trained"]["test"]["per_level"] for r in planner],
        "planner_network": [r["twin"]["trained_network"]["test"]["per_level"] for r in planner],
        "ppo": [r["twin"]["trained"]["test"]["per_level"] for r in ppo],
        "random_masked": [r["random_masked"]["test"]["per_level"] for r in ppo],
    }
    train_ = {
        "planner_search": [r["twin"]["trained"]["train"]["per_level"] for r in planner],
        "ppo": [r["twin"]["trained"]["train"]["per_level"] for r in ppo],
    }
    out: dict[str, Any] = {
        "objective": objective,
        "seeds": len(planner),
        "generated_levels": planner[0]["generated"]["set"]["levels"],
        "generated": {k: _figure(v) for k, v in gen.items()},
        "catalogue": {k: _figure(v) for k, v in cat.items()},
        "train": {k: _figure(v) for k, v in train_.items()},
        "planner_timesteps": planner[0]["timesteps"],
        "ppo_timesteps": ppo[0]["timesteps"],
        "simulations": planner[0]["config"]["planner"]["num_simulations"],
        "planner_steps_per_s": round(float(np.mean([r["train_fps"] for r in planner])), 1),
        "ppo_steps_per_s": round(float(np.mean([r["train_fps"] for r in ppo])), 1),
        "planner_train_s": round(float(np.mean([r["train_s"] for r in planner])), 1),
        "ppo_train_s": round(float(np.mean([r["train_s"] for r in ppo])), 1),
    }
    s, p = out["generated"]["planner_search"], out["generated"]["ppo"]
    out["planner_beats_ppo"] = s["ci"][0] > p["ci"][1] and s["seed_ci"][0] > p["seed_ci"][1]
    if gui is not None:
        out["gui"] = gui
    if dead:
        out["dead_ends"] = {
            "ppo": pool_dead_ends([r["trained"]["test"]["dead_ends"] for r in ppo]),
            "planner_network": pool_dead_ends([r["trained"]["test"]["dead_ends"] for r in planner]),
            "planner_search": pool_dead_ends([d["dead_ends"] for d in dead]),
            "random_masked": pool_dead_ends([r["random_masked"]["test"]["dead_ends"] for r in ppo]),
        }
    return out


def _ci(fig: dict) -> str:
    lo, hi = fig["ci"]
    return f"{100 * fig['success']:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def render(rows: list[dict], meta: dict) -> str:
    names = ("planner_search", "planner_network", "search_alone", "ppo", "random_masked")
    lines = [
        "# The planner beside PPO",
        "",
        "Generated by `benchmarks/rl_planner.py` (do not edit by hand). Gumbel MuZero planning",
        "(`puzzlegym train agent=jax_planner`: mctx's search with the game's twin as its exact",
        "model, the network trained from the search's targets) and masked PPO",
        "(`agent=jax_ppo`) on the same protocol: generated training levels, both held-out sets,",
        "every held-out level within twice its own solver solution. Success in %, with rliable's",
        "95 % stratified-bootstrap interval over seeds and levels; the seeds' t-intervals are",
        "in `docs/rl-planner.json`.",
        "",
        f"Command: `{meta['command']}`. Planner: {meta['planner_steps']:,} env steps a run, "
        f"{meta['simulations']} simulations a move; PPO: {meta['ppo_steps']:,} env steps a "
        "run (the training seconds of each are in the search's cost below). Both on this 2-core "
        "CPU, one run at a time, beside other work.",
        "",
        "## Generated held-out levels",
        "",
        "| objective | seeds | levels | planner (search) | planner network | search alone | PPO "
        "| masked random | planner beats PPO |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        g = r["generated"]
        cells = " | ".join(_ci(g[n]) for n in names)
        verdict = "yes" if r["planner_beats_ppo"] else "no"
        lines.append(
            f"| {r['objective']} | {r['seeds']} | {r['generated_levels']} | {cells} | {verdict} |"
        )
    lines += [
        "",
        "\"planner beats PPO\": both intervals apart (rliable's and the seeds' t-intervals).",
        "",
        "## Catalogue levels and train levels (in the twin)",
        "",
        "| objective | planner (search) | planner network | PPO | masked random "
        "| train: planner (search) | train: PPO |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        c, t = r["catalogue"], r["train"]
        lines.append(
            f"| {r['objective']} | {_ci(c['planner_search'])} | {_ci(c['planner_network'])} | "
            f"{_ci(c['ppo'])} | {_ci(c['random_masked'])} | {_ci(t['planner_search'])} | "
            f"{_ci(t['ppo'])} |"
        )
    lines += [
        "",
        "## The search's cost",
        "",
        "| objective | simulations a move | planner env steps/s | PPO env steps/s "
        "| planner train s | PPO train s |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['objective']} | {r['simulations']} | {r['planner_steps_per_s']:,.0f} | "
            f"{r['ppo_steps_per_s']:,.0f} | {r['planner_train_s']} | {r['ppo_train_s']} |"
        )
    gui_rows = [r for r in rows if "gui" in r]
    if gui_rows:
        lines += [
            "",
            "## The planner through the GUI, a whole objective",
            "",
            "Seed 0's planner as `puzzlegym run ID --agent jax:PATH` plays it: from the home "
            "screen, every catalogue level in turn through GUI actions (the in-process env), its "
            "search over the twin of the board the probe shows (sampled, seed 0); at most the "
            "catalogue's budgets summed plus three navigation clicks a level. Beside it, the "
            "twin's own success with search on each catalogue level (its evaluation, "
            "level by level). The GUI's budget is the objective's, pooled: a level may spend "
            "what earlier levels left, so a GUI win can lie past the level's own budget (twice "
            "its solver solution), where the twin counts a loss; each won level's actions "
            "(from reaching it to its win) are set beside its own budget.",
            "",
            "| objective | levels won (GUI, in a row from level 1) | LC | actions | won levels: "
            "actions / own budget | twin: levels won with search (sampled, share per level) |",
            "|---|---|---|---|---|---|",
        ]
        for r in gui_rows:
            g = r["gui"]
            twin = ", ".join(f"{v:.1f}" for v in g["twin_search_per_level"])
            won = ", ".join(f"{n} / {b}" for _, n, b in g.get("won_actions", [])) or "–"
            lines.append(
                f"| {r['objective']} | {len(g['levels_won'])} of {g['levels']} | "
                f"{g['lc']:.2f} | {g['actions']} of {g['max_actions']} | {won} | {twin} |"
            )
    dead_rows = [r for r in rows if "dead_ends" in r]
    if dead_rows:
        lines += [
            "",
            "## Dead ends (catalogue, Python env, certified by the exact solvers)",
            "",
            f"Each policy on the catalogue levels in the Python env ({meta['dead_end_episodes']}"
            " episodes a level for the planner's search, as many as the runs' evaluations for the "
            f"others). {DEAD_END_TEXT}",
            "",
            *DEAD_END_HEADER,
        ]
        labels = {
            "ppo": "PPO",
            "planner_network": "planner network",
            "planner_search": "planner (search)",
            "random_masked": "masked random",
        }
        for r in dead_rows:
            for name, d in r["dead_ends"].items():
                lines.append(dead_end_row(r["objective"], labels[name], d))
    lines += ["", *meta["notes"], "", f"Written on {meta['date']}.", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--objectives", nargs="+", default=None, help="default: first tiers")
    parser.add_argument("--seeds", type=int, default=3, help="seeds of a first tier")
    parser.add_argument("--seeds-hard", type=int, default=3, help="seeds of another tier")
    parser.add_argument("--planner-steps", type=int, default=400_000)
    parser.add_argument("--ppo-steps", type=int, default=4_000_000)
    parser.add_argument("--simulations", type=int, default=16)
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--num-levels", type=int, default=500)
    parser.add_argument("--heldout", type=int, default=200)
    parser.add_argument(
        "--hard-levels",
        type=int,
        default=50,
        help="training and held-out levels of a tier past the first (their generators are slow)",
    )
    parser.add_argument("--dead-end-episodes", type=int, default=3)
    parser.add_argument("--root", type=Path, default=Path("runs") / "rl_planner")
    parser.add_argument("--ppo-root", type=Path, default=None, help="PPO's runs (default: --root)")
    parser.add_argument("--no-docs", action="store_true")
    parser.add_argument("--note", action="append", default=[], help="a line for the page")
    args = parser.parse_args()
    objectives = args.objectives or first_tiers()
    for objective in objectives:
        parse_env_id(f"LongPuzzle/{objective}")  # a bad name stops here, before any run
    for name, value, lo, hi in (
        ("--seeds", args.seeds, 1, 100),
        ("--seeds-hard", args.seeds_hard, 1, 100),
        ("--planner-steps", args.planner_steps, 4, 10**10),
        ("--ppo-steps", args.ppo_steps, 4, 10**10),
        ("--simulations", args.simulations, 1, 4096),
        ("--episodes", args.episodes, 1, 1000),
        ("--num-levels", args.num_levels, 1, 100_000),
        ("--heldout", args.heldout, 1, 100_000),
        ("--hard-levels", args.hard_levels, 1, 100_000),
        ("--dead-end-episodes", args.dead_end_episodes, 1, 1000),
    ):
        if not lo <= value <= hi:
            parser.error(f"{name}: expected {lo}..{hi}, got {value}")
    started = time.perf_counter()
    rows = []
    firsts = first_tiers()
    for objective in objectives:
        seeds = args.seeds if objective in firsts else args.seeds_hard
        runs: dict[str, list[dict]] = {}
        for learner in LEARNERS:
            root = args.ppo_root if learner == "ppo" and args.ppo_root else args.root
            runs[learner] = [
                train(objective, learner, s, args, root / objective / learner / f"seed{s}")
                for s in range(seeds)
            ]
        dead = []
        if objective.split("-")[0] in DEAD_END_GAMES:
            dead = [
                search_dead_ends(
                    objective,
                    runs["planner"][s],
                    args.root / objective / "planner" / f"seed{s}",
                    args.dead_end_episodes,
                    s,
                )
                for s in range(seeds)
            ]
        gui = gui_objective(
            objective, runs["planner"][0], args.root / objective / "planner" / "seed0"
        )
        rows.append(row(objective, runs["planner"], runs["ppo"], dead, gui))
        r = rows[-1]["generated"]
        print(
            f"{objective}: generated {_ci(r['planner_search'])} planner, "
            f"{_ci(r['planner_network'])} its network, {_ci(r['search_alone'])} search alone, "
            f"{_ci(r['ppo'])} PPO, {_ci(r['random_masked'])} masked random "
            f"({time.perf_counter() - started:.0f} s in all)",
            flush=True,
        )
    if not args.no_docs:
        command = ".venv/bin/python benchmarks/rl_planner.py"
        defaults = parser.parse_args([])
        flags = ("seeds", "seeds_hard", "planner_steps", "ppo_steps", "simulations", "episodes")
        for flag in (*flags, "heldout"):
            if getattr(args, flag) != getattr(defaults, flag):
                command += f" --{flag.replace('_', '-')} {getattr(args, flag)}"
        if args.objectives:
            command += " --objectives " + " ".join(objectives)
        meta = {
            "command": command,
            "planner_steps": args.planner_steps,
            "ppo_steps": args.ppo_steps,
            "simulations": args.simulations,
            "dead_end_episodes": args.dead_end_episodes,
            "notes": args.note,
            "date": time.strftime("%Y-%m-%d"),
        }
        jsonio.write_atomic(ROOT / "docs" / "rl-planner.md", render(rows, meta))
        jsonio.write_json(ROOT / "docs" / "rl-planner.json", rows)
        print("wrote docs/rl-planner.md and docs/rl-planner.json")
    print(json.dumps([{k: v for k, v in r.items() if k != "dead_ends"} for r in rows]))


if __name__ == "__main__":
    main()
