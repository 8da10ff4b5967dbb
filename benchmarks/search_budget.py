"""A trained planner's search given more simulations at test time: a planner's policy file
searched with each ``--simulations`` count on its tier's catalogue levels in the twin, each level
within twice its own solver solution (the protocol's budget), ``--episodes`` sampled episodes a
level; beside it, the same search on an all-zero network (a uniform prior: nothing learned),
measured in the same run. Prints one line per count and player, the share of won episodes per
level, and the seconds it took.

    .venv/bin/python benchmarks/search_budget.py \\
        runs/rl_planner/BoltUnscrew-Hard/planner/seed0/policy.npz --simulations 16 64 256

The search's other settings (considered actions, gamma, Gumbel scale, leaf values) are the
policy file's own.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import jax
import numpy as np

from puzzlegym.base.errors import PuzzleGymError
from puzzlegym.jax.factory import make
from puzzlegym.jax.planner import MAX_SIMULATIONS, SearchEvaluator
from puzzlegym.jax.policy.policy import Policy
from puzzlegym.training.protocol import Protocol


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("policy", type=Path, help="a planner's policy.npz")
    parser.add_argument("--simulations", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for n in args.simulations:
        if not 1 <= n <= MAX_SIMULATIONS:
            parser.error(f"--simulations: each between 1 and {MAX_SIMULATIONS}, got {n}")
    if not 1 <= args.episodes <= 1000:
        parser.error(f"--episodes: between 1 and 1000, got {args.episodes}")
    if not 0 <= args.seed < 2**31:
        parser.error(f"--seed: between 0 and 2**31 - 1, got {args.seed}")
    try:
        policy = Policy.load(args.policy)
    except (PuzzleGymError, OSError) as e:
        parser.error(f"policy: {e}")
    search = policy.info.get("search")
    if search is None:
        parser.error(f"policy: {args.policy} is not a planner's (its file has no search settings)")
    env_id = policy.info["env_id"]
    levels = Protocol(env_id).test_levels()
    env, params = make(env_id, levels="catalogue", progress=False)
    network = policy.spec.build(policy.n_actions)
    rows = [t.index - 1 for t in levels]
    budgets = [t.budget_actions for t in levels]
    zero = jax.tree.map(np.zeros_like, policy.params)
    print(f"{env_id}: {len(levels)} catalogue levels, budgets {budgets} actions")
    for sims in args.simulations:
        evaluator = SearchEvaluator(
            env,
            params,
            network,
            sims,
            search["max_num_considered_actions"],
            search["gamma"],
            search["gumbel_scale"],
            search["search_value"],
        )
        for name, weights in (("trained", policy.params), ("all-zero network", zero)):
            t = time.perf_counter()
            key = jax.random.PRNGKey(args.seed)
            per_level = evaluator.success(weights, rows, budgets, args.episodes, key, False)
            shares = ", ".join(f"{float(v):.1f}" for v in per_level)
            won = sum(float(v) > 0 for v in per_level)
            print(
                f"{sims:>5} simulations, {name}: levels won at least once {won} of "
                f"{len(levels)}; per level {shares} ({time.perf_counter() - t:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
