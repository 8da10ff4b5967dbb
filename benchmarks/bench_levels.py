"""Generated levels: can generation keep up with training? Prints, for every tier, from one
run (each figure measured for about ``--budget-s`` seconds):

* ``cold/s`` (and the median and largest seconds per level: generation times are
  heavy-tailed): training levels per second generated from scratch, with everything an env
  pays for a new level: the generator's solver verification, the catalogue check by
  canonical hash, the size check, any redraw and the cache write (``TrainingLevels``, empty
  cache);
* ``disk/s``: the same levels read back from the on-disk cache by a fresh process's
  ``TrainingLevels`` (strict validation, hash and size checks included), and ``disk/cold``;
* ``reset/s``: env resets per second on the catalogue (one-level episodes started on the
  board): the baseline, what an episode start costs without generation;
* ``step/s``: env steps per second of the training stack (``make_sb3_env(actions="board")``,
  84x84 observations, random valid actions) on generated levels;
* ``keep-up steps``: how long a one-level episode must be (env steps) for cold generation to
  keep pace with that step rate (``step/s / cold/s``); with the disk cache, ``step/s /
  disk/s``. Episodes shorter than that wait for the generator; a bounded ``num_levels``
  generates each level once per machine (the cache) and once per process (the memo).

Run: ``.venv/bin/python benchmarks/bench_levels.py [--budget-s 3] [--only MazePaint-Easy,...]``
(the last line is the JSON of every row).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

import gymnasium as gym
import numpy as np

import puzzlegym  # noqa: F401  (registers the ids)
from puzzlegym.game.levelcache import LevelCache
from puzzlegym.game.registry import env_ids, parse_env_id
from puzzlegym.game.splits import Split, TrainingLevels
from puzzlegym.wrappers import make_sb3_env

START = 10_000_000  # level seeds far from the catalogue's slots


def cold(game, tier, budget_s: float, min_levels: int, cache: LevelCache) -> list[float]:
    """Seconds per training level generated from scratch into an empty ``cache`` (as an env
    does: every candidate written as it is generated), for ``budget_s`` and at least
    ``min_levels`` levels."""
    training = TrainingLevels(game, tier, Split(0, START), cache=cache)
    times: list[float] = []
    while sum(times) < budget_s or len(times) < min_levels:
        t0 = time.perf_counter()
        training.entry(len(times))
        times.append(time.perf_counter() - t0)
    assert cache.hits == 0 and training.generated >= len(times)
    return times


def disk(game, tier, n: int, cache_root) -> float:
    """The same ``n`` training levels read back by a fresh process's TrainingLevels."""
    cache = LevelCache(cache_root)
    training = TrainingLevels(game, tier, Split(0, START), cache=cache)
    t0 = time.perf_counter()
    for i in range(n):
        training.level(i)
    spent = time.perf_counter() - t0
    assert training.generated == 0 and cache.hits >= n, (cache.hits, cache.misses, cache.corrupted)
    return n / spent


def resets(env_id: str, budget_s: float) -> float:
    """Catalogue resets per second: one-level episodes started on the board."""
    env = gym.make(env_id, start="board", level=1)
    env.reset(seed=0)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < budget_s or n < 5:
        env.reset()
        n += 1
    rate = n / (time.perf_counter() - t0)
    env.close()
    return rate


def steps(env_id: str, budget_s: float, cache_root) -> float:
    """Env steps per second of the training stack on generated levels (the levels come from
    the warm cache, so the rate is the stepping, not the generation)."""
    import os

    old = os.environ.get("PUZZLEGYM_CACHE")
    os.environ["PUZZLEGYM_CACHE"] = str(cache_root)
    try:
        env = make_sb3_env(
            env_id,
            actions="board",
            levels="generated",
            num_levels=1,
            start_level=START,
            start="board",
            level=1,
        )
        rng = np.random.default_rng(0)
        env.reset(seed=0)
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < budget_s or n < 20:
            valid = np.flatnonzero(env.action_masks())
            _obs, _r, term, trunc, _info = env.step(int(rng.choice(valid)))
            n += 1
            if term or trunc:
                env.reset()
        rate = n / (time.perf_counter() - t0)
        env.close()
    finally:
        if old is None:
            os.environ.pop("PUZZLEGYM_CACHE", None)
        else:
            os.environ["PUZZLEGYM_CACHE"] = old
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--budget-s", type=float, default=3.0, help="seconds per measurement (default 3)"
    )
    parser.add_argument(
        "--min-levels", type=int, default=3, help="levels generated at least, per tier (default 3)"
    )
    parser.add_argument(
        "--only", default=None, help="comma list of ids, e.g. MazePaint-Easy,RushHour-Hard"
    )
    args = parser.parse_args()
    ids = env_ids()
    if args.only:
        wanted = {f"LongPuzzle/{x.removeprefix('LongPuzzle/')}" for x in args.only.split(",")}
        ids = [i for i in ids if i in wanted]
    rows = []
    print(
        f"{'tier':<21}{'levels':>7}{'cold/s':>8}{'s/level med':>12}{'max':>7}{'disk/s':>8}"
        f"{'disk/cold':>10}{'reset/s':>8}{'step/s':>7}{'keep-up cold':>13}{'disk':>6}"
    )
    with tempfile.TemporaryDirectory(prefix="puzzlegym-bench-levels-") as root:
        for env_id in ids:
            game, tier = parse_env_id(env_id)
            times = cold(game, tier, args.budget_s, args.min_levels, LevelCache(root))
            n = len(times)
            cold_rate = n / sum(times)
            disk_rate = disk(game, tier, n, root)
            reset_rate = resets(env_id, args.budget_s)
            step_rate = steps(env_id, args.budget_s, root)
            row = {
                "env_id": env_id,
                "levels": n,
                "cold_per_s": round(cold_rate, 3),
                "cold_s_median": round(statistics.median(times), 3),
                "cold_s_max": round(max(times), 3),
                "disk_per_s": round(disk_rate, 1),
                "disk_over_cold": round(disk_rate / cold_rate, 1),
                "catalogue_resets_per_s": round(reset_rate, 1),
                "steps_per_s": round(step_rate, 1),
                "keep_up_steps_cold": round(step_rate / cold_rate, 1),
                "keep_up_steps_disk": round(step_rate / disk_rate, 2),
            }
            rows.append(row)
            print(
                f"{env_id.split('/')[1]:<21}{n:>7}{cold_rate:>8.2f}{row['cold_s_median']:>12.2f}"
                f"{row['cold_s_max']:>7.1f}{disk_rate:>8.0f}{disk_rate / cold_rate:>9.0f}x"
                f"{reset_rate:>8.0f}"
                f"{step_rate:>7.0f}{row['keep_up_steps_cold']:>13.0f}{row['keep_up_steps_disk']:>6.1f}",
                flush=True,
            )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
