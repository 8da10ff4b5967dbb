"""The games as JAX environments (the ``jax`` extra): each game's twin
(:mod:`puzzlegym.game.twin`, a game package's ``twin.py``) behind gymnax's ``Environment`` API, the
same game index for index as the Python board env given four settings: the twin made with
``make(id, levels="catalogue", level_bits=True)``, and the Python env given the twin's buttons
and budget (``make_sb3_env(id, actions="board", observation="board", start="board", level=k,
buttons=env.buttons, budget_s=int(params.budget[k - 1]) - 0.5)``); the rest the defaults on
both sides (:func:`puzzlegym.jax.make`).

``make(env_id, levels=..., num_levels=..., start_level=..., reward=...)`` returns ``(env,
params)`` (:mod:`puzzlegym.jax.factory`; ``make_held_out`` the same on a generated held-out
set, :mod:`puzzlegym.game.heldout`); the env is a :class:`PuzzleJaxEnv`
(:mod:`puzzlegym.jax.env`): ``reset``, ``step`` (auto-reset), ``step_env``,
``reset_level``, jittable and vmappable; the action mask travels in the state
(``state.legal_action_mask``, pgx's name; :func:`legal_action_mask` reads it through a
wrapper's state). JAX picks the device.
"""

from __future__ import annotations

from puzzlegym.jax.env import EnvParams, EnvState, PuzzleJaxEnv, legal_action_mask
from puzzlegym.jax.factory import (
    MAX_BUDGET_ACTIONS,
    MAX_LEVELS,
    budget_actions,
    make,
    make_held_out,
)

__all__ = [
    "MAX_BUDGET_ACTIONS",
    "MAX_LEVELS",
    "EnvParams",
    "EnvState",
    "PuzzleJaxEnv",
    "budget_actions",
    "make",
    "legal_action_mask",
    "make_held_out",
]
