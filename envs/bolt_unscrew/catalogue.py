"""The canonical Bolt Unscrew levels, stored in ``levels/<tier>.json`` (see
:mod:`puzzlegym.game.catalogue`). Each level carries ``solution``: the solver's shortest solution,
committed as the level's reference (tests replay it). Rebuilt with
``python -m puzzlegym.envs.bolt_unscrew.generator --write``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from puzzlegym.game.catalogue import Catalogue

from .rules import TIERS, Level

LEVELS_DIR = Path(__file__).resolve().parent / "levels"
CATALOGUE = Catalogue(
    "BoltUnscrew", Level.from_json, LEVELS_DIR, TIERS, meta=("solution",), multiline="boards"
)

catalogue_path = CATALOGUE.path
load_catalogue = CATALOGUE.load


def _moves(solution: Any) -> tuple:
    return tuple(tuple(m) for m in (solution or ()))


def parse_catalogue(doc: Any, tier: str) -> tuple[tuple[Level, tuple], ...]:
    """Validate a catalogue document strictly; ``((level, reference solution), ...)``."""
    return tuple((level, _moves(m["solution"])) for level, m in CATALOGUE.parse(doc, tier))


def reference_solutions(tier: str) -> list[tuple]:
    """The committed reference (shortest) solution of each level of ``tier``."""
    return [_moves(m["solution"]) for m in CATALOGUE.meta(tier)]


__all__ = [
    "CATALOGUE",
    "catalogue_path",
    "load_catalogue",
    "parse_catalogue",
    "reference_solutions",
]
