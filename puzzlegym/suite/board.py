"""The board in play: one immutable value for the suite, the evaluator, the probe and the human
page.

A :class:`Board` is which level is shown (game, tier, index, the level itself), its rules
state, the view's interaction state (``ui``: the selected screw, the lifted stack, the path
being drawn, ... or None), the undo history (the earlier states, oldest first) and the
feedback line. Every field is an immutable value, so a board never changes: the suite
replaces its board at every change, and whoever holds a board (a listener, a probe, a record
of the last move) holds that moment for good.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from puzzlegym.base.actions import Action
from puzzlegym.game import Game
from puzzlegym.screen.layout import BOARD_AREA

__all__ = ["Board", "LastMove"]


@dataclass(frozen=True, eq=False)
class Board:
    """The level in play (see the module docstring)."""

    game: Game
    tier: str
    index: int  # 0-based position in the tier's levels
    level: Any
    state: Any
    ui: Any
    history: tuple = ()  # the states before each move since the level's start, oldest first
    feedback: str = ""

    @property
    def number(self) -> int:
        """The level's 1-based number, as the header shows it."""
        return self.index + 1

    @property
    def depth(self) -> int:
        """Moves since the level's start, net of undos (the length of the history)."""
        return len(self.history)

    @property
    def undoable(self) -> bool:
        """Whether Undo has a board to go back to."""
        return bool(self.history)

    @cached_property
    def solved(self) -> bool:
        return self.game.rules.is_solved(self.level, self.state)

    @cached_property
    def potential(self) -> float:
        return self.game.rules.potential(self.level, self.state)

    def legal_moves(self) -> list:
        """The rules' legal moves from this board."""
        return list(self.game.rules.legal_moves(self.level, self.state))

    def actions_for_move(self, move: Any) -> list[Action]:
        """The GUI actions that perform rules ``move`` on this board (the view's)."""
        return self.game.view.actions_for_move(self.level, self.state, self.ui, move, BOARD_AREA)

    def board_targets(self) -> list[Action | None]:
        """The view's board-aligned GUI actions of this level (``GameView.board_targets``)."""
        return self.game.view.board_targets(self.level, self.state, self.ui, BOARD_AREA)

    def target_changes(self) -> list[bool] | None:
        """Whether each board target would change the board or its selection on the level
        screen (``GameView.target_changes``: computed from the rules' legal moves and the
        selection in one pass), or None when the game's view does not compute it."""
        compute = getattr(self.game.view, "target_changes", None)
        if compute is None:
            return None
        return [bool(v) for v in compute(self.level, self.state, self.ui)]


@dataclass(frozen=True)
class LastMove:
    """The board move the last gesture tried, for the human page's in-between frames only: the
    board before it, the move, and the board after it (the same rules state when the rules
    refused the move: ``moved`` is False)."""

    before: Board
    move: Any
    after: Board
    moved: bool
