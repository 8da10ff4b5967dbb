"""The canonical Color Connect levels, stored in ``levels/<tier>.json`` (see
:mod:`puzzlegym.game.catalogue` and ``format.md``). Each level carries the generator's metadata:
``clicks`` (what the solver agent's solution needs), ``path_cells`` (cells its paths cover)
and ``detour`` (the forced detour: in every solution some path is at least that many cells
longer than its shortest route). Files are rebuilt with
``python -m puzzlegym.envs.color_connect.generator --write``.
"""

from __future__ import annotations

from pathlib import Path

from puzzlegym.game.catalogue import Catalogue

from .rules import TIERS, Level

LEVELS_DIR = Path(__file__).resolve().parent / "levels"
META = ("clicks", "path_cells", "detour")
CATALOGUE = Catalogue(
    "ColorConnect", Level.from_json, LEVELS_DIR, TIERS, meta=META, multiline="grid"
)

catalogue_path = CATALOGUE.path
load_catalogue = CATALOGUE.load

__all__ = ["CATALOGUE", "META", "catalogue_path", "load_catalogue"]
