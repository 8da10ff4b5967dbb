"""Vector envs of the RL stack (``make_sb3_env``) and torch threads per process.

* ``"async"``: Gymnasium ``AsyncVectorEnv`` (one process per env; observations through
  shared memory by default), ``"sync"``: ``SyncVectorEnv`` (in-process);
* ``"subproc"``: Stable-Baselines3 ``SubprocVecEnv`` (one process per env, pipes),
  ``"dummy"``: ``DummyVecEnv`` (in-process);
* ``"batched"``: :class:`~puzzlegym.rl.batched.BatchedVectorEnv` (a Gymnasium
  ``VectorEnv``), ``"sb3_batched"``: :class:`~puzzlegym.rl.sb3_batched.BatchedVecEnv` (an SB3
  ``VecEnv``): ``workers`` processes each hosting ``n_envs / workers`` envs, stepped as a
  batch (one message per worker per step, observations in one shared-memory block). At the
  training resolution a step costs a fraction of a millisecond, so this is the kind that
  scales with cores (``benchmarks/bench_rl.py vector``).

Every env of one vector env has the same spaces (the same id and wrapper settings), a
different seed (``seed + i``) on its first reset.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count
from puzzlegym.base.processes import DEFAULT_START_METHOD
from puzzlegym.wrappers.sb3 import make_sb3_env

__all__ = ["KINDS", "MAX_ENVS", "SB3_KINDS", "env_fns", "make_vector_env", "set_torch_threads"]

KINDS = ("async", "sync", "batched", "subproc", "dummy", "sb3_batched")
SB3_KINDS = ("subproc", "dummy", "sb3_batched")
MAX_ENVS = 256  # processes or envs in one vector env


def env_fns(env_id: str, n_envs: int, **make_kwargs: Any) -> list:
    """``n_envs`` picklable factories of ``make_sb3_env(env_id, **make_kwargs)``."""
    check_count(n_envs, "n_envs", 1, MAX_ENVS, ConfigError)
    return [functools.partial(make_sb3_env, env_id, **make_kwargs) for _ in range(n_envs)]


def make_vector_env(
    env_id: str,
    n_envs: int = 2,
    kind: str = "async",
    seed: int | None = 0,
    shared_memory: bool = True,
    context: str | None = None,
    workers: int | None = None,
    spin_us: float | None = None,
    **make_kwargs: Any,
):
    """A vector env of ``n_envs`` copies of ``make_sb3_env(env_id, **make_kwargs)`` (see the
    module docstring for ``kind``). ``shared_memory`` and ``context`` (the multiprocessing
    start method) apply to ``"async"``; ``context`` also to ``"subproc"`` and the batched
    kinds; ``workers`` (default: one per core, at most ``n_envs``) and ``spin_us`` (default
    :data:`~puzzlegym.rl.workers.DEFAULT_SPIN_US`) only to the batched kinds.
    SB3 vector envs are seeded with ``seed`` here; Gymnasium ones take it on
    ``reset(seed=...)``."""
    if kind not in KINDS:
        raise ConfigError(f"kind: {kind!r} is not allowed; allowed: {', '.join(KINDS)}")
    for name, value in (("workers", workers), ("spin_us", spin_us)):
        if value is not None and kind not in ("batched", "sb3_batched"):
            raise ConfigError(f"{name}: applies to kind 'batched' or 'sb3_batched', not {kind!r}")
    batched: dict[str, Any] = {} if spin_us is None else {"spin_us": spin_us}
    fns = env_fns(env_id, n_envs, **make_kwargs)
    if kind == "batched":
        from puzzlegym.rl.batched import BatchedVectorEnv

        return BatchedVectorEnv(fns, workers=workers, context=context, **batched)
    if kind == "async":
        import gymnasium as gym

        return gym.vector.AsyncVectorEnv(
            fns, shared_memory=shared_memory, context=context or DEFAULT_START_METHOD
        )
    if kind == "sync":
        import gymnasium as gym

        return gym.vector.SyncVectorEnv(fns)
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

    if kind == "sb3_batched":
        from puzzlegym.rl.sb3_batched import BatchedVecEnv

        venv: VecEnv = BatchedVecEnv(fns, workers=workers, context=context, **batched)
    elif kind == "subproc":
        venv = SubprocVecEnv(fns, start_method=context or DEFAULT_START_METHOD)
    else:
        venv = DummyVecEnv(fns)
    if seed is not None:
        venv.seed(seed)
    return venv


def set_torch_threads(threads: int | None = None, env_processes: int = 0) -> int:
    """Set torch's intra-op threads for this process and return the number: ``threads``
    when given, else the cores left over by ``env_processes`` busy env worker processes (at
    least 1). Torch's default (every core in every process) oversubscribes the machine as
    soon as envs run in other processes."""
    import torch

    if threads is None:
        threads = max(1, (os.cpu_count() or 1) - int(env_processes))
    check_count(threads, "torch_threads", 1, None, ConfigError)
    torch.set_num_threads(threads)
    return threads
