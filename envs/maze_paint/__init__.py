"""Maze Paint: roll the ball; every floor cell it crosses is painted. (``GAME`` plugs it in.)"""

from __future__ import annotations

from puzzlegym.game import Game

from .view import MazePaintView


def _describe(level, state) -> dict:
    """Facts recorded with every evaluator snapshot: the board coverage (painted and paintable
    floor cells), from which records class moves as productive or zero-progress."""
    return {
        "cells_painted": (state.painted & level.full_mask).bit_count(),
        "cells_paintable": level.n_paintable,
    }


# the dead-end certificate is the exact certifier (instant on strongly connected levels,
# which every catalogue and generated level is)
GAME = Game.from_package(
    __name__,
    name="MazePaint",
    title="Maze Paint",
    view=MazePaintView(),
    instruction="Swipe to roll the ball. Paint every floor tile.",
    controls="swipes or arrow keys",
    describe=_describe,
)
