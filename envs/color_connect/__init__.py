"""Color Connect: join every pair of same-coloured dots with paths that never cross.
(``GAME`` plugs it in.)"""

from __future__ import annotations

from puzzlegym.game import Game

from .view import ColorConnectView

# the dead-end certificate is the complete solver's answer for the level: a path can always be
# removed, so a board is a dead end only on an unsolvable level (cached per level)
GAME = Game.from_package(
    __name__,
    name="ColorConnect",
    title="Color Connect",
    view=ColorConnectView(),
    instruction="Click a dot, then each cell where the path turns, then the matching dot.",
    controls="clicks (dot, turns, dot)",
    # every set of non-crossing paths is a board: far too many to count, so `levels stats`
    # reports a lower bound from the first 10,000
    stats_max_states=10_000,
)
