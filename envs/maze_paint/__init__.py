"""Maze Paint: roll the ball; every floor cell it crosses is painted. (``GAME`` plugs it in.)"""

from __future__ import annotations

from puzzlegym import solvers
from puzzlegym.game import Game

from . import rules
from .catalogue import load_catalogue
from .view import MazePaintView

# the dead-end certificate is the exact certifier (instant on strongly connected levels,
# which every catalogue and generated level is)
GAME = Game.from_package(
    __name__,
    name="MazePaint",
    title="Maze Paint",
    rules=rules,
    view=MazePaintView(),
    load_catalogue=load_catalogue,
    dead_end=solvers.is_dead_end,
    instruction="Swipe to roll the ball. Paint every floor tile.",
)
