"""The report's plots from a loaded run: LC per objective and agent (heatmap), game-macro LC
over elapsed time, delays of recovered dead-end runs (matplotlib, Agg)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from puzzlegym.base import jsonio
from puzzlegym.record import metrics

__all__ = ["plot_cumulative_lc", "plot_dead_end_delays", "plot_lc_heatmap"]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_lc_heatmap(data: dict, path: Path) -> None:
    plt = _plt()
    objectives = list(
        dict.fromkeys((e["game"], e["tier"]) for a in data["agents"] for e in data["episodes"][a])
    )
    agents = data["agents"]
    grid = [[float("nan")] * len(objectives) for _ in agents]
    for i, a in enumerate(agents):
        acc = defaultdict(list)
        for e in data["episodes"][a]:
            acc[(e["game"], e["tier"])].append(100.0 * e["lc"])
        for j, o in enumerate(objectives):
            if acc[o]:
                grid[i][j] = sum(acc[o]) / len(acc[o])
    fig, ax = plt.subplots(figsize=(max(4.0, 1.0 + 1.1 * len(objectives)), 1.2 + 0.6 * len(agents)))
    im = ax.imshow(grid, vmin=0, vmax=100, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(objectives)), [f"{g}\n{t}" for g, t in objectives], fontsize=8)
    ax.set_yticks(range(len(agents)), agents)
    for i in range(len(agents)):
        for j in range(len(objectives)):
            v = grid[i][j]
            if v == v:
                ax.text(
                    j,
                    i,
                    f"{v:.0f}",
                    ha="center",
                    va="center",
                    color="white" if v < 60 else "black",
                    fontsize=9,
                )
    fig.colorbar(im, ax=ax, label="LC (%)")
    ax.set_title("Level completion per objective (mean over seeds)")
    fig.tight_layout()
    jsonio.write_atomic(path, lambda tmp: fig.savefig(tmp, dpi=110, metadata={"Software": None}))
    plt.close(fig)


CUMULATIVE_HEADROOM = 1.05  # the x-axis runs this far past the last episode's end
LC_YLIM = (-3.0, 103.0)  # lines at 0 % and 100 % stay clear of the frame


def cumulative_lc_times(data: dict) -> tuple[list[float], float, float]:
    """The sample times of the cumulative-LC plot, the x-axis end and the budget: the axis
    ends a little after the last episode ended (LC no longer changes after that), never past
    the budget; the samples are an even grid plus every win time, so each step is exact."""
    eps = [e for a in data["agents"] for e in data["episodes"][a]]
    budget = max((e["budget_s"] or 0.0 for e in eps), default=3600.0) or 3600.0
    last = max((e.get("elapsed_s") or 0.0 for e in eps), default=0.0)
    last = max([last, *(t for e in eps for t, _lv in e["win_times"])])
    x_end = min(budget, CUMULATIVE_HEADROOM * last) if last > 0 else budget
    grid = {x_end * k / 400 for k in range(401)}
    wins = {t for e in eps for t, _lv in e["win_times"] if t <= x_end}
    return sorted(grid | wins), x_end, budget


def plot_cumulative_lc(data: dict, path: Path) -> tuple[tuple[float, float], tuple[float, float]]:
    """Write the plot; returns its x and y limits."""
    plt = _plt()
    times, x_end, budget = cumulative_lc_times(data)
    fig, ax = plt.subplots(figsize=(7, 4))
    styles = ("-", "--", "-.", ":")
    for i, a in enumerate(data["agents"]):
        ax.step(
            times,
            metrics.lc_over_time(data["episodes"][a], times),
            where="post",
            label=a,
            linestyle=styles[i % len(styles)],
            linewidth=2,
            clip_on=False,
            zorder=3 + i,
        )
    cut = f"; axis ends at {x_end:.0f} s, the budget is {budget:.0f} s" if x_end < budget else ""
    ax.set_xlabel(f"elapsed time (s){cut}")
    ax.set_ylabel("LC (%), game-macro")
    ax.set_ylim(*LC_YLIM)
    ax.set_xlim(0, x_end)
    ax.set_title("Cumulative level completion over elapsed time")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    limits = (tuple(float(v) for v in ax.get_xlim()), tuple(float(v) for v in ax.get_ylim()))
    jsonio.write_atomic(path, lambda tmp: fig.savefig(tmp, dpi=110, metadata={"Software": None}))
    plt.close(fig)
    return limits  # type: ignore[return-value]


def plot_dead_end_delays(data: dict, path: Path) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    series = {}
    for a in data["agents"]:
        for game, g in data["figures"][a]["dead_ends"]["per_game"].items():
            if g["delays"]:
                series[f"{a} / {game}"] = g["delays"]
    if series:
        ax.boxplot(list(series.values()), orientation="horizontal")
        ax.set_yticks(range(1, len(series) + 1), list(series))
        ax.set_xlabel("moves from the fatal move to the undo/restart that leaves the dead end")
    else:
        ax.text(
            0.5,
            0.5,
            "no recovered dead-end runs in this run",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
        ax.set_axis_off()
    ax.set_title("Dead-end delays (recovered runs)")
    fig.tight_layout()
    jsonio.write_atomic(path, lambda tmp: fig.savefig(tmp, dpi=110, metadata={"Software": None}))
    plt.close(fig)


# --------------------------------------------------------------------------- the report
