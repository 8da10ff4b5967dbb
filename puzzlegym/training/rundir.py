"""A run's directory, one way for every trainer: never reused, locked while a run writes it,
resumed only by a run of the same configuration.

:func:`open_run` is how a trainer takes its directory: a new run is refused a directory that
holds a finished run (``result.json``) or an unfinished run's files (a sweep,
:mod:`puzzlegym.rl.sweep`, moves those aside and runs it again); a resumed run is refused one
whose ``config.json`` is missing, unreadable or another configuration's. The checks run once
before the lock is taken (a clear error without waiting) and again under it (another run may
have filled the directory meanwhile). A new run writes its ``config.json``
(:func:`write_config`) once its learner is built, so an error in its settings leaves the
directory empty but for its ``.lock``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from puzzlegym.base import jsonio
from puzzlegym.base.errors import ConfigError
from puzzlegym.record.files import lock_file

__all__ = [
    "check_dir",
    "check_resumable",
    "check_still_empty",
    "open_run",
    "prepare_dir",
    "write_config",
]

CONFIG = "config.json"
RESULT = "result.json"


def prepare_dir(out: Path) -> None:
    """Refuse a run directory that holds a finished or an unfinished run."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"out_dir: {out} exists and is not a directory")
    if (out / RESULT).exists():
        raise ConfigError(f"out_dir: {out} holds a finished run ({RESULT}); choose a new directory")
    if out.exists() and any(p.name != ".lock" for p in out.iterdir()):
        raise ConfigError(
            f"out_dir: {out} holds an unfinished run's files; choose a new directory (a sweep, "
            "puzzlegym.rl.sweep, moves them aside and runs it again)"
        )


def check_still_empty(out: Path) -> None:
    """Refuse a run directory another run filled while this one waited for its lock."""
    others = [p.name for p in out.iterdir() if p.name != ".lock"]
    if others:
        raise ConfigError(
            f"out_dir: {out} was filled by another run meanwhile ({', '.join(sorted(others)[:3])})"
        )


def check_resumable(out: Path, config: dict) -> None:
    """Refuse to resume ``out`` unless it holds an unfinished run of ``config`` (its
    ``config.json`` equal to it, field by field)."""
    if not out.is_dir() or not (out / CONFIG).is_file():
        raise ConfigError(f"resume: {out} holds no run to resume (no {CONFIG})")
    if (out / RESULT).exists():
        raise ConfigError(f"resume: {out} holds a finished run ({RESULT})")
    try:
        saved = jsonio.load_file(out / CONFIG, 2**20)  # a configuration: a few KiB
    except (OSError, jsonio.JSONError) as exc:
        raise ConfigError(f"resume: {out / CONFIG} is unreadable ({exc})") from None
    if saved != config:
        keys = sorted(set(config) | set(saved if isinstance(saved, dict) else {}))
        differ = [k for k in keys if not isinstance(saved, dict) or saved.get(k) != config.get(k)]
        raise ConfigError(
            f"resume: {out}'s run was configured differently ({', '.join(differ) or 'config'}); "
            "resume it with its own configuration"
        )


def check_dir(out: Path, config: dict, resume: bool) -> None:
    """:func:`check_resumable` when resuming, else :func:`prepare_dir`."""
    if resume:
        check_resumable(out, config)
    else:
        prepare_dir(out)


@contextmanager
def open_run(out: Path, config: dict, resume: bool) -> Iterator[Path]:
    """Hold ``out`` for one run of ``config`` (see the module docstring); call
    :func:`check_dir` first to fail before building anything."""
    check_dir(out, config, resume)
    out.mkdir(parents=True, exist_ok=True)
    lock = open(out / ".lock", "a+", encoding="utf-8")  # held until the run ends
    try:
        lock_file(lock, f"the run directory {out}")
        if resume:
            check_resumable(out, config)
        else:
            check_still_empty(out)
        yield out
    finally:
        lock.close()


def write_config(out: Path, config: dict) -> None:
    """A new run's ``config.json`` (what :func:`check_resumable` compares a resumed run to)."""
    jsonio.write_json(out / CONFIG, config)
