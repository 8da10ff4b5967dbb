"""The canonical Rush Hour levels, stored in ``levels/<tier>.json`` (see
:mod:`puzzlegym.game.catalogue`). Each level carries the generator's record of where it came from:
``optimal_moves`` (its exact distance to the goal, the farthest of its cluster),
``cluster_states`` (the size of its state cluster) and ``seed`` (the generator seed that
found it; ``seed % 1000`` is its slot in the tier's profile). Files are rebuilt with
``python -m puzzlegym.envs.rush_hour.generator --write``.
"""

from __future__ import annotations

from pathlib import Path

from puzzlegym.game.catalogue import Catalogue

from .rules import TIERS, Level

LEVELS_DIR = Path(__file__).resolve().parent / "levels"
META = ("optimal_moves", "cluster_states", "seed")
CATALOGUE = Catalogue(
    "RushHour", Level.from_json, LEVELS_DIR, TIERS, meta=META, multiline="vehicles"
)

catalogue_path = CATALOGUE.path
load_catalogue = CATALOGUE.load
metadata = CATALOGUE.meta

__all__ = ["CATALOGUE", "META", "catalogue_path", "load_catalogue", "metadata"]
