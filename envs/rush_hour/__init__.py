"""Rush Hour: slide the vehicles until the red car can drive out. (``GAME`` plugs it in.)"""

from __future__ import annotations

from puzzlegym.game import Game

from .view import RushHourView

# Rush Hour never dead-ends (every slide can be undone); the certifier answers from the
# solver's memoised distance table, the same table the potential reads.
GAME = Game.from_package(
    __name__,
    name="RushHour",
    title="Rush Hour",
    view=RushHourView(),
    instruction="Drag the vehicles along their lanes. Get the red car out through the exit.",
    controls="drags (slides)",
)
