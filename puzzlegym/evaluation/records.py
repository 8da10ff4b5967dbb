"""Episode records on disk, written as the episode runs.

One directory per episode (an existing record there is replaced): ``manifest.json`` (written
at the start, completed at the end)
and ``log.jsonl``, one JSON object per line (actions, evaluator events and snapshots),
flushed line by line so a crash loses nothing already played. A model agent's own lines
(its configuration, model requests with latency and tokens, steps for NGAR, malformed calls,
memory applications) go to ``agent.jsonl`` beside them (:class:`AgentLog`), so the agent can
never write into the evaluator's log and replays compare the evaluator's log alone.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


class EpisodeRecorder:
    def __init__(self, directory: str | os.PathLike, manifest: dict[str, Any]) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.manifest = dict(manifest)
        self._write_manifest()
        self._log = open(self.dir / "log.jsonl", "w", encoding="utf-8")

    def _write_manifest(self) -> None:
        tmp = self.dir / "manifest.json.tmp"
        tmp.write_text(json.dumps(self.manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.dir / "manifest.json")

    def write(self, record: dict) -> None:
        self._log.write(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")
        self._log.flush()

    def finish(self, result: dict) -> None:
        self.manifest["result"] = result
        self._write_manifest()
        self.close()

    def close(self) -> None:
        if not self._log.closed:
            self._log.close()


AGENT_LOG = "agent.jsonl"
MAX_AGENT_LINE = 64 * 1024


class AgentLog:
    """``agent.jsonl`` of an episode record: the agent's lines, each stamped with the env's
    action count (``step``) and episode time (``t``) when it was written."""

    def __init__(self, directory: str | os.PathLike) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self._log = open(self.dir / AGENT_LOG, "w", encoding="utf-8")

    def write(self, record: dict, step: int, t: float) -> None:
        line = json.dumps({**record, "step": step, "t": round(t, 3)}, sort_keys=True, separators=(",", ":"), default=str)
        if len(line) > MAX_AGENT_LINE:  # bounded: a runaway line is cut to its kind
            line = json.dumps({"kind": record.get("kind"), "step": step, "t": round(t, 3), "truncated": len(line)})
        self._log.write(line + "\n")
        self._log.flush()

    def close(self) -> None:
        if not self._log.closed:
            self._log.close()


def read_log(directory: str | os.PathLike, name: str = "log.jsonl") -> list[dict]:
    """The log lines of an episode record (a torn last line from a crash is skipped);
    ``name=AGENT_LOG`` reads the agent's lines ([] when there are none)."""
    out = []
    path = Path(directory) / name
    if name == AGENT_LOG and not path.exists():
        return out
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                break
    return out
