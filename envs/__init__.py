"""The games, one package each (installed as ``puzzlegym.envs``).

A game package builds its ``GAME`` with :func:`game`: the package's conventional parts
(:meth:`puzzlegym.game.Game.from_package`) with the game's exact certifier
(:func:`puzzlegym.solvers.is_dead_end`) as its dead-end certificate unless it gives another.
"""

from __future__ import annotations

from typing import Any

from puzzlegym import solvers
from puzzlegym.game import Game

__all__ = ["game"]


def game(package: str, **fields: Any) -> Game:
    """The :class:`~puzzlegym.game.Game` of game package ``package`` (its ``__name__``);
    ``fields`` as for :meth:`Game.from_package` (``name``, ``title``, ``view``,
    ``instruction``, ...)."""
    fields.setdefault("dead_end", solvers.is_dead_end)
    return Game.from_package(package, **fields)
