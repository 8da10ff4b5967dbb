"""A Gumbel MuZero / AlphaZero-style planning learner in JAX: DeepMind's ``mctx`` searches with
the twin env as its exact model, the network learns the search's improved policy and a lambda
return, rollout and update in one jitted function vmapped over envs and over seeds.

The search (:func:`search_policy`, and every rollout step of :class:`Planner`): for a batch of
env states the root is ``mctx.RootFnOutput(prior_logits, value, embedding=state)``, the network's
masked logits (:func:`~puzzlegym.jax.policy.network.masked_logits` with the env's
``action_mask``) and value; ``mctx.gumbel_muzero_policy`` expands it with a recurrent function
that steps the model with the env's ``step_env`` (no auto-reset) and answers ``reward``,
``discount`` (0 where the step ended the episode: solved, or the level's budget spent; else
``gamma``), the network's logits masked by the new state's ``action_mask`` and a leaf value
(0 where the episode ended), the new state as the node's embedding. The leaf value is 0 by
default (``search_value=False``): the search backs up the rewards it sees (the potential's
gains) and the network's prior guides it. With ``search_value=True`` it is the network's
value; measured on Bolt Unscrew Easy (200,000 steps, one seed, 200 generated held-out levels),
the learned value made the search worse than no value at all (4 % against 62 %): the
potential-shaped reward makes a good value nearly equal for every action that keeps the level
solvable, so its error decides. A masked action is never
chosen: the root passes ``invalid_actions=~mask`` to mctx, and inside the tree a masked action's
prior is :data:`~puzzlegym.jax.policy.network.MASKED`, which Full Gumbel MuZero's interior
selection never prefers over an allowed action. The search's ``action`` is played and its
``action_weights`` (the softmax of the prior logits plus the completed Q-values, zero on masked
actions) are the policy target. ``num_simulations=0`` means no search: the network's masked
argmax (``greedy``) or a sample of its masked softmax, the weights that softmax.

The learning (:class:`Planner`): each update plays ``num_steps`` steps of ``num_envs`` envs
(the env's ``step``, which resets a finished episode), acting by search with the config's
``gumbel_scale`` (the Gumbel noise is the exploration), then ``num_epochs`` epochs of
``num_minibatches`` minibatches of the loss ``policy_loss + value_coef * value_loss``:
``policy_loss`` the cross-entropy between the recorded ``action_weights`` and the network's
masked log-softmax, ``value_loss`` half the squared error to a TD(``td_lambda``) return
``G_t = r_t + gamma * (1 - done_t) * ((1 - td_lambda) * v_{t+1} + td_lambda * G_{t+1})``, where
``v`` is the search's root value of each recorded state and, after the rollout's last step,
the network's value (``td_lambda=1``: the Monte Carlo return within the rollout,
``td_lambda=0``: one-step TD on the search's values). An episode that ended (solved or
truncated) is not bootstrapped, as in :mod:`puzzlegym.jax.ppo`. Optax's Adam after
``clip_by_global_norm(max_grad_norm)``.

:class:`Planner` is a :class:`~puzzlegym.jax.learner.Learner`, as PPO is, so one training driver
runs either: ``Planner(env, env_params, config, chunk)``; :meth:`Planner.init` ``(keys)`` (one
:class:`~puzzlegym.jax.learner.RunnerState` per seed, ``keys`` of shape ``(S, 2)``);
:meth:`Planner.run` ``(state, n)`` (``n`` updates, a traced count, one compiled function for
every ``n <= chunk``; returns the state and a ``(S, chunk, len(METRICS))`` array, rows past
``n`` zero); :meth:`Planner.compile`; ``network``, ``n_actions``, ``observation_shape``,
``config``. Every random draw comes from the state's key, so a state saved between two
:meth:`Planner.run` calls continues exactly as if it had not stopped. :meth:`Planner.rollout`
plays one rollout and returns what it recorded (the pre-step env states included), for checks.
Planners of one env, config and chunk share their compiled functions.

:class:`SearchEvaluator` is :class:`~puzzlegym.jax.evaluate.TwinEvaluator` playing with search:
``success(net_params, rows, budgets, episodes, key, greedy)``, each level row played
``episodes`` times within its budget in one jitted loop (``greedy``: Gumbel noise off, or the
masked argmax without search).

:data:`METRICS`, the per-update figures, in order: ``episodes`` (episodes that ended in the
update's rollout), ``return_mean``, ``length_mean`` (theirs; 0 without one),
``terminated_share`` (the share of them solved), ``policy_loss``, ``value_loss``, ``entropy``
(of the network's masked policy), ``search_value`` (the mean root value of the rollout's
searches), ``agreement`` (the share of steps whose searched action is the network's masked
argmax) and ``masked_share`` (the share of (state, action) pairs the mask forbade).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import distrax
import jax
import jax.numpy as jnp
import mctx
from flax import struct

from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_count, check_number
from puzzlegym.jax.evaluate import TwinEvaluator
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

__all__ = [
    "METRICS",
    "Planner",
    "PlannerConfig",
    "SearchEvaluator",
    "Trajectory",
    "search_policy",
]

MAX_SIMULATIONS = 4096
MAX_CONSIDERED = 4096
# the per-update figures :meth:`Planner.run` returns, in order (see the module docstring)
METRICS = (
    "episodes",
    "return_mean",
    "length_mean",
    "terminated_share",
    "policy_loss",
    "value_loss",
    "entropy",
    "search_value",
    "agreement",
    "masked_share",
)
# bounds of the numeric hyperparameters (name: (low, high))
RATES = {
    "gumbel_scale": (0.0, 100.0),
    "learning_rate": (0.0, 1.0),
    "gamma": (0.0, 1.0),
    "td_lambda": (0.0, 1.0),
    "value_coef": (0.0, 10.0),
    "max_grad_norm": (0.0, 1e6),
}


@dataclass(frozen=True)
class PlannerConfig(LearnerSettings):
    """The planner's settings (each checked on construction; errors name the field; the
    defaults are sized for a CPU). One update collects ``num_envs * num_steps`` env steps
    (:attr:`steps_per_update`), each searched with ``num_simulations`` simulations (at least 1:
    training learns from the search) considering at most ``max_num_considered_actions``
    actions at the root; the steps must split into ``num_minibatches`` equal minibatches.
    ``gamma`` discounts both the search and the value targets, ``td_lambda`` mixes the targets'
    bootstraps (see the module docstring)."""

    num_envs: int = 64
    num_steps: int = 16
    num_simulations: int = 16
    max_num_considered_actions: int = 8
    gumbel_scale: float = 1.0
    learning_rate: float = 1e-3
    gamma: float = 0.99
    td_lambda: float = 0.9
    value_coef: float = 1.0
    num_epochs: int = 1
    num_minibatches: int = 4
    max_grad_norm: float = 0.5
    search_value: bool = False
    network: NetworkSpec = field(default_factory=NetworkSpec)

    COUNTS: ClassVar[dict[str, tuple[int, int]]] = {
        "num_envs": (1, MAX_ENVS),
        "num_steps": (1, MAX_STEPS),
        "num_simulations": (1, MAX_SIMULATIONS),
        "max_num_considered_actions": (1, MAX_CONSIDERED),
        "num_epochs": (1, 1000),
        "num_minibatches": (1, MAX_ENVS),
    }
    RATES: ClassVar[dict[str, tuple[float, float]]] = RATES
    SECTION: ClassVar[str] = "planner"

    def __post_init__(self) -> None:
        self.check()
        if not isinstance(self.search_value, bool):
            raise ConfigError(
                f"search_value: expected true or false, got {shown(self.search_value)}"
            )


class Trajectory(struct.PyTreeNode):
    """What a rollout records at each step (leading axes: step, env): the pre-step env
    ``state`` (:meth:`Planner.rollout` only), its ``obs`` and ``mask``, the searched
    ``action`` and ``weights`` (the improved policy), the search's root ``value``, and the
    step's ``reward``, ``done`` and ``terminated`` (solved)."""

    state: Any
    obs: Any
    mask: Any
    action: Any
    weights: Any
    value: Any
    reward: Any
    done: Any
    terminated: Any


def _searcher(
    env: Any,
    network: Any,
    n_actions: int,
    num_simulations: int,
    considered: int,
    gamma: float,
    search_value: bool = True,
) -> Callable:
    """``search(net_params, env_params, states, obs, key, gumbel_scale) -> (action, weights,
    root value, masked logits, mask)`` for a batch of env states (traceable, not jitted);
    ``num_simulations=0``: the network alone (``gumbel_scale == 0``: its argmax);
    ``search_value=False``: the tree's leaves are valued 0, not by the network (the search
    backs up the rewards it sees; the network's prior still guides it)."""
    value_scale = 1.0 if search_value else 0.0

    def masks(states: Any, ep: Any) -> Any:
        return jax.vmap(lambda s: env_mask(env, s, ep, n_actions))(states)

    def recurrent_fn(params, rng, action, embedding):
        net_params, ep = params
        batch = action.shape[0]
        obs, after, reward, done, _ = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(
            jax.random.split(rng, batch), embedding, action, ep
        )
        done = done.reshape((batch,))
        logits, value = network.apply(net_params, obs)
        output = mctx.RecurrentFnOutput(
            reward=reward.astype(jnp.float32).reshape((batch,)),
            discount=jnp.where(done, 0.0, gamma).astype(jnp.float32),
            prior_logits=masked_logits(logits, masks(after, ep)).astype(jnp.float32),
            value=jnp.where(done, 0.0, value_scale * value).astype(jnp.float32),
        )
        return output, after

    def search(net_params, ep, states, obs, key, gumbel_scale):
        mask = masks(states, ep)
        logits, value = network.apply(net_params, obs)
        logits = masked_logits(logits, mask)
        if num_simulations == 0:
            sampled = distrax.Categorical(logits=logits).sample(seed=key)
            action = jnp.where(gumbel_scale == 0, jnp.argmax(logits, axis=-1), sampled)
            return action.astype(jnp.int32), jax.nn.softmax(logits), value, logits, mask
        root = mctx.RootFnOutput(prior_logits=logits, value=value_scale * value, embedding=states)
        out = mctx.gumbel_muzero_policy(
            (net_params, ep),
            key,
            root,
            recurrent_fn,
            num_simulations,
            invalid_actions=~mask,
            max_num_considered_actions=considered,
            gumbel_scale=gumbel_scale,
        )
        root_value = out.search_tree.node_values[:, mctx.Tree.ROOT_INDEX]
        return out.action, out.action_weights, root_value, logits, mask

    return search


def _settings(
    num_simulations: Any, considered: Any, gamma: Any, gumbel_scale: Any, search_value: Any
) -> tuple[int, int, float, float, bool]:
    """A search's settings, checked (errors name the argument)."""
    if not isinstance(search_value, bool):
        raise ConfigError(f"search_value: expected true or false, got {shown(search_value)}")
    return (
        check_count(num_simulations, "num_simulations", 0, MAX_SIMULATIONS, ConfigError),
        check_count(considered, "max_num_considered_actions", 1, MAX_CONSIDERED, ConfigError),
        check_number(gamma, "gamma", 0.0, 1.0, ConfigError),
        check_number(gumbel_scale, "gumbel_scale", 0.0, 100.0, ConfigError),
        search_value,
    )


def search_policy(
    env: Any,
    network: Any,
    num_simulations: int,
    max_num_considered_actions: int = 8,
    gamma: float = 0.99,
    gumbel_scale: float = 1.0,
    search_value: bool = True,
) -> Callable:
    """The jitted ``f(net_params, env_params, states, key, greedy=False) -> (action,
    action_weights)`` of a batch of ``env`` states (leading axis ``B``: ``int32[B]`` and
    ``float32[B, num_actions]``): Gumbel MuZero's search with ``num_simulations`` simulations
    on ``network`` (``apply(params, obs) -> (logits, value)``) and the env as its model
    (``greedy``, a traced flag: no Gumbel noise); ``num_simulations=0``: the network's masked
    argmax (``greedy``) or a sample of its masked softmax. One compiled function per env,
    network and settings."""
    settings = _settings(
        num_simulations, max_num_considered_actions, gamma, gumbel_scale, search_value
    )
    return _policy_fn(env, network, *settings)


@functools.lru_cache(maxsize=16)
def _policy_fn(
    env: Any, network: Any, sims: int, considered: int, gamma: float, scale: float, valued: bool
) -> Callable:
    search = _searcher(env, network, int(network.n_actions), sims, considered, gamma, valued)

    def policy(net_params, ep, states, key, greedy=False):
        obs = jax.vmap(lambda s: env.get_obs(s, ep))(states)
        action, weights, _, _, _ = search(
            net_params, ep, states, obs, key, jnp.where(greedy, 0.0, scale)
        )
        return action, weights

    return jax.jit(policy)


class SearchEvaluator(TwinEvaluator):
    """Plays levels of ``env`` (with its ``params``) with search on a network and returns each
    level's share of won episodes: :class:`~puzzlegym.jax.evaluate.TwinEvaluator` with each
    action chosen by the search of :func:`search_policy` (``num_simulations=0``: the network
    alone; ``greedy``: no Gumbel noise)."""

    def __init__(
        self,
        env: Any,
        params: Any,
        network: Any,
        num_simulations: int,
        max_num_considered_actions: int = 8,
        gamma: float = 0.99,
        gumbel_scale: float = 1.0,
        search_value: bool = True,
    ) -> None:
        settings = _settings(
            num_simulations, max_num_considered_actions, gamma, gumbel_scale, search_value
        )
        super().__init__(env, params, network, _search_chooser(env, network, *settings))


@functools.lru_cache(maxsize=16)
def _search_chooser(
    env: Any, network: Any, sims: int, considered: int, gamma: float, scale: float, valued: bool
) -> Callable:
    """The search's action as a :class:`TwinEvaluator` chooser (one per env and settings)."""
    search = _searcher(env, network, int(network.n_actions), sims, considered, gamma, valued)

    def choose(net_params, ep, states, obs, key, greedy):
        action, _, _, _, _ = search(net_params, ep, states, obs, key, jnp.where(greedy, 0.0, scale))
        return action

    return choose


class _Core(LearnerCore):
    """The planner's traced functions for one env, config and chunk; the env's params are
    passed."""

    METRICS = METRICS

    def __init__(self, env: Any, config: PlannerConfig, chunk: int, n_actions: int) -> None:
        super().__init__(env, config, chunk, n_actions)
        self.search = _searcher(
            env,
            self.network,
            n_actions,
            config.num_simulations,
            config.max_num_considered_actions,
            config.gamma,
            config.search_value,
        )
        self.rollout_jit = jax.jit(jax.vmap(self.rollout, in_axes=(0, None)))

    def _rollout(
        self, state: RunnerState, ep: Any, keep_states: bool = False
    ) -> tuple[RunnerState, Trajectory, Any]:
        """``num_steps`` searched steps of every env: the state after them, the record, and
        per step and env the episode's return and length so far and whether the searched
        action was the network's masked argmax."""
        cfg = self.config

        def step(state, _):
            key, k_search, k_env = jax.random.split(state.key, 3)
            action, weights, root_value, logits, mask = self.search(
                state.params, ep, state.env_state, state.obs, k_search, cfg.gumbel_scale
            )
            out = self._env_step(state, action, k_env, ep)
            record = Trajectory(
                state=state.env_state if keep_states else None,
                obs=state.obs,
                mask=mask,
                action=action,
                weights=weights,
                value=root_value,
                reward=out.reward,
                done=out.done,
                terminated=out.solved,
            )
            agree = jnp.argmax(logits, axis=-1) == action
            sums = (out.ep_return, out.ep_length, agree)
            return self._advance(state, out, key), (record, sums)

        state, (trajectory, sums) = jax.lax.scan(step, state, None, cfg.num_steps)
        return state, trajectory, sums

    def rollout(self, state: RunnerState, ep: Any) -> tuple[RunnerState, Trajectory]:
        state, trajectory, _ = self._rollout(state, ep, keep_states=True)
        return state, trajectory

    def _targets(self, trajectory: Trajectory, last_value: Any) -> Any:
        cfg = self.config

        def back(carry, t):
            ret, next_value = carry
            live = 1.0 - t.done.astype(jnp.float32)
            mixed = (1.0 - cfg.td_lambda) * next_value + cfg.td_lambda * ret
            ret = t.reward + cfg.gamma * live * mixed
            return (ret, t.value), ret

        _, targets = jax.lax.scan(back, (last_value, last_value), trajectory, reverse=True)
        return targets

    def _loss(self, params: Any, batch: Trajectory, targets: Any):
        cfg = self.config
        logits, value = self.network.apply(params, batch.obs)
        log_p = jax.nn.log_softmax(masked_logits(logits, batch.mask))
        policy_loss = -(batch.weights * log_p).sum(axis=-1).mean()
        value_loss = 0.5 * jnp.square(value - targets).mean()
        entropy = -(jnp.exp(log_p) * log_p).sum(axis=-1).mean()
        total = policy_loss + cfg.value_coef * value_loss
        return total, jnp.stack([policy_loss, value_loss, entropy])

    def _update(self, state: RunnerState, ep: Any) -> tuple[RunnerState, Any]:
        cfg = self.config
        state, trajectory, (returns, lengths, agree) = self._rollout(state, ep)
        _, last_value = self.network.apply(state.params, state.obs)
        targets = self._targets(trajectory, last_value)
        size = cfg.steps_per_update
        flat = jax.tree.map(lambda x: x.reshape((size, *x.shape[2:])), trajectory)
        data = (flat, targets.reshape(size))
        state, aux = self._optimize(state, data)
        done = trajectory.done
        episodes = done.sum().astype(jnp.float32)
        per = jnp.maximum(episodes, 1.0)
        row = jnp.concatenate(
            [
                jnp.stack(
                    [
                        episodes,
                        jnp.where(done, returns, 0.0).sum() / per,
                        jnp.where(done, lengths, 0).sum() / per,
                        (done & trajectory.terminated).sum() / per,
                    ]
                ),
                aux.mean(axis=(0, 1)),
                jnp.stack(
                    [
                        flat.value.mean(),
                        agree.mean(),
                        (~flat.mask).sum() / (size * self.n_actions),
                    ]
                ),
            ]
        )
        return state, row.astype(jnp.float32)


class Planner(Learner):
    """Gumbel MuZero planning for one gymnax env and its params (see the module docstring):
    a :class:`~puzzlegym.jax.learner.Learner`, as :class:`~puzzlegym.jax.ppo.PPO` is.
    ``chunk`` is the most updates one :meth:`run` call performs (the metrics array's length).
    The env is the search's model: it must be exact and have ``step_env`` (gymnax's) and, for
    masks, ``action_mask``."""

    CONFIG = PlannerConfig
    CORE = _Core
    NAME = "the planner"

    def rollout(self, state: RunnerState) -> tuple[RunnerState, Trajectory]:
        """One rollout of every seed's envs, no update: the state after it and what it
        recorded (leading axes seed, step, env), the pre-step env states included."""
        return self._core.rollout_jit(state, self.env_params)

    def search_evaluator(
        self, env: Any, params: Any, num_simulations: int | None = None
    ) -> SearchEvaluator:
        """A :class:`SearchEvaluator` of ``env`` with this planner's network and search
        settings (``num_simulations``: the config's unless given; 0, the network alone)."""
        cfg = self.config
        sims = cfg.num_simulations if num_simulations is None else num_simulations
        return SearchEvaluator(
            env,
            params,
            self.network,
            sims,
            cfg.max_num_considered_actions,
            cfg.gamma,
            cfg.gumbel_scale,
            cfg.search_value,
        )
