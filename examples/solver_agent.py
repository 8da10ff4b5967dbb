"""The reference solver agent in a plain Gymnasium loop.

``SolverAgent`` reads the evaluator's (privileged) board, plans with the exact solver, and
plays each move with GUI clicks, navigating the suite like a player: game card, difficulty,
board, Next, and finally the answer. It shows what a perfect episode looks like.

    python examples/solver_agent.py                      # all of MazePaint-Easy from home
    python examples/solver_agent.py --env-id LongPuzzle/MazePaint-Hard --level 3
"""

from __future__ import annotations

import argparse
import json

import gymnasium as gym

import puzzlegym  # noqa: F401  (registers the LongPuzzle/* ids)
from puzzlegym.agents import SolverAgent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="LongPuzzle/MazePaint-Easy")
    parser.add_argument("--start", default="home", choices=["home", "board"])
    parser.add_argument("--level", type=int, default=None, help="play only level K (1-based)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, default=10_000)
    args = parser.parse_args()

    env = gym.make(args.env_id, start=args.start, level=args.level)
    agent = SolverAgent(env.unwrapped)  # the solver reads the unwrapped env's probe
    obs, info = env.reset(seed=args.seed)
    print(f"{args.env_id}: {info['instruction']}")

    screen, total_reward = info["screen"], 0.0
    for t in range(1, args.max_steps + 1):
        action = agent(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        total_reward += reward
        # one line per screen change (entering a level, level complete, ...), not per click
        if info["screen"] != screen or terminated or truncated:
            screen = info["screen"]
            ev = info["evaluator"]
            print(
                f"step {t:4d}  -> {screen:<18} levels won={ev['levels_won']}  "
                f"return={total_reward:.2f}  t={info['elapsed_s']:.0f}s"
            )
        if terminated or truncated:
            break

    print(f"solver calls: {agent.solves}")
    print("evaluator summary (one JSON line):")
    print(json.dumps(env.unwrapped.summary()))
    env.close()


if __name__ == "__main__":
    main()
