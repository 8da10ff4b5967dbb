"""The report's tables from a loaded run (:func:`puzzlegym.report.load.load_run`): the
paper's Table 2, 17 and 18 layouts, per game, dead ends and model usage; Markdown and CSV."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Any

from puzzlegym.base import jsonio
from puzzlegym.record import metrics
from puzzlegym.record.files import VIEW_PAGE

__all__ = [
    "TABLE2_COLUMNS",
    "dead_end_table",
    "episode_page",
    "fmt",
    "markdown_table",
    "outside_label",
    "per_game_table",
    "table2",
    "table17",
    "table18",
    "usage_table",
    "write_csv",
]

TABLE2_COLUMNS = ("OSR", "LC", "FGP", "LPR", "H50", "LC_hard", "PER", "NGAR", "SMR")


def fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def escape_cell(text: str) -> str:
    """A table cell's text with its pipes escaped (``|L_o|`` would end the cell) and no line
    break (which would end the row)."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def markdown_table(header: list[str], body: list[list[Any]]) -> str:
    """The table in Markdown; a ``Page`` column's paths become links."""
    page = header.index("Page") if "Page" in header else None

    def cell(i: int, c: Any) -> str:
        if i == page and isinstance(c, str):
            return f"[view]({c})"
        return escape_cell(fmt(c))

    lines = [
        "| " + " | ".join(map(escape_cell, header)) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    lines += ["| " + " | ".join(cell(i, c) for i, c in enumerate(row)) + " |" for row in body]
    return "\n".join(lines) + "\n"


def write_csv(path: Path, header: list[str], body: list[list[Any]]) -> None:
    buf = io.StringIO(newline="")
    w = csv.writer(buf)
    w.writerow(header)
    for row in body:
        w.writerow(["" if c is None else (round(c, 4) if isinstance(c, float) else c) for c in row])
    jsonio.write_atomic(path, buf.getvalue())


def table2(data: dict) -> tuple[list[str], list[list[Any]]]:
    header = ["Agent", "OSR↑", "LC↑", "FGP↑", "LPR↑", "H50↑", "LC_hard↑", "PER↓", "NGAR↑", "SMR↓"]
    body = [[a] + [data["figures"][a][k] for k in TABLE2_COLUMNS] for a in data["agents"]]
    return header, body


def table17(data: dict) -> tuple[list[str], list[list[Any]]]:
    header = ["Configuration", "n", "S", "PER", "SMR", "Native", "Other", "Cells"]
    n_obj = len({(e["game"], e["tier"]) for eps in data["episodes"].values() for e in eps})
    body = []
    for a in data["agents"]:
        f = data["figures"][a]
        native = (
            sum(r["n_native"] for r in data["rows"][a] if r["n_native"] is not None)
            if f["NGAR"] is not None
            else None
        )
        other = (
            sum(r["n_other"] for r in data["rows"][a] if r["n_other"] is not None)
            if f["NGAR"] is not None
            else None
        )
        body.append(
            [
                a,
                f["n"],
                f["S"],
                f["P"],
                f["M"],
                native if native is not None else "N/A",
                other if other is not None else "N/A",
                f"{f['cells']}/{n_obj}",
            ]
        )
    return header, body


def episode_page(ep: dict, links_from: Path) -> str | None:
    """The path of an episode's viewer page relative to ``links_from`` (the report's
    directory), or None when ``puzzlegym view`` has not written one."""
    page = Path(ep["dir"]) / VIEW_PAGE
    return os.path.relpath(page, links_from) if page.is_file() else None


def table18(data: dict, links_from: Path | None = None) -> tuple[list[str], list[list[Any]]]:
    """Every episode's row; with ``links_from`` (the report's directory) and at least one
    episode page (``puzzlegym view``), a last column links each episode's page."""
    header = ["Agent", "Objective", "Seed", "S", "LC", "FGP", "P", "M", "NGAR", "|L_o|", "End"]
    pages = {
        e["dir"]: episode_page(e, links_from)
        for eps in data["episodes"].values()
        for e in eps
        if links_from is not None
    }
    linked = any(pages.values())
    if linked:
        header.append("Page")
    body = []
    for a in data["agents"]:
        for e, r in zip(data["episodes"][a], data["rows"][a], strict=True):
            ng = None if r["n_native"] is None else metrics.ngar(r["n_native"], r["n_other"])
            row = [
                a,
                f"{r['game']} / {r['difficulty']}",
                r["seed"],
                r["solved"],
                r["lc"],
                r["fgp"],
                r["premature_exit"],
                r["mismatch"],
                ng,
                r["n_levels"],
                e["end"],
            ]
            if linked:
                row.append(pages[e["dir"]])
            body.append(row)
    return header, body


def usage_table(data: dict) -> tuple[list[str], list[list[Any]]]:
    """Model agents' requests and tokens (the paper's Table 7 layout, without prices)."""
    header = [
        "Agent",
        "Episodes",
        "Requests",
        "Input tokens",
        "Output tokens",
        "Mean latency (s)",
        "Retries",
        "Malformed calls",
        "Turns",
    ]
    body = []
    for a in data["agents"]:
        used = [e["usage"] for e in data["episodes"][a] if e.get("usage")]
        if not used:
            continue
        requests = sum(u["requests"] for u in used)
        latency = sum(u["latency_s"] for u in used)
        body.append(
            [
                a,
                len(used),
                requests,
                sum(u["prompt_tokens"] for u in used),
                sum(u["completion_tokens"] for u in used),
                latency / requests if requests else None,
                sum(u["retries"] for u in used),
                sum(u["malformed"] for u in used),
                sum(u["turns"] for u in used),
            ]
        )
    return header, body


def per_game_table(data: dict) -> tuple[list[str], list[list[Any]]]:
    header = ["Agent", "Game", "Objectives", "Episodes", "OSR", "LC", "FGP", "LC_hard", "LPR"]
    body = []
    for a in data["agents"]:
        for game, g in data["figures"][a]["per_game"].items():
            body.append(
                [
                    a,
                    game,
                    g["objectives"],
                    g["episodes"],
                    g["OSR"],
                    g["LC"],
                    g["FGP"],
                    g["LC_hard"],
                    g["LPR"],
                ]
            )
    return header, body


def dead_end_table(data: dict) -> tuple[list[str], list[list[Any]]]:
    header = [
        "Agent",
        "Game",
        "Attempts",
        "Dead-end attempts",
        "Share %",
        "Runs",
        "Recovered",
        "Mean delay",
        "Median delay",
    ]
    body = []
    for a in data["agents"]:
        de = data["figures"][a]["dead_ends"]
        for game, g in de["per_game"].items():
            body.append(
                [
                    a,
                    game,
                    g["attempts"],
                    g["dead_end_attempts"],
                    g["dead_end_share"],
                    g["runs"],
                    g["recovered"],
                    g["mean_delay"],
                    g["median_delay"],
                ]
            )
        o = de["overall"]
        body.append(
            [
                a,
                "all (game-macro)",
                o["attempts"],
                o["dead_end_attempts"],
                o["dead_end_share"],
                o["runs"],
                o["recovered"],
                o["mean_delay"],
                None,
            ]
        )
        out = de.get("outside")
        if out is not None:  # play outside the objectives: its own line, in no figure above
            body.append(
                [
                    a,
                    outside_label(out["games"]),
                    out["attempts"],
                    out["dead_end_attempts"],
                    out["dead_end_share"],
                    out["runs"],
                    out["recovered"],
                    out["mean_delay"],
                    out["median_delay"],
                ]
            )
    return header, body


def outside_label(games: list[str]) -> str:
    """The label of a table's line of play outside the objectives (``games``: where it was,
    as ``Game-Tier``)."""
    return f"outside the objective ({', '.join(games)})"
