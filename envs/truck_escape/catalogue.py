"""The canonical Truck Escape levels, stored in ``levels/default.json`` (see
:mod:`puzzlegym.game.catalogue`). Each level carries ``longest_chain``: the number of trucks in its
longest blocking chain (each blocked by the next), recorded by the generator from the solver.
Rebuilt with ``python -m puzzlegym.envs.truck_escape.generator --write``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from puzzlegym.game.catalogue import Catalogue

from .rules import TIERS, Level

LEVELS_DIR = Path(__file__).resolve().parent / "levels"
CATALOGUE = Catalogue(
    "TruckEscape", Level.from_json, LEVELS_DIR, TIERS, meta=("longest_chain",), multiline="trucks"
)

catalogue_path = CATALOGUE.path
load_catalogue = CATALOGUE.load


def parse_catalogue(doc: Any, tier: str) -> tuple[tuple[Level, int | None], ...]:
    """Validate a catalogue document strictly; ``((level, longest_chain or None), ...)``."""
    return tuple((level, m["longest_chain"]) for level, m in CATALOGUE.parse(doc, tier))


def longest_chains(tier: str) -> list[int | None]:
    """The stored longest blocking chain of each level of ``tier``, in catalogue order."""
    return [m["longest_chain"] for m in CATALOGUE.meta(tier)]


__all__ = ["CATALOGUE", "catalogue_path", "load_catalogue", "longest_chains", "parse_catalogue"]
