"""Learning-curve plots (matplotlib, no display): one run's curve beside both random
policies (:func:`plot_run`), and a sweep's curves, one panel per objective
(:func:`plot_sweep`), and the difficulty ladder (:func:`plot_ladder`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["plot_ladder", "plot_run", "plot_sweep"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _draw(ax, results: Sequence[Mapping[str, Any]], title: str) -> None:
    """Each run's train (dashed) and test (solid) curves, and the mean over runs of both
    random policies' held-out success (horizontal lines)."""
    for i, r in enumerate(results):
        rows = r["curve"]
        x = [row["timesteps"] for row in rows]
        label = i == 0
        ax.plot(
            x,
            [row["test_success"] for row in rows],
            color="tab:blue",
            alpha=0.8,
            label="trained, held-out" if label else None,
        )
        ax.plot(
            x,
            [row["train_success"] for row in rows],
            color="tab:blue",
            alpha=0.5,
            linestyle="--",
            label="trained, train levels" if label else None,
        )
    for name, color, text in (
        ("random_masked", "tab:orange", "masked random, held-out"),
        ("random_uniform", "tab:gray", "uniform random, held-out"),
    ):
        level = float(np.mean([r[name]["test"]["success"] for r in results]))
        ax.axhline(level, color=color, linestyle=":", label=text)
    ax.set_title(title, fontsize=9)
    ax.set_ylim(-0.03, 1.03)
    if max((row["timesteps"] for r in results for row in r["curve"]), default=0) >= 10**6:
        from matplotlib.ticker import FuncFormatter

        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1e6:g}M"))
    ax.set_xlabel("env steps", fontsize=8)
    ax.set_ylabel("success", fontsize=8)
    ax.tick_params(labelsize=7)


def plot_run(result: Mapping[str, Any], path: str | Path) -> None:
    """One run's learning curve (``result`` as :func:`puzzlegym.rl.train.train` returns it)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.2), dpi=100)
    _draw(ax, [result], f"{result['env_id']} (seed {result['config']['seed']})")
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(str(path), format="png")
    plt.close(fig)


def plot_sweep(
    groups: Mapping[str, Sequence[Mapping[str, Any]]], path: str | Path, cols: int = 3
) -> None:
    """The curves of every run, one panel per group (``{title: [result, ...]}``)."""
    plt = _pyplot()
    n = len(groups)
    rows = max(1, -(-n // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), dpi=100, squeeze=False)
    for ax, (title, results) in zip(axes.flat, groups.items(), strict=False):
        _draw(ax, results, f"{title} ({len(results)} seeds)")
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    ncol = 4 if cols > 1 else 2  # one narrow panel: the legend in two rows
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=8)
    legend_rows = -(-len(labels) // ncol)
    fig.tight_layout(rect=(0, 0.06 * legend_rows / rows, 1, 1))
    fig.savefig(str(path), format="png")
    plt.close(fig)


def plot_ladder(rows: Sequence[Mapping[str, Any]], path: str | Path) -> None:
    """The difficulty ladder: each game's held-out success against its tiers (in order),
    on the generated held-out set (left) and the catalogue (right), with 95 % intervals.
    ``rows`` as ``benchmarks/rl_baselines.py`` writes them (``objective`` ``Game-Tier``)."""
    plt = _pyplot()
    by_game: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_game.setdefault(str(r["objective"]).split("-")[0], []).append(r)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), dpi=100, sharey=True)
    for ax, key, title in (
        (axes[0], "generated", "generated held-out set"),
        (axes[1], "catalogue", "catalogue"),
    ):
        for game, rs in by_game.items():
            x = np.arange(len(rs))
            y = np.array([r[f"{key}_success"] for r in rs])
            ci = np.array([r[f"{key}_ci"] for r in rs])
            err = np.clip(np.stack([y - ci[:, 0], ci[:, 1] - y]), 0, None)
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=game)
        ax.set_title(f"held-out success by tier: {title}", fontsize=9)
        ax.set_xlabel("tier (1 = the game's first)", fontsize=8)
        ax.set_xticks(range(max(len(v) for v in by_game.values())))
        ax.set_xticklabels([str(i + 1) for i in range(max(len(v) for v in by_game.values()))])
        ax.set_ylim(-0.03, 1.03)
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("success", fontsize=8)
    axes[1].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(str(path), format="png")
    plt.close(fig)
