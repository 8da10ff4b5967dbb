"""Vision readers benchmark: how long reading one frame takes, beside one env step.

For each game (every registered game has a reader), the frames are
every catalogue level's first board plus the boards of a seeded walk of legal moves from
each (``--walk`` moves, with a selection or a half-drawn path left on every other board).
Each frame is read ``--repeat`` times (the fastest counts: this machine's speed drifts);
the baseline, measured in the same run on the same games, is one settled env step (a click
on the board and the frame it returns). Printed per game: reads per second and ms per read
(median, 90th percentile, worst), env steps per second, and what one read costs in env steps.

Usage: ``python benchmarks/bench_vision_readers.py [--walk 6] [--repeat 3]``; prints JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from itertools import islice

import gymnasium as gym

import puzzlegym  # noqa: F401  (registers the envs)
from puzzlegym.agents.vision import reader_for
from puzzlegym.game.registry import games

READERS = {game: reader_for(game) for game, g in games().items() if g.reader is not None}


def frames(game: str, walk: int) -> tuple[list, list[float]]:
    """(tier, frame) of every first board and its walk; the env step times on the way."""
    g = games()[game]
    out, steps = [], []
    for tier in g.tiers:
        for k in range(1, len(g.catalogue(tier)) + 1):
            rng = random.Random(f"{game}/{tier}/{k}")
            env = gym.make(f"LongPuzzle/{game}-{tier}", start="board", level=k)
            obs, _ = env.reset(seed=0)
            for j in range(walk + 1):
                if not _on_board(env):
                    break  # the walk won the level: the banner covers the board
                out.append((tier, obs))
                for half in (
                    j % 2 == 1,
                    False,
                ):  # every other board: a selection / a path left drawn
                    board = env.unwrapped.probe().board
                    if board is None or board.solved:
                        break
                    moves = list(islice(g.rules.legal_moves(board.level, board.state), 40))
                    if not moves:
                        break
                    actions = board.actions_for_move(rng.choice(moves))
                    for action in actions[:1] if half else actions:
                        t0 = time.perf_counter()
                        obs, *_ = env.step(action)
                        steps.append(time.perf_counter() - t0)
                    if half and _on_board(env):
                        out.append((tier, obs))
            env.close()
    return out, steps


def _on_board(env) -> bool:
    """Whether the env shows a level's board still being played."""
    probe = env.unwrapped.probe()
    return probe.screen == "level" and probe.board is not None and not probe.board.solved


def bench(game: str, walk: int, repeat: int) -> dict:
    reader = READERS[game]
    shots, steps = frames(game, walk)
    times = []
    for tier, frame in shots:
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            reader.read(frame, tier)
            best = min(best, time.perf_counter() - t0)
        times.append(best)
    times.sort()
    read_ms = statistics.median(times) * 1000
    step_ms = statistics.median(steps) * 1000
    return {
        "frames": len(times),
        "reads_per_s": round(1000 / read_ms, 1),
        "read_ms_median": round(read_ms, 2),
        "read_ms_p90": round(times[int(0.9 * (len(times) - 1))] * 1000, 2),
        "read_ms_max": round(times[-1] * 1000, 2),
        "env_steps_per_s": round(1000 / step_ms, 1),
        "env_step_ms_median": round(step_ms, 2),
        "read_cost_in_env_steps": round(read_ms / step_ms, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walk", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps({game: bench(game, args.walk, args.repeat) for game in READERS}, indent=2))


if __name__ == "__main__":
    main()
