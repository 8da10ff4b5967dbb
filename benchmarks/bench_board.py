"""The symbolic board's speed, every figure measured in one run beside its baseline.

    .venv/bin/python benchmarks/bench_board.py [ENV_ID ...] [--steps N] [--rounds N]
                                               [--timesteps N] [--threads N] [--no-ppo]

* ``step``: env steps/s of one pre-planned sequence of board actions (``BoardActions``
  indices drawn uniformly from the action masks, from the home screen, episodes of 300
  actions; planned before any timing) replayed through the symbolic step
  (``BoardActions(BoardObservation(gym.make(id)))``: no frame painted) and the 84x84 pixel
  step (``BoardActions(LowResObservation(gym.make(id), size=(84, 84)))``). Only the time
  inside ``step`` counts; ``--rounds`` rounds (default 3) alternate the two so load drift
  hits them alike, and the best round of each counts. Prints ``board_vs_pixels_84``, and
  beside it ``no_frame_vs_pixels_84``: the raw env's own step with frames off
  (``set_observation("none")``, no observation at all) over the same sequence, the bound
  any observation without rendering can reach.
* ``ppo``: Stable-Baselines3 PPO training throughput (``model.learn`` env steps/s, setup not
  counted) with ``MlpPolicy`` and the same settings (``n_steps=128``, ``batch_size=128``,
  ``n_epochs=4``, 4 envs in a ``DummyVecEnv``, ``--threads`` torch threads, default 1: a
  64x64 MLP gains nothing from more, and a second thread only fights the envs for the two
  cores) on ``make_sb3_env(id, observation="board", actions="board", start="board",
  budget_s=300)`` and on ``CartPole-v1``: ``--timesteps`` each (default 2048) in
  ``--rounds`` rounds, the two back to back and their order alternating, the best round of
  each counting. Prints ``board_vs_cartpole`` per id.

The summary line gives, over the ids, the minimum and median of each ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import gymnasium as gym
import numpy as np

import puzzlegym  # noqa: F401  (registers the ids)
from puzzlegym.bench.rates import timed_steps
from puzzlegym.game.registry import env_ids
from puzzlegym.wrappers import BoardActions, BoardObservation, LowResObservation, make_sb3_env

PPO_SETTINGS = dict(n_steps=128, batch_size=128, n_epochs=4)
N_ENVS = 4
EPISODE_ACTIONS = 300


def _stacks(env_id: str) -> dict:
    kw = dict(budget_s=EPISODE_ACTIONS)

    def no_frame():
        env = BoardActions(gym.make(env_id, **kw))
        env.unwrapped.set_observation("none")
        return env

    return {
        "board": lambda: BoardActions(BoardObservation(gym.make(env_id, **kw))),
        "pixels_84": lambda: BoardActions(LowResObservation(gym.make(env_id, **kw), size=(84, 84))),
        "no_frame": no_frame,
    }


def plan(env_id: str, steps: int, seed: int = 0) -> list[int | None]:
    """Board-action indices drawn uniformly from the masks (None: a reset), planned on an env
    of their own."""
    env = _stacks(env_id)["board"]()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    out: list[int | None] = []
    while len(out) < steps:
        i = int(rng.choice(np.flatnonzero(env.action_masks())))
        out.append(i)
        *_, terminated, truncated, _ = env.step(i)
        if terminated or truncated:
            out.append(None)
            env.reset(seed=seed)
    env.close()
    return out


def replay(env, actions, seed: int = 0) -> float:
    """Steps per second inside ``step`` replaying ``actions``."""
    latencies = timed_steps(env, actions, seed)
    return len(latencies) / sum(latencies)


def step_rates(env_id: str, steps: int, rounds: int) -> dict:
    actions = plan(env_id, steps)
    envs = {name: make() for name, make in _stacks(env_id).items()}
    best = dict.fromkeys(envs, 0.0)
    try:
        for r in range(rounds):
            order = list(envs) if r % 2 == 0 else list(reversed(envs))
            for name in order:
                best[name] = max(best[name], replay(envs[name], actions))
    finally:
        for env in envs.values():
            env.close()
    return {
        **{f"{k}_steps_per_s": round(v) for k, v in best.items()},
        "board_vs_pixels_84": round(best["board"] / best["pixels_84"], 2),
        "no_frame_vs_pixels_84": round(best["no_frame"] / best["pixels_84"], 2),
    }


def _train_rate(make_env, timesteps: int, seed: int = 0) -> float:
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([make_env] * N_ENVS)
    try:
        model = PPO("MlpPolicy", venv, seed=seed, verbose=0, **PPO_SETTINGS)
        t0 = time.perf_counter()
        model.learn(total_timesteps=timesteps)
        return model.num_timesteps / (time.perf_counter() - t0)
    finally:
        venv.close()


def ppo_rates(env_id: str, timesteps: int, rounds: int) -> dict:
    runs = {
        "cartpole": lambda: gym.make("CartPole-v1"),
        "board": lambda: make_sb3_env(
            env_id, observation="board", actions="board", start="board", budget_s=EPISODE_ACTIONS
        ),
    }
    rates = dict.fromkeys(runs, 0.0)
    for r in range(rounds):
        for name in list(runs) if r % 2 == 0 else list(reversed(runs)):
            rates[name] = max(rates[name], _train_rate(runs[name], timesteps, seed=r))
    return {
        "ppo_board_steps_per_s": round(rates["board"]),
        "ppo_cartpole_steps_per_s": round(rates["cartpole"]),
        "board_vs_cartpole": round(rates["board"] / rates["cartpole"], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_ids", nargs="*", default=env_ids())
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timesteps", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--no-ppo", action="store_true")
    args = parser.parse_args()
    if not args.no_ppo:
        import torch

        from puzzlegym.rl.vector import set_torch_threads

        threads = set_torch_threads(args.threads)
        print(
            json.dumps(
                {
                    "torch_threads": threads,
                    "torch": torch.__version__,
                    "ppo": PPO_SETTINGS,
                    "n_envs": N_ENVS,
                    "timesteps": args.timesteps,
                    "rounds": args.rounds,
                }
            )
        )
    rows = []
    for env_id in args.env_ids:
        row = {"env_id": env_id, **step_rates(env_id, args.steps, args.rounds)}
        if not args.no_ppo:
            row.update(ppo_rates(env_id, args.timesteps, args.rounds))
        rows.append(row)
        print(json.dumps(row), flush=True)
    summary = {"ids": len(rows)}
    for key in ("board_vs_pixels_84", "no_frame_vs_pixels_84", "board_vs_cartpole"):
        values = [r[key] for r in rows if key in r]
        if values:
            summary[key] = {"min": min(values), "median": round(statistics.median(values), 2)}
    print(json.dumps({"summary": summary}))


if __name__ == "__main__":
    main()
