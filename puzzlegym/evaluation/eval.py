"""``puzzlegym eval``: agents × objectives × seeds, one episode each, records under a run dir.

Every episode follows the objective protocol (the LongPuzzleBench paper's Appendices
B.1-B.2): it starts at the suite home screen, the agent gets the one-line instruction as
text (``info["instruction"]``), the budget is 3,600 s (simulated clock by default,
``clock="wall"`` for live agents), there is no action limit (``max_steps`` is a harness cap
for smoke runs: an episode stopped by it is neither a timeout nor a premature exit), and it
ends at full completion, at the agent's answer or at the deadline.

Layout of a run directory::

    RUN_DIR/run.json                                what was asked (agents, objectives, seeds, ...)
    RUN_DIR/episodes/<agent>/<Game>-<Tier>/seed<k>/
        record/manifest.json, record/log.jsonl      the episode record (written as it runs)
        result.json, final.png                      written when the episode ends

Episodes run in parallel worker processes (``workers`` > 1) or in-process (``workers`` = 1),
with a progress bar. ``puzzlegym report RUN_DIR`` turns the records into tables and plots.

The run directory is locked (``RUN_DIR/.lock``) while a run writes it. Worker processes are
spawned by the run's process (a fresh interpreter each: never forked from a parent whose
threads may hold locks) and die with it, however it ends (``kill -9`` included: each has a
parent-death signal, SIGKILL, on Linux), and none of them holds the lock (a spawned process
inherits none of its parent's files), so the lock goes with the run's process and
``--resume`` works right after.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import re
import signal
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from tqdm import tqdm

from puzzlegym.base.errors import ConfigError, RecordError, counted
from puzzlegym.base.fields import MAX_SEED, check_count
from puzzlegym.base.jsonio import write_json
from puzzlegym.base.version import __version__
from puzzlegym.game.registry import ID_PREFIX, catalogue_sha256, env_ids, parse_env_id
from puzzlegym.record.files import SUPERSEDED, lock_file, read_json, unused_path

EXECUTORS = ("local", "ray")


def parse_objectives(spec: str | list[str]) -> list[str]:
    """``"all"`` (every registered objective) or a comma list of ids, with or without the
    ``LongPuzzle/`` prefix (``MazePaint-Easy,MazePaint-Hard``)."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    items = [s.strip() for s in items if s.strip()]
    if not items:
        raise ConfigError("objectives: empty; give 'all' or a comma list of ids")
    if items == ["all"]:
        return env_ids()
    out = []
    for item in items:
        env_id = item if item.startswith(ID_PREFIX) else ID_PREFIX + item
        parse_env_id(env_id)  # ConfigError naming the allowed ids
        out.append(env_id)
    return list(dict.fromkeys(out))


MAX_SEEDS = 10_000  # seeds in one run
MAX_WORKERS = 64  # worker processes of one run (never more than it has episodes)


def parse_seeds(spec: str | list[int]) -> list[int]:
    """``"0,1,2"``, ``"0-4"`` (inclusive) or a list of ints; each seed 0..MAX_SEED, at most
    :data:`MAX_SEEDS` of them (a range is checked before it is expanded)."""
    items: list[int | tuple[int, int]] = []
    if not isinstance(spec, str):
        items = list(spec)
    else:
        for part in spec.split(","):
            part = part.strip()
            if not part:
                continue
            m = re.fullmatch(r"(\d{1,12})-(\d{1,12})", part)
            if m:
                items.append((int(m.group(1)), int(m.group(2))))
            elif re.fullmatch(r"\d{1,12}", part):
                items.append(int(part))
            else:
                raise ConfigError(
                    f"seeds: {part[:40]!r} is not a seed (0..{MAX_SEED}) or a range a-b"
                )
    seeds: list[int] = []
    for item in items:
        lo, hi = item if isinstance(item, tuple) else (item, item)
        for v in (lo, hi):
            check_count(v, "seeds", 0, MAX_SEED, ConfigError, what="a seed")
        if hi < lo:
            raise ConfigError(f"seeds: the range {lo}-{hi} is empty (write it low-high)")
        if len(seeds) + (hi - lo + 1) > MAX_SEEDS:
            raise ConfigError(f"seeds: more than {MAX_SEEDS} seeds in one run")
        seeds.extend(range(lo, hi + 1))
    if not seeds:
        raise ConfigError("seeds: empty")
    return list(dict.fromkeys(seeds))


def check_run_dir(run: Path) -> None:
    """``run_dir`` is a directory or a path to create: not a file, not a dangling symlink."""
    if run.is_symlink() and not run.exists():
        raise ConfigError(f"run_dir: {run} is a symbolic link to nothing ({os.readlink(run)!r})")
    if run.exists() and not run.is_dir():
        raise ConfigError(f"run_dir: {run} exists and is not a directory")


def check_run_json(run: Path, resume: bool) -> None:
    """Without ``resume`` the run directory holds no earlier run's ``run.json``; with it, its
    ``run.json`` is a puzzlegym run description. :class:`ConfigError` otherwise."""
    meta = run / "run.json"
    if not (meta.exists() or meta.is_symlink()):
        return
    if not resume:
        raise ConfigError(
            f"run_dir: {run} already holds a run ({meta}); continue it with --resume or choose a "
            "new run directory (a run's description is never overwritten)"
        )
    try:
        doc = read_json(meta, "run description")
    except RecordError as exc:
        raise ConfigError(f"run_dir: {exc}; not resumed") from None
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("puzzlegym_version"), str)
        or not isinstance(doc.get("agents"), list)
    ):
        raise ConfigError(
            f"run_dir: {meta} is not a puzzlegym eval run description; not resumed "
            "(nothing overwritten)"
        )


def agent_slug(agent: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", agent)


def episode_dir(run_dir: str | Path, agent: str, env_id: str, seed: int) -> Path:
    return Path(run_dir) / "episodes" / agent_slug(agent) / env_id.split("/")[-1] / f"seed{seed}"


def _run_job(job: dict[str, Any]) -> dict[str, Any]:
    """One episode (runs in a worker process). Never raises: errors become the result."""
    from puzzlegym.evaluation.runner import run_episode

    out = Path(job["out_dir"])
    t0 = time.perf_counter()
    try:
        result = run_episode(
            job["env_id"],
            job["agent"],
            seed=job["seed"],
            out_dir=out,
            gif=job.get("gif", False),
            max_steps=job.get("max_steps"),
            agent_options=job.get("agent_options"),
            **job.get("env_kwargs", {}),
        )
    except Exception as exc:  # an agent or backend failure must not stop the whole run
        result = {
            "env_id": job["env_id"],
            "agent": job.get("label", job["agent"]),
            "seed": job["seed"],
            "error": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc(),
            "wall_s": round(time.perf_counter() - t0, 3),
        }
        out.mkdir(parents=True, exist_ok=True)
        write_json(out / "result.json", result)
    return result


def run_eval(
    agents: list[str],
    objectives: list[str],
    seeds: list[int],
    run_dir: str | Path,
    *,
    workers: int = 1,
    backend: str = "native",
    clock: str | None = None,
    budget_s: float = 3600.0,
    max_steps: int | None = None,
    record_frames: str | None = None,
    gif: bool = False,
    resume: bool = False,
    progress: bool = True,
    agent_options: dict[str, Any] | None = None,
    executor: str = "local",
    address: str | None = None,
) -> list[dict[str, Any]]:
    """Run every (agent, objective, seed) episode; returns their results (in job order).

    ``resume`` skips episodes whose ``result.json`` already exists; an unfinished or damaged
    one is moved to ``<run_dir>/superseded/...`` (kept, not counted by reports) and run again.
    Without ``resume``, a run directory that already holds an episode of this run is refused:
    episodes are never overwritten. The run directory is locked while the run writes it: a second
    run on the same directory is refused (:class:`RecordError`). Episodes always start at
    the home screen with the whole objective as target (the protocol); ``budget_s`` is the
    protocol's 3,600 s unless overridden, and ``clock`` the simulated clock, or the wall clock
    for model agents (``openai:MODEL``), unless given. ``agent_options`` is the model agents'
    one options dict (:mod:`puzzlegym.agents.model`); model agents are named
    ``openai:MODEL/<setting>/<memory>`` in the run (directories, records, reports).
    ``executor="ray"`` runs the episodes as Ray tasks (``address``: a cluster to join;
    default a local instance of ``workers`` CPUs; see :mod:`puzzlegym.evaluation.distributed`).
    """
    if executor not in EXECUTORS:
        raise ConfigError(f"executor: {executor!r} is not allowed; allowed: {', '.join(EXECUTORS)}")
    if address is not None and executor != "ray":
        raise ConfigError("address: only with executor='ray'")
    from puzzlegym.agents.factory import agent_label
    from puzzlegym.agents.model import is_model_spec
    from puzzlegym.evaluation.runner import check_run_limits

    run = Path(run_dir)
    if not agents:
        raise ConfigError("agents: empty")
    check_count(workers, "workers", 1, MAX_WORKERS, ConfigError)
    seeds = parse_seeds(seeds)
    check_run_limits(max_steps=max_steps)
    labels = {
        a: agent_label(a, agent_options if is_model_spec(a) else None) for a in agents
    }  # validates
    check_run_dir(run)
    run.mkdir(parents=True, exist_ok=True)
    lock_path = run / ".lock"
    had_lock = lock_path.exists()
    with open(lock_path, "a+", encoding="utf-8") as lock:  # held until the run ends
        lock_file(lock, f"the run directory {run} (another puzzlegym eval is writing it)")
        try:
            check_run_json(run, resume)
        except ConfigError:
            if not had_lock:
                lock_path.unlink()  # a refused run leaves the directory as it was
            raise
        lock.truncate(0)
        lock.write(f"{os.getpid()}\n")
        lock.flush()
        return _run_locked(
            run,
            agents,
            labels,
            objectives,
            seeds,
            workers=workers,
            backend=backend,
            clock=clock,
            budget_s=budget_s,
            max_steps=max_steps,
            record_frames=record_frames,
            gif=gif,
            resume=resume,
            progress=progress,
            agent_options=agent_options,
            executor=executor,
            address=address,
        )


def _run_locked(
    run: Path,
    agents,
    labels,
    objectives,
    seeds,
    *,
    workers,
    backend,
    clock,
    budget_s,
    max_steps,
    record_frames,
    gif,
    resume,
    progress,
    agent_options,
    executor,
    address,
) -> list[dict[str, Any]]:
    from puzzlegym.agents.model import is_model_spec, public_options

    clocks = {a: clock or ("wall" if is_model_spec(a) else "sim") for a in agents}
    env_kwargs: dict[str, Any] = {"backend": backend, "budget_s": float(budget_s), "start": "home"}
    if record_frames is not None:
        env_kwargs["record_frames"] = record_frames
    meta = {
        "puzzlegym_version": __version__,
        "catalogue_sha256": catalogue_sha256(parse_env_id(e)[0].name for e in objectives),
        "agents": [labels[a] for a in agents],
        "agent_options": public_options(agent_options) if agent_options else None,
        "objectives": objectives,
        "seeds": seeds,
        "workers": workers,
        "max_steps": max_steps,
        "executor": executor,
        "env_kwargs": {**env_kwargs, "clock": "/".join(dict.fromkeys(clocks[a] for a in agents))},
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    jobs = _jobs(
        run, agents, labels, objectives, seeds, agent_options, max_steps, gif, env_kwargs, clocks
    )
    results, todo, aside = _plan(run, jobs, resume)
    # never more worker processes than episodes to play
    workers = meta["workers"] = max(1, min(workers, len(todo)))
    # after every check: a refused run changes nothing
    write_json(run / "run.json", meta)
    for earlier, kept in aside:
        kept.parent.mkdir(parents=True, exist_ok=True)
        earlier.rename(kept)
        print(
            f"puzzlegym eval: the earlier attempt at {earlier} is kept in {kept}", file=sys.stderr
        )
    bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), unit="episode", disable=not progress)
    try:
        for i, result in _played(jobs, todo, executor, workers, address):
            results[i] = result
            bar.set_postfix_str(_short(result))
            bar.update(1)
    finally:
        bar.close()
    out = [results[i] for i in range(len(jobs))]
    meta["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    meta["errors"] = sum(1 for r in out if "error" in r)
    write_json(run / "run.json", meta)
    return out


def _jobs(
    run, agents, labels, objectives, seeds, agent_options, max_steps, gif, env_kwargs, clocks
) -> list[dict]:
    """One job per (agent, objective, seed), in that order: what ``_run_job`` plays."""
    from puzzlegym.agents.model import is_model_spec

    return [
        {
            "agent": agent,
            "label": labels[agent],
            "agent_options": agent_options if is_model_spec(agent) else None,
            "env_id": env_id,
            "seed": seed,
            "out_dir": str(episode_dir(run, labels[agent], env_id, seed)),
            "max_steps": max_steps,
            "gif": gif,
            "env_kwargs": {**env_kwargs, "clock": clocks[agent]},
        }
        for agent in agents
        for env_id in objectives
        for seed in seeds
    ]


def _plan(
    run: Path, jobs: list[dict], resume: bool
) -> tuple[dict[int, dict], list[int], list[tuple[Path, Path]]]:
    """What a (resumed) run still has to play: the results already there, the jobs to run
    and the unfinished episode directories to move aside (where to). Changes nothing."""
    results: dict[int, dict] = {}
    todo = []
    aside: list[tuple[Path, Path]] = []
    for i, job in enumerate(jobs):
        out = Path(job["out_dir"])
        if resume and (out / "result.json").exists():
            try:
                results[i] = read_json(out / "result.json", "episode result")
                continue
            except RecordError as exc:
                print(f"puzzlegym eval: {exc}; running that episode again", file=sys.stderr)
        if out.exists() and any(out.iterdir()):
            if not resume:
                raise ConfigError(
                    f"run_dir: {out} already holds an episode; continue the run with --resume "
                    "or choose a new run directory (episodes are never overwritten)"
                )
            # an unfinished or damaged episode is kept (never deleted) and run again
            aside.append(
                (out, unused_path(run / SUPERSEDED / out.relative_to(run), taken=Path.exists))
            )
        todo.append(i)
    return results, todo, aside


_PR_SET_PDEATHSIG = 1


def _worker_start(parent: int) -> None:
    """Each worker process, first: die with the run's process (SIGKILL as a parent-death
    signal, Linux; a parent that is gone already ends it at once). A spawned worker holds
    none of the run's files, so not the run directory's lock (the module docstring)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
            os._exit(70)
    if os.getppid() != parent:
        os._exit(70)  # the run died before the death signal was set


def _played(jobs: list[dict], todo: list[int], executor: str, workers: int, address):
    """``(job index, result)`` of each job in ``todo`` as it finishes: on Ray, in worker
    processes (spawned, dying with this one, not holding the run's lock) or here."""
    if executor == "ray":
        from puzzlegym.evaluation.distributed import ray_results

        for k, result in ray_results(
            _run_job, [jobs[i] for i in todo], workers=workers, address=address
        ):
            yield todo[k], result
    elif workers == 1:
        for i in todo:
            yield i, _run_job(jobs[i])
    else:
        with ProcessPoolExecutor(
            max_workers=workers,
            # spawned (never forked from this process and its threads): the workers' parent
            # is this process, and they inherit none of its files (the run's lock included)
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_start,
            initargs=(os.getpid(),),
        ) as pool:
            futures = {pool.submit(_run_job, jobs[i]): i for i in todo}
            for fut in as_completed(futures):
                yield futures[fut], fut.result()


def _short(result: dict) -> str:
    name = (
        f"{result.get('agent')} {str(result.get('env_id', '')).split('/')[-1]} "
        f"s{result.get('seed')}"
    )
    if "error" in result:
        return f"{name}: ERROR"
    return f"{name}: LC {result['lc']:.2f}"


def summary_lines(run_dir: str | Path) -> list[str]:
    """One line per agent: its Table-2 figures over the run's records."""
    from puzzlegym.report.load import load_run

    data = load_run(run_dir)
    lines = []
    for agent, fig in data["figures"].items():
        lines.append(
            f"{agent}: OSR {fig['OSR']:.1f}  LC {fig['LC']:.1f}  FGP {fig['FGP']:.1f}  "
            f"({counted(fig['n'], 'episode')}, {counted(fig['objectives'], 'objective')})"
        )
    return lines


def cmd(args) -> int:
    """``puzzlegym eval`` (argparse namespace from :mod:`puzzlegym.cli`)."""
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    results = run_eval(
        agents,
        parse_objectives(args.objectives),
        parse_seeds(args.seeds),
        args.run_dir,
        workers=args.workers,
        backend=args.backend,
        clock=args.clock,
        budget_s=args.budget_s,
        max_steps=args.max_steps,
        record_frames="hash" if args.frame_hashes else None,
        gif=args.gif,
        resume=args.resume,
        progress=not args.quiet,
        agent_options=getattr(args, "agent_options", None),
        executor=getattr(args, "executor", "local"),
        address=getattr(args, "address", None),
    )
    errors = [r for r in results if "error" in r]
    for r in errors:
        print(f"episode failed: {r['agent']} {r['env_id']} seed {r['seed']}: {r['error']}")
    if len(errors) == len(results):
        print(
            f"puzzlegym eval: error: every episode failed ({len(errors)}); nothing to score",
            file=sys.stderr,
        )
        return 1
    for line in summary_lines(args.run_dir):
        print(line)
    print(
        f"{counted(len(results), 'episode')}, records under {Path(args.run_dir) / 'episodes'}; "
        f"tables and plots: puzzlegym report {args.run_dir}"
    )
    return 1 if errors else 0
