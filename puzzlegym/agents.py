"""Reference agents. Both act only through GUI actions.

* :class:`SolverAgent` plans with the exact solver on the evaluator's (privileged) state and
  performs each move with the game view's GUI actions, navigating the suite from the home
  screen like a player: card, difficulty, board, Next.
* :class:`RandomAgent` samples the env's action space.

An agent is any callable ``agent(obs, info) -> action``; :func:`make_agent` builds these two
or imports ``module:attribute`` (a class or factory taking the env).
"""

from __future__ import annotations

import importlib
from collections import deque
from typing import Any

from puzzlegym import solvers
from puzzlegym.actions import Answer, Click, to_dict
from puzzlegym.suite import BOARD_AREA, DIFFICULTY, HOME, LEVEL, LEVEL_COMPLETE, OBJECTIVE_COMPLETE


def _click(rect) -> dict:
    x, y = rect.center
    return to_dict(Click(x, y))


class SolverAgent:
    name = "solver"

    def __init__(self, env) -> None:
        self.env = env.unwrapped
        self._pending: deque = deque()  # GUI actions of the move in progress
        self._plan: deque = deque()  # remaining moves
        self._expect: Any = None  # (level, state) the plan continues from
        self.solves = 0

    def _next_move_actions(self) -> list:
        board = self.env.suite.board
        key = (board.level, board.state)
        if not self._plan or self._expect != key:
            solution = solvers.solve(board.level, board.state)
            self.solves += 1
            self._plan = deque(solution.moves)
        move = self._plan.popleft()
        result = board.game.rules.apply(board.level, board.state, move)
        self._expect = (board.level, result) if self._plan else None
        return board.game.view.actions_for_move(board.level, board.state, board.ui, move, BOARD_AREA)

    def __call__(self, obs: Any = None, info: Any = None) -> dict:
        env = self.env
        suite, objective = env.suite, env.evaluator.objective
        targets = suite.targets()
        screen = suite.screen
        if screen == HOME:
            return _click(targets[f"game:{objective.game}"])
        if screen == DIFFICULTY:
            if suite.game.name != objective.game:
                return _click(targets["back"])
            return _click(targets[f"tier:{objective.tier}"])
        if screen == LEVEL_COMPLETE:
            self._pending.clear()
            return _click(targets["next"])
        if screen == OBJECTIVE_COMPLETE:
            return to_dict(Answer("All levels complete"))
        if screen == LEVEL:
            board = suite.board
            if not env.evaluator.is_target(board):
                return _click(targets["menu"])
            if not self._pending:
                self._pending.extend(self._next_move_actions())
            return to_dict(self._pending.popleft())
        raise RuntimeError(f"solver agent: unknown screen {screen!r}")  # pragma: no cover


class RandomAgent:
    name = "random"

    def __init__(self, env, seed: int | None = None) -> None:
        self.space = env.action_space
        if seed is not None:
            self.space.seed(seed)

    def __call__(self, obs: Any = None, info: Any = None) -> dict:
        return self.space.sample()


def make_agent(spec: str, env, seed: int | None = None):
    """``"solver"``, ``"random"`` or ``"package.module:factory"`` (called with the env)."""
    if spec == "solver":
        return SolverAgent(env)
    if spec == "random":
        return RandomAgent(env, seed)
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"agent: {spec!r} is not 'solver', 'random' or 'module:callable'")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"agent: cannot import {spec!r}: {exc}") from None
    return factory(env)
