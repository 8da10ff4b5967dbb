"""The canonical Maze Paint levels, stored in ``levels/<tier>.json`` (see
:mod:`puzzlegym.game.catalogue`). Each level carries ``optimal_slides``, the BFS-optimal slide count
recorded by the generator. Files are rebuilt with
``python -m puzzlegym.envs.maze_paint.generator --write``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from puzzlegym.game.catalogue import Catalogue

from .rules import TIERS, Level

LEVELS_DIR = Path(__file__).resolve().parent / "levels"
CATALOGUE = Catalogue(
    "MazePaint", Level.from_json, LEVELS_DIR, TIERS, meta=("optimal_slides",), multiline="grid"
)

catalogue_path = CATALOGUE.path
load_catalogue = CATALOGUE.load


def parse_catalogue(doc: Any, tier: str) -> tuple[tuple[Level, int | None], ...]:
    """Validate a catalogue document strictly; ``((level, optimal_slides or None), ...)``."""
    return tuple((level, m["optimal_slides"]) for level, m in CATALOGUE.parse(doc, tier))


def optimal_slides(tier: str) -> list[int | None]:
    """The stored optimal slide count of each level of ``tier``, in catalogue order."""
    return [m["optimal_slides"] for m in CATALOGUE.meta(tier)]


__all__ = ["CATALOGUE", "catalogue_path", "load_catalogue", "optimal_slides", "parse_catalogue"]
