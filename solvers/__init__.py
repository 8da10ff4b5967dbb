"""Solvers for every game: ``solve`` (shortest or verified solutions) and ``certify``
(solvable / dead end by exhaustive search).

Each game has one module here exposing ``solve(level, state=None)`` and
``certify(level, state)``; the dispatch below maps a level's ``game`` name to that module.
Solvers see only the game's rules model.
"""

from __future__ import annotations

import importlib
from typing import Any

from puzzlegym.solvers.types import Solution, Unsolvable, Verdict

# game name -> solver module (one line per game)
_MODULES = {
    "BoltUnscrew": "puzzlegym.solvers.bolt_unscrew",
    "ColorConnect": "puzzlegym.solvers.color_connect",
    "MazePaint": "puzzlegym.solvers.maze_paint",
    "NutAndBolt": "puzzlegym.solvers.nut_and_bolt",
    "RushHour": "puzzlegym.solvers.rush_hour",
    "TruckEscape": "puzzlegym.solvers.truck_escape",
}


def _module(level: Any):
    game = getattr(level, "game", None)
    if game not in _MODULES:
        raise TypeError(
            f"no solver for {type(level).__name__!r} (game {game!r}); solvers exist for: "
            + ", ".join(sorted(_MODULES))
        )
    return importlib.import_module(_MODULES[game])


def solve(level: Any, state: Any = None) -> Solution:
    """Solve ``level`` from ``state`` (default: its initial state).

    Raises :class:`Unsolvable` when the state is a dead end.
    """
    return _module(level).solve(level, state)


def canonical_key(level: Any, state: Any) -> Any:
    """A key under which states with the same futures coincide (the state itself for games
    whose solver defines no symmetry)."""
    key = getattr(_module(level), "canonical_key", None)
    return state if key is None else key(level, state)


def certify(level: Any, state: Any) -> Verdict:
    """Classify ``state`` of ``level`` as "solvable", "dead_end" or "unknown" (search limit)."""
    return _module(level).certify(level, state)


def is_dead_end(level: Any, state: Any) -> bool:
    """True when ``state`` is certified unsolvable (the dead-end certificate a game gives the
    evaluator; "unknown" past a search limit is not a dead end)."""
    return certify(level, state) == "dead_end"


__all__ = ["Solution", "Unsolvable", "Verdict", "canonical_key", "certify", "is_dead_end", "solve"]
