"""A policy trained in JAX, measured twice on its objective's catalogue levels: in the Python
env (``make_sb3_env(..., actions="board", observation="board", start="board")``, the env the
GUI agent plays) and in the twin, each level ``--episodes`` times within the protocol's
budget, with 95 % intervals over episodes; the two figures must agree within them. With
``--greedy`` the policy takes its most probable action in both envs: both are deterministic,
so each level's outcome must be the same in the two, exactly.

    .venv/bin/python examples/jax_policy_agreement.py runs/train/MazePaint-Easy/seed0/policy.npz \\
        --episodes 200

Prints one row per level, then a JSON line: ``python``, ``python_ci``, ``twin``, ``twin_ci``,
``overlap`` (whether the two intervals meet), ``greedy`` and the per-level shares.
"""

from __future__ import annotations

import argparse
import json
import time

import jax
import numpy as np

from puzzlegym.jax.evaluate import TwinEvaluator, episode_interval
from puzzlegym.jax.factory import make
from puzzlegym.jax.policy.policy import Policy
from puzzlegym.jax.train import jax_protocol
from puzzlegym.training.protocol import LevelEnvs, masks, play_levels


def agreement(
    path: str, episodes: int, budget_multiple: float = 2.0, seed: int = 0, greedy: bool = False
) -> dict:
    policy = Policy.load(path)
    env_id = policy.info["env_id"]
    protocol = jax_protocol(env_id, budget_multiple=budget_multiple)
    levels = protocol.test_levels()
    t = time.perf_counter()
    env, params = make(env_id, levels="catalogue", budget_multiple=budget_multiple)
    evaluator = TwinEvaluator(env, params, policy.spec.build(policy.n_actions))
    twin = evaluator.success(
        policy.params,
        [level.index - 1 for level in levels],
        [level.budget_actions for level in levels],
        episodes,
        jax.random.PRNGKey(seed),
        greedy=greedy,
    )
    twin_s = time.perf_counter() - t
    rng = None if greedy else np.random.default_rng(seed)
    envs = LevelEnvs(protocol)
    t = time.perf_counter()
    try:
        python = play_levels(
            envs, levels, lambda obs, e: policy.act(obs, masks(e), rng), episodes, seed
        )
    finally:
        envs.close()
    python_s = time.perf_counter() - t
    py = np.array(python["per_level"])
    out = {
        "env_id": env_id,
        "episodes": episodes,
        "greedy": greedy,
        "python": round(float(py.mean()), 4),
        "python_ci": episode_interval(py, episodes),
        "twin": round(float(twin.mean()), 4),
        "twin_ci": episode_interval(twin, episodes),
        "python_per_level": py.round(4).tolist(),
        "twin_per_level": twin.round(4).tolist(),
        "python_s": round(python_s, 1),
        "twin_s": round(twin_s, 1),
    }
    lo = max(out["python_ci"][0], out["twin_ci"][0])
    hi = min(out["python_ci"][1], out["twin_ci"][1])
    out["overlap"] = lo <= hi
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("policy", help="a policy.npz (puzzlegym train agent=jax_ppo)")
    parser.add_argument("--episodes", type=int, default=100, help="per level, in each env")
    parser.add_argument("--budget-multiple", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--greedy", action="store_true", help="the most probable action")
    args = parser.parse_args()
    out = agreement(args.policy, args.episodes, args.budget_multiple, args.seed, args.greedy)
    for k, (p, t) in enumerate(zip(out["python_per_level"], out["twin_per_level"], strict=True), 1):
        print(f"catalogue level {k:2d}: Python env {p:.3f}, twin {t:.3f}")
    print(
        f"held-out success: Python env {out['python']:.3f} {out['python_ci']}, twin "
        f"{out['twin']:.3f} {out['twin_ci']} ({args.episodes} episodes a level; intervals "
        f"{'overlap' if out['overlap'] else 'apart'})"
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
