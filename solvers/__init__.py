"""Solvers for every game: ``solve`` (shortest or verified solutions) and ``certify``
(solvable / dead end by exhaustive search).

Each game has one module here exposing ``solve(level, state=None)`` and
``certify(level, state)``, named after the game (``MazePaint`` -> ``maze_paint.py``): the
dispatch below finds it from a level's ``game`` name.
Solvers see only the game's rules model.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from puzzlegym.solvers.types import Solution, Unsolvable, Verdict


def module_name(game: str) -> str:
    """The solver module of a game, by convention: ``MazePaint`` -> ``maze_paint`` (the
    name of the game's package under ``envs/``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", game).lower()


def _module(level: Any):
    game = getattr(level, "game", None)
    if not isinstance(game, str) or not re.fullmatch(r"[A-Z][A-Za-z0-9]*", game):
        raise TypeError(
            f"no solver for {type(level).__name__!r}: its level class names no game ({game!r})"
        )
    try:
        return importlib.import_module(f"puzzlegym.solvers.{module_name(game)}")
    except ModuleNotFoundError as exc:
        if exc.name != f"puzzlegym.solvers.{module_name(game)}":
            raise
        raise TypeError(
            f"no solver for {type(level).__name__!r} (game {game!r}): puzzlegym.solvers has no "
            f"module {module_name(game)!r}"
        ) from None


def solve(level: Any, state: Any = None) -> Solution:
    """Solve ``level`` from ``state`` (default: its initial state).

    Args:
        level: a level of any game (the solver is the level's game's).
        state: the state to solve from; None for the level's initial state.

    Returns:
        The :class:`Solution`: its moves, and whether it is proved shortest.

    Raises:
        Unsolvable: the state is a dead end.

    Examples:
        >>> from puzzlegym.suite.registry import get_game
        >>> level = get_game("MazePaint").load_catalogue("Easy")[0]
        >>> solution = solve(level)
        >>> solution.length, solution.optimal, solution.moves[:3]
        (7, True, ('right', 'up', 'left'))
    """
    return _module(level).solve(level, state)


def canonical_key(level: Any, state: Any) -> Any:
    """A key under which states with the same futures coincide (the state itself for games
    whose solver defines no symmetry)."""
    key = getattr(_module(level), "canonical_key", None)
    return state if key is None else key(level, state)


def certify(level: Any, state: Any) -> Verdict:
    """Classify ``state`` of ``level`` as "solvable", "dead_end" or "unknown" (search limit).

    Args:
        level: a level of any game.
        state: a state of that level.

    Returns:
        ``"solvable"``, ``"dead_end"`` or ``"unknown"``.

    Examples:
        >>> from puzzlegym.suite.registry import get_game
        >>> game = get_game("MazePaint")
        >>> level = game.load_catalogue("Easy")[0]
        >>> certify(level, game.rules.initial_state(level)), is_dead_end(
        ...     level, game.rules.initial_state(level)
        ... )
        ('solvable', False)
    """
    return _module(level).certify(level, state)


def is_dead_end(level: Any, state: Any) -> bool:
    """True when ``state`` is certified unsolvable (the dead-end certificate a game gives the
    evaluator; "unknown" past a search limit is not a dead end)."""
    return certify(level, state) == "dead_end"


__all__ = [
    "Solution",
    "Unsolvable",
    "Verdict",
    "canonical_key",
    "certify",
    "is_dead_end",
    "module_name",
    "solve",
]
