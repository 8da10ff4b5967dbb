"""Tiny Lamps: a row of lamps; clicking one switches it and its neighbours. Light them all.

A game in its own package: puzzlegym finds it through the ``puzzlegym.games`` entry point.
"""

from __future__ import annotations

from puzzlegym.game import Game

from .view import LampsView

GAME = Game.from_package(
    __name__,
    name="TinyLamps",
    title="Tiny Lamps",
    view=LampsView(),
    instruction="Click a lamp to switch it and its neighbours. Light every lamp.",
    controls="clicks (a lamp)",
)
