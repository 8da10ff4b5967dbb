"""Level catalogues on disk, one mechanism for every game.

A game's canonical levels live in its package's ``levels/<tier>.json`` as
``{"game": ..., "tier": ..., "levels": [<level>, ...]}``, where a level is the game's
``Level.to_json()`` plus catalogue metadata written by its generator (for example the
solver's solution length). :class:`Catalogue` loads and validates those files strictly,
:meth:`Catalogue.dumps` writes the stable, diff-friendly text the generators commit, and
:func:`generator_main` is the generators' command line (``--write``, ``--check``, ``--tier``,
``--seed``). Small checks shared by the games' ``Level.from_json`` live here too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from puzzlegym.base import jsonio
from puzzlegym.base.errors import ConfigError, LevelError, shown
from puzzlegym.base.fields import check_count

DOC_KEYS = ("game", "tier", "levels")


# ----------------------------------------------------------------------------- level checks


def check_level_keys(data: Any, required: Sequence[str], optional: Sequence[str] = ()) -> None:
    """A level document is an object with every ``required`` key and nothing unknown."""
    if not isinstance(data, dict):
        raise LevelError(f"level: expected a JSON object, got {type(data).__name__}")
    missing = [k for k in required if k not in data]
    if missing:
        raise LevelError(f"level: missing key(s) {', '.join(missing)}")
    allowed = tuple(required) + tuple(optional)
    extra = sorted(str(k) for k in data if k not in allowed)
    if extra:
        raise LevelError(
            f"level: unexpected key(s) {', '.join(extra)}; allowed: {', '.join(allowed)}"
        )


def check_id(value: Any) -> None:
    if not isinstance(value, str) or not value:
        raise LevelError(f"id: expected a non-empty string, got {shown(value)}")


def check_tier(value: Any, tiers: Sequence[str]) -> None:
    if value not in tiers:
        raise LevelError(f"tier: expected one of {', '.join(tiers)}, got {shown(value)}")


# ----------------------------------------------------------------------------- catalogue


def check_level_header(
    data: Any,
    required: Sequence[str],
    optional: Sequence[str],
    tiers: Sequence[str],
    counts: Sequence[str] = (),
) -> None:
    """The part every level document shares: an object with every ``required`` key and
    nothing unknown (:func:`check_level_keys`), each of ``counts`` (catalogue metadata) a
    non-negative integer when present, ``id`` and ``tier``."""
    check_level_keys(data, required, optional)
    for key in counts:
        if key in data:
            check_count(data[key], key, 0, None, LevelError)
    check_id(data["id"])
    check_tier(data["tier"], tiers)


class Catalogue:
    """The catalogue files of one game.

    ``level_from_json`` builds (and validates) a level; ``meta`` names the metadata keys the
    generator stores next to each level (returned by :meth:`meta`, None where absent);
    ``multiline`` the level field (a list: grid rows, bolts, boards) the committed files write
    one item per line (:meth:`text`).
    """

    def __init__(
        self,
        game: str,
        level_from_json: Callable[[Any], Any],
        levels_dir: Path,
        tiers: Sequence[str],
        meta: Sequence[str] = (),
        multiline: str | None = None,
    ) -> None:
        self.game, self.level_from_json, self.multiline = game, level_from_json, multiline
        self.levels_dir, self.tiers, self.meta_keys = Path(levels_dir), tuple(tiers), tuple(meta)
        self._cache: dict[str, tuple[tuple[Any, dict], ...]] = {}

    def path(self, tier: str) -> Path:
        """The JSON file holding ``tier``'s levels."""
        if tier not in self.tiers:
            raise ConfigError(f"tier: expected one of {', '.join(self.tiers)}, got {tier!r}")
        return self.levels_dir / f"{tier.lower()}.json"

    def parse(self, doc: Any, tier: str) -> tuple[tuple[Any, dict], ...]:
        """Validate a catalogue document strictly: ``((level, metadata), ...)``."""
        if not isinstance(doc, dict):
            raise LevelError(f"catalogue: expected a JSON object, got {type(doc).__name__}")
        if set(doc) != set(DOC_KEYS):
            raise LevelError(
                f"catalogue: keys must be exactly {', '.join(DOC_KEYS)}; "
                f"got {', '.join(sorted(map(str, doc)))}"
            )
        if doc["game"] != self.game:
            raise LevelError(f"game: expected {self.game!r}, got {shown(doc['game'])}")
        if doc["tier"] != tier:
            raise LevelError(f"tier: expected {tier!r}, got {shown(doc['tier'])}")
        raw = doc["levels"]
        if not isinstance(raw, list) or not raw:
            raise LevelError("levels: expected a non-empty list of level objects")
        out, ids = [], set()
        for i, item in enumerate(raw):
            try:
                level = self.level_from_json(item)
            except LevelError as exc:
                raise LevelError(f"levels[{i}]: {exc}") from None
            if level.tier != tier:
                raise LevelError(f"levels[{i}].tier: expected {tier!r}, got {level.tier!r}")
            if level.id in ids:
                raise LevelError(f"levels[{i}].id: duplicate id {level.id!r}")
            ids.add(level.id)
            out.append((level, {k: item.get(k) for k in self.meta_keys}))
        return tuple(out)

    def entries(self, tier: str) -> tuple[tuple[Any, dict], ...]:
        """The parsed file of ``tier`` (read once)."""
        if tier not in self._cache:
            path = self.path(tier)
            try:
                doc = jsonio.load_file(path)
            except OSError as exc:
                raise LevelError(f"catalogue {path}: cannot read: {exc.strerror}") from None
            except jsonio.JSONError as exc:
                raise LevelError(f"catalogue {path}: {exc}") from None
            try:
                self._cache[tier] = self.parse(doc, tier)
            except LevelError as exc:
                raise LevelError(f"catalogue {path}: {exc}") from None
        return self._cache[tier]

    def load(self, tier: str) -> list:
        """The canonical levels of ``tier`` (validated), in catalogue order."""
        return [level for level, _ in self.entries(tier)]

    def meta(self, tier: str) -> list[dict]:
        """The stored metadata of each level of ``tier``, in catalogue order."""
        return [dict(m) for _, m in self.entries(tier)]

    def document(self, tier: str, entries: Iterable[tuple[Any, dict]]) -> dict:
        """The catalogue document for ``(level, metadata)`` pairs (metadata keys in order)."""
        return {
            "game": self.game,
            "tier": tier,
            "levels": [
                {**level.to_json(), **{k: m[k] for k in self.meta_keys}} for level, m in entries
            ],
        }

    def text(self, doc: dict) -> str:
        """The committed file text of a catalogue document (:meth:`dumps` with this game's
        ``multiline`` field)."""
        return self.dumps(doc, self.multiline)

    @staticmethod
    def dumps(doc: dict, multiline: str | None) -> str:
        """The catalogue text: one JSON value per level field, the ``multiline`` field (a list:
        grid rows, bolts, boards) one item per line, so diffs stay readable."""
        lines = [
            "{",
            f'  "game": {json.dumps(doc["game"])},',
            f'  "tier": {json.dumps(doc["tier"])},',
        ]
        lines.append('  "levels": [')
        for k, level in enumerate(doc["levels"]):
            lines.append("    {")
            fields = list(level.items())
            for j, (key, value) in enumerate(fields):
                comma = "," if j < len(fields) - 1 else ""
                if key == multiline:
                    items = ",\n".join(f"        {json.dumps(item)}" for item in value)
                    lines.append(f'      "{key}": [\n{items}\n      ]{comma}')
                else:
                    lines.append(f'      "{key}": {json.dumps(value)}{comma}')
            lines.append("    }" + ("," if k < len(doc["levels"]) - 1 else ""))
        lines.append("  ]")
        lines.append("}")
        return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- generator CLI


def generator_main(
    argv: list[str] | None,
    *,
    game_title: str,
    module: str,
    catalogue: Catalogue,
    generate: Callable[[str, int], Any],
    build: Callable[..., list],
    document: Callable[[str, list], dict] | None = None,
    summarize: Callable[[str, list], str] | None = None,
) -> int:
    """The command line of a game's generator: ``--write`` rebuilds ``levels/*.json``,
    ``--check`` fails when they differ from what the generator builds, ``--seed N`` prints
    one procedural level, ``--tier`` restricts to one tier. ``document`` turns ``build``'s
    entries into the catalogue document (default: ``catalogue.document``, for entries that
    already are ``(level, metadata)`` pairs); files are written atomically."""
    parser = argparse.ArgumentParser(
        prog=f"python -m {module}",
        description=f"Generate {game_title} levels or rebuild the canonical catalogue.",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="rewrite levels/*.json")
    group.add_argument("--check", action="store_true", help="fail if levels/*.json differ")
    parser.add_argument("--tier", choices=catalogue.tiers, help="only this tier")
    parser.add_argument("--seed", type=int, help="print one generated level as JSON")
    args = parser.parse_args(argv)

    tiers = [args.tier] if args.tier else list(catalogue.tiers)
    if args.seed is not None:
        for tier in tiers:
            print(json.dumps(generate(tier, args.seed).to_json()))
        return 0
    status = 0
    for tier in tiers:
        t0 = time.perf_counter()
        print(f"{tier}:")
        entries = build(tier, log=print)
        extra = f"{summarize(tier, entries)}, " if summarize else ""
        print(f"  {extra}{time.perf_counter() - t0:.1f}s")
        text = catalogue.text((document or catalogue.document)(tier, entries))
        path = catalogue.path(tier)
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            jsonio.write_atomic(path, text)
            print(f"  wrote {path}")
        elif args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"  {path} is out of date", file=sys.stderr)
                status = 1
    return status
