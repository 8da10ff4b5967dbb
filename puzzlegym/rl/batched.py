"""A Gymnasium ``VectorEnv`` whose worker processes each host several envs and step them as
a batch (:mod:`puzzlegym.rl.workers`): one message per worker per step, observations in one
shared-memory block. Where one env step costs a fraction of a millisecond (the 84x84
training resolution), ``AsyncVectorEnv``'s pipe round trip per env per step dominates; here
it is paid once per worker.

    envs = BatchedVectorEnv([functools.partial(make_sb3_env, env_id)] * 8, workers=2)
    obs, infos = envs.reset(seed=0)          # env i seeded with 0 + i
    obs, rewards, terminations, truncations, infos = envs.step(actions)

Autoreset as ``SyncVectorEnv``/``AsyncVectorEnv`` (``autoreset_mode``, ``NEXT_STEP`` by
default), infos batched the same way (``key`` and ``_key``), ``call``/``get_attr``/
``set_attr``/``render`` as there. A worker that dies or does not answer within ``timeout``
seconds raises :class:`~puzzlegym.errors.WorkerError` and closes the vector env; an env that
raises during a request has its exception re-raised (puzzlegym's own errors as they are,
anything else as ``WorkerError`` with the worker's traceback) after every worker answered.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from copy import deepcopy
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, iterate

from puzzlegym.errors import ActionError, ConfigError
from puzzlegym.rl.workers import (
    MAX_WORKERS,
    ArrayPayload,
    WorkerPool,
    batch_infos,
    shared_observations,
)

__all__ = ["MAX_ENVS", "BatchedVectorEnv", "check_env_fns", "default_workers", "probe_spaces"]

MAX_ENVS = 1024
_MODES = {AutoresetMode.NEXT_STEP: "next_step", AutoresetMode.SAME_STEP: "same_step",
          AutoresetMode.DISABLED: "disabled"}
_ARRAY_SPACES = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)


def check_env_fns(env_fns) -> list:
    """``env_fns`` as a list of callables (1..:data:`MAX_ENVS`), or :class:`ConfigError`."""
    if isinstance(env_fns, (str, bytes)) or not isinstance(env_fns, Sequence):
        raise ConfigError(f"env_fns: expected a list of env factories, got {type(env_fns).__name__}")
    if not 1 <= len(env_fns) <= MAX_ENVS:
        raise ConfigError(f"env_fns: expected 1..{MAX_ENVS} env factories, got {len(env_fns)}")
    for i, fn in enumerate(env_fns):
        if not callable(fn):
            raise ConfigError(f"env_fns[{i}]: expected a callable returning an env, got {type(fn).__name__}")
    return list(env_fns)


def default_workers(n_envs: int) -> int:
    """One worker per core, at most one per env."""
    return max(1, min(n_envs, os.cpu_count() or 1, MAX_WORKERS))


def probe_spaces(fn: Callable) -> tuple:
    """Build one env in this process for its spaces, metadata and render mode, then close it
    (as ``AsyncVectorEnv`` does)."""
    env = fn()
    try:
        return env.observation_space, env.action_space, dict(env.metadata), env.render_mode, env.spec
    finally:
        env.close()


class BatchedVectorEnv(VectorEnv):
    """``len(env_fns)`` envs in ``workers`` processes (default: one per core), slices as even
    as possible. ``copy``: return a copy of the shared observations (else a view overwritten
    by the next step); ``context``: the multiprocessing start method; ``timeout``: the bound
    on every request in seconds, ``start_timeout`` on building the envs."""

    def __init__(
        self,
        env_fns: Sequence[Callable],
        workers: int | None = None,
        copy: bool = True,
        context: str | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        timeout: float = 60.0,
        start_timeout: float = 300.0,
    ) -> None:
        self._pool = None
        self.closed = False
        env_fns = check_env_fns(env_fns)
        if workers is None:
            workers = default_workers(len(env_fns))
        try:
            self.autoreset_mode = AutoresetMode(autoreset_mode)
        except ValueError:
            raise ConfigError(f"autoreset_mode: {autoreset_mode!r} is not allowed; allowed: "
                              f"{', '.join(m.value for m in AutoresetMode)}") from None
        if not isinstance(copy, bool):
            raise ConfigError(f"copy: expected True or False, got {copy!r}")
        self.copy = copy
        self.num_envs = len(env_fns)
        obs_space, act_space, metadata, self.render_mode, self.spec = probe_spaces(env_fns[0])
        self.single_observation_space, self.single_action_space = obs_space, act_space
        self.observation_space = batch_space(obs_space, self.num_envs)
        self.action_space = batch_space(act_space, self.num_envs)
        self.metadata = metadata
        self.metadata["autoreset_mode"] = self.autoreset_mode
        shm, self._observations = shared_observations(obs_space, self.num_envs, context)
        self._pool = WorkerPool(env_fns, workers, obs_space, act_space, shm, autoreset=_MODES[self.autoreset_mode],
                                context=context, timeout=timeout, start_timeout=start_timeout)
        self.workers = len(self._pool.slices)
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        self._terminations = np.zeros(self.num_envs, dtype=np.bool_)
        self._truncations = np.zeros(self.num_envs, dtype=np.bool_)

    # ------------------------------------------------------------------ the batch

    def _out(self):
        if not self.copy:
            return self._observations
        if isinstance(self._observations, np.ndarray):
            return self._observations.copy()
        return deepcopy(self._observations)

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None):
        """Reset the envs (``seed``: ``None``, an int ``s`` giving env ``i`` the seed
        ``s + i``, or one seed per env; ``options["reset_mask"]``: a bool array, only those)."""
        n = self.num_envs
        if seed is None:
            seeds = [None] * n
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(n)]
        elif isinstance(seed, Sequence) and len(seed) == n:
            seeds = list(seed)
        else:
            raise ConfigError(f"seed: expected None, an int or {n} seeds, got {seed!r}"[:200])
        mask = None
        if options is not None and "reset_mask" in options:
            options = dict(options)
            mask = options.pop("reset_mask")
            if not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (n,) and mask.any()):
                raise ConfigError(f"options['reset_mask']: expected a bool array of shape ({n},) with a True")
        payloads = []
        for lo, hi in self._pool.slices:
            part = None if mask is None else mask[lo:hi]
            payloads.append(None if part is not None and not part.any() else (seeds[lo:hi], [options] * (hi - lo), part))
        replies = self._pool.request("reset", payloads)
        infos = batch_infos(self._pool.slices, replies, n)
        if mask is None:
            self._terminations[:] = self._truncations[:] = False
        else:
            self._terminations[mask] = self._truncations[mask] = False
        return self._out(), infos

    def _split_actions(self, actions) -> list:
        if isinstance(self.single_action_space, _ARRAY_SPACES):
            batch = np.asarray(actions)
            if batch.shape != self.action_space.shape:
                raise ActionError(f"actions: expected shape {self.action_space.shape}, got {batch.shape}")
            # (dtype, nested lists): far cheaper to pickle than array slices; rebuilt in the worker
            return [ArrayPayload(batch.dtype.str, batch[lo:hi].tolist()) for lo, hi in self._pool.slices]
        each = list(iterate(self.action_space, actions))
        if len(each) != self.num_envs:
            raise ActionError(f"actions: expected {self.num_envs} actions, got {len(each)}")
        return [each[lo:hi] for lo, hi in self._pool.slices]

    def step(self, actions):
        """Step every env with its action (one message per worker); see the module docstring."""
        replies = self._pool.request("step", self._split_actions(actions))
        for (lo, hi), (rewards, terms, truncs, _, _) in zip(self._pool.slices, replies, strict=True):
            self._rewards[lo:hi] = rewards
            self._terminations[lo:hi] = terms
            self._truncations[lo:hi] = truncs
        infos = batch_infos(self._pool.slices, [reply[3] for reply in replies], self.num_envs)
        return (self._out(), self._rewards.copy(), self._terminations.copy(), self._truncations.copy(), infos)

    # ------------------------------------------------------------------ per env

    def _all(self, cmd: str, payload) -> tuple:
        replies = self._pool.request(cmd, [payload(lo, hi) for lo, hi in self._pool.slices])
        return tuple(x for part in replies for x in part)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple:
        """``env.get_wrapper_attr(name)(*args, **kwargs)`` in every env (the attribute itself
        when it is not callable), in env order."""
        return self._all("call", lambda lo, hi: (name, args, kwargs, range(hi - lo)))

    def get_attr(self, name: str) -> tuple:
        """``env.get_wrapper_attr(name)`` of every env, in env order."""
        return self._all("get_attr", lambda lo, hi: (name, range(hi - lo)))

    def set_attr(self, name: str, values: Any) -> None:
        """Set ``name`` in every env: ``values`` one per env (a list or tuple) or one for all."""
        if isinstance(values, (list, tuple)):
            if len(values) != self.num_envs:
                raise ConfigError(f"values: expected {self.num_envs} values (one per env), got {len(values)}")
        else:
            values = [values] * self.num_envs
        self._pool.request("set_attr", [(name, dict(enumerate(values[lo:hi]))) for lo, hi in self._pool.slices])

    def render(self) -> tuple:
        return self.call("render")

    # ------------------------------------------------------------------ closing

    def close_extras(self, **kwargs: Any) -> None:
        if self._pool is not None:
            self._pool.close()

    def __del__(self) -> None:
        if getattr(self, "_pool", None) is not None and not self._pool.closed:
            self._pool.close()

    def __repr__(self) -> str:
        workers = len(self._pool.slices) if self._pool is not None else "?"
        return f"BatchedVectorEnv(num_envs={self.num_envs}, workers={workers})"
