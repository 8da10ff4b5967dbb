"""What the JAX learners share (:class:`~puzzlegym.jax.ppo.PPO` and
:class:`~puzzlegym.jax.planner.Planner`): their public shape, the state they carry, and the
traced machinery around the part that differs.

* :class:`Learner` is the public shape one training driver runs: ``Learner(env, env_params,
  config, chunk)``, :meth:`Learner.init` ``(keys)`` (one :class:`RunnerState` per seed,
  ``keys`` of shape ``(S, 2)``), :meth:`Learner.run` ``(state, n)`` (``n`` updates, a traced
  count, so one compiled function serves every ``n <= chunk``), :meth:`Learner.compile`, and
  ``network``, ``n_actions``, ``observation_shape``, ``config``. A subclass names its config
  class (``CONFIG``), its core (``CORE``) and how errors call it (``NAME``).
* :class:`LearnerCore` holds the traced functions of one env, config and chunk (the env's
  params are an argument, not a constant, so learners of one env, config and chunk share
  them): the network and the optimizer (Adam after ``clip_by_global_norm``), ``init``,
  ``run`` (``n`` updates in a ``fori_loop``), the masks, one env step with its episode
  bookkeeping, and the epochs of minibatch gradient steps. A subclass writes ``_update``
  (rollout, targets, loss and the metrics row) and ``_loss``.

Every random draw comes from the state's key, so a state saved between two
:meth:`Learner.run` calls and loaded again continues exactly as if it had not stopped.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct

from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_count

__all__ = [
    "MAX_CHUNK",
    "MAX_ENVS",
    "MAX_STEPS",
    "Learner",
    "LearnerCore",
    "RunnerState",
    "env_mask",
]

MAX_ENVS = 65_536
MAX_STEPS = 100_000
MAX_CHUNK = 1_000_000


class RunnerState(struct.PyTreeNode):
    """Everything training carries from one update to the next (one seed's;
    :meth:`Learner.init` stacks seeds on a leading axis): the network's ``params``, optax's
    ``opt_state``, the envs' states and last observations, the running return and length of
    each env's episode, the PRNG ``key`` and the ``update`` counter."""

    params: Any
    opt_state: Any
    env_state: Any
    obs: Any
    ep_return: Any
    ep_length: Any
    key: Any
    update: Any


def env_mask(env: Any, state: Any, params: Any, n_actions: int) -> Any:
    """The env's ``action_mask(state, params)``, or every action allowed when it has none."""
    if hasattr(env, "action_mask"):
        return env.action_mask(state, params).astype(bool)
    return jnp.ones((n_actions,), dtype=bool)


class EnvStep(struct.PyTreeNode):
    """One step of every env (leading axis: env): the new observations and states, the
    reward, ``done`` (gymnax's: solved or truncated), ``solved`` (``info["terminated"]``; all
    False for an env without it), and each env's episode return and length including it."""

    obs: Any
    env_state: Any
    reward: Any
    done: Any
    solved: Any
    ep_return: Any
    ep_length: Any


class LearnerCore:
    """A learner's traced functions for one env, config and chunk (see the module
    docstring). ``config`` has ``network``, ``num_envs``, ``num_steps``, ``num_epochs``,
    ``num_minibatches``, ``steps_per_update``, ``learning_rate`` and ``max_grad_norm``."""

    def __init__(self, env: Any, config: Any, chunk: int, n_actions: int) -> None:
        self.env, self.config, self.chunk, self.n_actions = env, config, chunk, n_actions
        self.network = config.network.build(n_actions)
        self.optimizer = optax.chain(
            optax.clip_by_global_norm(config.max_grad_norm),
            optax.adam(config.learning_rate, eps=1e-5),
        )
        self.init_jit = jax.jit(jax.vmap(self.init, in_axes=(0, None)))
        self.run_jit = jax.jit(jax.vmap(self.run, in_axes=(0, None, None)))

    def init(self, key: Any, ep: Any) -> RunnerState:
        cfg = self.config
        key, k_net, k_env = jax.random.split(key, 3)
        obs0, _ = self.env.reset(k_env, ep)
        params = self.network.init(k_net, obs0[None])
        obs, env_state = jax.vmap(self.env.reset, in_axes=(0, None))(
            jax.random.split(k_env, cfg.num_envs), ep
        )
        state = RunnerState(
            params=params,
            opt_state=self.optimizer.init(params),
            env_state=env_state,
            obs=obs,
            ep_return=jnp.zeros((cfg.num_envs,), jnp.float32),
            ep_length=jnp.zeros((cfg.num_envs,), jnp.int32),
            key=key,
            update=jnp.zeros((), jnp.int32),
        )
        # no weakly typed leaves (an env's ``time=0``): a state read back from a file has
        # none either, so both run on one compiled function
        return jax.tree.map(lambda x: jnp.asarray(x, dtype=x.dtype), state)

    def run(self, state: RunnerState, n: Any, ep: Any) -> tuple[RunnerState, Any]:
        rows = jnp.zeros((self.chunk, len(self.METRICS)), jnp.float32)

        def body(i, carry):
            state, rows = carry
            state, row = self._update(state, ep)
            return state, rows.at[i].set(row)

        n = jnp.clip(n, 0, self.chunk)
        return jax.lax.fori_loop(0, n, body, (state, rows))

    METRICS: ClassVar[tuple[str, ...]] = ()

    def _update(self, state: RunnerState, ep: Any) -> tuple[RunnerState, Any]:
        raise NotImplementedError

    def _masks(self, env_state: Any, ep: Any) -> Any:
        return jax.vmap(lambda s: env_mask(self.env, s, ep, self.n_actions))(env_state)

    def _env_step(self, state: RunnerState, action: Any, key: Any, ep: Any) -> EnvStep:
        """Every env's step with ``action`` (gymnax's ``step``: a finished episode resets)."""
        n = self.config.num_envs
        obs, env_state, reward, done, info = jax.vmap(self.env.step, in_axes=(0, 0, 0, None))(
            jax.random.split(key, n), state.env_state, action, ep
        )
        done = done.reshape((n,))
        solved = info.get("terminated") if isinstance(info, dict) else None
        reward = reward.astype(jnp.float32).reshape((n,))
        return EnvStep(
            obs=obs,
            env_state=env_state,
            reward=reward,
            done=done,
            solved=jnp.zeros_like(done) if solved is None else solved.reshape(done.shape),
            ep_return=state.ep_return + reward,
            ep_length=state.ep_length + 1,
        )

    @staticmethod
    def _advance(state: RunnerState, step: EnvStep, key: Any) -> RunnerState:
        """The state after ``step``: its envs and observations, the episode counters reset
        where an episode ended, the new ``key``."""
        return state.replace(
            env_state=step.env_state,
            obs=step.obs,
            ep_return=jnp.where(step.done, 0.0, step.ep_return),
            ep_length=jnp.where(step.done, 0, step.ep_length),
            key=key,
        )

    def _optimize(self, state: RunnerState, data: Any) -> tuple[RunnerState, Any]:
        """``num_epochs`` epochs of ``num_minibatches`` gradient steps of ``_loss(params,
        *minibatch)`` over ``data`` (leaves with a leading axis of ``steps_per_update``),
        each epoch in a fresh order: the state with the new params, optimizer state, key and
        update count, and the loss's aux figures (epoch, minibatch, figure)."""
        cfg = self.config
        size = cfg.steps_per_update
        grad_fn = jax.value_and_grad(self._loss, has_aux=True)

        def minibatch(carry, mb):
            params, opt_state = carry
            (_, aux), grads = grad_fn(params, *mb)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), aux

        def epoch(carry, key):
            perm = jax.random.permutation(key, size)
            mbs = jax.tree.map(
                lambda x: x[perm].reshape((cfg.num_minibatches, -1, *x.shape[1:])), data
            )
            return jax.lax.scan(minibatch, carry, mbs)

        key, k_epochs = jax.random.split(state.key)
        (params, opt_state), aux = jax.lax.scan(
            epoch,
            (state.params, state.opt_state),
            jax.random.split(k_epochs, cfg.num_epochs),
        )
        state = state.replace(params=params, opt_state=opt_state, key=key, update=state.update + 1)
        return state, aux

    def _loss(self, params: Any, *batch: Any) -> tuple[Any, Any]:
        raise NotImplementedError


@functools.lru_cache(maxsize=32)
def _shared_core(core: Any, env: Any, config: Any, chunk: int, n_actions: int) -> Any:
    return core(env, config, chunk, n_actions)


class Learner:
    """A learner of one gymnax env and its params (see the module docstring). ``chunk`` is
    the most updates one :meth:`run` call performs (the metrics array's length)."""

    CONFIG: ClassVar[type[Any]]  # the settings class (PPOConfig, PlannerConfig)
    CORE: ClassVar[Any]  # the LearnerCore subclass (a class, hashed as a cache key)
    NAME: ClassVar[str]  # as an error names the learner

    def __init__(self, env: Any, env_params: Any, config: Any, chunk: int = 1) -> None:
        if not isinstance(config, self.CONFIG):
            raise ConfigError(f"config: expected a {self.CONFIG.__name__}, got {shown(config)}")
        self.chunk = check_count(chunk, "chunk", 1, MAX_CHUNK, ConfigError)
        self.env, self.env_params, self.config = env, env_params, config
        space = env.action_space(env_params)
        if not hasattr(space, "n"):
            raise ConfigError(
                f"env: {self.NAME} takes discrete actions, got {type(space).__name__}"
            )
        self.observation_shape = tuple(env.observation_space(env_params).shape)
        config.network.check_observation(self.observation_shape)
        self._core = _shared_core(self.CORE, env, config, self.chunk, int(space.n))
        self.n_actions = self._core.n_actions
        self.network = self._core.network

    def init(self, keys: Any) -> RunnerState:
        """One state per seed (``keys``: ``(S, 2)``)."""
        return self._core.init_jit(keys, self.env_params)

    def run(self, state: RunnerState, n: Any) -> tuple[RunnerState, Any]:
        """``n`` updates of every seed's state: the new state and a ``(S, chunk,
        len(METRICS))`` array of per-update figures (rows past ``n`` are zero)."""
        return self._core.run_jit(state, n, self.env_params)

    def compile(self, state: RunnerState) -> Any:
        """:meth:`run` compiled ahead of time for ``state``'s shapes: ``f(state, n)``."""
        compiled = self._core.run_jit.lower(state, np.int32(self.chunk), self.env_params).compile()
        params = self.env_params
        return lambda state, n: compiled(state, np.int32(n), params)
