"""Canonical level hashes: one SHA-256 per puzzle, whatever its id and tier and whichever of
its symmetric forms it is written in, so a generated level can be told apart from every
catalogue level (the catalogue stays a clean test set; :mod:`puzzlegym.game.splits`).

The hashed document is ``{"game": <name>, "level": rules.canonical(level)}`` as JSON with
sorted keys and no spaces. A game's ``rules.canonical(level)`` (optional) returns the level
without its names in a form shared by every level that plays the same (boards turned or
mirrored, pieces listed in another order, colours renamed: each game says which); a game
without one is hashed as its level document minus ``id`` and ``tier``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from puzzlegym.game import Game

_CATALOGUE: dict[str, frozenset[str]] = {}


def canonical_document(game: Game, level: Any) -> dict:
    """The document :func:`level_hash` hashes."""
    canonical = getattr(game.rules, "canonical", None)
    if canonical is not None:
        doc = canonical(level)
    else:
        doc = {k: v for k, v in game.level_to_json(level).items() if k not in ("id", "tier")}
    return {"game": game.name, "level": doc}


def level_hash(game: Game, level: Any) -> str:
    """The SHA-256 (hex) of ``level``'s canonical document."""
    text = json.dumps(
        canonical_document(game, level), sort_keys=True, separators=(",", ":"), allow_nan=False
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def catalogue_hashes(game: Game) -> frozenset[str]:
    """The canonical hashes of every catalogue level of ``game``, all tiers (computed once)."""
    found = _CATALOGUE.get(game.name)
    if found is None:
        found = frozenset(
            level_hash(game, level) for tier in game.tiers for level in game.catalogue(tier)
        )
        _CATALOGUE[game.name] = found
    return found


def is_catalogue_level(game: Game, level: Any) -> bool:
    """Whether ``level`` is one of ``game``'s catalogue levels (any tier), up to names and
    the game's symmetries."""
    return level_hash(game, level) in catalogue_hashes(game)
