"""Every twin against its Python game: at least 100,000 compared transitions per game.

    .venv/bin/python benchmarks/jax_equivalence.py [GAME ...] [--transitions N] [--seed S]

For each registered game with a twin (or the games named), the sameness harness
(:func:`puzzlegym.jax.sameness.compare`: observation, mask, reward, terminated, truncated,
rules state and ui at every step) plays episodes in chunks of ``--chunk``, going round
every tier of the game and four settings per tier: the catalogue and ``--generated``
generated levels (from level seed ``--start-level``), each within the protocol's budgets
and within ``--budget-s`` (room for random play to win), until the game has ``--transitions``
transitions (default 100,000). Prints a line per chunk; the last line is the JSON summary:
per game its transitions, episodes, wins and truncations and the disagreements by field,
then ``disagreements`` over all games (the goal is 0) and the games with no twin yet
(``missing``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import puzzlegym  # noqa: F401  (registers the ids)
import puzzlegym.jax as pj
from puzzlegym.game.registry import games
from puzzlegym.game.twin import has_twin
from puzzlegym.jax.sameness import Report, close_pool, compare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", help="game names (default: every game with a twin)")
    parser.add_argument("--transitions", type=int, default=100_000, help="per game")
    parser.add_argument("--chunk", type=int, default=20, help="episodes per setting in turn")
    parser.add_argument("--generated", type=int, default=64, help="generated levels a setting")
    parser.add_argument("--start-level", type=int, default=1000)
    parser.add_argument("--budget-s", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    registered = games()
    names = args.games or list(registered)
    missing = [n for n in names if not has_twin(registered[n])]
    summary: dict = {}
    for name in (n for n in names if n not in missing):
        game = registered[name]
        total = Report(name)
        started = time.perf_counter()
        settings = itertools.cycle(
            [
                (tier, levels, budget)
                for tier in game.tiers
                for levels in ("catalogue", "generated")
                for budget in (None, args.budget_s)
            ]
        )
        envs: dict = {}
        pool: dict = {}  # the Python envs, kept across chunks
        chunk = 0
        while total.transitions < args.transitions:
            tier, levels, budget = next(settings)
            key = (tier, levels, budget)
            if key not in envs:
                extra = (
                    {"num_levels": args.generated, "start_level": args.start_level}
                    if levels == "generated"
                    else {}
                )
                envs[key] = pj.make(game.env_id(tier), levels=levels, budget_s=budget, **extra)
            env, params = envs[key]
            report = compare(env, params, episodes=args.chunk, seed=args.seed + chunk, pool=pool)
            total.add(report)
            chunk += 1
            print(
                f"{game.env_id(tier):34s} {levels:9s} budget {budget or 'protocol'}: "
                f"{report.transitions:6d} transitions, {report.disagreements} disagreements "
                f"(total {total.transitions}, {total.disagreements})",
                flush=True,
            )
        close_pool(pool)
        row = total.to_dict()
        row["seconds"] = round(time.perf_counter() - started, 1)
        summary[name] = row
    print(
        json.dumps(
            {
                "games": summary,
                "disagreements": sum(r["disagreements"] for r in summary.values()),
                "goal": 0,
                "missing": missing,
            }
        )
    )


if __name__ == "__main__":
    main()
