"""Both held-out sets of a run, under one budget rule: every held-out level is played within
``budget_multiple`` times its own solver solution (board actions:
:func:`~puzzlegym.training.protocol.solution_actions`).

* the **catalogue**: :meth:`~puzzlegym.training.protocol.Protocol.test_levels`;
* the **generated** set: :func:`generated_levels`, ``size`` generated levels from level seed
  ``start_level`` that no training level and no catalogue level has
  (:func:`puzzlegym.game.heldout.held_out`), each a :class:`~puzzlegym.training.protocol.TestLevel`
  of kind ``"heldout"`` (its ``index`` is its level seed: the Python env plays it with
  ``levels="generated", num_levels=1, start_level=SEED``).

Every trainer measures both, the SB3 path in the Python env and the JAX paths in the twin, so
their tables test on the same levels within the same budgets. Solving a set's levels for their
budgets takes a while on a large set (a bar shows it); the lengths are kept per level in this
process.
"""

from __future__ import annotations

from dataclasses import dataclass

from puzzlegym.game.heldout import HeldOut, held_out
from puzzlegym.game.levelhash import level_hash
from puzzlegym.training.protocol import Protocol, TestLevel, solution_actions

__all__ = ["GeneratedSet", "generated_levels"]

_LENGTHS: dict[tuple[str, str], int] = {}  # (game, level hash) -> solution actions
MAX_KEPT = 200_000


@dataclass(frozen=True)
class GeneratedSet:
    """A generated held-out set (``held``: its levels, seeds and counts) and its levels as
    :class:`TestLevel` s with their solution lengths and budgets (``levels``, in order)."""

    held: HeldOut
    levels: list[TestLevel]

    def to_dict(self) -> dict:
        return {
            **self.held.to_dict(),
            "budget_actions": [t.budget_actions for t in self.levels],
        }


def generated_levels(
    protocol: Protocol, start_level: int, size: int, progress: bool = False
) -> GeneratedSet:
    """The generated held-out set of ``protocol``'s split (``size`` levels from level seed
    ``start_level``), each level's budget ``budget_multiple`` times its own solution."""
    from tqdm import tqdm

    game = protocol.game
    held = held_out(game, protocol.tier, protocol.split, start_level, size)
    levels = []
    bar = tqdm(
        zip(held.seeds, held.levels, strict=True),
        total=len(held.levels),
        desc=f"solving {protocol.env_id}'s held-out levels",
        unit="level",
        disable=not progress,
        mininterval=1.0,
        leave=False,
    )
    for seed, level in bar:
        key = (game.name, level_hash(game, level))
        n = _LENGTHS.get(key)
        if n is None:
            n = solution_actions(game, level)
            if len(_LENGTHS) < MAX_KEPT:
                _LENGTHS[key] = n
        levels.append(TestLevel(f"heldout:{seed}", "heldout", seed, n, protocol.budget_actions(n)))
    return GeneratedSet(held, levels)
