"""Bolt Unscrew: move screws to free every wooden board. (``GAME`` plugs it in.)"""

from __future__ import annotations

from puzzlegym.game import Game

from . import rules
from .view import BoltUnscrewView


def _describe(level, state) -> dict:
    """Facts recorded with every evaluator snapshot: the free anchors (before the next move),
    boards removed, and the paper's deadlock certificate (board stable, nothing pending, no
    admissible screw -> anchor relocation)."""
    total = len(level.boards)
    return {
        "free_anchors": rules.free_anchors(level, state),
        "boards_removed": total - state.remaining.bit_count(),
        "boards_total": total,
        "boards_released": rules.released(level, state).bit_count(),
        "deadlock_certificate": rules.deadlock_certificate(level, state),
    }


# the dead-end certificate is the exact certifier (exhaustive search with a memo shared per
# level), which proves dead ends no later than the paper's certificate (recorded by _describe)
GAME = Game.from_package(
    __name__,
    name="BoltUnscrew",
    title="Bolt Unscrew",
    view=BoltUnscrewView(),
    instruction="Click a screw, then click a free hole. Free every board.",
    controls="clicks (screw, then hole)",
    can_dead_end=True,
    describe=_describe,
)
