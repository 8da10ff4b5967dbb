"""Success of a policy measured in the twin: each of a set of levels played ``episodes``
times within its own budget, every episode in one vmapped, jitted loop; and the 95 %
interval of such a figure over its episodes.

:class:`TwinEvaluator` plays the levels of one twin env (:func:`puzzlegym.jax.make`) the way
:func:`puzzlegym.training.protocol.play_levels` plays the Python env: each episode starts the
level (``start``), the policy acts on the observation and the mask, the episode ends when
the level is won (a success) or its budget of actions is spent. Every level of one call has
its own budget in actions; the loop runs for the env's ``max_steps_in_episode`` (static, so
one compiled function per env), so a budget above it is cut to it. The policy samples from
its masked logits or, ``greedy``, takes the most probable action (a traced flag: both share
one compiled function).

:func:`episode_interval` and :func:`level_interval`, the intervals of such figures, are
:mod:`puzzlegym.training.results`'s (every trainer's).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import distrax
import jax
import jax.numpy as jnp
import numpy as np

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count
from puzzlegym.jax.env import legal_action_mask
from puzzlegym.jax.policy.network import masked_logits
from puzzlegym.training.protocol import MAX_EPISODES
from puzzlegym.training.results import episode_interval, level_interval

__all__ = ["TwinEvaluator", "episode_interval", "level_interval", "network_chooser"]


def network_chooser(network: Any) -> Callable:
    """The action of a network: ``f(net_params, env_params, states, obs, key, greedy)``, a
    sample of its logits masked by the states' masks, or (``greedy``, traced) their argmax."""
    return _network_chooser(network)


@functools.lru_cache(maxsize=32)
def _network_chooser(network: Any) -> Callable:
    def choose(net_params, ep, states, obs, key, greedy):
        logits, _ = network.apply(net_params, obs)
        logits = masked_logits(logits, legal_action_mask(states))
        sampled = distrax.Categorical(logits=logits).sample(seed=key)
        return jnp.where(greedy, jnp.argmax(logits, axis=-1), sampled)

    return choose


class TwinEvaluator:
    """Plays levels of ``env`` (with its ``params``) with a network (``network.apply(params,
    obs) -> (logits, value)``) and returns each level's share of won episodes. ``chooser``
    (default :func:`network_chooser`) picks each action: ``f(net_params, env_params, states,
    obs, key, greedy) -> actions``, the planner's search for instance
    (:class:`puzzlegym.jax.planner.SearchEvaluator`); one compiled loop per env, chooser and
    episode length."""

    def __init__(self, env: Any, params: Any, network: Any, chooser: Callable | None = None):
        self.env, self.params, self.network = env, params, network
        self.steps = int(params.max_steps_in_episode)
        self._play = _episodes_fn(env, chooser or network_chooser(network), self.steps)

    def success(
        self,
        net_params: Any,
        rows: Any,
        budgets: Any,
        episodes: int,
        key: Any,
        greedy: bool = False,
    ) -> np.ndarray:
        """The share of ``episodes`` episodes won, per level: ``rows`` are the levels' rows
        of the env's level tables (:meth:`~puzzlegym.jax.PuzzleJaxEnv.level_row`),
        ``budgets`` their budgets in actions (cut to the env's ``max_steps_in_episode``)."""
        episodes = check_count(episodes, "episodes", 1, MAX_EPISODES, ConfigError)
        rows = np.repeat(np.asarray(rows, dtype=np.int32), episodes)
        budgets = np.repeat(np.minimum(np.asarray(budgets, dtype=np.int32), self.steps), episodes)
        won = self._play(
            net_params, self.params, jnp.asarray(rows), jnp.asarray(budgets), key, greedy
        )
        return np.asarray(won, dtype=float).reshape(-1, episodes).mean(axis=1)


@functools.lru_cache(maxsize=16)
def _episodes_fn(env: Any, choose: Callable, steps: int) -> Any:
    """The jitted episode loop of one env and chooser (shared by their evaluators)."""

    def episodes(net_params, params, rows, budgets, key, greedy):
        states = jax.vmap(lambda r: env.start(params, r))(rows)
        obs = jax.vmap(lambda s: env.get_obs(s, params))(states)
        n = rows.shape[0]

        def step(carry, t):
            states, obs, over, won, key = carry
            key, k_act, k_env = jax.random.split(key, 3)
            action = choose(net_params, params, states, obs, k_act, greedy)
            obs2, states2, _, _, info = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(
                jax.random.split(k_env, n), states, action, params
            )
            live = ~over
            won = won | (live & info["terminated"])
            over = over | info["terminated"] | (t + 1 >= budgets)

            def keep(new, old):  # finished episodes stay as they ended
                return jnp.where(live.reshape((-1,) + (1,) * (new.ndim - 1)), new, old)

            states = jax.tree.map(keep, states2, states)
            return (states, keep(obs2, obs), over, won, key), None

        start = (states, obs, jnp.zeros((n,), bool), jnp.zeros((n,), bool), key)
        (_, _, _, won, _), _ = jax.lax.scan(step, start, jnp.arange(steps))
        return won

    return jax.jit(episodes)
