"""The baseline table from a sweep's results (:func:`puzzlegym.rl.sweep.run_sweep`): per
objective, held-out and train success of the trained policy and both random policies, with
rliable's aggregates and 95 % stratified-bootstrap intervals, the run costs, and the dead
ends trained and random policies walk into.

Scores are success rates per (run, level): the runs are the seeds, the tasks the levels
(the catalogue's for held-out success, the split's first training levels for train
success, and for a JAX run's generated held-out set its levels).
``rliable.library.get_interval_estimates`` resamples runs within each level
(stratified bootstrap) for the mean and the interquartile mean (IQM) over every (run, level)
score. Needs the ``rl`` extra (``rliable``).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "PHASES",
    "aggregate",
    "dead_end_rows",
    "interval",
    "pool_dead_ends",
    "seed_interval",
    "summarise",
]

PHASES = ("trained", "random_masked", "random_uniform")
REPS = 5000


def interval(scores: np.ndarray, reps: int = REPS, seed: int = 0) -> dict:
    """Mean and IQM of a ``(runs, tasks)`` score matrix with 95 % stratified-bootstrap
    intervals (rliable): ``{"mean": m, "mean_ci": [lo, hi], "iqm": q, "iqm_ci": [lo, hi]}``."""
    from rliable import library as rly
    from rliable import metrics

    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2 or scores.size == 0:
        raise ValueError(
            f"scores: expected a non-empty (runs, tasks) matrix, got shape {scores.shape}"
        )

    def func(x):
        return np.array([metrics.aggregate_mean(x), metrics.aggregate_iqm(x)])

    # rliable 1.2's StratifiedBootstrap draws its resamples from numpy's global generator
    # (np.random.choice), whatever random_state says: seed that one, and put it back after.
    # No random_state is passed: it would change nothing but arch's FutureWarning about it.
    saved = np.random.get_state()
    np.random.seed(seed)
    try:
        point, ci = rly.get_interval_estimates({"s": scores}, func, reps=reps)
    finally:
        np.random.set_state(saved)
    (mean, iqm), bounds = point["s"], ci["s"]
    return {
        "mean": float(mean),
        "mean_ci": [float(bounds[0][0]), float(bounds[1][0])],
        "iqm": float(iqm),
        "iqm_ci": [float(bounds[0][1]), float(bounds[1][1])],
    }


def seed_interval(
    values: Sequence[float], bounds: tuple[float, float] | None = None
) -> list[float]:
    """The 95 % t-interval of the mean of per-seed figures, ``[low, high]``: the seeds' own
    spread, which :func:`interval` (resampling seeds within each of many levels) mostly
    averages out. One figure gives ``[x, x]``; ``bounds`` (say ``(0, 1)`` for shares) clip
    the interval to the figures' own range."""
    from scipy import stats

    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"values: expected a non-empty list of figures, got shape {x.shape}")
    if len(x) < 2:
        return [round(float(x.mean()), 4)] * 2
    half = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))
    lo, hi = float(x.mean()) - half, float(x.mean()) + half
    if bounds is not None:
        lo, hi = max(lo, float(bounds[0])), min(hi, float(bounds[1]))
    return [round(lo, 4), round(hi, 4)]


def _matrix(results: Sequence[Mapping[str, Any]], phase: str, split: str) -> np.ndarray:
    return np.array([r[phase][split]["per_level"] for r in results], dtype=float)


def aggregate(results: Sequence[Mapping[str, Any]], reps: int = REPS) -> dict:
    """One objective's row from its runs' results (one per seed)."""
    results = list(results)
    if not results:
        raise ValueError("results: expected at least one run")
    row: dict[str, Any] = {
        "env_id": results[0]["env_id"],
        "runs": len(results),
        "seeds": [r["config"]["seed"] for r in results],
    }
    for phase in PHASES:
        for split in ("test", "train"):
            row[f"{phase}_{split}"] = interval(_matrix(results, phase, split), reps)
    row["trained_greedy_test"] = interval(_matrix(results, "trained_greedy", "test"), reps)
    row["per_seed_test"] = [r["trained"]["test"]["success"] for r in results]
    row["per_seed_masked"] = [r["random_masked"]["test"]["success"] for r in results]
    row["timesteps"] = int(statistics.median(r["timesteps"] for r in results))
    row["total_s"] = [r["total_s"] for r in results]
    row["train_fps"] = float(statistics.median(r["train_fps"] for r in results))
    row["levels"] = {
        "test": len(results[0]["test_levels"]),
        "train": len(results[0]["train_levels"]),
    }
    row["budget_multiple"] = results[0]["config"]["protocol"]["budget_multiple"]
    row["num_levels"] = results[0]["config"]["protocol"]["num_levels"]
    row["beats_masked"] = (
        row["trained_test"]["mean_ci"][0] > row["random_masked_test"]["mean_ci"][1]
    )
    if all("generated" in r for r in results):  # the JAX path's generated held-out set
        for phase in ("trained", "random_masked"):
            scores = np.array([r["generated"][phase]["per_level"] for r in results], dtype=float)
            row[f"{phase}_generated"] = interval(scores, reps)
        row["per_seed_generated"] = [r["generated"]["trained"]["success"] for r in results]
        row["per_seed_masked_generated"] = [
            r["generated"]["random_masked"]["success"] for r in results
        ]
        row["levels"]["generated"] = results[0]["generated"]["set"]["levels"]
        row["beats_masked_generated"] = (
            row["trained_generated"]["mean_ci"][0] > row["random_masked_generated"]["mean_ci"][1]
        )
    return row


def pool_dead_ends(stats: Sequence[Mapping[str, Any]]) -> dict:
    """Several runs' dead-end figures (:func:`~puzzlegym.record.metrics.dead_end_stats`' per
    game) pooled: attempts, the share that reached a certified dead end, the dead-end runs
    left by an undo or a restart, and the delay before leaving (moves, the fatal one counted)."""
    attempts = dead = runs = recovered = 0
    delays: list[int] = []
    for d in stats:
        attempts += d.get("attempts", 0)
        dead += d.get("dead_end_attempts", 0)
        runs += d.get("runs", 0)
        recovered += d.get("recovered", 0)
        delays += list(d.get("delays", []))
    return {
        "attempts": attempts,
        "dead_end_attempts": dead,
        "dead_end_share": 100.0 * dead / attempts if attempts else None,
        "runs": runs,
        "recovered": recovered,
        "mean_delay": statistics.mean(delays) if delays else None,
        "median_delay": statistics.median(delays) if delays else None,
    }


def dead_end_rows(results: Sequence[Mapping[str, Any]]) -> dict:
    """Per policy (trained, masked random, uniform random), the held-out attempts of every
    run pooled (:func:`pool_dead_ends`)."""
    return {
        phase: pool_dead_ends([r[phase]["test"]["dead_ends"] for r in results])
        for phase in ("trained", "random_masked", "random_uniform")
    }


def summarise(groups: Mapping[str, Sequence[Mapping[str, Any]]], reps: int = REPS) -> dict:
    """:func:`aggregate` and :func:`dead_end_rows` of every group (``{title: [result, ...]}``)."""
    return {
        title: {**aggregate(rs, reps), "dead_ends": dead_end_rows(rs)}
        for title, rs in groups.items()
    }
