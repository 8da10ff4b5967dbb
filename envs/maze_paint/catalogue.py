"""The canonical Maze Paint levels, stored in ``levels/<tier>.json``.

Each file is ``{"game": "MazePaint", "tier": <tier>, "levels": [<level>, ...]}`` where a level
is :meth:`Level.to_json` plus ``optimal_slides`` (the BFS-optimal slide count, recorded by the
generator). Files are rebuilt with ``python -m puzzlegym.envs.maze_paint.generator --write``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from puzzlegym.envs.maze_paint.rules import TIERS, Level
from puzzlegym.errors import ConfigError, LevelError

LEVELS_DIR = Path(__file__).resolve().parent / "levels"
_DOC_KEYS = ("game", "tier", "levels")


def catalogue_path(tier: str) -> Path:
    """The JSON file holding ``tier``'s levels."""
    if tier not in TIERS:
        raise ConfigError(f"tier: expected one of {', '.join(TIERS)}, got {tier!r}")
    return LEVELS_DIR / f"{tier.lower()}.json"


def parse_catalogue(doc: Any, tier: str) -> tuple[tuple[Level, int | None], ...]:
    """Validate a catalogue document strictly; ``((level, optimal_slides or None), ...)``."""
    if not isinstance(doc, dict):
        raise LevelError(f"catalogue: expected a JSON object, got {type(doc).__name__}")
    if set(doc) != set(_DOC_KEYS):
        raise LevelError(
            f"catalogue: keys must be exactly {', '.join(_DOC_KEYS)}; got {', '.join(sorted(map(str, doc)))}"
        )
    if doc["game"] != Level.game:
        raise LevelError(f"game: expected {Level.game!r}, got {doc['game']!r}")
    if doc["tier"] != tier:
        raise LevelError(f"tier: expected {tier!r}, got {doc['tier']!r}")
    raw = doc["levels"]
    if not isinstance(raw, list) or not raw:
        raise LevelError("levels: expected a non-empty list of level objects")
    out = []
    ids = set()
    for i, item in enumerate(raw):
        try:
            level = Level.from_json(item)
        except LevelError as exc:
            raise LevelError(f"levels[{i}]: {exc}") from None
        if level.tier != tier:
            raise LevelError(f"levels[{i}].tier: expected {tier!r}, got {level.tier!r}")
        if level.id in ids:
            raise LevelError(f"levels[{i}].id: duplicate id {level.id!r}")
        ids.add(level.id)
        out.append((level, item.get("optimal_slides")))
    return tuple(out)


@cache
def _entries(tier: str) -> tuple[tuple[Level, int | None], ...]:
    path = catalogue_path(tier)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise LevelError(f"catalogue {path.name}: cannot read: {exc}") from None
    return parse_catalogue(doc, tier)


def load_catalogue(tier: str) -> list[Level]:
    """The canonical levels of ``tier`` (validated), in catalogue order."""
    return [level for level, _ in _entries(tier)]


def optimal_slides(tier: str) -> list[int | None]:
    """The stored optimal slide count of each level of ``tier``, in catalogue order."""
    return [n for _, n in _entries(tier)]


__all__ = ["catalogue_path", "load_catalogue", "optimal_slides", "parse_catalogue"]
