"""Worker processes that each host several envs and step them as a batch.

A :class:`WorkerPool` splits ``n`` env factories over ``W`` processes (slices as even as
possible). Per request the main process sends one message per worker (e.g. the actions of its
envs) and receives one reply per worker (rewards, terminations, truncations and the infos of
its envs as columns, :func:`puzzlegym.rl.infos.pack_infos`); observations go into one shared-
memory block for all envs, written by the workers in place. Every wait is bounded: a worker
that dies, or does not answer within ``timeout`` seconds, raises
:class:`~puzzlegym.base.errors.WorkerError` naming it and closes the pool. The front ends are
:class:`puzzlegym.rl.batched.BatchedVectorEnv` (Gymnasium) and
:class:`puzzlegym.rl.sb3_batched.BatchedVecEnv` (Stable-Baselines3).

Besides the lockstep :meth:`WorkerPool.request` (every worker asked, every reply awaited),
:meth:`WorkerPool.submit` sends a request to one idle worker and :meth:`WorkerPool.collect_any`
returns the reply of whichever busy worker answers first (the asynchronous mode of
:class:`~puzzlegym.rl.batched.BatchedVectorEnv`: ``send``/``recv``). The two modes do not mix:
``request`` refuses while submitted requests are outstanding, ``submit`` while a lockstep
request runs.

Autoreset styles (``autoreset``): ``"next_step"`` (Gymnasium's default: the step after an
episode's end resets that env, with reward 0 and no termination), ``"same_step"`` (the
step that ends an episode resets the env and puts ``final_obs``/``final_info`` in the infos),
``"disabled"``, and ``"sb3"`` (Stable-Baselines3's: same step, ``terminal_observation`` and
``TimeLimit.truncated`` in each env's info dict, infos as a list).
"""

from __future__ import annotations

import math
import os
import pickle
import select
import sys
import time
import traceback
from typing import Any, NamedTuple

import numpy as np
from gymnasium.vector.utils import (
    CloudpickleWrapper,
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)

from puzzlegym.base.errors import ConfigError, PuzzleGymError, WorkerError
from puzzlegym.base.fields import check_count, check_number
from puzzlegym.base.processes import worker_context
from puzzlegym.rl.infos import pack_infos

__all__ = [
    "AUTORESET",
    "ArrayPayload",
    "DEFAULT_SPIN_US",
    "MAX_SPIN_US",
    "MAX_TIMEOUT_S",
    "MAX_WORKERS",
    "WorkerPool",
    "get_context",
    "shared_observations",
    "split",
]

AUTORESET = ("next_step", "same_step", "disabled", "sb3")
MAX_WORKERS = 64
MAX_TIMEOUT_S = 3600.0
CLOSE_TIMEOUT_S = 5.0
# after each reply a worker polls for its next request this long before it blocks: on a
# virtual machine, waking a process whose core has gone idle costs tens of microseconds more
# than handing it a message while it runs (benchmarks/bench_rl.py wakeup), and the vector
# loop would pay that twice per message
DEFAULT_SPIN_US = 300.0
MAX_SPIN_US = 10_000.0


class ArrayPayload(NamedTuple):
    """A batch of array actions as ``(dtype, nested lists)``: pickled in a fraction of the
    time of a small array; the worker rebuilds the array (same dtype, same values)."""

    dtype: str
    values: list


def split(n: int, workers: int) -> list[tuple[int, int]]:
    """``workers`` contiguous ``(lo, hi)`` slices of ``range(n)``, sizes differing by at most 1."""
    base, extra = divmod(n, workers)
    out, lo = [], 0
    for w in range(workers):
        hi = lo + base + (w < extra)
        out.append((lo, hi))
        lo = hi
    return out


def _error(i: int | None, exc: BaseException) -> tuple:
    try:
        blob = pickle.dumps(exc)
    except Exception:
        blob = None
    return ("error", (i, type(exc).__name__, str(exc), traceback.format_exc(), blob))


class _Host:
    """The envs ``lo .. lo + k - 1`` of a worker process and the requests it serves; each
    method takes a request's payload and returns the reply. ``current`` is the env being
    run (named in error reports)."""

    def __init__(self, envs: list, lo: int, n: int, shm, obs_space, autoreset: str) -> None:
        self.envs, self.lo, self.k = envs, lo, len(envs)
        self.shm, self.obs_space = shm, obs_space
        self.view = read_from_shared_memory(obs_space, shm, n)
        self.autoreset, self.sb3 = autoreset, autoreset == "sb3"
        self.need_reset = [False] * self.k
        self.current: int | None = None

    def put(self, j: int, obs) -> None:
        """Write env ``j``'s observation into its slot of the shared block."""
        if isinstance(self.view, np.ndarray):  # Box, Discrete, ...: a plain array
            self.view[self.lo + j] = obs
        else:
            write_to_shared_memory(self.obs_space, self.lo + j, obs, self.shm)

    def step(self, payload):
        actions = (
            np.array(payload.values, dtype=payload.dtype)
            if isinstance(payload, ArrayPayload)
            else payload
        )
        k, sb3 = self.k, self.sb3
        rewards = np.zeros(k, dtype=np.float64)
        terms = np.zeros(k, dtype=np.bool_)
        truncs = np.zeros(k, dtype=np.bool_)
        infos: Any = [None] * k if sb3 else []
        reset_infos = None
        for j, env in enumerate(self.envs):
            self.current = self.lo + j
            if self.autoreset == "next_step" and self.need_reset[j]:
                obs, info = env.reset()  # reward 0, no termination, as SyncVectorEnv
            else:
                obs, rewards[j], terms[j], truncs[j], info = env.step(actions[j])
                done = terms[j] or truncs[j]
                if sb3:  # as DummyVecEnv
                    info = dict(info)
                    info["TimeLimit.truncated"] = bool(truncs[j] and not terms[j])
                    if done:
                        info["terminal_observation"] = obs
                        obs, reset_info = env.reset()
                        reset_infos = reset_infos or {}
                        reset_infos[j] = reset_info
                elif self.autoreset == "same_step" and done:
                    infos.append((j, {"final_obs": obs, "final_info": info}))
                    obs, info = env.reset()
            self.need_reset[j] = bool(terms[j] or truncs[j])
            self.put(j, obs)
            if sb3:
                infos[j] = info
            else:
                infos.append((j, info))
        # plain lists: far cheaper to pickle and unpickle than small arrays
        return (
            rewards.tolist(),
            terms.tolist(),
            truncs.tolist(),
            infos if sb3 else pack_infos(infos, k),
            reset_infos,
        )

    def reset(self, payload):
        seeds, options, mask = payload
        infos: Any = [None] * self.k if self.sb3 else []
        for j, env in enumerate(self.envs):
            if mask is not None and not mask[j]:
                continue
            self.current = self.lo + j
            obs, info = env.reset(seed=seeds[j], options=options[j])
            self.need_reset[j] = False
            self.put(j, obs)
            if self.sb3:
                infos[j] = info
            else:
                infos.append((j, info))
        return infos if self.sb3 else pack_infos(infos, self.k)

    def call(self, payload):
        name, args, kwargs, which = payload
        out = []
        for j in which:
            self.current = self.lo + j
            attr = self.envs[j].get_wrapper_attr(name)
            out.append(attr(*args, **kwargs) if callable(attr) else attr)
        return out

    def get_attr(self, payload):
        name, which = payload
        out = []
        for j in which:
            self.current = self.lo + j
            out.append(self.envs[j].get_wrapper_attr(name))
        return out

    def has_attr(self, payload):
        name, which = payload
        out = []
        for j in which:
            try:
                self.envs[j].get_wrapper_attr(name)
                out.append(True)
            except AttributeError:
                out.append(False)
        return out

    def set_attr(self, payload) -> None:
        name, values = payload
        for j, value in values.items():
            self.current = self.lo + j
            self.envs[j].set_wrapper_attr(name, value)

    def is_wrapped(self, payload):
        cls, which = payload
        out = []
        for j in which:
            env = self.envs[j]
            while not isinstance(env, cls) and hasattr(env, "env"):
                env = env.env
            out.append(isinstance(env, cls))
        return out


_REQUESTS = ("step", "reset", "call", "get_attr", "has_attr", "set_attr", "is_wrapped")


def _await_request(conn, spin_s: float) -> None:
    """Poll ``conn`` for up to ``spin_s`` seconds, yielding the core to any other runnable
    process between polls, and return as soon as a message is there (or the time is up: the
    caller then blocks in ``recv``)."""
    end = time.perf_counter() + spin_s
    while not conn.poll(0) and time.perf_counter() < end:
        os.sched_yield()


def _worker(
    env_fns, lo, n, conn, parent_conn, shm, obs_space, act_space, autoreset, spin_s=0.0
) -> None:
    """The loop of one worker process: builds envs ``lo .. lo + len(env_fns) - 1`` of ``n``
    (checking their spaces), then answers one request at a time until ``close`` or EOF,
    polling ``spin_s`` seconds for each before blocking (:data:`DEFAULT_SPIN_US`)."""
    if parent_conn is not None:
        parent_conn.close()
    envs: list = []
    current: int | None = None
    try:
        for i, fn in enumerate(env_fns):
            current = lo + i
            env = fn()
            envs.append(env)
            if env.observation_space != obs_space:
                raise ConfigError(
                    f"env {current}: observation_space {env.observation_space} "
                    f"differs from env 0's {obs_space}"
                )
            if env.action_space != act_space:
                raise ConfigError(
                    f"env {current}: action_space {env.action_space} "
                    f"differs from env 0's {act_space}"
                )
        host = _Host(envs, lo, n, shm, obs_space, autoreset)
        conn.send(("ok", os.getpid()))
    except BaseException as exc:  # noqa: BLE001 - reported to the main process
        conn.send(_error(current, exc))
        for env in envs:
            env.close()
        conn.close()
        return
    try:
        while True:
            if spin_s:
                _await_request(conn, spin_s)
            cmd, payload = conn.recv()
            if cmd == "close":
                break
            host.current = None
            try:
                if cmd not in _REQUESTS:
                    raise ConfigError(f"worker request: {cmd!r} is unknown")
                reply = getattr(host, cmd)(payload)
                host.current = None
                conn.send_bytes(pickle.dumps(("ok", reply), pickle.HIGHEST_PROTOCOL))
            except Exception as exc:  # noqa: BLE001 - reported; the worker serves on
                conn.send(_error(host.current, exc))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):
        pass
    finally:
        for env in envs:
            try:
                env.close()
            except Exception:  # noqa: BLE001 - closing anyway
                pass
        try:
            conn.send(("ok", None))
        except (OSError, BrokenPipeError):
            pass
        conn.close()


def _positive_seconds(name: str, value) -> float:
    return check_number(value, name, 0, MAX_TIMEOUT_S, ConfigError, lo_open=True, what="seconds")


class WorkerPool:
    """``workers`` processes hosting ``env_fns`` (see the module docstring). ``obs_space``
    and ``act_space`` are every env's spaces (checked in the workers); ``shm`` the shared
    observation block for ``len(env_fns)`` observations; ``spin_us`` how long a worker polls
    for its next request before it blocks (0: at once; see :data:`DEFAULT_SPIN_US`)."""

    def __init__(
        self,
        env_fns,
        workers: int,
        obs_space,
        act_space,
        shm,
        autoreset: str = "next_step",
        context: str | None = None,
        timeout: float = 60.0,
        start_timeout: float = 300.0,
        spin_us: float = DEFAULT_SPIN_US,
    ) -> None:
        if autoreset not in AUTORESET:
            raise ConfigError(
                f"autoreset: {autoreset!r} is not allowed; allowed: {', '.join(AUTORESET)}"
            )
        self.timeout = _positive_seconds("timeout", timeout)
        check_number(spin_us, "spin_us", 0, MAX_SPIN_US, ConfigError, what="microseconds")
        start_timeout = _positive_seconds("start_timeout", start_timeout)
        n = len(env_fns)
        check_count(
            workers, "workers", 1, min(n, MAX_WORKERS), ConfigError, what="at most one per env"
        )
        ctx = get_context(context)
        self.n = n
        self.slices = split(n, workers)
        self.conns: list = []
        self.procs: list = []
        self.closed = False
        self.outstanding: dict[int, str] = {}  # worker -> the submitted request it is serving
        self._in_request: str | None = None  # the lockstep request running, if any
        try:
            for w, (lo, hi) in enumerate(self.slices):
                parent, child = ctx.Pipe()
                proc = ctx.Process(
                    target=_worker,
                    name=f"puzzlegym-batched-{w}",
                    daemon=True,
                    args=(
                        # cloudpickled: a lambda or a local function starts its worker too,
                        # whatever the start method
                        [CloudpickleWrapper(fn) for fn in env_fns[lo:hi]],
                        lo,
                        n,
                        child,
                        parent,
                        shm,
                        obs_space,
                        act_space,
                        autoreset,
                        spin_us / 1e6,
                    ),
                )
                proc.start()
                child.close()
                self.conns.append(parent)
                self.procs.append(proc)
            self._poller = select.poll()  # one poller for every wait: replies and exits
            self._fds: dict[int, tuple[str, int]] = {}
            for w, (conn, proc) in enumerate(zip(self.conns, self.procs, strict=True)):
                self._fds[conn.fileno()] = ("reply", w)
                self._fds[proc.sentinel] = ("exit", w)
                self._poller.register(conn.fileno(), select.POLLIN)
                self._poller.register(proc.sentinel, select.POLLIN)
            self.pids = self._collect("start", start_timeout)[0]
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ requests

    def request(self, cmd: str, payloads: list) -> list:
        """Send ``(cmd, payloads[w])`` to every worker ``w`` (``None``: not to that worker)
        and return the replies (``None`` for workers not asked). Every message is pickled
        before the first is sent (a payload that cannot be pickled changes nothing); an
        interrupt or an unreadable reply closes the pool (later replies would be stale)."""
        if self.closed:
            raise WorkerError(f"{cmd}: the vector env is closed")
        if self.outstanding:
            raise ConfigError(
                f"{cmd}: refused while asynchronous requests are outstanding "
                f"({self.describe_outstanding()}); recv() their results first, or close"
            )
        blobs = [
            None if payload is None else pickle.dumps((cmd, payload), pickle.HIGHEST_PROTOCOL)
            for payload in payloads
        ]
        asked = []
        self._in_request = cmd
        try:
            for w, (conn, blob) in enumerate(zip(self.conns, blobs, strict=True)):
                if blob is None:
                    continue
                try:
                    conn.send_bytes(blob)
                except (BrokenPipeError, OSError):
                    self._dead(w, cmd)
                asked.append(w)
            return self._collect(cmd, self.timeout, asked)[0]
        except PuzzleGymError:
            raise  # after every reply was read (an env's error), or the pool is closed already
        except BaseException:
            self.close()  # an interrupt, an unreadable reply: later replies would come out of turn
            raise
        finally:
            self._in_request = None

    def submit(self, w: int, cmd: str, payload) -> None:
        """Send ``(cmd, payload)`` to worker ``w`` alone, without waiting for its reply
        (:meth:`collect_any` reads it). ``w`` must be idle: no submitted request outstanding
        and no lockstep request running. The message is pickled before it is sent (a payload
        that cannot be pickled changes nothing)."""
        if self.closed:
            raise WorkerError(f"{cmd}: the vector env is closed")
        w = check_count(w, "worker", 0, len(self.conns) - 1, ConfigError, numpy=True)
        if self._in_request is not None:
            raise ConfigError(
                f"{cmd}: refused while the lockstep request {self._in_request!r} runs"
            )
        if w in self.outstanding:
            raise ConfigError(
                f"{cmd}: worker {w} (envs {self._envs(w)}) is busy with {self.outstanding[w]!r}; "
                "recv() its result first"
            )
        blob = pickle.dumps((cmd, payload), pickle.HIGHEST_PROTOCOL)
        try:
            self.conns[w].send_bytes(blob)
        except (BrokenPipeError, OSError):
            self._dead(w, cmd)
        self.outstanding[w] = cmd

    def collect_any(self, cmd: str, timeout: float | None = None) -> tuple[int, Any]:
        """``(w, reply)`` of the first worker with a submitted request outstanding to answer,
        waiting at most ``timeout`` seconds (default: the pool's). As :meth:`request`: a
        worker's death or silence closes the pool and raises :class:`WorkerError`; an env's
        error is raised (that worker is idle again, the pool stays open); an interrupt
        closes the pool."""
        if self.closed:
            raise WorkerError(f"{cmd}: the vector env is closed")
        if not self.outstanding:
            raise ConfigError(f"{cmd}: no asynchronous request is outstanding; send() first")
        timeout = self.timeout if timeout is None else _positive_seconds("timeout", timeout)
        try:
            replies, answered = self._collect(cmd, timeout, list(self.outstanding), first=True)
        except PuzzleGymError:
            raise
        except BaseException:
            self.close()
            raise
        return answered[0], replies[answered[0]]

    def cpu_seconds(self) -> list[float]:
        """User + system CPU seconds each worker process has used so far (from ``/proc``:
        Linux only), in worker order."""
        out = []
        for pid in self.pids:
            with open(f"/proc/{pid}/stat") as fh:
                fields = (
                    fh.read().rsplit(")", 1)[1].split()
                )  # after the command name, which may hold spaces
            out.append((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
        return out

    def describe_outstanding(self) -> str:
        """The outstanding submitted requests, for error messages."""
        return ", ".join(
            f"worker {w} (envs {self._envs(w)}): {c}" for w, c in sorted(self.outstanding.items())
        )

    def _collect(
        self, cmd: str, timeout: float, asked: list[int] | None = None, first: bool = False
    ) -> tuple[list, list[int]]:
        """One reply from each worker in ``asked`` (default: all), or with ``first`` from the
        first of them to answer, waiting at most ``timeout`` seconds in all; returns the
        replies by worker (``None`` for workers not read) and the workers read, in the order
        read. A worker's death or silence closes the pool and raises; the first env error
        read is raised after the replies were read."""
        asked = list(range(len(self.conns))) if asked is None else asked
        pending, rank = set(asked), {w: i for i, w in enumerate(asked)}
        replies: list = [None] * len(self.conns)
        answered: list[int] = []
        errors: list[tuple[int, Any]] = []  # (worker, its error reply)
        deadline = time.monotonic() + timeout
        while pending and not (first and answered):
            left = deadline - time.monotonic()
            if left <= 0:
                w = min(pending)
                self.close(stuck=pending)
                raise WorkerError(
                    f"{cmd}: worker {w} (envs {self._envs(w)}) did not answer within "
                    f"{timeout:g} s; the vector env is closed"
                )
            died = []
            # replies in the order asked: with ``first``, of the workers ready at once the one
            # asked longest ago answers (submit order), so a fast worker cannot starve a slow one
            events = sorted(
                (self._fds[fd] for fd, _ in self._poller.poll(max(1, math.ceil(left * 1000)))),
                key=lambda event: rank.get(event[1], -1),
            )
            for kind, w in events:
                if kind == "exit":
                    died.append(w)
                    continue
                if first and answered:
                    continue  # one reply per call: the others stay readable for the next
                if w not in pending and any(w == v for v, _ in errors):
                    # it reported why it stops and exited: its pipe's end reads as ready now
                    self._poller.unregister(self.conns[w].fileno())
                    continue
                if w not in pending:
                    self.close()
                    raise WorkerError(
                        f"{cmd}: worker {w} sent a message nobody asked for; "
                        "the vector env is closed"
                    )
                try:
                    status, body = self.conns[w].recv()
                except (EOFError, OSError):
                    self._dead(w, cmd)
                pending.discard(w)
                answered.append(w)
                self.outstanding.pop(w, None)
                if status == "error":
                    errors.append((w, body))
                else:
                    replies[w] = body
            for w in died:
                if w in pending:
                    if not self.conns[w].poll(0):  # else its last reply is read first
                        self._dead(w, cmd)
                elif any(w == v for v, _ in errors):  # it reported why it stops (a failed start)
                    self._poller.unregister(self.procs[w].sentinel)
                else:
                    self._dead(w, cmd)
        if errors:
            self._raise(cmd, *errors[0], started=cmd != "start")
        return replies, answered

    def _envs(self, w: int) -> str:
        lo, hi = self.slices[w]
        return f"{lo}..{hi - 1}"

    def _dead(self, w: int, cmd: str):
        proc = self.procs[w]
        proc.join(1.0)
        code = proc.exitcode
        self.close()
        raise WorkerError(
            f"{cmd}: worker {w} (envs {self._envs(w)}, pid {proc.pid}) died"
            f"{'' if code is None else f' with exit code {code}'}; the vector env is closed"
        )

    def _raise(self, cmd: str, w: int, body: tuple, started: bool):
        i, name, message, tb, blob = body
        where = f"worker {w}" + ("" if i is None else f", env {i}")
        if not started:
            self.close()
        if blob is not None:
            try:
                exc = pickle.loads(blob)
            except Exception:  # noqa: BLE001 - reported as text below
                exc = None
            if isinstance(exc, PuzzleGymError):
                note = f"raised in {where} during {cmd}:\n{tb}"
                if sys.version_info >= (3, 11):
                    exc.add_note(note)
                    raise exc
                raise exc from WorkerError(note)  # Python 3.10 has no exception notes
        raise WorkerError(
            f"{cmd}: {where} raised {name}: {message}\n--- worker traceback ---\n{tb}"
        )

    # ------------------------------------------------------------------ closing

    def close(self, stuck=()) -> None:
        """Stop the workers (bounded: a ``close`` message, join, terminate, kill; the workers
        in ``stuck`` are terminated at once). Idempotent."""
        if self.closed:
            return
        self.closed = True
        self.outstanding.clear()
        for w, (conn, proc) in enumerate(zip(self.conns, self.procs, strict=False)):
            if w in stuck:
                proc.terminate()
            elif proc.is_alive():
                try:
                    conn.send(("close", None))
                except (BrokenPipeError, OSError):
                    pass
        deadline = time.monotonic() + CLOSE_TIMEOUT_S
        for proc in self.procs:
            proc.join(max(0.0, deadline - time.monotonic()))
        for proc in self.procs:
            if proc.is_alive():
                proc.terminate()
                proc.join(1.0)
            if proc.is_alive():
                proc.kill()
                proc.join(1.0)
        for conn in self.conns:
            conn.close()


def get_context(context: str | None):
    """The multiprocessing context of start method ``context`` (``None``: puzzlegym's safe
    default, :func:`puzzlegym.base.processes.worker_context`)."""
    return worker_context(context)


def shared_observations(space, n: int, context: str | None) -> tuple:
    """One shared-memory block for ``n`` observations of ``space`` and the batch view of it
    (no copy) that the workers write into."""
    shm = create_shared_memory(space, n=n, ctx=get_context(context))
    return shm, read_from_shared_memory(space, shm, n)
