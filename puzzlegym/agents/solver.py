"""The solver agent: plans with the exact solver on the env's (privileged) board and
performs each move with the game view's GUI actions, navigating the suite from the home
screen like a player: card, difficulty, board, Next."""

from __future__ import annotations

from collections import deque
from typing import Any

from puzzlegym import solvers
from puzzlegym.base.actions import to_dict
from puzzlegym.env.navigation import navigation_action

__all__ = ["SolverAgent"]


class SolverAgent:
    name = "solver"

    def __init__(self, env) -> None:
        self.env = env.unwrapped
        self._pending: deque = deque()  # GUI actions of the move in progress
        self._plan: deque = deque()  # remaining moves
        self._expect: Any = None  # (level, state) the plan continues from
        self.solves = 0

    def _next_move_actions(self, board) -> list:
        key = (board.level, board.state)
        if not self._plan or self._expect != key:
            solution = solvers.solve(board.level, board.state)
            self.solves += 1
            self._plan = deque(solution.moves)
        move = self._plan.popleft()
        result = board.game.rules.apply(board.level, board.state, move)
        self._expect = (board.level, result) if self._plan else None
        return board.actions_for_move(move)

    def __call__(self, obs: Any = None, info: Any = None) -> dict:
        probe = self.env.probe()
        nav = navigation_action(probe, self._pending)
        if nav is not None:
            return nav
        if not self._pending:
            self._pending.extend(self._next_move_actions(probe.board))
        return to_dict(self._pending.popleft())
