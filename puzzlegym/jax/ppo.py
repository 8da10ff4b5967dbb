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

from dataclasses import dataclass, field
from typing import Any, ClassVar

import distrax
import jax
import jax.numpy as jnp
from flax import struct

from puzzlegym.jax.learner import (
    MAX_ENVS,
    MAX_STEPS,
    Learner,
    LearnerCore,
    RunnerState,
    env_mask,
)
from puzzlegym.jax.policy.network import NetworkSpec, masked_logits
from puzzlegym.jax.settings import LearnerSettings

__all__ = ["METRICS", "PPO", "PPOConfig", "RunnerState", "env_mask"]

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


class _Transition(struct.PyTreeNode):
    obs: Any
    mask: Any
    action: Any
    log_prob: Any
    value: Any
    reward: Any
    done: Any


class _Core(LearnerCore):
    """PPO's traced functions for one env, config and chunk; the env's params are passed."""

    METRICS = METRICS

    def _rollout(self, state: RunnerState, ep: Any) -> tuple[RunnerState, _Transition, Any]:
        cfg = self.config

        def step(carry, _):
            state, stats = carry
            key, k_act, k_env = jax.random.split(state.key, 3)
            mask = self._masks(state.env_state, ep)
            logits, value = self.network.apply(state.params, state.obs)
            pi = distrax.Categorical(logits=masked_logits(logits, mask))
            action = pi.sample(seed=k_act)
            log_prob = pi.log_prob(action)
            out = self._env_step(state, action, k_env, ep)
            done = out.done
            stats = stats + jnp.stack(
                [
                    done.sum(),
                    jnp.where(done, out.ep_return, 0.0).sum(),
                    jnp.where(done, out.ep_length, 0).sum(),
                    jnp.logical_and(done, out.solved).sum(),
                    (~mask).sum(),
                ]
            ).astype(jnp.float32)
            transition = _Transition(state.obs, mask, action, log_prob, value, out.reward, done)
            return (self._advance(state, out, key), stats), transition

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
        state, aux = self._optimize(state, data)
        episodes = stats[0]
        per = jnp.maximum(episodes, 1.0)
        row = jnp.concatenate(
            [
                jnp.stack([episodes, stats[1] / per, stats[2] / per, stats[3] / per]),
                aux.mean(axis=(0, 1)),
                (stats[4] / (size * self.n_actions))[None],
            ]
        )
        return state, row


class PPO(Learner):
    """Masked PPO for one gymnax env and its params (see the module docstring): ``chunk`` is
    the most updates one :meth:`run` call performs (the metrics array's length). PPOs of one
    env, config and chunk share their compiled functions (the env's params are an argument
    of them, not a constant)."""

    CONFIG = PPOConfig
    CORE = _Core
    NAME = "PPO here"
