"""Episode records on disk, written as the episode runs.

One directory per episode: ``manifest.json`` (written at the start, completed at the end, each
time atomically) and ``log.jsonl``, one JSON object per line (actions, evaluator events and
snapshots), flushed line by line so a crash loses nothing already played. While an episode
writes its log it holds an exclusive lock on it, so a second writer is refused instead of
tearing the log. A model agent's own lines (its configuration, model requests with latency
and tokens, steps for NGAR, malformed calls, memory applications) go to ``agent.jsonl``
beside them (:class:`AgentLog`), so the agent can never write into the evaluator's log and
replays compare the evaluator's log alone.

Reading is strict: a line that is not a JSON object anywhere in the log is a
:class:`~puzzlegym.base.errors.RecordError` naming the file and line. The one exception is a last
line without its newline that does not parse: the writing process was killed mid-line; it is
dropped and reported as ``torn_line`` on the result, never silently.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from puzzlegym.base import jsonio
from puzzlegym.base.errors import RecordError, shown
from puzzlegym.base.fields import is_int
from puzzlegym.base.schema import check, conform
from puzzlegym.record.events import upgrade_line
from puzzlegym.record.shapes import MANIFEST, agent_line_shape, check_agent_line, check_log_line

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - no advisory locks on this platform
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "AGENT_LOG",
    "RECORD_FILES",
    "SUPERSEDED",
    "VIEW_PAGE",
    "AgentLog",
    "EpisodeRecorder",
    "Log",
    "RecordWriter",
    "holds_record",
    "is_being_written",
    "is_superseded",
    "lock_file",
    "read_json",
    "read_log",
    "read_manifest",
    "unused_path",
]

# the files that make a directory an episode record (an agent log alone does not)
RECORD_FILES = ("manifest.json", "log.jsonl")
# where a run keeps episodes it ran again (`eval --resume`): kept, never counted
SUPERSEDED = "superseded"
# the episode viewer's page of a record, in the record's directory (`puzzlegym view`); a run's
# index page has the same name in the run directory
VIEW_PAGE = "view.html"


def is_superseded(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """Whether ``path`` (under ``root``) lies in a run's folder of superseded episodes."""
    return SUPERSEDED in Path(path).relative_to(root).parts


def holds_record(directory: str | os.PathLike) -> bool:
    """Whether ``directory`` already holds an episode record (which is never overwritten)."""
    return any((Path(directory) / name).exists() for name in RECORD_FILES)


def unused_path(base: str | os.PathLike, taken=holds_record, limit: int = 100_000) -> Path:
    """``base`` if ``taken(base)`` is false, else the first of ``base-2``, ``base-3``, ...
    that is not taken: where a new record (or run output) goes without touching an old one."""
    base = Path(base)
    for n in range(1, limit + 1):
        path = base if n == 1 else base.with_name(f"{base.name}-{n}")
        if not taken(path):
            return path
    raise RecordError(f"{base}: {limit} earlier records already use this name; choose another")


def is_being_written(directory: str | os.PathLike) -> bool:
    """Whether a running episode holds the lock on the record's log (it is still written)."""
    if fcntl is None:  # pragma: no cover
        return False
    try:
        fh = open(Path(directory) / "log.jsonl", "rb")  # noqa: SIM115 - closed below
    except OSError:
        return False
    with fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    return False


def lock_file(fh: Any, what: str) -> None:
    """Take an exclusive, non-blocking advisory lock on an open file (released when it is
    closed or the process dies); raises :class:`RecordError` if another process holds it."""
    if fcntl is None:  # pragma: no cover
        return
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise RecordError(f"{what} is being written by another process") from None


class EpisodeRecorder:
    """Writes one new episode record into ``directory``; a directory that already holds a
    record is refused (records are never overwritten: pick a name with :func:`unused_path`)."""

    def __init__(self, directory: str | os.PathLike, manifest: dict[str, Any]) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.manifest = dict(manifest)
        if (self.dir / "manifest.json").exists():
            raise RecordError(
                f"{self.dir} already holds an episode record; records are never overwritten"
            )
        try:  # "x": created here, or refused; an earlier record is never reopened
            log = open(self.dir / "log.jsonl", "x", encoding="utf-8")  # noqa: SIM115 - kept open
        except FileExistsError:
            raise RecordError(
                f"{self.dir} already holds an episode record; records are never overwritten"
            ) from None
        try:
            lock_file(log, f"the record {self.dir}")
        except RecordError:
            log.close()
            raise
        self._log = log
        self._write_manifest()

    def _write_manifest(self) -> None:
        jsonio.write_atomic(
            self.dir / "manifest.json", json.dumps(self.manifest, indent=2, sort_keys=True) + "\n"
        )

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

    def __reduce__(self):
        raise TypeError(
            f"an env writing an episode record ({self.dir}) cannot be pickled or copied: two "
            "envs would write one record; copy an env made without record_dir"
        )


class RecordWriter:
    """The episode record as a subscriber of the env's events: each event becomes a line of
    ``log.jsonl`` and the episode's end (:class:`~puzzlegym.record.events.EpisodeEnded`)
    its manifest's ``result``. :meth:`open` starts a new record (closing the previous one);
    with none open, events pass unrecorded."""

    def __init__(self) -> None:
        self.recorder: EpisodeRecorder | None = None

    def open(self, directory: str | os.PathLike, manifest: dict[str, Any]) -> None:
        self.close()
        self.recorder = EpisodeRecorder(directory, manifest)

    def __call__(self, event: Any) -> None:
        if self.recorder is None:
            return
        line = event.to_record()
        if event.kind == "result":
            self.recorder.finish(line["result"])
        else:
            self.recorder.write(line)

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None


AGENT_LOG = "agent.jsonl"
MAX_AGENT_LINE = 64 * 1024
MAX_LINE_BYTES = 64 * 2**20  # a log line read back (a snapshot's state is far smaller)
MAX_JSON_BYTES = 256 * 2**20  # a record's or a run's JSON file read back


class AgentLog:
    """``agent.jsonl`` of an episode record: the agent's lines, each stamped with the env's
    action count (``step``) and episode time (``t``) when it was written."""

    def __init__(self, directory: str | os.PathLike) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        try:  # never overwrites an earlier agent log
            self._log = open(self.dir / AGENT_LOG, "x", encoding="utf-8")  # noqa: SIM115 - kept open
        except FileExistsError:
            raise RecordError(
                f"{self.dir / AGENT_LOG} already exists; records are never overwritten"
            ) from None

    def write(self, record: dict, actions: int, t: float) -> None:
        doc = jsonio.representable(
            {**record, "actions": actions, "t": round(t, 3)}
        )  # NaN, 10**40: strings, and null where the line's shape wants a number
        doc = conform(doc, agent_line_shape(doc.get("kind")))
        line = json.dumps(doc, sort_keys=True, separators=(",", ":"), default=str, allow_nan=False)
        if len(line) > MAX_AGENT_LINE:  # bounded: a runaway line is cut to its kind
            line = json.dumps(
                {
                    "kind": record.get("kind"),
                    "actions": actions,
                    "t": round(t, 3),
                    "truncated": len(line),
                }
            )
        self._log.write(line + "\n")
        self._log.flush()

    def close(self) -> None:
        if not self._log.closed:
            self._log.close()

    def __reduce__(self):
        raise TypeError(
            f"an env writing an episode record ({self.dir}) cannot be pickled or copied: two "
            "envs would write one record; copy an env made without record_dir"
        )


class Log(list):
    """The lines of an episode log; ``torn_line`` is the number of a torn last line that was
    dropped (the writer was killed mid-line), or None."""

    torn_line: int | None = None


def _line(raw: bytes, path: Path, number: int) -> dict:
    try:
        doc = jsonio.loads(raw)
    except jsonio.JSONError as exc:
        raise RecordError(f"{path}:{number}: corrupted log line ({exc})") from None
    if not isinstance(doc, dict):
        raise RecordError(
            f"{path}:{number}: corrupted log line (a {type(doc).__name__}, not an object)"
        )
    return upgrade_line(doc)  # an earlier record's "step" reads as "actions"


def read_log(directory: str | os.PathLike, name: str = "log.jsonl") -> Log:
    """The log lines of an episode record (see module docstring for damaged logs), in
    today's names (:func:`~puzzlegym.record.events.upgrade_line`); ``name=AGENT_LOG``
    reads the agent's lines ([] when there are none). Each line is checked against its kind's
    shape (:mod:`puzzlegym.record.shapes`) before it is returned."""
    path = Path(directory) / name
    out = Log()
    if name == AGENT_LOG and not path.exists():
        return out
    try:
        fh = open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise RecordError(f"{path}: cannot read: {exc.strerror}") from None
    shape = check_agent_line if name == AGENT_LOG else check_log_line
    with fh:
        number = 0
        # each line read at most MAX_LINE_BYTES + 1 bytes at a time: a longer one is refused
        lines = iter(lambda: fh.readline(MAX_LINE_BYTES + 1), b"")
        for number, raw in enumerate(lines, 1):  # noqa: B007 - number is used after the loop
            if len(raw) > MAX_LINE_BYTES:
                raise RecordError(
                    f"{path}:{number}: a line of more than {MAX_LINE_BYTES} bytes "
                    "(no writer writes one)"
                )
            if raw.endswith(b"\n"):
                line = _line(raw, path, number)
            else:
                try:  # the last line, without its newline
                    line = _line(raw, path, number)
                except RecordError:
                    out.torn_line = number
                    break
            out.append(shape(line, f"{path}:{number}"))
    return out


def read_json(path: str | os.PathLike, what: str = "file") -> Any:
    """A JSON file of a record or run directory; a missing, empty or damaged file is a
    :class:`RecordError` naming it."""
    path = Path(path)
    try:
        raw = jsonio.read_bytes(path, MAX_JSON_BYTES)  # bounded before it is parsed
    except OSError as exc:
        raise RecordError(f"{path}: cannot read the {what}: {exc.strerror}") from None
    except jsonio.JSONError as exc:
        raise RecordError(f"{path}: the {what} is {exc}") from None
    if not raw.strip():
        raise RecordError(f"{path}: the {what} is empty (the writer was interrupted)")
    try:
        return jsonio.loads(raw)
    except jsonio.JSONError as exc:
        raise RecordError(f"{path}: the {what} is damaged ({exc})") from None


def read_manifest(directory: str | os.PathLike) -> dict:
    """A record's ``manifest.json``, its fields checked (an object; ``env_id`` an env id
    (``objective`` in records written before 0.2);
    ``config`` an object, with ``env_id`` an env id, if present; ``seed`` None or an integer;
    ``result`` None or an object; ``targets`` a list of level numbers if present): a
    :class:`RecordError` naming the file and field otherwise."""
    path = Path(directory) / "manifest.json"
    doc = read_json(path, "record manifest")
    if not isinstance(doc, dict):
        raise RecordError(
            f"{path}: the record manifest is not a JSON object (got {type(doc).__name__})"
        )
    check(doc, MANIFEST, f"{path}: manifest", RecordError)

    def bad(field: str, expected: str) -> RecordError:
        return RecordError(
            f"{path}: manifest field {field!r}: expected {expected}, got {shown(doc.get(field))}"
        )

    config = doc.get("config", {})
    if not isinstance(config, dict):
        raise bad("config", "an object (the env's configuration)")
    key = "env_id" if "env_id" in doc or "objective" not in doc else "objective"
    ids = [(key, doc.get(key))] + (
        [("config.env_id", config["env_id"])] if "env_id" in config else []
    )
    for name, value in ids:
        if not isinstance(value, str) or "/" not in value or "-" not in value:
            raise RecordError(
                f"{path}: manifest field {name!r}: expected an env id such as "
                f"'LongPuzzle/MazePaint-Easy', got {shown(value)}"
            )
    seed = doc.get("seed")
    if seed is not None and not is_int(seed):
        raise bad("seed", "null or an integer")
    if doc.get("result") is not None and not isinstance(doc["result"], dict):
        raise bad("result", "null or an object")
    targets = doc.get("targets")
    if targets is not None and (
        not isinstance(targets, list) or not all(is_int(t) for t in targets)
    ):
        raise bad("targets", "a list of level numbers")
    return doc
