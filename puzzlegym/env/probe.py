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

from puzzlegym.game import Game
from puzzlegym.record.evaluator import Objective
from puzzlegym.record.events import Snapshot
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
from puzzlegym.suite.board import Board
from puzzlegym.suite.shell import gesture_changes, press_changes

__all__ = [
    "BOARD_AREA",
    "DIFFICULTY",
    "HOME",
    "LEVEL",
    "LEVEL_COMPLETE",
    "OBJECTIVE_COMPLETE",
    "SCREENS",
    "Board",
    "Probe",
]


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
    board: Board | None  # the board in play (an immutable value)
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
    mismatch: bool  # the agent claimed completion before the evaluator recorded it
    _snapshot: Snapshot | None = field(default=None, repr=False)

    @property
    def on_target(self) -> bool:
        """Whether the level screen shows a target level (the next actions are moves)."""
        return self.screen == LEVEL and self.board_is_target

    @property
    def board_is_target(self) -> bool:
        """Whether the board in play is one of the objective's target levels."""
        return self.board is not None and self.objective.has(self.board)

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

    def evaluator_info(self) -> dict[str, Any]:
        """``info["evaluator"]``: a copy of this probe's figures as plain values (the level in
        play when it is a target, its potential on the level screen, progress, levels won, LC,
        FGP, success, the last snapshot's dead-end certificate, mismatch). Derived here, never
        a second source; ``puzzlegym.wrappers.BlackBox`` drops it for agents."""
        board, snap = self.board, self._snapshot
        return {
            "level": board.number if board is not None and self.board_is_target else None,
            "potential": board.potential if board is not None and self.screen == LEVEL else None,
            "progress": self.progress,
            "levels_won": list(self.levels_won),
            "lc": self.lc,
            "fgp": self.fgp,
            "success": self.success,
            "dead_end": snap.dead_end if snap is not None else None,
            "mismatch": self.mismatch,
        }

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
