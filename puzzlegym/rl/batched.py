"""A Gymnasium ``VectorEnv`` whose worker processes each host several envs and step them as
a batch (:mod:`puzzlegym.rl.workers`): one message per worker per step, observations in one
shared-memory block. Where one env step costs a fraction of a millisecond (the 84x84
training resolution), ``AsyncVectorEnv``'s pipe round trip per env per step dominates; here
it is paid once per worker.

    envs = BatchedVectorEnv([functools.partial(make_sb3_env, env_id)] * 8, workers=2)
    obs, infos = envs.reset(seed=0)          # env i seeded with 0 + i
    obs, rewards, terminations, truncations, infos = envs.step(actions)

Asynchronous mode (as EnvPool's): ``recv`` returns the results of whichever worker finished
first, and the learner acts on those envs while the other workers still compute; a step no
longer waits for the slowest worker. ``env_ids`` of ``send`` is always exactly one worker's
slice (``infos["env_id"]`` of a ``recv``):

    envs.async_reset(seed=0)                 # every worker resets its envs; replies pending
    while training:
        obs, rewards, terminations, truncations, infos = envs.recv()   # one worker's envs
        envs.send(policy(obs), infos["env_id"])

Per env, the trajectories (autoresets included) are those of ``step`` with the same actions.
While asynchronous requests are outstanding, the lockstep calls (``reset``, ``step``,
``call``, ``get_attr``, ``set_attr``, ``render``) refuse with :class:`ConfigError`; ``close``
works in any state.

Autoreset as ``SyncVectorEnv``/``AsyncVectorEnv`` (``autoreset_mode``, ``NEXT_STEP`` by
default), infos batched the same way (``key`` and ``_key``), ``call``/``get_attr``/
``set_attr``/``render`` as there. A worker that dies or does not answer within ``timeout``
seconds raises :class:`~puzzlegym.base.errors.WorkerError` and closes the vector env; an env that
raises during a request has its exception re-raised (puzzlegym's own errors as they are,
anything else as ``WorkerError`` with the worker's traceback) after every worker answered;
in the asynchronous mode by the ``recv`` that reads that worker's reply, after which the
worker is idle again (``send`` to its envs is accepted).
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

from puzzlegym.base.errors import ActionError, ConfigError, WorkerError, shown
from puzzlegym.base.fields import is_int
from puzzlegym.rl.infos import batch_infos
from puzzlegym.rl.workers import (
    DEFAULT_SPIN_US,
    MAX_WORKERS,
    ArrayPayload,
    WorkerPool,
    shared_observations,
)

__all__ = ["MAX_ENVS", "BatchedVectorEnv", "check_env_fns", "default_workers", "probe_spaces"]

MAX_ENVS = 1024
_MODES = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}
_ARRAY_SPACES = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)


def check_env_fns(env_fns) -> list:
    """``env_fns`` as a list of callables (1..:data:`MAX_ENVS`), or :class:`ConfigError`."""
    if isinstance(env_fns, (str, bytes)) or not isinstance(env_fns, Sequence):
        raise ConfigError(
            f"env_fns: expected a list of env factories, got {type(env_fns).__name__}"
        )
    if not 1 <= len(env_fns) <= MAX_ENVS:
        raise ConfigError(f"env_fns: expected 1..{MAX_ENVS} env factories, got {len(env_fns)}")
    for i, fn in enumerate(env_fns):
        if not callable(fn):
            raise ConfigError(
                f"env_fns[{i}]: expected a callable returning an env, got {type(fn).__name__}"
            )
    return list(env_fns)


def default_workers(n_envs: int) -> int:
    """One worker per core, at most one per env."""
    return max(1, min(n_envs, os.cpu_count() or 1, MAX_WORKERS))


def probe_spaces(fn: Callable) -> tuple:
    """Build one env in this process for its spaces, metadata and render mode, then close it
    (as ``AsyncVectorEnv`` does)."""
    env = fn()
    try:
        return (
            env.observation_space,
            env.action_space,
            dict(env.metadata),
            env.render_mode,
            env.spec,
        )
    finally:
        env.close()


def _rows(observations, lo: int, hi: int, copy: bool):
    """Rows ``lo..hi-1`` of the batched observations (arrays, or dicts/tuples of them)."""
    if isinstance(observations, np.ndarray):
        return observations[lo:hi].copy() if copy else observations[lo:hi]
    if isinstance(observations, dict):
        return type(observations)(
            (key, _rows(value, lo, hi, copy)) for key, value in observations.items()
        )
    return tuple(_rows(value, lo, hi, copy) for value in observations)


class BatchedVectorEnv(VectorEnv):
    """``len(env_fns)`` envs in ``workers`` processes (default: one per core), slices as even
    as possible. ``copy``: return a copy of the shared observations (else a view overwritten
    by the next step); ``context``: the multiprocessing start method; ``timeout``: the bound
    on every request in seconds, ``start_timeout`` on building the envs; ``spin_us``: how
    long each worker polls for its next request before it blocks (yielding its core to
    anything runnable meanwhile; 0 blocks at once). Lockstep
    (``reset``/``step``) or asynchronous (``async_reset``/``send``/``recv``, one worker's
    envs at a time): see the module docstring."""

    def __init__(
        self,
        env_fns: Sequence[Callable],
        workers: int | None = None,
        copy: bool = True,
        context: str | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        timeout: float = 60.0,
        start_timeout: float = 300.0,
        spin_us: float = DEFAULT_SPIN_US,
    ) -> None:
        self.closed = False  # _pool: set last (close and __del__ check it is there)
        env_fns = check_env_fns(env_fns)
        if workers is None:
            workers = default_workers(len(env_fns))
        try:
            self.autoreset_mode = AutoresetMode(autoreset_mode)
        except ValueError:
            raise ConfigError(
                f"autoreset_mode: {autoreset_mode!r} is not allowed; allowed: "
                f"{', '.join(m.value for m in AutoresetMode)}"
            ) from None
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
        self._pool = WorkerPool(
            env_fns,
            workers,
            obs_space,
            act_space,
            shm,
            autoreset=_MODES[self.autoreset_mode],
            context=context,
            timeout=timeout,
            start_timeout=start_timeout,
            spin_us=spin_us,
        )
        self.workers = len(self._pool.slices)
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        self._terminations = np.zeros(self.num_envs, dtype=np.bool_)
        self._truncations = np.zeros(self.num_envs, dtype=np.bool_)
        self._asked: dict[
            int, str
        ] = {}  # worker -> the request last sent to it by send/async_reset
        self._ids = [np.arange(lo, hi) for lo, hi in self._pool.slices]  # each worker's env ids
        self._first_id = {lo: w for w, (lo, _) in enumerate(self._pool.slices)}
        self._id_bytes = [
            ids.tobytes() for ids in self._ids
        ]  # for the exact-slice check of ``send``
        self._all_true = [
            np.ones(len(ids), dtype=np.bool_) for ids in self._ids
        ]  # copied as ``_env_id``
        self._dtype_ok: dict = {}  # action dtype -> accepted (see _action_dtype_ok)

    # ------------------------------------------------------------------ the batch

    def _out(self):
        if not self.copy:
            return self._observations
        if isinstance(self._observations, np.ndarray):
            return self._observations.copy()
        return deepcopy(self._observations)

    def _seeds(self, seed) -> list:
        n = self.num_envs
        if seed is None:
            return [None] * n
        if is_int(seed, numpy=True):
            return [int(seed) + i for i in range(n)]
        if (
            isinstance(seed, Sequence)
            and len(seed) == n
            and all(s is None or is_int(s, numpy=True) for s in seed)
        ):
            return list(seed)
        raise ConfigError(
            f"seed: expected None, an int or {n} seeds (ints or None), got {shown(seed)}"
        )

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ):
        """Reset the envs (``seed``: ``None``, an int ``s`` giving env ``i`` the seed
        ``s + i``, or one seed per env; ``options["reset_mask"]``: a bool array, only those)."""
        n = self.num_envs
        seeds = self._seeds(seed)
        mask = None
        if options is not None and "reset_mask" in options:
            options = dict(options)
            mask = options.pop("reset_mask")
            if not (
                isinstance(mask, np.ndarray)
                and mask.dtype == np.bool_
                and mask.shape == (n,)
                and mask.any()
            ):
                raise ConfigError(
                    f"options['reset_mask']: expected a bool array of shape ({n},) with a True"
                )
        payloads = []
        for lo, hi in self._pool.slices:
            part = None if mask is None else mask[lo:hi]
            payloads.append(
                None
                if part is not None and not part.any()
                else (seeds[lo:hi], [options] * (hi - lo), part)
            )
        replies = self._pool.request("reset", payloads)
        infos = batch_infos(self._pool.slices, replies, n)
        if mask is None:
            self._terminations[:] = self._truncations[:] = False
        else:
            self._terminations[mask] = self._truncations[mask] = False
        return self._out(), infos

    def _action_dtype_ok(self, dtype) -> bool:
        """Whether a batch of actions of ``dtype`` fits the action space (numbers for a Box,
        integers otherwise, bools for MultiBinary too); remembered per dtype."""
        ok = self._dtype_ok.get(dtype)
        if ok is None:
            single = self.single_action_space
            wanted = np.number if isinstance(single, spaces.Box) else np.integer
            ok = bool(
                np.issubdtype(dtype, wanted)
                or (dtype == np.bool_ and isinstance(single, spaces.MultiBinary))
            )
            if len(self._dtype_ok) < 64:  # a handful in practice; bounded whatever is sent
                self._dtype_ok[dtype] = ok
        return ok

    def _split_actions(self, actions, k: int, parts: list[tuple[int, int]]) -> list:
        """The payloads of ``actions`` for ``k`` envs, cut into ``parts`` (offsets into the
        batch), after checking their count, shape and dtype (:class:`ActionError`)."""
        single = self.single_action_space
        if isinstance(single, _ARRAY_SPACES):
            batch = np.asarray(actions)
            expected = (k, *(single.shape or ()))  # array spaces always have a shape
            if batch.shape != expected:
                raise ActionError(
                    f"actions: expected shape {expected} (one action per env), got {batch.shape}"
                )
            if not self._action_dtype_ok(batch.dtype):
                raise ActionError(
                    "actions: expected "
                    f"{'numbers' if isinstance(single, spaces.Box) else 'integers'}, "
                    f"got dtype {batch.dtype}"
                )
            # (dtype, nested lists): far cheaper to pickle than array slices; rebuilt in the worker
            return [ArrayPayload(batch.dtype.str, batch[lo:hi].tolist()) for lo, hi in parts]
        each = list(iterate(self.action_space, actions))
        if len(each) != k:
            raise ActionError(f"actions: expected {k} actions (one per env), got {len(each)}")
        return [each[lo:hi] for lo, hi in parts]

    def step(self, actions):
        """Step every env with its action (one message per worker); see the module docstring."""
        replies = self._pool.request(
            "step", self._split_actions(actions, self.num_envs, self._pool.slices)
        )
        for (lo, hi), (rewards, terms, truncs, _, _) in zip(
            self._pool.slices, replies, strict=True
        ):
            self._rewards[lo:hi] = rewards
            self._terminations[lo:hi] = terms
            self._truncations[lo:hi] = truncs
        infos = batch_infos(self._pool.slices, [reply[3] for reply in replies], self.num_envs)
        return (
            self._out(),
            self._rewards.copy(),
            self._terminations.copy(),
            self._truncations.copy(),
            infos,
        )

    # ------------------------------------------------------------------ asynchronous mode

    def async_reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        """Reset every env (``seed`` as in :meth:`reset`; no ``reset_mask``) without waiting:
        each worker's reply is left for :meth:`recv` (rewards 0, no terminations or
        truncations, the reset infos)."""
        if self._pool.outstanding:
            raise ConfigError(
                f"async_reset: refused while asynchronous requests are outstanding "
                f"({self._pool.describe_outstanding()}); recv() their results first, or close"
            )
        seeds = self._seeds(seed)
        if options is not None and "reset_mask" in options:
            raise ConfigError(
                "options['reset_mask']: async_reset resets every env; use reset() for some"
            )
        # the payloads differ only in their int/None seeds: if the first pickles, all do (nothing
        # half sent)
        for w, (lo, hi) in enumerate(self._pool.slices):
            self._pool.submit(w, "reset", (seeds[lo:hi], [options] * (hi - lo), None))
            self._asked[w] = "reset"

    def _worker_of(self, env_ids) -> int:
        """The worker whose slice ``env_ids`` is, exactly (:class:`ConfigError` otherwise)."""
        n, slices = self.num_envs, self._pool.slices
        if (
            type(env_ids) is np.ndarray
            and env_ids.dtype == self._ids[0].dtype
            and env_ids.ndim == 1
            and env_ids.size
        ):
            w = self._first_id.get(
                int(env_ids[0])
            )  # the common case: ``infos["env_id"]`` of a recv
            if w is not None and env_ids.tobytes() == self._id_bytes[w]:
                return w
        ids = np.asarray(env_ids) if isinstance(env_ids, (np.ndarray, list, tuple)) else None
        if ids is None or ids.ndim != 1 or not ids.size or ids.dtype.kind not in "iu":
            raise ConfigError(
                "env_ids: expected a non-empty 1-D int array or list of env ids, "
                f"got {shown(env_ids)}"
            )
        w = self._first_id.get(int(ids[0]))
        if w is not None and ids.shape == self._ids[w].shape and (ids == self._ids[w]).all():
            return w
        if ids.min() < 0 or ids.max() >= n:
            raise ConfigError(f"env_ids: expected ids in 0..{n - 1}, got {shown(ids.tolist())}")
        raise ConfigError(
            "env_ids: expected exactly the envs of one worker "
            f"({', '.join(f'{lo}..{hi - 1}' for lo, hi in slices)}), "
            f"got {shown(ids.tolist())}"
        )

    def send(self, actions, env_ids) -> None:
        """Step the envs ``env_ids`` (exactly one idle worker's slice, e.g. ``infos["env_id"]``
        of a :meth:`recv`) with ``actions`` (one per env, in that order) without waiting;
        :meth:`recv` returns the results. Everything is checked before anything is sent."""
        if self._pool.closed:
            raise WorkerError("send: the vector env is closed")
        w = self._worker_of(env_ids)
        lo, hi = self._pool.slices[w]
        if w in self._pool.outstanding:
            raise ConfigError(
                f"env_ids: envs {lo}..{hi - 1} (worker {w}) are busy with "
                f"{self._pool.outstanding[w]!r}; recv() their results first"
            )
        payload = self._split_actions(actions, hi - lo, [(0, hi - lo)])[0]
        self._pool.submit(w, "step", payload)
        self._asked[w] = "step"

    def recv(self, timeout: float | None = None):
        """``(obs, rewards, terminations, truncations, infos)`` of the envs of the first worker
        to finish its request (waiting at most ``timeout`` seconds, default the vector env's),
        ``infos["env_id"]`` their ids; ``obs`` a copy of their slots of the shared block (a
        view overwritten by their next step with ``copy=False``)."""
        w, reply = self._pool.collect_any("recv", timeout)
        lo, hi = self._pool.slices[w]
        k = hi - lo
        if self._asked[w] == "reset":
            rewards, terms, truncs, part = (
                np.zeros(k),
                np.zeros(k, np.bool_),
                np.zeros(k, np.bool_),
                reply,
            )
        else:
            rewards, terms, truncs, part = (
                np.array(reply[0], np.float64),
                np.array(reply[1], np.bool_),
                np.array(reply[2], np.bool_),
                reply[3],
            )
        infos = batch_infos([(0, k)], [part], k)
        infos["env_id"], infos["_env_id"] = self._ids[w].copy(), self._all_true[w].copy()
        return _rows(self._observations, lo, hi, self.copy), rewards, terms, truncs, infos

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
                raise ConfigError(
                    f"values: expected {self.num_envs} values (one per env), got {len(values)}"
                )
        else:
            values = [values] * self.num_envs
        self._pool.request(
            "set_attr", [(name, dict(enumerate(values[lo:hi]))) for lo, hi in self._pool.slices]
        )

    def render(self) -> tuple:
        return self.call("render")

    # ------------------------------------------------------------------ closing

    def close_extras(self, **kwargs: Any) -> None:
        if getattr(self, "_pool", None) is not None:
            self._pool.close()

    def __del__(self) -> None:
        if getattr(self, "_pool", None) is not None and not self._pool.closed:
            self._pool.close()

    def __repr__(self) -> str:
        workers = len(self._pool.slices) if getattr(self, "_pool", None) is not None else "?"
        return f"BatchedVectorEnv(num_envs={self.num_envs}, workers={workers})"
