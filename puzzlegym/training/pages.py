"""The pieces every baseline page shares (``benchmarks/rl_baselines.py``,
``benchmarks/sb3_baselines.py``, ``benchmarks/rl_dead_ends.py``, ``benchmarks/rl_planner.py``):
shares and intervals as table cells, the dead-end table and what its columns mean, and what the
intervals are. One wording, so the pages read alike and say the same thing the same way.

Examples:
    >>> pct(0.1234), pct(0.5, digits=0), pct(None)
    ('12.3%', '50%', '–')
    >>> ci_cell(0.25, [0.2, 0.3])
    '25.0% [20.0, 30.0]'
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "DEAD_END_HEADER",
    "DEAD_END_TEXT",
    "INTERVALS_TEXT",
    "ci_cell",
    "dead_end_row",
    "num",
    "pct",
]

DEAD_END_TEXT = (
    "The evaluator certifies every settled board with the exact solvers: an attempt (one try "
    "at a level, from its ready board to a win, a restart or the episode's end) that reached a "
    "certified dead end counts once, and each dead-end run lasts from the fatal move to the "
    "undo or restart that leaves it (the delay counts the moves made meanwhile, the fatal one "
    "included; `puzzlegym.record.metrics.dead_end_stats`), pooled over seeds."
)
DEAD_END_HEADER = (
    "| objective | policy | attempts | reached a dead end | dead-end runs left by undo/restart "
    "| mean delay before leaving (moves) | median delay |",
    "|---|---|---|---|---|---|---|",
)
INTERVALS_TEXT = (
    "95 % stratified-bootstrap intervals of the mean over every (seed, level) score, "
    "resampling seeds within each level (`rliable`, `puzzlegym.training.report`)"
)


def pct(x: float | None, digits: int = 1) -> str:
    """A share as a percentage cell (``–`` for none)."""
    return "–" if x is None else f"{100 * x:.{digits}f}%"


def ci_cell(value: float, ci: Sequence[float], digits: int = 1) -> str:
    """A share and its interval: ``25.0% [20.0, 30.0]``."""
    return f"{pct(value, digits)} [{100 * ci[0]:.{digits}f}, {100 * ci[1]:.{digits}f}]"


def num(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def dead_end_row(first: str, label: str, d: dict, median: bool = True) -> str:
    """One row of :data:`DEAD_END_HEADER` (a policy's ``dead_end_stats`` figures): attempts,
    the share that reached a dead end, the runs left by undo or restart, the delays."""
    share = "–" if d.get("dead_end_share") is None else f"{d['dead_end_share']:.1f}%"
    cells = [
        first,
        label,
        f"{d['attempts']:,}",
        f"{share} ({d['dead_end_attempts']})",
        f"{d['recovered']} of {d['runs']}",
        num(d.get("mean_delay")),
    ]
    if median:
        cells.append("–" if d.get("median_delay") is None else f"{d['median_delay']:g}")
    return "| " + " | ".join(cells) + " |"
