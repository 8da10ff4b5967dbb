"""PPO with action masks, end to end in JAX: rollout and update in one jitted function,
vmapped over envs and over seeds.

Why written here and not rejax: rejax 0.1.3's ``PPO`` samples from an unmasked
``DiscretePolicy`` (its ``Trajectory`` has no mask and its actor takes no mask argument;
checked in its source), its networks are MLPs only, and it runs ``total_timesteps`` in one call with
no way to stop between chunks, save the state and continue. Masking its logits would mean replacing
its rollout, its loss and its actor, i.e. most of it; so this module is a compact PureJaxRL-style
PPO on flax (:mod:`puzzlegym.jax.policy.network`), optax and distrax, and rejax stays the
yardstick: ``benchmarks/bench_jax_ppo.py`` trains rejax's PPO on gymnax's CartPole beside it.

The masks: an env that has ``action_mask(state, params)`` (``puzzlegym.jax``'s twins) is asked for
the mask of every state an action is sampled in; the logits of disallowed actions become
:data:`~puzzlegym.jax.policy.network.MASKED`
(:func:`~puzzlegym.jax.policy.network.masked_logits`) both when sampling and when the update
recomputes log probabilities and entropies, so a masked action is never taken and never counted. Any
other gymnax env trains unmasked (every action allowed).

:class:`PPO` binds an env, its params and a :class:`PPOConfig`:

* :meth:`PPO.init` ``(keys)``: one :class:`RunnerState` per seed (``keys`` of shape
  ``(S, 2)``: the state's leaves get a leading seed axis);
* :meth:`PPO.run` ``(state, n)``: ``n`` updates (``1 <= n <= chunk``, a traced count, so one
  compiled function serves every chunk length), each a rollout of ``num_steps`` steps of
  ``num_envs`` envs then ``num_epochs`` epochs of ``num_minibatches`` minibatches; returns
  the new state and a ``(S, chunk, len(METRICS))`` array of per-update figures (rows past
  ``n`` are zero).

Episodes end where the env's ``done`` says (gymnax lumps termination and truncation; a
truncated episode is not bootstrapped, as in PureJaxRL). The env auto-resets (gymnax
``step``). Every random draw comes from the state's key, so a state saved between two
:meth:`PPO.run` calls and loaded again continues exactly as if it had not stopped.

Examples:
    >>> import jax, gymnax
    >>> env, params = gymnax.make("CartPole-v1")
    >>> spec = NetworkSpec(kind="mlp", channels=(), features=16)
    >>> ppo = PPO(env, params, PPOConfig(num_envs=4, num_steps=8, num_minibatches=2,
    ...                                  network=spec), chunk=2)
    >>> state = ppo.init(jax.random.split(jax.random.PRNGKey(0), 3))  # three seeds
    >>> state, metrics = ppo.run(state, 2)
    >>> metrics.shape, int(state.update[0]), ppo.config.steps_per_update
    ((3, 2, 10), 2, 32)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, ClassVar

import distrax
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct

from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_count
from puzzlegym.jax.policy.network import NetworkSpec, masked_logits
from puzzlegym.jax.settings import LearnerSettings

__all__ = ["METRICS", "PPO", "PPOConfig", "RunnerState", "env_mask"]

MAX_ENVS = 65_536
MAX_STEPS = 100_000
MAX_CHUNK = 1_000_000
# the per-update figures :meth:`PPO.run` returns, in order
METRICS = (
    "episodes",  # episodes that ended in the update's rollout
    "return_mean",  # their mean return (0 without one)
    "length_mean",  # their mean length in steps
    "terminated_share",  # the share of them that terminated (info["terminated"]: in the
    # twins, solved; 0 for envs without it), not truncated
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "clip_fraction",
    "masked_share",  # the share of (state, action) pairs the mask forbade in the rollout
)
# bounds of the numeric hyperparameters (name: (low, high))
RATES = {
    "learning_rate": (0.0, 1.0),
    "gamma": (0.0, 1.0),
    "gae_lambda": (0.0, 1.0),
    "clip_eps": (0.0, 10.0),
    "ent_coef": (0.0, 10.0),
    "vf_coef": (0.0, 10.0),
    "max_grad_norm": (0.0, 1e6),
}


@dataclass(frozen=True)
class PPOConfig(LearnerSettings):
    """PPO's settings (each checked on construction; errors name the field; the defaults are
    ``configs/agent/jax_ppo.yaml``'s). One update
    collects ``num_envs * num_steps`` env steps (:attr:`steps_per_update`), which must split
    into ``num_minibatches`` equal minibatches."""

    num_envs: int = 256
    num_steps: int = 32
    num_epochs: int = 1
    num_minibatches: int = 4
    learning_rate: float = 1e-3
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_eps: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    network: NetworkSpec = field(default_factory=NetworkSpec)

    COUNTS: ClassVar[dict[str, tuple[int, int]]] = {
        "num_envs": (1, MAX_ENVS),
        "num_steps": (1, MAX_STEPS),
        "num_epochs": (1, 1000),
        "num_minibatches": (1, MAX_ENVS),
    }
    RATES: ClassVar[dict[str, tuple[float, float]]] = RATES
    SECTION: ClassVar[str] = "ppo"

    def __post_init__(self) -> None:
        self.check()


class RunnerState(struct.PyTreeNode):
    """Everything training carries from one update to the next (one seed's; :meth:`PPO.init`
    stacks seeds on a leading axis): the network's ``params``, optax's ``opt_state``, the
    envs' states and last observations, the running return and length of each env's
    episode, the PRNG ``key`` and the ``update`` counter."""

    params: Any
    opt_state: Any
    env_state: Any
    obs: Any
    ep_return: Any
    ep_length: Any
    key: Any
    update: Any


class _Transition(struct.PyTreeNode):
    obs: Any
    mask: Any
    action: Any
    log_prob: Any
    value: Any
    reward: Any
    done: Any


def env_mask(env: Any, state: Any, params: Any, n_actions: int) -> Any:
    """The env's ``action_mask(state, params)``, or every action allowed when it has none."""
    if hasattr(env, "action_mask"):
        return env.action_mask(state, params).astype(bool)
    return jnp.ones((n_actions,), dtype=bool)


class PPO:
    """Masked PPO for one gymnax env and its params (see the module docstring). ``chunk`` is
    the most updates one :meth:`run` call performs (the metrics array's length). PPOs of one
    env, config and chunk share their compiled functions (the env's params are an argument
    of them, not a constant)."""

    def __init__(self, env: Any, env_params: Any, config: PPOConfig, chunk: int = 1) -> None:
        if not isinstance(config, PPOConfig):
            raise ConfigError(f"config: expected a PPOConfig, got {shown(config)}")
        self.chunk = check_count(chunk, "chunk", 1, MAX_CHUNK, ConfigError)
        self.env, self.env_params, self.config = env, env_params, config
        space = env.action_space(env_params)
        if not hasattr(space, "n"):
            raise ConfigError(f"env: PPO here takes discrete actions, got {type(space).__name__}")
        self.observation_shape = tuple(env.observation_space(env_params).shape)
        config.network.check_observation(self.observation_shape)
        self._core = _core(env, config, self.chunk, int(space.n))
        self.n_actions = self._core.n_actions
        self.network = self._core.network

    def init(self, keys: Any) -> RunnerState:
        """One state per seed (``keys``: ``(S, 2)``)."""
        return self._core.init_jit(keys, self.env_params)

    def run(self, state: RunnerState, n: Any) -> tuple[RunnerState, Any]:
        """``n`` updates of every seed's state (see the module docstring)."""
        return self._core.run_jit(state, n, self.env_params)

    def compile(self, state: RunnerState) -> Any:
        """:meth:`run` compiled ahead of time for ``state``'s shapes: ``f(state, n)``."""
        compiled = self._core.run_jit.lower(state, np.int32(self.chunk), self.env_params).compile()
        params = self.env_params
        return lambda state, n: compiled(state, np.int32(n), params)


@functools.lru_cache(maxsize=16)
def _core(env: Any, config: PPOConfig, chunk: int, n_actions: int) -> _Core:
    return _Core(env, config, chunk, n_actions)


class _Core:
    """PPO's traced functions for one env, config and chunk; the env's params are passed."""

    def __init__(self, env: Any, config: PPOConfig, chunk: int, n_actions: int) -> None:
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
        rows = jnp.zeros((self.chunk, len(METRICS)), jnp.float32)

        def body(i, carry):
            state, rows = carry
            state, row = self._update(state, ep)
            return state, rows.at[i].set(row)

        n = jnp.clip(n, 0, self.chunk)
        return jax.lax.fori_loop(0, n, body, (state, rows))

    def _masks(self, env_state: Any, ep: Any) -> Any:
        return jax.vmap(lambda s: env_mask(self.env, s, ep, self.n_actions))(env_state)

    def _rollout(self, state: RunnerState, ep: Any) -> tuple[RunnerState, _Transition, Any]:
        cfg, env = self.config, self.env

        def step(carry, _):
            state, stats = carry
            key, k_act, k_env = jax.random.split(state.key, 3)
            mask = self._masks(state.env_state, ep)
            logits, value = self.network.apply(state.params, state.obs)
            pi = distrax.Categorical(logits=masked_logits(logits, mask))
            action = pi.sample(seed=k_act)
            log_prob = pi.log_prob(action)
            obs, env_state, reward, done, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(k_env, cfg.num_envs), state.env_state, action, ep
            )
            reward = reward.astype(jnp.float32).reshape((cfg.num_envs,))
            done = done.reshape((cfg.num_envs,))
            ep_return = state.ep_return + reward
            ep_length = state.ep_length + 1
            solved = info.get("terminated") if isinstance(info, dict) else None
            solved = jnp.zeros_like(done) if solved is None else solved.reshape(done.shape)
            stats = stats + jnp.stack(
                [
                    done.sum(),
                    jnp.where(done, ep_return, 0.0).sum(),
                    jnp.where(done, ep_length, 0).sum(),
                    jnp.logical_and(done, solved).sum(),
                    (~mask).sum(),
                ]
            ).astype(jnp.float32)
            transition = _Transition(state.obs, mask, action, log_prob, value, reward, done)
            state = state.replace(
                env_state=env_state,
                obs=obs,
                ep_return=jnp.where(done, 0.0, ep_return),
                ep_length=jnp.where(done, 0, ep_length),
                key=key,
            )
            return (state, stats), transition

        (state, stats), trajectory = jax.lax.scan(
            step, (state, jnp.zeros((5,), jnp.float32)), None, cfg.num_steps
        )
        return state, trajectory, stats

    def _advantages(self, trajectory: _Transition, last_value: Any) -> tuple[Any, Any]:
        cfg = self.config

        def back(carry, t):
            gae, next_value = carry
            live = 1.0 - t.done.astype(jnp.float32)
            delta = t.reward + cfg.gamma * next_value * live - t.value
            gae = delta + cfg.gamma * cfg.gae_lambda * live * gae
            return (gae, t.value), gae

        _, advantages = jax.lax.scan(
            back, (jnp.zeros_like(last_value), last_value), trajectory, reverse=True
        )
        return advantages, advantages + trajectory.value

    def _loss(self, params: Any, batch: _Transition, advantages: Any, targets: Any):
        cfg = self.config
        logits, value = self.network.apply(params, batch.obs)
        pi = distrax.Categorical(logits=masked_logits(logits, batch.mask))
        log_prob = pi.log_prob(batch.action)
        entropy = pi.entropy().mean()
        log_ratio = log_prob - batch.log_prob
        ratio = jnp.exp(log_ratio)
        adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        clipped = jnp.clip(ratio, 1.0 - cfg.clip_eps, 1.0 + cfg.clip_eps)
        policy_loss = -jnp.minimum(ratio * adv, clipped * adv).mean()
        value_clipped = batch.value + jnp.clip(value - batch.value, -cfg.clip_eps, cfg.clip_eps)
        value_loss = (
            0.5
            * jnp.maximum(jnp.square(value - targets), jnp.square(value_clipped - targets)).mean()
        )
        total = policy_loss + cfg.vf_coef * value_loss - cfg.ent_coef * entropy
        approx_kl = ((ratio - 1.0) - log_ratio).mean()
        clip_fraction = (jnp.abs(ratio - 1.0) > cfg.clip_eps).mean()
        return total, jnp.stack([policy_loss, value_loss, entropy, approx_kl, clip_fraction])

    def _update(self, state: RunnerState, ep: Any) -> tuple[RunnerState, Any]:
        cfg = self.config
        state, trajectory, stats = self._rollout(state, ep)
        _, last_value = self.network.apply(state.params, state.obs)
        advantages, targets = self._advantages(trajectory, last_value)
        size = cfg.steps_per_update
        flat = jax.tree.map(lambda x: x.reshape((size, *x.shape[2:])), trajectory)
        data = (flat, advantages.reshape(size), targets.reshape(size))
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
        episodes = stats[0]
        per = jnp.maximum(episodes, 1.0)
        row = jnp.concatenate(
            [
                jnp.stack([episodes, stats[1] / per, stats[2] / per, stats[3] / per]),
                aux.mean(axis=(0, 1)),
                (stats[4] / (size * self.n_actions))[None],
            ]
        )
        state = state.replace(params=params, opt_state=opt_state, key=key, update=state.update + 1)
        return state, row
