"""Truck Escape: click the trucks out of a crowded lot, each one once its way is clear.
(``GAME`` plugs it in.)"""

from __future__ import annotations

from puzzlegym.game import Game

from . import rules
from .view import TruckEscapeView


def _describe(level, state) -> dict:
    """Facts recorded with every evaluator snapshot: trucks gone and left, and how many of
    the remaining ones could leave now."""
    total = level.n_trucks
    left = state.remaining.bit_count()
    return {
        "trucks_removed": total - left,
        "trucks_total": total,
        "trucks_free": len(rules.legal_moves(level, state)),
    }


# the dead-end certificate is the exact certifier; on valid levels it never fires (every
# board reachable by play is solvable, see rules.py), but it decides from the board itself
GAME = Game.from_package(
    __name__,
    name="TruckEscape",
    title="Truck Escape",
    view=TruckEscapeView(),
    instruction="Click a truck to drive it out. Clear every truck from the lot.",
    controls="clicks (a truck)",
    describe=_describe,
)
