"""The report's tables from a loaded run (:func:`puzzlegym.report.load.load_run`): the
paper's Table 2, 17 and 18 layouts, per game, dead ends and model usage; Markdown and CSV."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from puzzlegym.base import jsonio
from puzzlegym.record import metrics

__all__ = [
    "TABLE2_COLUMNS",
    "dead_end_table",
    "fmt",
    "markdown_table",
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


def markdown_table(header: list[str], body: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in body]
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


def table18(data: dict) -> tuple[list[str], list[list[Any]]]:
    header = ["Agent", "Objective", "Seed", "S", "LC", "FGP", "P", "M", "NGAR", "|L_o|", "End"]
    body = []
    for a in data["agents"]:
        for e, r in zip(data["episodes"][a], data["rows"][a], strict=True):
            ng = None if r["n_native"] is None else metrics.ngar(r["n_native"], r["n_other"])
            body.append(
                [
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
            )
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
    return header, body
