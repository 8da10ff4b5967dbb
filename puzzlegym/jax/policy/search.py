"""A planner's search in the real GUI: the twin state of the board the probe shows, searched
with the policy's network, for :class:`~puzzlegym.jax.policy.policy.JaxAgent`.

The Python env and the twin are the same game, index for index (``tests/test_jax_sameness.py``),
so :class:`TwinSearch` builds the twin state of the board in play by playing the agent's own
board actions in the twin from the level's start: at a level's first move it starts catalogue
level ``k`` (the objective's levels: :func:`puzzlegym.jax.make` with ``levels="catalogue"``),
and after each search it steps the twin with the index it answered. Before every search it
checks the twin's observation against the planes the probe shows
(:class:`~puzzlegym.wrappers.board_observation.BoardEncoder`); a board that differs (a move
another actor made, a restored checkpoint) starts the level afresh when the board is at its
start, and otherwise the agent plays the network alone for that move (counted in
:attr:`TwinSearch.unsynced`), never a search over a board that is not the one shown.

The search's horizon is the level's budget (twice its solution), counted from the level's
start as the twin's evaluations count it, so on a level played within that budget the agent
plays as the twin's search does; past it (the Python env's objective has no per-level budget)
the twin's clock starts a new window.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_count, check_number

__all__ = ["SEARCH_KEYS", "TwinSearch", "check_search"]

SEARCH_KEYS = (
    "num_simulations",
    "max_num_considered_actions",
    "gamma",
    "gumbel_scale",
    "search_value",
)
MAX_SIMULATIONS = 4096


def check_search(doc: Any, where: str) -> dict:
    """A policy file's ``search`` settings (a planner's), checked field by field."""
    if not isinstance(doc, dict) or sorted(doc) != sorted(SEARCH_KEYS):
        raise ConfigError(
            f"{where}: expected a mapping of {', '.join(SEARCH_KEYS)}, got {shown(doc)}"
        )
    return {
        "num_simulations": check_count(
            doc["num_simulations"], f"{where}.num_simulations", 0, MAX_SIMULATIONS, ConfigError
        ),
        "max_num_considered_actions": check_count(
            doc["max_num_considered_actions"],
            f"{where}.max_num_considered_actions",
            1,
            MAX_SIMULATIONS,
            ConfigError,
        ),
        "gamma": check_number(doc["gamma"], f"{where}.gamma", 0.0, 1.0, ConfigError),
        "gumbel_scale": check_number(
            doc["gumbel_scale"], f"{where}.gumbel_scale", 0.0, 100.0, ConfigError
        ),
        "search_value": _flag(doc["search_value"], f"{where}.search_value"),
    }


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {shown(value)}")
    return value


class TwinSearch:
    """The search of a planner's policy over the twin of the board in play (see the module
    docstring): ``env_id`` the objective, ``network`` its flax module, ``settings`` the
    policy's ``search`` settings, ``level_bits`` and ``buttons`` the policy's."""

    def __init__(
        self,
        env_id: str,
        network: Any,
        settings: dict,
        level_bits: bool,
        buttons: tuple[str, ...],
        seed: int | None = 0,
    ) -> None:
        from puzzlegym.jax.factory import make
        from puzzlegym.jax.planner import search_policy

        self.env, self.params = make(
            env_id, levels="catalogue", level_bits=level_bits, progress=False
        )
        if tuple(self.env.buttons) != tuple(buttons):
            raise ConfigError(
                f"agent: the policy's buttons {list(buttons)} are not the twin's "
                f"{list(self.env.buttons)}"
            )
        if self.env.num_actions != network.n_actions:
            raise ConfigError(
                f"agent: {env_id}'s twin has {self.env.num_actions} actions, the policy "
                f"{network.n_actions}: a policy searches the tier it was trained on"
            )
        self.search = search_policy(self.env, network, **settings)
        self.step = jax.jit(self.env.step_env)
        self.key = jax.random.PRNGKey(0 if seed is None else seed)
        self.state: Any = None
        self.level = 0
        self.unsynced = 0  # moves played by the network alone: the twin was not the board shown

    def choose(
        self, net_params: Any, number: int, shown_planes: np.ndarray, fresh: bool, greedy: bool
    ) -> int | None:
        """The index the search picks on catalogue level ``number`` whose planes the probe
        shows (``fresh``: the board is at the level's start), and the twin stepped with it;
        None when the twin is not that board (the caller plays the network)."""
        if self.state is None or number != self.level or (fresh and not self._shows(shown_planes)):
            _, self.state = self.env.reset_level(self.key, self.params, number)
            self.level = number
        if not self._shows(shown_planes):
            self.unsynced += 1
            self.state = None
            return None
        self.key, k_search, k_step = jax.random.split(self.key, 3)
        budget = self.params.budget[self.state.level]
        if int(self.state.time) >= int(budget):  # past the level's budget: a new window
            self.state = self.state.replace(time=self.state.time * 0)
        batch = jax.tree.map(lambda x: x[None], self.state)
        action, _ = self.search(net_params, self.params, batch, k_search, greedy)
        index = int(action[0])
        _, self.state, _, _, _ = self.step(k_step, self.state, index, self.params)
        return index

    def _shows(self, planes: np.ndarray) -> bool:
        return bool(np.array_equal(np.asarray(self.env.get_obs(self.state, self.params)), planes))
