"""Tiny Lamps' catalogue: ``levels/easy.json``."""

from __future__ import annotations

from pathlib import Path

from puzzlegym.game.catalogue import Catalogue

from .rules import TIERS, Level

CATALOGUE = Catalogue("TinyLamps", Level.from_json, Path(__file__).parent / "levels", TIERS)
load_catalogue = CATALOGUE.load
