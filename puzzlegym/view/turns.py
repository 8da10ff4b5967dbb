"""A model agent's ``agent.jsonl`` read into the viewer's turns: each model request (the
model's text and reasoning where the server returned them, its tool calls, tokens, latency,
retries and the faults retried), each tool call performed, the feedback the model got, the
Code Execution runs (code and output), malformed calls, memory applications, harness waits
and the agent's error.

Each line becomes one entry ``{"at": actions, "kind": ..., ...}``: ``at`` is the env's action
count when the agent wrote it, so the entries at position ``p`` belong to the action after it
(``p + 1``). Strings are cut to :data:`~puzzlegym.view.episode.MAX_TEXT` characters and the
turns as a whole to :data:`MAX_TURN_CHARS` (past it, entries keep their kind, position and
numbers only, and ``cut`` says from which entry on).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from puzzlegym.record.files import AGENT_LOG, read_log
from puzzlegym.view.episode import MAX_TEXT, clip

__all__ = ["MAX_TURN_CHARS", "is_fault", "read_turns"]

MAX_TURN_CHARS = 8_000_000  # the turns' text on one page (about 8 MB)
MAX_DEPTH = 4


def _value(value: Any, depth: int = 0) -> Any:
    """A JSON value with every string cut and nesting bounded."""
    if isinstance(value, str):
        return clip(value)
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return value
    if depth >= MAX_DEPTH:
        return clip(json.dumps(value, default=str), 400)
    if isinstance(value, dict):
        return {clip(k, 80): _value(v, depth + 1) for k, v in list(value.items())[:50]}
    if isinstance(value, (list, tuple)):
        return [_value(v, depth + 1) for v in list(value)[:50]]
    return clip(value)


def is_fault(entry: dict[str, Any]) -> bool:
    """Whether an entry is a fault the viewer jumps to: a request that was retried or hit
    faults, a malformed call, a harness wait, a failed code run, the agent's error."""
    kind = entry.get("kind")
    if kind == "request":
        return bool(entry.get("retries")) or bool(entry.get("faults"))
    if kind == "code":
        return entry.get("outcome") in ("error", "failed")
    return kind in ("malformed", "harness_wait", "error")


def read_turns(record_dir: str | os.PathLike) -> dict[str, Any] | None:
    """The turns of a record's ``agent.jsonl`` (None without one): ``entries`` (in order),
    ``faults`` (the positions of faults, in order), ``config`` (the agent's configuration
    line, if any), ``cut`` (the index of the first entry whose text was dropped for the
    page's bound, or None)."""
    lines = read_log(Path(record_dir), AGENT_LOG)
    if not lines:
        return None
    entries: list[dict[str, Any]] = []
    config = None
    used, cut = 0, None
    for rec in lines:
        at = rec.get("actions")
        at = at if isinstance(at, int) and not isinstance(at, bool) and at >= 0 else 0
        entry = {k: _value(v) for k, v in rec.items() if k not in ("actions", "t")}
        entry["at"] = at
        entry["kind"] = clip(rec.get("kind"), 40)
        size = len(json.dumps(entry, default=str))
        if cut is None and used + size > MAX_TURN_CHARS:
            cut = len(entries)
        if cut is not None:
            entry = {
                k: v
                for k, v in entry.items()
                if isinstance(v, (int, float, bool)) or k in ("kind", "tool", "outcome")
            }
        used += size
        if entry["kind"] == "config" and config is None:
            config = entry
        entries.append(entry)
    return {
        "entries": entries,
        "faults": sorted({e["at"] for e in entries if is_fault(e)}),
        "config": config,
        "cut": cut,
        "limit": MAX_TEXT,
    }
