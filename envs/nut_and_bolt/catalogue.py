"""The canonical Nut and Bolt levels, stored in ``levels/<tier>.json``.

Each file is ``{"game": "NutAndBolt", "tier": <tier>, "levels": [<level>, ...]}`` where a level
is :meth:`Level.to_json` plus ``solution_length`` (the solver's solution length, recorded by
the generator) and ``optimal`` (whether A* proved it shortest). Files are rebuilt with ``python -m puzzlegym.envs.nut_and_bolt.generator --write``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from puzzlegym.envs.nut_and_bolt.rules import TIERS, Level
from puzzlegym.errors import ConfigError, LevelError

LEVELS_DIR = Path(__file__).resolve().parent / "levels"
_DOC_KEYS = ("game", "tier", "levels")


def catalogue_path(tier: str) -> Path:
    """The JSON file holding ``tier``'s levels."""
    if tier not in TIERS:
        raise ConfigError(f"tier: expected one of {', '.join(TIERS)}, got {tier!r}")
    return LEVELS_DIR / f"{tier.lower()}.json"


def parse_catalogue(doc: Any, tier: str) -> tuple[tuple[Level, int | None, bool | None], ...]:
    """Validate a catalogue document strictly; ``((level, solution_length, optimal), ...)``
    (None where the metadata is absent)."""
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
        out.append((level, item.get("solution_length"), item.get("optimal")))
    return tuple(out)


@cache
def _entries(tier: str) -> tuple[tuple[Level, int | None, bool | None], ...]:
    path = catalogue_path(tier)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise LevelError(f"catalogue {path.name}: cannot read: {exc}") from None
    return parse_catalogue(doc, tier)


def load_catalogue(tier: str) -> list[Level]:
    """The canonical levels of ``tier`` (validated), in catalogue order."""
    return [level for level, _n, _o in _entries(tier)]


def solution_lengths(tier: str) -> list[tuple[int | None, bool | None]]:
    """The stored ``(solution_length, optimal)`` of each level of ``tier``, in catalogue order."""
    return [(n, o) for _l, n, o in _entries(tier)]


__all__ = ["catalogue_path", "load_catalogue", "parse_catalogue", "solution_lengths"]
