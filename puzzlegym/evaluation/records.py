"""Episode records on disk, written as the episode runs.

One directory per episode (an existing record there is replaced): ``manifest.json`` (written
at the start, completed at the end)
and ``log.jsonl``, one JSON object per line (actions, evaluator events and snapshots),
flushed line by line so a crash loses nothing already played.
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


def read_log(directory: str | os.PathLike) -> list[dict]:
    """The log lines of an episode record (a torn last line from a crash is skipped)."""
    out = []
    with open(Path(directory) / "log.jsonl", encoding="utf-8") as fh:
        for line in fh:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                break
    return out
