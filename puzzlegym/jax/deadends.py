"""The dead-end oracle of a twin env: every reachable dead end of each level it plays,
enumerated in Python, as a table of board keys the twin looks its board up in.

For each level, the rules' whole state graph up to the solver's symmetry
(:func:`puzzlegym.levels.stats.dead_end_states`: the states from which no sequence of
moves wins, which is what ``solvers.certify`` certifies) gives one representative state per
dead end; the twin's :meth:`~puzzlegym.game.twin.Twin.board_key` of each (computed by the
same jitted function as in play, so the two sides hash alike) goes into the level's row of
``keys`` (``uint32[levels, most, 2]``, ``count[level]`` of them valid). In play, a board is a
dead end when its key is one of its level's. Every reachable board of the level is in its
state graph, so a board whose key is not in the table is not a dead end (a key collision of
the 64-bit hash aside; the sameness test checks the oracle against ``solvers.certify``).

:mod:`puzzlegym.jax.env` acts on it with the env's ``dead_end`` setting (:data:`DEAD_ENDS`):
``"restart"`` clicks Restart right after an action that lands on a dead end, as
:class:`puzzlegym.wrappers.DeadEndRestart` does in the Python env (the click takes an action
of the budget, and its reward, the potential's change, is added); ``"penalty"`` subtracts
``dead_end_penalty`` from the reward of every action after which the board is a dead end.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from puzzlegym.base.errors import ConfigError, LevelError
from puzzlegym.levels.stats import STATS_MAX_STATES, dead_end_states

__all__ = ["DEAD_ENDS", "MAX_DEAD_ENDS", "dead_end_table", "is_dead_end"]

DEAD_ENDS = ("none", "restart", "penalty")
MAX_DEAD_ENDS = 1 << 20  # dead ends one env's table may hold, over all its levels


def dead_end_table(
    game: Any, bound: Any, levels: list, tables: Any, max_states: int = STATS_MAX_STATES
) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, count)`` of ``levels`` (their stacked level ``tables`` on the ``bound``
    twin): see the module docstring. ``ConfigError`` when the twin has no board key or a
    level has more than ``max_states`` states."""
    if not bound.has_board_key:
        raise ConfigError(
            f"dead_end: {game.name}'s twin has no board key (Twin.board_key), so it cannot "
            "tell a dead end in play; use dead_end=none"
        )
    rows: list[int] = []
    boards: list[Any] = []
    count = np.zeros(len(levels), dtype=np.int32)
    for row, level in enumerate(levels):
        try:
            dead = dead_end_states(game, level, max_states)
        except LevelError as exc:  # a level too large to enumerate
            raise ConfigError(f"dead_end: {exc}") from None
        count[row] = len(dead)
        rows.extend([row] * len(dead))
        boards.extend(bound.from_python(level, state) for state in dead)
    if len(rows) > MAX_DEAD_ENDS:
        raise ConfigError(
            f"dead_end: {len(rows)} dead ends in {len(levels)} levels, more than {MAX_DEAD_ENDS}"
        )
    most = max(1, int(count.max(initial=0)))
    keys = np.zeros((len(levels), most, 2), dtype=np.uint32)
    if rows:
        stacked = jax.tree.map(lambda *xs: np.stack(xs), *boards)
        found = np.asarray(_keys(bound, tables, jnp.asarray(rows, jnp.int32), stacked))
        start = 0
        for row, n in enumerate(count):
            keys[row, :n] = found[start : start + n]
            start += n
    return keys, count


@partial(jax.jit, static_argnums=0)
def _keys(bound: Any, tables: Any, rows: Any, boards: Any) -> Any:
    return jax.vmap(lambda r, b: bound.board_key(bound.select(tables, r), b))(rows, boards)


def is_dead_end(bound: Any, lv: Any, board: Any, keys: Any, count: Any) -> Any:
    """``bool``: whether ``board`` of the level ``lv`` is one of its dead ends (``keys``
    ``uint32[most, 2]`` and ``count``: the level's row of :func:`dead_end_table`); traced."""
    key = bound.board_key(lv, board)
    valid = jnp.arange(keys.shape[0]) < count
    return jnp.any(valid & (keys[:, 0] == key[0]) & (keys[:, 1] == key[1]))
