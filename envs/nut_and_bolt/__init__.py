"""Nut and Bolt: move runs of same-coloured nuts between bolts until every bolt holds one
colour. (``GAME`` plugs it in.)"""

from __future__ import annotations

from puzzlegym.game import Game

from .view import NutAndBoltView

GAME = Game.from_package(
    __name__,
    name="NutAndBolt",
    title="Nut and Bolt",
    view=NutAndBoltView(),
    instruction="Click a bolt to lift its top nuts, then click the bolt to put them on.",
    controls="clicks (bolt, then bolt); Undo",
    can_dead_end=True,
    has_undo=True,
)
