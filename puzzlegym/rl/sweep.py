"""A sweep of training runs (:func:`puzzlegym.rl.train.train`) under one root directory,
resumable: a sweep that was killed continues where it stopped when started again.

Each run has a name (its directory under the root). When the sweep starts:

* a run whose directory holds ``result.json`` is finished: it is skipped and its result read
  (its ``config.json`` must be the configuration asked for, or the sweep refuses, naming the
  run: a sweep never mixes two configurations under one name);
* a run whose directory holds anything else was interrupted: its files are moved, untouched,
  to ``superseded/<name>`` (``-2``, ``-3``, ... if taken) and the run starts again from
  scratch. Runs are restarted rather than resumed from a saved model: a run is a function of
  its configuration (seeded model, level draws, evaluations), which a resumed run (fresh env
  and optimiser state mid-way) would not be, and a run lasts minutes;
* the other runs start, ``jobs`` at a time, each in its own process (torch threads as the
  run's configuration says, 1 by default).

The root is locked while a sweep writes it (a second sweep on it is refused); each run's
directory is locked by its run.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from puzzlegym.base import jsonio
from puzzlegym.base.errors import ConfigError, RecordError, shown
from puzzlegym.base.fields import check_count
from puzzlegym.record.files import lock_file, unused_path
from puzzlegym.rl.train import TrainConfig, train

__all__ = ["MAX_JOBS", "MAX_RUNS", "SUPERSEDED", "Run", "plan", "run_sweep"]

MAX_JOBS = 16
MAX_RUNS = 10_000
SUPERSEDED = "superseded"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


@dataclass(frozen=True)
class Run:
    """One run of a sweep: ``name`` (its directory: letters, digits, ``_.-``) and its config."""

    name: str
    config: TrainConfig

    def __post_init__(self) -> None:
        if (
            not isinstance(self.name, str)
            or not _NAME.fullmatch(self.name)
            or self.name == SUPERSEDED
        ):
            raise ConfigError(
                f"name: expected 1..128 letters, digits, '_', '.' or '-' (not starting with a "
                f"punctuation mark, not {SUPERSEDED!r}), got {shown(self.name)}"
            )
        if not isinstance(self.config, TrainConfig):
            raise ConfigError(f"config: expected a TrainConfig, got {shown(self.config)}")


def _read_json(path: Path, what: str):
    try:
        return jsonio.load_file(path)
    except (OSError, ValueError) as exc:
        raise RecordError(f"{what}: cannot read {path}: {exc}") from None


def plan(runs: Sequence[Run], root: str | Path) -> dict[str, list[str]]:
    """What :func:`run_sweep` would do, changing nothing: run names ``finished`` (skipped),
    ``interrupted`` (moved aside and run again) and ``new``."""
    root = Path(root)
    out: dict[str, list[str]] = {"finished": [], "interrupted": [], "new": []}
    for run in runs:
        d = root / run.name
        if (d / "result.json").exists():
            config = _read_json(d / "config.json", f"run {run.name}")
            # compared in JSON form: a config's tuples (buttons, grid) read back as lists
            if config != json.loads(json.dumps(run.config.to_dict())):
                raise ConfigError(
                    f"run {run.name}: {d} holds a finished run of another configuration; "
                    "give this configuration another name or another root"
                )
            out["finished"].append(run.name)
        elif d.exists() and any(d.iterdir()):
            out["interrupted"].append(run.name)
        else:
            out["new"].append(run.name)
    return out


def _one(name: str, config: dict, out: str) -> dict:
    """One run in a worker process (module level: it pickles)."""
    return train(
        TrainConfig.from_dict(config, progress=False),
        out,
        log=lambda line: print(f"[{name}] {line}", flush=True),
    )


def run_sweep(
    runs: Sequence[Run],
    root: str | Path,
    jobs: int = 2,
    log: Callable[[str], None] = print,
) -> dict[str, dict]:
    """Run every run of ``runs`` not finished under ``root`` (see the module docstring);
    returns every run's result by name (the finished ones read back)."""
    runs = list(runs)
    if not 1 <= len(runs) <= MAX_RUNS:
        raise ConfigError(f"runs: expected 1..{MAX_RUNS} runs, got {len(runs)}")
    for run in runs:
        if not isinstance(run, Run):
            raise ConfigError(f"runs: expected puzzlegym.rl.sweep.Run items, got {shown(run)}")
    names = [r.name for r in runs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(f"runs: the name {dup[0]!r} is given twice")
    check_count(jobs, "jobs", 1, MAX_JOBS, ConfigError)
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".sweep.lock", "a+", encoding="utf-8") as lock:
        lock_file(lock, f"the sweep directory {root}")
        todo = plan(runs, root)
        for name in todo["interrupted"]:
            dest = unused_path(root / SUPERSEDED / name, taken=lambda p: p.exists())
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(root / name), str(dest))
            log(f"sweep: {name} was interrupted: its files moved to {dest}; running it again")
        log(
            f"sweep: {len(todo['finished'])} finished (skipped), "
            f"{len(todo['interrupted']) + len(todo['new'])} to run, {jobs} at a time"
        )
        by_name = {r.name: r for r in runs}
        pending = [n for n in names if n not in todo["finished"]]
        if pending:
            import multiprocessing

            with ProcessPoolExecutor(
                max_workers=min(jobs, len(pending)), mp_context=multiprocessing.get_context("spawn")
            ) as pool:
                futures = {
                    n: pool.submit(_one, n, by_name[n].config.to_dict(), str(root / n))
                    for n in pending
                }
                for n in pending:
                    futures[n].result()
                    log(f"sweep: {n} finished")
        return {n: _read_json(root / n / "result.json", f"run {n}") for n in names}
