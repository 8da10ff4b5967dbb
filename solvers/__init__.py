"""Solving any game's levels: ``solve`` (shortest or verified solutions), ``certify``
(solvable / dead end by exhaustive search) and ``canonical_key`` dispatched to the level's
game's solver, and the generic search engines the games' solvers share
(:mod:`puzzlegym.solvers.search`).

Each game ships its solver in its own package (``<package>/solver.py``, with
``solve(level, state=None)``, ``certify(level, state)`` and optionally
``canonical_key(level, state)``: :class:`puzzlegym.game.solver.Solver`). The functions here
find it through the level's game, :func:`puzzlegym.game.protocol.game_of_level`, and its
``solver`` part. Solvers see only the game's rules model.
"""

from __future__ import annotations

from typing import Any

from puzzlegym.game.protocol import game_of_level
from puzzlegym.game.solver import Solution, Solver, Unsolvable, Verdict


def solver_of(level: Any) -> Solver:
    """The solver of ``level``'s game (TypeError when the level belongs to no game,
    LookupError when its game has no solver, each naming where it belongs)."""
    return game_of_level(level).get_solver()


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
        >>> from puzzlegym.game.registry import get_game
        >>> level = get_game("MazePaint").catalogue("Easy")[0]
        >>> solution = solve(level)
        >>> solution.length, solution.optimal, solution.moves[:3]
        (7, True, ('right', 'up', 'left'))
    """
    return solver_of(level).solve(level, state)


def canonical_key(level: Any, state: Any) -> Any:
    """A key under which states with the same futures coincide (the state itself for games
    whose solver defines no symmetry)."""
    key = getattr(solver_of(level), "canonical_key", None)
    return state if key is None else key(level, state)


def certify(level: Any, state: Any) -> Verdict:
    """Classify ``state`` of ``level`` as "solvable", "dead_end" or "unknown" (search limit).

    Args:
        level: a level of any game.
        state: a state of that level.

    Returns:
        ``"solvable"``, ``"dead_end"`` or ``"unknown"``.

    Examples:
        >>> from puzzlegym.game.registry import get_game
        >>> game = get_game("MazePaint")
        >>> level = game.catalogue("Easy")[0]
        >>> certify(level, game.rules.initial_state(level)), is_dead_end(
        ...     level, game.rules.initial_state(level)
        ... )
        ('solvable', False)
    """
    return solver_of(level).certify(level, state)


def is_dead_end(level: Any, state: Any) -> bool:
    """True when ``state`` is certified unsolvable ("unknown" past a search limit is not a
    dead end)."""
    return certify(level, state) == "dead_end"


__all__ = [
    "Solution",
    "Unsolvable",
    "Verdict",
    "canonical_key",
    "certify",
    "is_dead_end",
    "solve",
    "solver_of",
]
