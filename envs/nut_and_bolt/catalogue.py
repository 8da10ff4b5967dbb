"""The canonical Nut and Bolt levels, stored in ``levels/<tier>.json`` (see
:mod:`puzzlegym.game.catalogue`). Each level carries ``solution_length`` (the solver's solution
length, recorded by the generator) and ``optimal`` (whether A* proved it shortest). Files are
rebuilt with ``python -m puzzlegym.envs.nut_and_bolt.generator --write``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from puzzlegym.game.catalogue import Catalogue

from .rules import TIERS, Level

LEVELS_DIR = Path(__file__).resolve().parent / "levels"
CATALOGUE = Catalogue(
    "NutAndBolt",
    Level.from_json,
    LEVELS_DIR,
    TIERS,
    meta=("solution_length", "optimal"),
    multiline="bolts",
)

catalogue_path = CATALOGUE.path
load_catalogue = CATALOGUE.load


def parse_catalogue(doc: Any, tier: str) -> tuple[tuple[Level, int | None, bool | None], ...]:
    """Validate a catalogue document strictly; ``((level, solution_length, optimal), ...)``."""
    return tuple((lv, m["solution_length"], m["optimal"]) for lv, m in CATALOGUE.parse(doc, tier))


def solution_lengths(tier: str) -> list[tuple[int | None, bool | None]]:
    """The stored ``(solution_length, optimal)`` of each level of ``tier``, in catalogue order."""
    return [(m["solution_length"], m["optimal"]) for m in CATALOGUE.meta(tier)]


__all__ = ["CATALOGUE", "catalogue_path", "load_catalogue", "parse_catalogue", "solution_lengths"]
