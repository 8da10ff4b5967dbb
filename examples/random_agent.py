"""A random agent in a plain Gymnasium loop: ``gym.make``, ``reset``, ``step``.

The random agent samples GUI actions (clicks, drags, key presses, ...) uniformly from the
action space; it is the floor every other agent should beat. It prints a line every
``--every`` steps and whenever progress changes, then the evaluator's summary.

    python examples/random_agent.py
    python examples/random_agent.py --env-id LongPuzzle/MazePaint-Hard --start board --steps 2000
"""

from __future__ import annotations

import argparse
import json

import gymnasium as gym

import puzzlegym  # noqa: F401  (registers the LongPuzzle/* ids)
from puzzlegym.agents import RandomAgent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="LongPuzzle/MazePaint-Easy")
    parser.add_argument("--start", default="board", choices=["home", "board"])
    parser.add_argument("--level", type=int, default=None, help="play only level K (1-based)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=500, help="stop after this many steps")
    parser.add_argument("--every", type=int, default=100, help="print a line every N steps")
    args = parser.parse_args()

    env = gym.make(args.env_id, start=args.start, level=args.level)
    agent = RandomAgent(env, seed=args.seed)
    obs, info = env.reset(seed=args.seed)
    print(f"{args.env_id}: {info['instruction']}")

    total_reward, progress = 0.0, info["evaluator"]["progress"]
    for t in range(1, args.steps + 1):
        action = agent(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        total_reward += reward
        changed = info["evaluator"]["progress"] != progress
        progress = info["evaluator"]["progress"]
        if t % args.every == 0 or t == args.steps or changed or terminated or truncated:
            print(
                f"step {t:5d}  {action['type']:<12} screen={info['screen']:<18} "
                f"progress={progress:.3f}  return={total_reward:+.3f}  t={info['elapsed_s']:.0f}s"
            )
        if terminated or truncated:
            break

    print("evaluator summary (one JSON line):")
    print(json.dumps(env.unwrapped.summary()))
    env.close()


if __name__ == "__main__":
    main()
