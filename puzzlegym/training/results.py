"""What every trainer writes beside its model, one way: the learning curve (``curve.csv``),
the evaluations' dead-end figures, and the headline figures of a result.

:func:`episode_interval` is the stratified bootstrap of a success figure (the mean over
levels of each level's share of won episodes): episodes resampled within each level, for a
fixed set of levels (the catalogue); :func:`level_interval` resamples the levels too, for a
sample of levels (a generated held-out set). :func:`figures` is one set's figures.

Examples:
    >>> import numpy as np
    >>> episode_interval(np.array([0.5, 1.0]), 10)  # levels won 5 and 10 times in 10
    [0.6, 0.9]

A result's evaluations are :data:`PHASES`: both random policies and the trained policy
(sampled, and greedy), each ``{"test": ..., "train": ...}`` (the catalogue held out, and the
first training levels: :func:`~puzzlegym.training.protocol.play_levels`), and ``generated``,
the generated held-out set (:mod:`puzzlegym.training.heldout`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from puzzlegym.base.jsonio import write_atomic
from puzzlegym.record.metrics import dead_end_stats

__all__ = [
    "PHASES",
    "Curve",
    "dead_end_phases",
    "episode_interval",
    "figures",
    "generated_summary",
    "level_interval",
    "summary",
]

PHASES = ("random_uniform", "random_masked", "trained", "trained_greedy")
REPS = 2000


def episode_interval(shares: Any, episodes: int, reps: int = REPS, seed: int = 0) -> list[float]:
    """The 95 % interval (percentiles 2.5 and 97.5) of ``mean(shares)`` when each level's
    ``episodes`` episodes (``shares[l] * episodes`` of them won) are resampled with
    replacement; rounded to 4 places."""
    shares = np.asarray(shares, dtype=float)
    wins = np.rint(shares * episodes)
    rng = np.random.default_rng(seed)
    draws = rng.binomial(episodes, wins / episodes, size=(reps, shares.size)) / episodes
    means = draws.mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return [round(float(low), 4), round(float(high), 4)]


def level_interval(shares: Any, episodes: int, reps: int = REPS, seed: int = 0) -> list[float]:
    """The 95 % interval of ``mean(shares)`` when the levels are resampled with replacement
    and then each drawn level's ``episodes`` episodes (stratified bootstrap: a figure over a
    sample of a level distribution, as for a generated held-out set); rounded to 4 places."""
    shares = np.asarray(shares, dtype=float)
    wins = np.rint(shares * episodes) / episodes
    rng = np.random.default_rng(seed)
    drawn = wins[rng.integers(0, shares.size, size=(reps, shares.size))]
    means = (rng.binomial(episodes, drawn) / episodes).mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return [round(float(low), 4), round(float(high), 4)]


def figures(per_level: Any, episodes: int, over_levels: bool = False) -> dict:
    """One set's figures from each level's share of won episodes: ``success`` (their mean),
    ``per_level``, ``episodes`` and ``ci`` (over episodes, or ``over_levels`` for a sample of
    levels: :func:`level_interval`)."""
    per_level = np.asarray(per_level, dtype=float)
    interval = level_interval if over_levels else episode_interval
    return {
        "success": round(float(np.mean(per_level)), 4),
        "per_level": [round(float(v), 4) for v in per_level],
        "episodes": episodes,
        "ci": interval(per_level, episodes),
    }


class Curve:
    """The learning curve's rows (written to ``curve.csv`` as they come; ``rows`` may be
    given to continue a resumed run's)."""

    COLUMNS = ("timesteps", "train_success", "test_success", "elapsed_s")

    def __init__(self, path: Path, rows: list[dict] | None = None) -> None:
        self.path = path
        self.rows: list[dict] = list(rows or [])

    def add(self, row: dict) -> None:
        self.rows.append(row)
        lines = [",".join(self.COLUMNS)] + [
            ",".join(str(r[c]) for c in self.COLUMNS) for r in self.rows
        ]
        write_atomic(self.path, "\n".join(lines) + "\n")


def dead_end_phases(phases: dict, game: str) -> dict:
    """Each of :data:`PHASES`' evaluations (``{"test": ..., "train": ...}`` from
    :func:`~puzzlegym.training.protocol.play_levels`) with its attempts replaced by the
    held-out attempts' dead-end figures (``test["dead_ends"]``)."""
    out = {}
    for name in PHASES:
        test, train_ = phases[name]["test"], phases[name]["train"]
        stats = dead_end_stats([{"attempts": test.pop("attempts")}])
        train_.pop("attempts")
        test["dead_ends"] = stats["per_game"].get(game, {"attempts": 0})
        out[name] = phases[name]
    return out


def summary(result: dict) -> dict:
    """The headline figures of a run's result (the one JSON line the entry points print)."""
    return {
        "env_id": result["env_id"],
        "seed": result["config"]["seed"],
        "heldout_success": result["trained"]["test"]["success"],
        "heldout_success_greedy": result["trained_greedy"]["test"]["success"],
        "train_success": result["trained"]["train"]["success"],
        "random_success": result["random_uniform"]["test"]["success"],
        "random_masked_success": result["random_masked"]["test"]["success"],
        "timesteps": result["timesteps"],
        "train_fps": result["train_fps"],
        "seconds": result["total_s"],
        **generated_summary(result),
    }


def generated_summary(result: dict) -> dict:
    """The generated held-out set's headline figures of a run that measured one
    (``result["generated"]``), else none."""
    held = result.get("generated")
    if held is None:
        return {}
    return {
        "heldout_generated_success": held["trained"]["success"],
        "heldout_generated_ci": held["trained"]["ci"],
        "random_masked_generated_success": held["random_masked"]["success"],
        "random_masked_generated_ci": held["random_masked"]["ci"],
        "heldout_generated_levels": held["set"]["levels"],
    }
