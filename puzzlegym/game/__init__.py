"""The game protocol and its parts: what a game author writes against.

* :mod:`~puzzlegym.game.protocol`: ``Game``, ``GameView``, ``Rejected``, ``ViewOutcome`` and the
  ui mixins (re-exported here);
* :mod:`~puzzlegym.game.parts`: a game's parts imported on first use (``Part``: its solver,
  vision reader and twin); :mod:`~puzzlegym.game.solver`: the solver's contract;
* :mod:`~puzzlegym.game.planes`: the symbolic board; :mod:`~puzzlegym.game.twin`: the JAX twin's
  contract;
* :mod:`~puzzlegym.game.registry`: the registered games (the ``puzzlegym.games`` entry points)
  and their ids;
* :mod:`~puzzlegym.game.catalogue`, :mod:`~puzzlegym.game.levelhash`,
  :mod:`~puzzlegym.game.levelcache`, :mod:`~puzzlegym.game.splits`: levels (catalogues, one hash
  per puzzle, generated levels on disk, train/test splits)."""

from puzzlegym.game.parts import Part
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
    game_of_level,
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
    "Part",
    "game_of_level",
    "game_of_package",
]
