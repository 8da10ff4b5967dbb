"""``puzzlegym view RUN_OR_EPISODE_DIR``: the viewer's pages written beside the records.

An episode's page is ``view.html`` in its record's directory (:data:`VIEW_PAGE`, a name no
record file uses); a run's index is ``view.html`` in the run directory (when the directory
given is not itself a record). Each file is written atomically (temporary file, then rename)
and replaces the page an earlier ``puzzlegym view`` made there: a page is derived from its
record (the same record gives the same page), and the record's own files are only read.
A record still being written by a running episode is refused.
"""

from __future__ import annotations

import os
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from puzzlegym.base import jsonio
from puzzlegym.base.errors import PuzzleGymError, RecordError
from puzzlegym.env.loop import Observer, Step
from puzzlegym.record.files import (
    VIEW_PAGE,
    holds_record,
    is_being_written,
    is_superseded,
    read_json,
)
from puzzlegym.record.metrics import find_records
from puzzlegym.view.episode import read_episode
from puzzlegym.view.frames import DEFAULT_MAX_BYTES, record_frames
from puzzlegym.view.index import index_page
from puzzlegym.view.page import episode_page
from puzzlegym.view.turns import read_turns

__all__ = ["VIEW_PAGE", "view", "write_episode_page"]

Progress = Callable[[int, int], None]  # (actions replayed, actions in all)


class _Progress(Observer):
    def __init__(self, report: Progress | None, total: int) -> None:
        self.report, self.total, self._last = report, total, -1

    def on_step(self, step: Step) -> None:
        done = int(step.info["actions"])
        if self.report is not None and (done - self._last >= 50 or done == self.total):
            self._last = done
            self.report(done, self.total)


def write_episode_page(
    record_dir: str | os.PathLike,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    stride: int | None = None,
    index_href: str | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Write the page of one episode record (``view.html`` in its directory); returns what
    was written: ``page``, ``bytes``, ``actions``, ``stride``, ``images`` (distinct PNGs),
    ``image_bytes``, ``keyframes``, ``passes`` (replays run), ``replay_ok``, ``mismatch``,
    ``spans`` (dead-end spans), ``seconds``, and the row of the run's index."""
    d = Path(record_dir)
    if not holds_record(d) or not (d / "log.jsonl").is_file():
        raise RecordError(f"{d}: not an episode record (manifest.json + log.jsonl)")
    if is_being_written(d):
        raise RecordError(
            f"{d}: the record is being written by a running episode; view it once it has ended"
        )
    t0 = time.perf_counter()
    data = read_episode(d)
    turns = read_turns(d)
    observers = [] if progress is None else [_Progress(progress, data["n"])]
    strip, report = record_frames(
        d, data["n"], max_bytes=max_bytes, stride=stride, observers=observers
    )
    text = episode_page(data, strip, report, turns, index_href)
    page = d / VIEW_PAGE
    if page.exists() and not page.is_file():
        raise RecordError(f"{page}: exists and is not a file; the page goes there")
    jsonio.write_atomic(page, text)
    mismatch = report.get("mismatch")
    record, outcome = data["record"], data["outcome"]
    return {
        "page": str(page),
        "bytes": len(text.encode("utf-8")),
        "actions": data["n"],
        "stride": strip.stride,
        "images": len(strip.images),
        "image_bytes": strip.image_bytes,
        "keyframes": strip.keyframes,
        "passes": strip.passes,
        "replay_ok": bool(report.get("ok")),
        "mismatch": None if not mismatch else mismatch.get("detail"),
        "spans": len(data["spans"]),
        "seconds": round(time.perf_counter() - t0, 2),
        "row": {
            "agent": record["agent"],
            "env_id": record["env_id"],
            "seed": record["seed"],
            "lc": outcome["lc"],
            "fgp": outcome["fgp"],
            "end": outcome["end"],
            "actions": data["n"],
            "spans": len(data["spans"]),
        },
    }


MAX_ERROR_CHARS = 2000  # of a damaged record's line in the index


def url_of(relative: str | os.PathLike) -> str:
    """A relative file path as a relative URL: each segment percent-encoded (a record directory
    named ``javascript:alert(7)`` becomes ``./javascript%3Aalert%287%29/...``) and the whole
    starting with ``./`` or ``../``, so no record name can make it a scheme or a host."""
    parts = [urllib.parse.quote(part, safe="") for part in Path(relative).parts]
    url = "/".join(parts)
    return url if url.startswith("../") else "./" + url


def _failed_results(run: Path) -> list[dict[str, Any]]:
    """The episodes of a run whose result says they failed (no record to view, or one the
    report does not score)."""
    out = []
    for res in sorted(run.rglob("result.json")):
        if is_superseded(res, run):
            continue
        try:
            doc = read_json(res, "episode result")
        except RecordError:
            continue
        if isinstance(doc, dict) and "error" in doc and not holds_record(res.parent / "record"):
            out.append(
                {
                    "agent": doc.get("agent"),
                    "env_id": doc.get("env_id"),
                    "seed": doc.get("seed"),
                    "error": f"failed: {str(doc['error'])[:200]}",
                }
            )
    return out


def view(
    path: str | os.PathLike,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    stride: int | None = None,
    progress: Callable[[Path], Progress | None] | None = None,
    done: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """The pages of ``path``: an episode record's page, or, for a run directory, every
    record's page and the run's index. Returns ``pages`` (what
    :func:`write_episode_page` returned for each), ``failed`` (``[record, error]`` of
    records that could not be viewed: damaged, being written) and ``index`` (the index's
    path, or None). ``progress(record)`` gives the progress callback of a record's replay,
    ``done(page)`` hears of each page written."""
    root = Path(path)
    if not root.exists():
        raise RecordError(f"{root}: does not exist")
    if holds_record(root):
        page = write_episode_page(
            root, max_bytes=max_bytes, stride=stride, progress=progress and progress(root)
        )
        if done is not None:
            done(page)
        return {"pages": [page], "failed": [], "index": None}
    if not root.is_dir():
        raise RecordError(f"{root}: neither an episode record nor a run directory")
    records = find_records(root)
    if not records:
        raise RecordError(f"{root}: no episode record (manifest.json + log.jsonl) under it")
    pages, failed, rows = [], [], []
    for rec in records:
        href = url_of(os.path.relpath(root / VIEW_PAGE, rec))
        try:
            page = write_episode_page(
                rec,
                max_bytes=max_bytes,
                stride=stride,
                index_href=href,
                progress=progress and progress(rec),
            )
        except Exception as exc:  # one record's damage, or a bug it meets, stops no other page
            why = str(exc) if isinstance(exc, PuzzleGymError) else f"internal error: {exc!r}"
            why = why[:MAX_ERROR_CHARS]
            failed.append([str(rec), why])
            rows.append({"agent": "?", "env_id": str(rec.relative_to(root)), "error": why})
            continue
        pages.append(page)
        rows.append({**page["row"], "href": url_of(os.path.relpath(page["page"], root))})
        if done is not None:
            done(page)
    rows += _failed_results(root)
    index = root / VIEW_PAGE
    jsonio.write_atomic(index, index_page(f"Run {root.resolve().name}", rows))
    return {"pages": pages, "failed": failed, "index": str(index)}
