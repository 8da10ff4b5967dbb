"""Whole-training speed of the JAX PPO (puzzlegym.jax.ppo): env steps per second of rollout
and update together, after compilation (the compile time printed apart), on every
registered id whose game has a twin, beside rejax's PPO on gymnax's CartPole and this PPO on
CartPole with rejax's settings, measured in the same run.

    .venv/bin/python benchmarks/bench_jax_ppo.py                    # every id with a twin
    .venv/bin/python benchmarks/bench_jax_ppo.py --ids LongPuzzle/MazePaint-Easy --seeds 1 4

The PPO settings are ``configs/agent/jax_ppo.yaml``'s (``puzzlegym train agent=jax_ppo``)
unless overridden (``--num-envs``, ``--num-steps``, ``--epochs``, ``--minibatches``,
``--features``); training plays the protocol's 500 generated levels. ``--seeds S`` trains S
seeds in one jit (the figure counts every seed's steps). The last line is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import jax
import numpy as np
from omegaconf import OmegaConf

from puzzlegym.game.registry import env_ids, parse_env_id
from puzzlegym.game.twin import has_twin
from puzzlegym.jax.factory import make
from puzzlegym.jax.policy.network import NetworkSpec
from puzzlegym.jax.ppo import PPO, PPOConfig

ROOT = Path(__file__).resolve().parents[1]
GOAL = 100_000  # env steps/s of whole training on MazePaint-Easy (issue 30)


def agent_defaults() -> dict:
    cfg = OmegaConf.to_container(OmegaConf.load(ROOT / "configs/agent/jax_ppo.yaml"))
    assert isinstance(cfg, dict)
    return cfg


def ppo_config(args, defaults: dict) -> PPOConfig:
    ppo = dict(defaults["ppo"])
    network = dict(defaults["network"])
    for flag, key in (
        ("num_envs", "num_envs"),
        ("num_steps", "num_steps"),
        ("epochs", "num_epochs"),
        ("minibatches", "num_minibatches"),
    ):
        if getattr(args, flag) is not None:
            ppo[key] = getattr(args, flag)
    if args.features is not None:
        network["features"] = args.features
    return PPOConfig.from_dict({**ppo, "network": network})


def measure(env, params, config: PPOConfig, timesteps: int, seeds: int) -> dict:
    """Compile, then train ``timesteps`` steps per seed in chunks; the rate counts every
    seed's steps."""
    updates = max(1, timesteps // config.steps_per_update)
    chunk = min(updates, 16)
    ppo = PPO(env, params, config, chunk=chunk)
    keys = jax.random.split(jax.random.PRNGKey(0), seeds)
    t = time.perf_counter()
    state = jax.block_until_ready(ppo.init(keys))
    run = ppo.compile(state)
    compile_s = time.perf_counter() - t
    done = 0
    t = time.perf_counter()
    cpu = time.process_time()
    while done < updates:
        n = min(chunk, updates - done)
        state, rows = run(state, n)
        jax.block_until_ready(rows)
        done += n
    wall = time.perf_counter() - t
    steps = done * config.steps_per_update * seeds
    return {
        "steps": steps,
        "seconds": round(wall, 2),
        "cpu_seconds": round(time.process_time() - cpu, 2),
        "steps_per_s": round(steps / wall),
        "compile_s": round(compile_s, 1),
        "last_return_mean": round(float(np.asarray(rows)[:, n - 1, 1].mean()), 3),
    }


def rejax_cartpole(timesteps: int) -> dict:
    """rejax 0.1.3's PPO (its defaults: 64 envs x 64 steps, 8 epochs of 16 minibatches, a
    64x64 MLP) on gymnax's CartPole-v1, its evaluation replaced by nothing (training only)."""
    from rejax import PPO as RejaxPPO

    algo = RejaxPPO.create(
        env="CartPole-v1",
        total_timesteps=timesteps,
        eval_freq=timesteps,
        skip_initial_evaluation=True,
    )
    algo = algo.replace(eval_callback=lambda algo, ts, rng: ())
    t = time.perf_counter()
    train = jax.jit(algo.train).lower(jax.random.PRNGKey(0)).compile()
    compile_s = time.perf_counter() - t
    t = time.perf_counter()
    jax.block_until_ready(train(jax.random.PRNGKey(0)))
    wall = time.perf_counter() - t
    steps = int(np.ceil(timesteps / (64 * 64))) * 64 * 64
    return {
        "steps": steps,
        "seconds": round(wall, 2),
        "steps_per_s": round(steps / wall),
        "compile_s": round(compile_s, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="*", default=None, help="default: every id with a twin")
    parser.add_argument("--timesteps", type=int, default=1_048_576, help="per seed and id")
    parser.add_argument("--seeds", type=int, nargs="*", default=[1], help="seeds in one jit")
    parser.add_argument("--num-envs", type=int, default=None)
    parser.add_argument("--num-steps", type=int, default=None)
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--minibatches", type=int, default=None)
    parser.add_argument("--features", type=int, default=None)
    parser.add_argument("--no-baseline", action="store_true", help="skip CartPole")
    args = parser.parse_args()
    defaults = agent_defaults()
    config = ppo_config(args, defaults)
    protocol = defaults["protocol"]
    ids = args.ids or [i for i in env_ids() if has_twin(parse_env_id(i)[0])]
    print(
        f"PPO: {config.num_envs} envs x {config.num_steps} steps, {config.num_epochs} epochs x "
        f"{config.num_minibatches} minibatches, network {config.network.to_dict()}; "
        f"{os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
        f"jax {jax.__version__} on {jax.devices()[0].platform}",
        flush=True,
    )
    rows: dict[str, dict] = {}
    for env_id in ids:
        env, params = make(
            env_id,
            levels="generated",
            num_levels=protocol["num_levels"],
            start_level=protocol["start_level"],
            budget_multiple=protocol["budget_multiple"],
            level_bits=False,
        )
        for seeds in args.seeds:
            name = env_id if seeds == 1 else f"{env_id} x{seeds} seeds"
            rows[name] = measure(env, params, config, args.timesteps, seeds)
            r = rows[name]
            print(
                f"{name:45s} {r['steps_per_s']:>9,} env steps/s of training "
                f"({r['steps']:,} steps in {r['seconds']} s, {r['cpu_seconds']} s of CPU; "
                f"compile {r['compile_s']} s)",
                flush=True,
            )
    baseline: dict[str, dict] = {}
    if not args.no_baseline:
        import gymnax

        baseline["rejax_ppo_cartpole"] = rejax_cartpole(args.timesteps)
        env, params = gymnax.make("CartPole-v1")
        same = PPOConfig(
            num_envs=64,
            num_steps=64,
            num_epochs=8,
            num_minibatches=16,
            learning_rate=3e-4,
            network=NetworkSpec(kind="mlp", channels=(), features=64, hidden=(64,)),
        )
        baseline["this_ppo_cartpole_rejax_settings"] = measure(env, params, same, args.timesteps, 1)
        for name, r in baseline.items():
            print(
                f"{name:45s} {r['steps_per_s']:>9,} env steps/s of training "
                f"({r['steps']:,} steps in {r['seconds']} s; compile {r['compile_s']} s)",
                flush=True,
            )
        # the headline compares like with like: the same env, network, rollout and updates;
        # the ids' rows above use this project's own settings (fewer gradient steps per env
        # step), so they are game throughput, not a comparison with rejax
        ratio = (
            baseline["this_ppo_cartpole_rejax_settings"]["steps_per_s"]
            / baseline["rejax_ppo_cartpole"]["steps_per_s"]
        )
        baseline["like_for_like_ratio"] = round(ratio, 3)
        print(
            f"headline, like for like (CartPole, rejax's settings): this PPO runs at {ratio:.2f}x "
            "rejax's PPO (this machine's speed drifts 2x: a ratio within 0.5-2x is noise)",
            flush=True,
        )
    maze = rows.get("LongPuzzle/MazePaint-Easy")
    summary = {
        "config": config.to_dict(),
        "ids": rows,
        "baseline": baseline,
        "maze_paint_easy_steps_per_s": maze["steps_per_s"] if maze else None,
        "goal_steps_per_s": GOAL,
        "goal_met": bool(maze and maze["steps_per_s"] >= GOAL),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
