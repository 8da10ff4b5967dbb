"""The lab's result documents on disk (RQ2 outcomes, RQ4 sessions): one JSON file per run,
found again under a root by file name and study."""

from __future__ import annotations

import os
from pathlib import Path

from puzzlegym.base import jsonio


def find_documents(root: str | os.PathLike, file_name: str, study: str) -> list[dict]:
    """Every ``file_name`` under ``root`` (sorted by path) that is a JSON object of
    ``study``; unreadable or foreign files are skipped."""
    out = []
    for path in sorted(Path(root).rglob(file_name)):
        try:
            doc = jsonio.load_file(path)
        except (OSError, jsonio.JSONError):
            continue
        if isinstance(doc, dict) and doc.get("study") == study:
            out.append(doc)
    return out


__all__ = ["find_documents"]
