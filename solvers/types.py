"""The result types every solver shares: :class:`Solution`, :class:`Unsolvable` and
:data:`Verdict`, the solver contract's types (defined with the game protocol in
:mod:`puzzlegym.game.solver`, which types ``Game.solver`` by them; the names the solvers
import)."""

from __future__ import annotations

from puzzlegym.game.solver import Solution, Unsolvable, Verdict

__all__ = ["Solution", "Unsolvable", "Verdict"]
