"""Train Stable-Baselines3 PPO (CnnPolicy) on a puzzlegym env through discrete GUI actions.

The env is ``puzzlegym.wrappers.make_sb3_env``: public infos only (BlackBox), the screen
downscaled to 84×84 RGB, and a Discrete action space of grid clicks, grid swipes and the
arrow keys. After training, a few episodes are played with the (stochastic, or with
``--deterministic`` greedy) policy and the mean episode reward is printed (with the default potential reward, 1.0 means the level was
painted completely).

    python examples/train_sb3.py                       # ~2000 steps, level 1 of MazePaint-Easy
    python examples/train_sb3.py --timesteps 50000 --level 2

Needs the ``rl`` extra: ``pip install -e .[rl]``.
"""

from __future__ import annotations

import argparse
import time

from stable_baselines3 import PPO
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.monitor import Monitor

from puzzlegym.wrappers import make_sb3_env


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env-id", default="LongPuzzle/MazePaint-Easy")
    p.add_argument("--timesteps", type=int, default=2000, help="PPO training steps")
    p.add_argument("--level", type=int, default=1, help="1-based level; 0 plays the whole objective")
    p.add_argument("--start", default="board", choices=["board", "home"])
    p.add_argument("--budget-s", type=float, default=100.0,
                   help="simulated seconds per episode (1 s per action): the episode length")
    p.add_argument("--size", type=int, nargs=2, default=(84, 84), metavar=("H", "W"))
    p.add_argument("--grid", type=int, nargs=2, default=(4, 4), metavar=("ROWS", "COLS"))
    p.add_argument("--n-steps", type=int, default=256, help="PPO rollout length")
    p.add_argument("--eval-episodes", type=int, default=3)
    p.add_argument("--deterministic", action="store_true",
                   help="evaluate the greedy policy (after a short run it often repeats one no-op action)")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def make_env(args: argparse.Namespace):
    return make_sb3_env(
        args.env_id,
        size=tuple(args.size),
        grid=tuple(args.grid),
        start=args.start,
        level=args.level or None,
        budget_s=args.budget_s,
    )


def main(argv=None) -> None:
    args = parse_args(argv)
    if min(args.size) < 36:
        raise SystemExit("--size: SB3's NatureCNN (CnnPolicy) needs at least 36x36")
    env = make_env(args)
    print(f"{args.env_id}: obs {env.observation_space.shape}, {env.action_space.n} discrete actions")

    t0 = time.perf_counter()
    model = PPO(
        "CnnPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=64,
        n_epochs=4,
        learning_rate=2.5e-4,
        ent_coef=0.01,
        seed=args.seed,
        verbose=1,
    )
    model.learn(total_timesteps=args.timesteps)
    train_s = time.perf_counter() - t0

    eval_env = Monitor(make_env(args))
    eval_env.reset(seed=args.seed + 1)
    t1 = time.perf_counter()
    mean, std = evaluate_policy(
        model, eval_env, n_eval_episodes=args.eval_episodes, deterministic=args.deterministic
    )
    eval_s = time.perf_counter() - t1
    print(f"trained {args.timesteps} steps in {train_s:.1f} s; evaluated {args.eval_episodes} episodes in {eval_s:.1f} s")
    policy = "deterministic" if args.deterministic else "stochastic"
    print(f"mean reward {mean:.3f} +/- {std:.3f} over {args.eval_episodes} episodes ({policy} policy)")
    env.close()
    eval_env.close()


if __name__ == "__main__":
    main()
