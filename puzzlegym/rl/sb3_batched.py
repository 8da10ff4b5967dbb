"""The batched worker pool (:mod:`puzzlegym.rl.workers`) as a Stable-Baselines3 ``VecEnv``:
one message per worker per step, observations in one shared-memory block, SB3's autoreset
(the step that ends an episode resets the env; ``terminal_observation`` and
``TimeLimit.truncated`` in its info). ``env_method("action_masks")`` reaches every env, so
sb3-contrib's ``MaskablePPO`` trains through it.

    venv = BatchedVecEnv([functools.partial(make_sb3_env, env_id, actions="board")] * 8, workers=2)
    venv.seed(0)
    obs = venv.reset()
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from puzzlegym.base.errors import ActionError, ConfigError
from puzzlegym.base.fields import check_count
from puzzlegym.rl.batched import check_env_fns, default_workers, probe_spaces
from puzzlegym.rl.workers import DEFAULT_SPIN_US, ArrayPayload, WorkerPool, shared_observations

__all__ = ["BatchedVecEnv"]


class BatchedVecEnv(VecEnv):
    """``len(env_fns)`` envs in ``workers`` processes (default: one per core). ``context``:
    the multiprocessing start method; ``timeout``: the bound in seconds on every request,
    ``start_timeout`` on building the envs; ``spin_us`` as in
    :class:`~puzzlegym.rl.batched.BatchedVectorEnv`. Observations are ``Box`` spaces (copied
    out of the shared block on every step and reset)."""

    def __init__(
        self,
        env_fns: Sequence[Callable],
        workers: int | None = None,
        context: str | None = None,
        timeout: float = 60.0,
        start_timeout: float = 300.0,
        spin_us: float = DEFAULT_SPIN_US,
    ) -> None:
        # _pool: set once the workers run (close and __del__ check it is there)
        env_fns = check_env_fns(env_fns)
        n = len(env_fns)
        obs_space, act_space, *_ = probe_spaces(env_fns[0])
        import gymnasium as gym

        if not isinstance(obs_space, gym.spaces.Box):
            raise ConfigError(
                f"observation_space: BatchedVecEnv takes Box observations, got {obs_space}"
            )
        shm, self._observations = shared_observations(obs_space, n, context)
        self._pool = WorkerPool(
            env_fns,
            default_workers(n) if workers is None else workers,
            obs_space,
            act_space,
            shm,
            autoreset="sb3",
            context=context,
            timeout=timeout,
            start_timeout=start_timeout,
            spin_us=spin_us,
        )
        self.workers = len(self._pool.slices)
        try:
            super().__init__(n, obs_space, act_space)  # asks the workers for render_mode
        except BaseException:
            self._pool.close()
            raise
        self._actions: np.ndarray | None = None
        self.closed = False

    # ------------------------------------------------------------------ the batch

    def reset(self):
        options = [o or None for o in self._options]
        replies = self._pool.request(
            "reset", [(self._seeds[lo:hi], options[lo:hi], None) for lo, hi in self._pool.slices]
        )
        for (lo, _), infos in zip(self._pool.slices, replies, strict=True):
            for j, info in enumerate(infos):
                self.reset_infos[lo + j] = info
        self._reset_seeds()
        self._reset_options()
        return self._observations.copy()

    def step_async(self, actions: np.ndarray) -> None:
        batch = np.asarray(actions)
        if batch.shape[:1] != (self.num_envs,):
            raise ActionError(f"actions: expected {self.num_envs} actions, got shape {batch.shape}")
        self._actions = batch

    def step_wait(self):
        if self._actions is None:
            raise ActionError("actions: step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        replies = self._pool.request(
            "step",
            [
                ArrayPayload(actions.dtype.str, actions[lo:hi].tolist())
                for lo, hi in self._pool.slices
            ],
        )
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=np.bool_)
        infos: list[dict] = []
        for (lo, hi), (rew, terms, truncs, part, reset_infos) in zip(
            self._pool.slices, replies, strict=True
        ):
            rewards[lo:hi] = rew
            dones[lo:hi] = np.logical_or(terms, truncs)
            infos.extend(part)
            for j, info in (reset_infos or {}).items():
                self.reset_infos[lo + j] = info
        return self._observations.copy(), rewards, dones, infos

    # ------------------------------------------------------------------ per env

    def _by_worker(self, indices) -> dict[int, list[int]]:
        chosen: dict[int, list[int]] = {}
        for i in self._get_indices(indices):
            i = check_count(
                i, "indices", 0, self.num_envs - 1, ConfigError, numpy=True, what="env indices"
            )
            for w, (lo, hi) in enumerate(self._pool.slices):
                if lo <= i < hi:
                    chosen.setdefault(w, []).append(int(i) - lo)
        return chosen

    def _each(self, cmd: str, indices, make) -> list:
        chosen = self._by_worker(indices)
        replies = self._pool.request(
            cmd, [make(chosen[w]) if w in chosen else None for w in range(len(self._pool.slices))]
        )
        lookup = {}
        for w, which in chosen.items():
            lo = self._pool.slices[w][0]
            for j, value in zip(which, replies[w], strict=True):
                lookup[lo + j] = value
        return [lookup[int(i)] for i in self._get_indices(indices)]

    def env_method(
        self, method_name: str, *method_args, indices=None, **method_kwargs
    ) -> list[Any]:
        return self._each(
            "call", indices, lambda which: (method_name, method_args, method_kwargs, which)
        )

    def has_attr(self, attr_name: str) -> bool:
        return all(self._each("has_attr", None, lambda which: (attr_name, which)))

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return self._each("get_attr", indices, lambda which: (attr_name, which))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        chosen = self._by_worker(indices)
        self._pool.request(
            "set_attr",
            [
                (attr_name, dict.fromkeys(chosen[w], value)) if w in chosen else None
                for w in range(len(self._pool.slices))
            ],
        )

    def env_is_wrapped(self, wrapper_class: type, indices=None) -> list[bool]:
        return self._each("is_wrapped", indices, lambda which: (wrapper_class, which))

    def get_images(self) -> Sequence[np.ndarray | None]:
        return self.env_method("render")

    # ------------------------------------------------------------------ closing

    def close(self) -> None:
        if getattr(self, "_pool", None) is not None:
            self._pool.close()
        self.closed = True

    def __del__(self) -> None:
        if getattr(self, "_pool", None) is not None and not self._pool.closed:
            self._pool.close()
