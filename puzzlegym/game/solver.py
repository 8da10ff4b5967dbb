"""The contract of a game's solver: what ``solve`` returns (:class:`Solution`) or raises
(:class:`Unsolvable`), what ``certify`` answers (:data:`Verdict`), and the :class:`Solver`
protocol itself.

A game provides its solver in its own package, ``<package>/solver.py`` (a module, or a
package for a game with a search of its own), found through its
:class:`puzzlegym.game.Game`'s ``solver`` part. The solvers see only the game's rules model.
:mod:`puzzlegym.solvers` dispatches from a level to its game's solver, and holds the generic
search engines the solvers share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

__all__ = ["DeadEndCertificate", "Solution", "Solver", "Unsolvable", "Verdict"]

Verdict = Literal["solvable", "dead_end", "unknown"]


@dataclass(frozen=True)
class Solution:
    """A solution from a state: the moves in order, their count, and whether it is proved
    shortest. ``expanded`` counts the states the search expanded."""

    moves: tuple[Any, ...]
    optimal: bool
    expanded: int = 0
    meta: dict = field(default_factory=dict, compare=False)

    @property
    def length(self) -> int:
        return len(self.moves)


class Unsolvable(Exception):
    """Raised by ``solve`` when the state is proved to be a dead end. ``proof`` (optional) is
    a plain document saying how it was proved (e.g. an UNSAT core, or the exhausted search
    and its counts)."""

    def __init__(self, message: str = "", proof: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.proof = proof


class Solver(Protocol):
    """A game's solver (a module satisfies this protocol). Optionally it also has
    ``canonical_key(level, state) -> Hashable``: a key under which states with the same
    futures coincide (its symmetry), which ``levels stats`` and the lab count states by."""

    def solve(self, level: Any, state: Any = None) -> Solution:
        """The moves from ``state`` (None: the level's initial state) to a solved board;
        :class:`Unsolvable` when it is a dead end."""
        ...

    def certify(self, level: Any, state: Any) -> Verdict:
        """``"solvable"``, ``"dead_end"``, or ``"unknown"`` past a search limit."""
        ...


@dataclass(frozen=True)
class DeadEndCertificate:
    """A game's dead-end certificate from its solver (the default ``Game.dead_end``): True
    when ``certify`` proves the board unsolvable ("unknown" past a search limit is not a
    dead end). ``solver`` is the game's solver part (a :class:`puzzlegym.game.Part`); a plain
    value, so it pickles."""

    solver: Any

    def __call__(self, level: Any, state: Any) -> bool:
        return self.solver.load().certify(level, state) == "dead_end"
