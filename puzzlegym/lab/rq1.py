"""RQ1: how moves spend solvability, measured from episode records (paper D.2).

A record's snapshots carry the game facts each game reports (``details``); the measures use
the facts, not the game's name:

* **capacity** (games that report ``free_anchors``, ``boards_removed`` and
  ``deadlock_certificate``: Bolt Unscrew): for every move, the free anchors before and
  after, and its class: *creates the deadlock* (the board after carries the paper's visible
  certificate), else *frees a board* (boards removed increases), else *fills an anchor*
  (free anchors decrease without a board leaving), else *other* (a loose screw moved). The
  exhaustive certificate adds *fatal* (the move made the board unsolvable) and *hidden
  fatal* (fatal while free anchors remained after it).
* **coverage** (games that report ``cells_painted`` and ``cells_paintable``: Maze Paint):
  valid moves are *productive* (paint at least one new cell) or *zero-progress*; *invalid*
  moves are the rejected ones (the evaluator's ``rejected`` events); a move *revisits* when
  the board after it (ball and painted cells) was already observed in the attempt, the
  attempt's first board included. Each move falls in the coverage bin (fifths of the
  paintable cells) of the board before it; attempts are split by outcome (won or not).

A move is the change between the last settled board before it and the board after it,
within one attempt (a ready or restarted board starts an attempt).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from puzzlegym.record.files import read_log, read_manifest

__all__ = [
    "CAPACITY_CLASSES",
    "CAPACITY_FACTS",
    "COVERAGE_FACTS",
    "capacity_summary",
    "coverage_summary",
    "record_moves",
]

CAPACITY_FACTS = ("free_anchors", "boards_removed", "deadlock_certificate")
COVERAGE_FACTS = ("cells_painted", "cells_paintable")
CAPACITY_CLASSES = ("frees a board", "fills an anchor", "creates the deadlock", "other")
BINS = 5


def _has(snap: dict, facts: tuple[str, ...]) -> bool:
    details = snap.get("details") or {}
    return all(f in details for f in facts)


def _capacity_move(before: dict, after: dict) -> dict:
    b, a = before["details"], after["details"]
    if a["deadlock_certificate"] and not b["deadlock_certificate"]:
        cls = "creates the deadlock"
    elif a["boards_removed"] > b["boards_removed"]:
        cls = "frees a board"
    elif a["free_anchors"] < b["free_anchors"]:
        cls = "fills an anchor"
    else:
        cls = "other"
    fatal = bool(after["dead_end"]) and not before["dead_end"]
    return {
        "free_before": b["free_anchors"],
        "free_after": a["free_anchors"],
        "class": cls,
        "fatal": fatal,
        "hidden_fatal": fatal and a["free_anchors"] > 0,
    }


def _state_key(snap: dict) -> str:
    return json.dumps(snap["state"], sort_keys=True, separators=(",", ":"))


def record_moves(directory: str | os.PathLike) -> dict[str, Any]:
    """The moves of one episode record: ``{"agent", "capacity": [...], "coverage": [...]}``
    (see the module docstring; each item also names ``game``, ``tier``, ``level``)."""
    d = Path(directory)
    manifest = read_manifest(d)
    capacity: list[dict] = []
    coverage: list[dict] = []
    attempt: dict | None = None  # the attempt in progress

    def close(won: bool) -> None:
        nonlocal attempt
        if attempt is not None:
            for m in attempt["coverage"]:
                m["won"] = won
            coverage.extend(attempt["coverage"])
            attempt = None

    for rec in read_log(d):
        kind = rec.get("kind")
        where = {"game": rec.get("game"), "tier": rec.get("tier"), "level": rec.get("level")}
        if kind == "snapshot":
            if rec["cause"] in ("ready", "restart"):
                close(False)
                attempt = {
                    "where": where,
                    "last": rec,
                    "seen": {_state_key(rec)},
                    "observed": 1,
                    "coverage": [],
                }
                continue
            if attempt is None or attempt["where"] != where:
                continue
            before, attempt["last"] = attempt["last"], rec
            if rec["cause"] != "move":
                continue
            if _has(before, CAPACITY_FACTS) and _has(rec, CAPACITY_FACTS):
                capacity.append({**where, **_capacity_move(before, rec)})
            if _has(before, COVERAGE_FACTS) and _has(rec, COVERAGE_FACTS):
                b, a = before["details"], rec["details"]
                key = _state_key(rec)
                total = max(1, b["cells_paintable"])
                attempt["coverage"].append(
                    {
                        **where,
                        "kind": "productive"
                        if a["cells_painted"] > b["cells_painted"]
                        else "zero-progress",
                        "revisit": key in attempt["seen"],
                        "bin": min(BINS - 1, BINS * b["cells_painted"] // total),
                    }
                )
                attempt["seen"].add(key)
        elif kind == "rejected" and attempt is not None and attempt["where"] == where:
            last = attempt["last"]
            if _has(last, COVERAGE_FACTS):
                total = max(1, last["details"]["cells_paintable"])
                attempt["coverage"].append(
                    {
                        **where,
                        "kind": "invalid",
                        "revisit": False,
                        "bin": min(BINS - 1, BINS * last["details"]["cells_painted"] // total),
                    }
                )
        elif kind == "level_won":
            if attempt is not None and attempt["where"] == where:
                close(True)
        elif kind in ("left_level", "attempt"):
            if attempt is not None and attempt["where"] == where:
                close(False)
    close(False)
    return {"agent": manifest.get("agent"), "capacity": capacity, "coverage": coverage}


def _pct(part: int, whole: int) -> float | None:
    return 100.0 * part / whole if whole else None


def capacity_summary(moves: Iterable[dict]) -> dict[str, Any]:
    """Counts over capacity moves: ``moves``, each class, ``one_free`` (moves made with one
    free anchor) and ``one_free_deadlock`` (of those, moves creating the deadlock),
    ``fatal``, ``hidden_fatal``, ``mean_free_before``, and the class shares in percent."""
    moves = list(moves)
    out: dict[str, Any] = {"moves": len(moves)}
    for cls in CAPACITY_CLASSES:
        out[cls] = sum(m["class"] == cls for m in moves)
        out[f"{cls} %"] = _pct(out[cls], len(moves))
    one = [m for m in moves if m["free_before"] == 1]
    out["one_free"] = len(one)
    out["one_free_deadlock"] = sum(m["class"] == "creates the deadlock" for m in one)
    out["fatal"] = sum(m["fatal"] for m in moves)
    out["hidden_fatal"] = sum(m["hidden_fatal"] for m in moves)
    out["mean_free_before"] = sum(m["free_before"] for m in moves) / len(moves) if moves else None
    return out


def coverage_summary(moves: Iterable[dict]) -> list[dict]:
    """Rows per attempt outcome (won / not won) and coverage bin, plus an ``all`` bin:
    ``attempted``, ``valid``, ``invalid``, ``productive``, ``zero_progress``, ``revisits``
    and the shares ``productive %`` (of valid), ``revisit %`` (of valid)."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for m in moves:
        groups[(m["won"], m["bin"])].append(m)
        groups[(m["won"], "all")].append(m)
    rows = []
    for (won, b), ms in sorted(groups.items(), key=lambda kv: (not kv[0][0], str(kv[0][1]))):
        valid = [m for m in ms if m["kind"] != "invalid"]
        productive = sum(m["kind"] == "productive" for m in valid)
        revisits = sum(m["revisit"] for m in valid)
        label = "all" if b == "all" else f"{20 * b}-{20 * (b + 1)}%"
        rows.append(
            {
                "outcome": "won" if won else "not won",
                "coverage": label,
                "attempted": len(ms),
                "valid": len(valid),
                "invalid": len(ms) - len(valid),
                "productive": productive,
                "zero_progress": len(valid) - productive,
                "revisits": revisits,
                "productive %": _pct(productive, len(valid)),
                "revisit %": _pct(revisits, len(valid)),
            }
        )
    return rows
