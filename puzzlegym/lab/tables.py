"""The dead-end lab's tables for ``puzzlegym report``: RQ2 outcomes in the paper's Table 13
layout, the RQ1 move measures (capacity, coverage) and the RQ4 cells and contrasts.

Each table is ``(name, caption, header, body)``; the report writes it as Markdown and CSV
and shows it in ``index.md``. Tables without data are left out. :data:`LAB_SECTION` is the
lab as a section of the report (:class:`puzzlegym.report.load.Section`): it adds these tables
and claims the RQ2 continuation records, which are not episodes of an objective.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from puzzlegym.lab import rq1, rq2, rq4
from puzzlegym.report.load import Table
from puzzlegym.report.tables import outside_label

__all__ = ["LAB_SECTION", "LabSection", "is_takeover_record", "lab_tables"]


def is_takeover_record(record_dir: str | os.PathLike) -> bool:
    """Whether an episode record is an RQ2 continuation (it sits beside its outcome file);
    continuations start from a checkpoint, so they are not episodes of an objective."""
    return (Path(record_dir).parent / rq2.OUTCOME_FILE).exists()


def _count(k: int | None, n: int) -> str | None:
    if k is None:
        return None
    return f"{k}/{n} ({100.0 * k / n:.1f}%)" if n else f"{k}/{n}"


def rq2_table(run_dir: str | os.PathLike) -> Table | None:
    rows = rq2.aggregate(rq2.find_outcomes(run_dir))
    if not rows:
        return None
    header = [
        "Game",
        "State",
        "Condition",
        "n",
        "Timely restart",
        "Verified recovery",
        "Same-level win",
        "Recurrence",
    ]
    body = []
    for r in rows:
        rec = (
            None
            if r["verified_recovery"] is None
            else _count(r["recurrence"], r["verified_recovery"])
        )
        body.append(
            [
                r["game"],
                r["class"],
                r["condition"],
                r["n"],
                _count(r["timely_restart"], r["n"]),
                _count(r["verified_recovery"], r["n"]),
                _count(r["same_level_win"], r["n"]),
                rec,
            ]
        )
    caption = (
        "RQ2 outcomes (paper Table 13 layout): takeovers at certified dead ends (D) and solvable "
        "controls (N) under no hint (A), the board's state (B), and B plus the restart control's "
        "name (C). Timely restart: within 10 actions and 120 s; verified recovery and same-level "
        "win: within 300 s; recurrence: a new certified dead end after the recovery (of the "
        "recovered runs)."
    )
    return "rq2", caption, header, body


def _row_game(ep: dict, move: dict) -> str:
    """A move's row: its game when it was played on the episode's objective (game and tier),
    else one labelled line of play outside the objective."""
    if (move["game"], move["tier"]) == (ep["game"], ep["tier"]):
        return move["game"]
    return outside_label([f"{move['game']}-{move['tier']}"])


def rq1_tables(episodes: dict[str, list[dict]]) -> list[Table]:
    capacity: dict[tuple, list[dict]] = defaultdict(list)
    coverage: dict[tuple, list[dict]] = defaultdict(list)
    for agent, eps in episodes.items():
        for ep in eps:
            moves = rq1.record_moves(ep["dir"])
            for m in moves["capacity"]:
                capacity[(agent, _row_game(ep, m))].append(m)
            for m in moves["coverage"]:
                coverage[(agent, _row_game(ep, m))].append(m)
    out: list[Table] = []
    if capacity:
        header = [
            "Agent",
            "Game",
            "Moves",
            "Frees a board %",
            "Fills an anchor %",
            "Creates the deadlock %",
            "Other %",
            "Mean free anchors before",
            "Moves with one free anchor",
            "of which create the deadlock",
            "Fatal moves (exhaustive)",
            "of which hidden (free anchors after)",
        ]
        body = []
        for (agent, game), ms in sorted(capacity.items()):
            s = rq1.capacity_summary(ms)
            body.append(
                [
                    agent,
                    game,
                    s["moves"],
                    s["frees a board %"],
                    s["fills an anchor %"],
                    s["creates the deadlock %"],
                    s["other %"],
                    s["mean_free_before"],
                    s["one_free"],
                    s["one_free_deadlock"],
                    s["fatal"],
                    s["hidden_fatal"],
                ]
            )
        out.append(
            (
                "rq1_capacity",
                "RQ1 capacity: every move by the free anchors it leaves (paper D.2; Figure 4b)",
                header,
                body,
            )
        )
    if coverage:
        header = [
            "Agent",
            "Game",
            "Attempt",
            "Coverage before",
            "Attempted",
            "Valid",
            "Invalid",
            "Productive",
            "Zero-progress",
            "Revisits",
            "Productive % of valid",
            "Revisit % of valid",
        ]
        body = []
        for (agent, game), ms in sorted(coverage.items()):
            for r in rq1.coverage_summary(ms):
                body.append(
                    [
                        agent,
                        game,
                        r["outcome"],
                        r["coverage"],
                        r["attempted"],
                        r["valid"],
                        r["invalid"],
                        r["productive"],
                        r["zero_progress"],
                        r["revisits"],
                        r["productive %"],
                        r["revisit %"],
                    ]
                )
        out.append(
            (
                "rq1_coverage",
                "RQ1 coverage: moves by board coverage (paper Table 11, Figure 4c)",
                header,
                body,
            )
        )
    return out


def rq4_tables(run_dir: str | os.PathLike) -> list[Table]:
    sessions = rq4.find_sessions(run_dir)
    if not sessions:
        return []
    s = rq4.summarize(sessions)
    cells = (
        "rq4_cells",
        "RQ4 cells: rule card (K0/K1) x workflow control (P0/P1); +R: dead-end restart controller",
        ["Agent", "Cell", "Sessions", "Solved", "LC", "FGP", "Agent actions", "Controller actions"],
        [
            [
                c["agent"],
                c["cell"],
                c["sessions"],
                c["solved"],
                c["LC"],
                c["FGP"],
                c["agent_actions"],
                c["controller_actions"],
            ]
            for c in s["cells"]
        ],
    )
    contrasts = (
        "rq4_contrasts",
        "RQ4 matched contrasts on LC (points; paper equations 4-6)",
        ["Agent", "Contrast", "ΔLC", "Pairs"],
        [[c["agent"], c["contrast"], c["delta_LC"], c["pairs"]] for c in s["contrasts"]],
    )
    return [cells, contrasts]


def lab_tables(run_dir: str | os.PathLike, episodes: dict[str, list[dict]]) -> list[Table]:
    """Every lab table with data for a run directory and its episodes (by agent)."""
    out: list[Table] = []
    table = rq2_table(run_dir)
    if table is not None:
        out.append(table)
    out.extend(rq1_tables(episodes))
    out.extend(rq4_tables(run_dir))
    return out


class LabSection:
    """The dead-end lab as a section of ``puzzlegym report`` (see the module docstring)."""

    def claims(self, record_dir: Path) -> bool:
        return is_takeover_record(record_dir)

    def tables(self, run_dir: Path, episodes: dict[str, list[dict]]) -> list[Table]:
        return lab_tables(run_dir, episodes)


LAB_SECTION = LabSection()
