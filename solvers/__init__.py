"""Solvers for every game: ``solve`` (shortest or verified solutions) and ``certify``
(solvable / dead end by exhaustive search).

Each game has one solver module exposing ``solve(level, state=None)`` and
``certify(level, state)`` (and optionally ``canonical_key(level, state)``). A built-in game's
is here, named after the game (``MazePaint`` -> ``maze_paint.py``); a game in its own package
(a plugin, ``puzzlegym.games`` entry point) brings it as ``<its package>.solver``. The
dispatch below finds it from a level's class: its ``game`` name and the package it lives in.
Solvers see only the game's rules model.
"""

from __future__ import annotations

import functools
import importlib
import re
from typing import Any

from puzzlegym.solvers.types import Solution, Unsolvable, Verdict


def module_name(game: str) -> str:
    """The solver module of a game, by convention: ``MazePaint`` -> ``maze_paint`` (the
    name of the game's package under ``envs/``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", game).lower()


BUILTIN_PACKAGE = "puzzlegym.envs"


def solver_module_name(level_class: type) -> str:
    """The solver module of a level class: ``puzzlegym.solvers.<game>`` for a built-in game,
    ``<package>.solver`` for a game in its own package."""
    game = getattr(level_class, "game", None)
    if not isinstance(game, str) or not re.fullmatch(r"[A-Z][A-Za-z0-9]*", game):
        raise TypeError(
            f"no solver for {level_class.__name__!r}: its level class names no game ({game!r})"
        )
    package = level_class.__module__.rpartition(".")[0]
    if package == BUILTIN_PACKAGE or package.startswith(BUILTIN_PACKAGE + "."):
        return f"puzzlegym.solvers.{module_name(game)}"
    return f"{package}.solver"


@functools.lru_cache(maxsize=64)
def _solver_of(level_class: Any):
    name = solver_module_name(level_class)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise TypeError(
            f"no solver for {level_class.__name__!r} (game {getattr(level_class, 'game', None)!r})"
            f": no module {name!r}"
        ) from None


def _module(level: Any):
    cls: Any = type(level)  # classes hash (mypy's stubs do not say so)
    return _solver_of(cls)


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
    "solver_module_name",
    "solve",
]
