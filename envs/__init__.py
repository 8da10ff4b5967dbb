"""puzzlegym's own games, one package each (installed as ``puzzlegym.envs``), each declared in
the ``puzzlegym.games`` entry point group exactly as an outside game is.

A game package builds its ``GAME`` with :meth:`puzzlegym.game.Game.from_package`.
:func:`game` is the older spelling of that call, kept for game packages written against it.
"""

from __future__ import annotations

from typing import Any

from puzzlegym.game import Game

__all__ = ["game"]


def game(package: str, **fields: Any) -> Game:
    """:meth:`Game.from_package` (the older spelling): the game of package ``package``."""
    return Game.from_package(package, **fields)
