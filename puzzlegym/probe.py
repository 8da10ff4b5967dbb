"""The env's privileged side, read-only: :class:`Probe`, a frozen view of one moment of an
episode for training code and the dead-end lab.

``env.unwrapped.probe()`` returns one. It holds what the screen is, which objective the
episode plays, the board in play (its level, rules state and the view's interaction state,
all immutable values), the named controls of the screen and the board area, the evaluator's
last settled snapshot with its dead-end certificate, and the episode's counters and results.
It never changes after it is made (the next step gives a new probe) and changing the env
through it is impossible, so wrappers, agents and the lab read the env through it and never
touch the suite or the evaluator themselves (``tests/test_layout.py`` enforces that).

Agents evaluated by the protocol never see a probe: it is privileged (board state,
certificates). The agent-facing surfaces are the pixels, the public info and the text
channel.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from puzzlegym.actions import Action
from puzzlegym.evaluation.evaluator import Objective
from puzzlegym.evaluation.events import Snapshot
from puzzlegym.game import Game
from puzzlegym.screen.input import Gesture
from puzzlegym.screen.layout import (
    BOARD_AREA,
    DIFFICULTY,
    HOME,
    LEVEL,
    LEVEL_COMPLETE,
    OBJECTIVE_COMPLETE,
    SCREENS,
)
from puzzlegym.screen.render import Rect
from puzzlegym.screen.suite import gesture_changes, press_changes

__all__ = [
    "BOARD_AREA",
    "DIFFICULTY",
    "HOME",
    "LEVEL",
    "LEVEL_COMPLETE",
    "OBJECTIVE_COMPLETE",
    "SCREENS",
    "BoardProbe",
    "Probe",
]


@dataclass(frozen=True)
class BoardProbe:
    """The board in play: which level, its rules state and the view's interaction state.

    ``level``, ``state`` and ``ui`` are the game's immutable values (``ui`` is the selected
    screw, the lifted stack, the path being drawn, ... or None); ``depth`` is the length of
    the undo history (moves since the level's ready board, net of undos); ``is_target``
    whether the level is one of the objective's targets.
    """

    game: Game
    tier: str
    index: int  # 0-based position in the tier
    level: Any
    state: Any
    ui: Any
    depth: int
    feedback: str
    is_target: bool

    @property
    def number(self) -> int:
        """The level's 1-based number, as the header shows it."""
        return self.index + 1

    @property
    def undoable(self) -> bool:
        return self.depth > 0

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
class Probe:
    """One moment of an episode, read-only (see the module docstring).

    ``screen`` is one of :data:`SCREENS`; ``game``/``tier`` what the screen shows (None on the
    home screen; ``objective`` names what the episode plays); ``controls`` the screen's named
    clickable regions, top-most first (``"game:MazePaint"``, ``"tier:Easy"``, ``"back"``,
    ``"restart"``, ``"undo"``, ``"menu"``, ``"next"``); ``board_area`` where the level screen
    draws the board;
    ``version`` changes whenever what the screen shows changes, and with ``episode`` (resets
    of this env, restores included) it identifies a screen for caches.
    """

    env_id: str
    objective: Objective  # the objective's game and tier names, its target levels (0-based)
    screen: str
    game: Game | None  # the game the screen shows
    tier: str | None
    board: BoardProbe | None
    controls: Mapping[str, Rect]
    board_area: Rect
    episode: int
    version: int
    steps: int
    actions: int
    elapsed_s: float
    levels_won: tuple[int, ...]  # won target levels, 1-based
    success: bool
    lc: float
    fgp: float
    progress: float  # won target levels plus the potential of the target board in play
    _snapshot: Snapshot | None = field(default=None, repr=False)

    @property
    def on_target(self) -> bool:
        """Whether the level screen shows a target level (the next actions are moves)."""
        return self.screen == LEVEL and self.board is not None and self.board.is_target

    @cached_property
    def snapshot(self) -> Mapping | None:
        """The evaluator's last snapshot of a settled board (read-only): ``cause``, ``game``,
        ``tier``, ``level`` (1-based), ``potential``, ``solved``, ``dead_end`` (the
        certificate), ``state`` (the game's JSON), ``details`` (game facts, some games)."""
        return None if self._snapshot is None else self._snapshot.as_mapping()

    @property
    def dead_end(self) -> Any:
        """The dead-end certificate of the board in play: the last snapshot's, when it is a
        snapshot of that board (None when no board is in play or it was not snapshotted)."""
        snap, board = self._snapshot, self.board
        if snap is None or board is None or self.screen != LEVEL:
            return None
        if (snap.game, snap.tier, snap.level) != (board.game.name, board.tier, board.number):
            return None
        return snap.dead_end

    def control(self, name: str) -> Rect | None:
        """The rectangle of control ``name`` on this screen, or None."""
        return self.controls.get(name)

    def press_changes(self, name: str) -> bool:
        """Whether pressing control ``name`` would change anything now (False when this
        screen does not show it): Restart off the level's start, Undo with a move to undo,
        any other control shown."""
        if name not in self.controls:
            return False
        return press_changes(name, self.board)

    def would_change(self, gesture: Gesture) -> bool:
        """Whether ``gesture`` would change the screen, the board or its selection now (what
        the suite would do with it, asked without doing it)."""
        return gesture_changes(self.screen, self.controls, self.board, gesture)
