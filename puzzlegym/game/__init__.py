"""The game protocol and its parts: what a game author writes against.

* :mod:`~puzzlegym.game.protocol`: ``Game``, ``GameView``, ``Rejected``, ``ViewOutcome`` and the
  ui mixins (re-exported here);
* :mod:`~puzzlegym.game.planes`: the symbolic board; :mod:`~puzzlegym.game.twin`: the JAX twin's
  contract;
* :mod:`~puzzlegym.game.catalogue`, :mod:`~puzzlegym.game.levelhash`,
  :mod:`~puzzlegym.game.levelcache`, :mod:`~puzzlegym.game.splits`: levels (catalogues, one hash
  per puzzle, generated levels on disk, train/test splits)."""

from puzzlegym.game.protocol import (
    Game,
    GameView,
    PackageGenerator,
    Rejected,
    ResetUI,
    Rules,
    SelectionUI,
    StatelessUI,
    ViewOutcome,
    game_of_package,
)

__all__ = [
    "Rejected",
    "Rules",
    "ViewOutcome",
    "GameView",
    "ResetUI",
    "StatelessUI",
    "SelectionUI",
    "Game",
    "PackageGenerator",
    "game_of_package",
]
