"""Rollouts on Ray: plain Ray actors, each hosting a Gymnasium vector env of the RL stack
(``puzzlegym.wrappers.make_sb3_env``: observations rendered at the training resolution,
board-aligned actions with masks), stepping it with a policy and returning episode figures.

The same script runs on a laptop (a local Ray instance bound to 127.0.0.1) and on a cluster
(``--address auto`` on a node of a running cluster, or ``--address ray://HEAD:10001``; every
node needs ``pip install 'puzzlegym[distributed,rl]'``). The policy is uniform over the masked
actions, or a trained SB3/sb3-contrib model (``--model model.zip``, e.g. the one
``examples/train_ppo.py`` writes) loaded once per actor.

    python examples/ray_rollout.py  # 2 actors x 2 envs, 2,000 steps each
    python examples/ray_rollout.py --model outputs/.../ppo/model.zip --level 1 --budget-s 14
    python examples/ray_rollout.py --address auto --actors 16 --envs-per-actor 4

The last output line is a JSON summary (steps, episodes, successes, steps/s).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import ray


@ray.remote(num_cpus=1)
class RolloutActor:
    """One vector env (``SyncVectorEnv`` of ``envs`` copies) in one Ray worker process."""

    def __init__(
        self, env_id: str, envs: int, seed: int, make_kwargs: dict, model: str | None
    ) -> None:
        import gymnasium as gym
        import torch

        from puzzlegym.wrappers import make_sb3_env

        torch.set_num_threads(1)  # one CPU per actor
        self.envs = gym.vector.SyncVectorEnv(
            [lambda: make_sb3_env(env_id, **make_kwargs) for _ in range(envs)]
        )
        self.rng = np.random.default_rng(seed)
        self.obs, _ = self.envs.reset(seed=seed)
        self.model = None
        if model is not None:
            try:
                from sb3_contrib import MaskablePPO as Algo
            except ImportError:  # pragma: no cover
                from stable_baselines3 import PPO as Algo
            self.model = Algo.load(model, device="cpu")

    def _actions(self) -> np.ndarray:
        masks = np.stack(self.envs.call("action_masks"))
        if self.model is not None:
            actions, _ = self.model.predict(self.obs, action_masks=masks)
            return np.asarray(actions)
        return np.array([self.rng.choice(np.flatnonzero(m)) for m in masks])

    def rollout(self, steps: int) -> dict:
        """``steps`` vector steps; episode figures from the envs' final infos."""
        episodes = successes = 0
        t0 = time.perf_counter()
        for _ in range(steps):
            self.obs, _, terminated, truncated, _ = self.envs.step(self._actions())
            ended = np.logical_or(terminated, truncated)
            episodes += int(ended.sum())
            successes += int(terminated.sum())  # a single-level objective ends only when won
        elapsed = time.perf_counter() - t0
        return {
            "env_steps": steps * self.envs.num_envs,
            "episodes": episodes,
            "successes": successes,
            "seconds": elapsed,
        }

    def close(self) -> None:
        self.envs.close()


def rollout(
    env_id: str,
    actors: int,
    envs_per_actor: int,
    steps: int,
    seed: int,
    make_kwargs: dict,
    model: str | None = None,
) -> dict:
    """Run ``actors`` actors for ``steps`` vector steps each (Ray must be initialised)."""
    pool = [
        RolloutActor.remote(env_id, envs_per_actor, seed + 1000 * i, make_kwargs, model)
        for i in range(actors)
    ]
    t0 = time.perf_counter()
    parts = ray.get([a.rollout.remote(steps) for a in pool])
    wall = time.perf_counter() - t0
    ray.get([a.close.remote() for a in pool])
    for a in pool:
        ray.kill(a)
    total = {k: sum(p[k] for p in parts) for k in ("env_steps", "episodes", "successes")}
    total.update(
        env_id=env_id,
        actors=actors,
        envs_per_actor=envs_per_actor,
        wall_s=round(wall, 2),
        env_steps_per_s=round(total["env_steps"] / wall, 1),
    )
    return total


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--address", default=None, help="a Ray cluster to join (default: a local instance)"
    )
    p.add_argument("--env-id", default="LongPuzzle/MazePaint-Easy")
    p.add_argument("--level", type=int, default=1)
    p.add_argument("--budget-s", type=float, default=14.0)
    p.add_argument("--actors", type=int, default=2)
    p.add_argument("--envs-per-actor", type=int, default=2)
    p.add_argument("--steps", type=int, default=2000, help="vector steps per actor")
    p.add_argument("--scale", default="1/16")
    p.add_argument("--model", default=None, help="a trained SB3 / sb3-contrib model.zip")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.address is None:
        ray.init(num_cpus=args.actors, include_dashboard=False, _node_ip_address="127.0.0.1")
    else:
        ray.init(address=args.address)
    try:
        make_kwargs = dict(
            actions="board",
            buttons=(),
            scale=args.scale,
            grayscale=True,
            start="board",
            level=args.level,
            budget_s=args.budget_s,
        )
        summary = rollout(
            args.env_id,
            args.actors,
            args.envs_per_actor,
            args.steps,
            args.seed,
            make_kwargs,
            args.model,
        )
    finally:
        ray.shutdown()
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
