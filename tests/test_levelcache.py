"""The on-disk cache of generated levels (puzzlegym.game.levelcache): its layout, reuse across
processes, every kind of damaged or hostile file regenerated (never trusted), its byte bound,
and a cache that cannot be written."""

from __future__ import annotations

import json
import os
import time
import warnings

import pytest

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.version import __version__
from puzzlegym.game.levelcache import (
    FORMAT,
    LevelCache,
    default_max_bytes,
    default_root,
    generator_hash,
)
from puzzlegym.game.levelhash import is_catalogue_level
from puzzlegym.game.registry import get_game
from puzzlegym.game.splits import SEED_LIMIT, Split, TrainingLevels

MAZE = get_game("MazePaint")


def test_layout_is_version_game_tier_generator_seed(tmp_path):
    cache = LevelCache(tmp_path)
    level = MAZE.generate("Easy", 1234)
    cache.put(MAZE, "Easy", 1234, level)
    digest = generator_hash(MAZE)
    assert len(digest) == 64 and digest != generator_hash(get_game("RushHour"))
    path = tmp_path / "levels" / __version__ / "MazePaint" / "Easy" / digest[:16] / "1234.json"
    assert cache.path(MAZE, "Easy", 1234) == path and path.is_file()
    doc = json.loads(path.read_text())
    assert doc["format"] == FORMAT and doc["seed"] == 1234 and doc["generator"] == digest
    assert doc["level"] == MAZE.level_to_json(level)
    assert cache.get(MAZE, "Easy", 1234) == level and cache.hits == 1
    assert cache.get(MAZE, "Easy", 1235) is None and cache.misses == 1
    assert [p.name for p in path.parent.iterdir()] == ["1234.json"]  # no temporary file left


def test_a_second_process_reads_the_levels_instead_of_generating_them(tmp_path):
    split = Split(num_levels=5, start_level=500)
    first = TrainingLevels(MAZE, "Medium", split, cache=LevelCache(tmp_path))
    levels = [first.level(i) for i in range(5)]
    assert first.generated >= 5
    second = TrainingLevels(MAZE, "Medium", split, cache=LevelCache(tmp_path))  # fresh memo
    assert [second.level(i) for i in range(5)] == levels
    assert second.generated == 0 and second.cache.hits >= 5


def good_document(path) -> dict:
    return json.loads(path.read_text())


def digest(doc) -> str:
    import hashlib

    return hashlib.sha256(
        json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def changed_level(doc):
    """A real level change (the floor cell beside the start walled in), old digest kept."""
    level = dict(doc["level"])
    level["grid"] = [
        row.replace(".", "#", 1) if i == 1 else row for i, row in enumerate(level["grid"])
    ]
    return {**doc, "level": level}


def changed_and_redigested(doc):
    """A non-rectangular grid with a matching digest: only the strict loader can refuse it."""
    level = {**doc["level"], "grid": doc["level"]["grid"][:-1] + [doc["level"]["grid"][-1] + "#"]}
    return {**doc, "level": level, "level_sha256": digest(level)}


def with_metadata(doc):
    """Catalogue metadata the loader accepts and drops: the document does not round-trip."""
    level = {**doc["level"], "optimal_slides": 3}
    return {**doc, "level": level, "level_sha256": digest(level)}


CORRUPTIONS = {
    "truncated": lambda text, doc: text[: len(text) // 2],
    "empty": lambda text, doc: "",
    "nan": lambda text, doc: text.replace('"format_version": 1', '"format_version": NaN'),
    "not utf-8": lambda text, doc: b"\xff\xfe" + text.encode(),
    "deeply nested": lambda text, doc: "[" * 100_000 + "]" * 100_000,
    "huge": lambda text, doc: text + " " * (2 << 20),
    "a list": lambda text, doc: "[]",
    "extra key": lambda text, doc: json.dumps({**doc, "note": 1}),
    "missing key": lambda text, doc: json.dumps(
        {k: v for k, v in doc.items() if k != "level_sha256"}
    ),
    "changed level, old digest": lambda text, doc: json.dumps(changed_level(doc)),
    "invalid level, matching digest": lambda text, doc: json.dumps(changed_and_redigested(doc)),
    "level that does not round-trip": lambda text, doc: json.dumps(with_metadata(doc)),
    "another seed": lambda text, doc: json.dumps({**doc, "seed": doc["seed"] + 1}),
    "another tier": lambda text, doc: json.dumps({**doc, "tier": "Hard"}),
    "another generator": lambda text, doc: json.dumps({**doc, "generator": "0" * 64}),
    "another version": lambda text, doc: json.dumps({**doc, "puzzlegym_version": "0.0.1"}),
    "another format": lambda text, doc: json.dumps({**doc, "format_version": 2}),
    "huge seed": lambda text, doc: text.replace(f'"seed": {doc["seed"]}', '"seed": ' + "9" * 5000),
}


@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_a_damaged_file_is_regenerated_and_rewritten(tmp_path, kind):
    split = Split(num_levels=1, start_level=777)
    reference = TrainingLevels(MAZE, "Easy", split, cache=LevelCache(tmp_path)).level(0)
    path = LevelCache(tmp_path).path(MAZE, "Easy", 777)
    text = path.read_text()
    bad = CORRUPTIONS[kind](text, json.loads(text))
    path.write_bytes(bad if isinstance(bad, bytes) else bad.encode())

    cache = LevelCache(tmp_path)
    assert cache.get(MAZE, "Easy", 777) is None and cache.corrupted == 1
    training = TrainingLevels(MAZE, "Easy", split, cache=cache)
    assert training.level(0) == reference and training.generated == 1  # generated again
    assert cache.corrupted == 2 and cache.written == 1
    assert path.read_text() == text  # and the file is good again
    assert LevelCache(tmp_path).get(MAZE, "Easy", 777) == reference


def test_a_valid_file_holding_a_catalogue_level_is_still_refused(tmp_path):
    """A hostile cache entry, well formed and with a right digest, whose level is a catalogue
    level: the cache serves it (it is a valid level), the split refuses it by its hash."""
    cache = LevelCache(tmp_path)
    catalogue_level = MAZE.load_catalogue("Easy")[3]
    cache.put(MAZE, "Easy", 4242, catalogue_level)
    assert cache.get(MAZE, "Easy", 4242) == catalogue_level
    training = TrainingLevels(MAZE, "Easy", Split(1, 4242), cache=cache)
    source, level = training.entry(0)
    assert source == 4242 + SEED_LIMIT and not is_catalogue_level(MAZE, level)
    assert level == MAZE.generate("Easy", 4242 + SEED_LIMIT)


def test_the_cache_stays_within_its_bound_evicting_the_oldest_files(tmp_path):
    probe = LevelCache(tmp_path / "probe")
    probe.put(MAZE, "Easy", 1, MAZE.generate("Easy", 1))
    block = probe.usage()  # what one level file takes on this disk
    assert block > 0
    cache = LevelCache(tmp_path / "cache", max_bytes=10 * block)
    start = time.time() - 1000
    for i in range(11):
        cache.put(MAZE, "Easy", 100 + i, MAZE.generate("Easy", 100 + i))
        if i < 10:  # distinct ages, oldest first (the eleventh is written "now")
            os.utime(cache.path(MAZE, "Easy", 100 + i), (start + i, start + i))
    folder = cache.path(MAZE, "Easy", 100).parent
    kept = sorted(int(p.stem) for p in folder.glob("*.json"))
    assert kept == [104, 105, 106, 107, 108, 109, 110]  # down to 3/4 of the bound, oldest gone
    assert cache.evicted == 4 and cache.usage() == 7 * block <= cache.max_bytes


def test_stale_temporary_files_of_dead_writers_are_removed(tmp_path):
    cache = LevelCache(tmp_path)
    cache.put(MAZE, "Easy", 1, MAZE.generate("Easy", 1))
    folder = cache.path(MAZE, "Easy", 1).parent
    stale, fresh = folder / ".2.json.abc.tmp.json", folder / ".3.json.def.tmp.json"
    stale.write_text("{")
    fresh.write_text("{")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    cache.usage()
    assert not stale.exists() and fresh.exists()  # a writer may still be busy with the fresh one


def test_an_unwritable_cache_warns_once_and_generation_goes_on(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = LevelCache(blocker / "cache")
    training = TrainingLevels(MAZE, "Easy", Split(3, 900), cache=cache)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        levels = [training.level(i) for i in range(3)]
    assert levels == [MAZE.generate("Easy", 900 + i) for i in range(3)]
    assert len([w for w in caught if "cannot write" in str(w.message)]) == 1


def test_the_environment_chooses_the_root_and_the_bound(monkeypatch, tmp_path):
    monkeypatch.setenv("PUZZLEGYM_CACHE", str(tmp_path / "c"))
    assert default_root() == tmp_path / "c" and LevelCache.from_env().root == tmp_path / "c"
    for off in ("off", "0", "", "OFF"):
        monkeypatch.setenv("PUZZLEGYM_CACHE", off)
        assert default_root() is None and LevelCache.from_env() is None
        assert TrainingLevels(MAZE, "Easy", Split(1, 0)).cache is None
    monkeypatch.delenv("PUZZLEGYM_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_root() == tmp_path / "xdg" / "puzzlegym"
    monkeypatch.setenv("PUZZLEGYM_CACHE_MAX_MB", "3")
    assert default_max_bytes() == 3 * 2**20
    for bad in ("0", "-5", "1e3", "lots", "9" * 30):
        monkeypatch.setenv("PUZZLEGYM_CACHE_MAX_MB", bad)
        with pytest.raises(ConfigError, match="PUZZLEGYM_CACHE_MAX_MB"):
            default_max_bytes()


def test_cache_paths_take_only_checked_integers_and_tiers(tmp_path):
    cache = LevelCache(tmp_path)
    for bad in (-1, True, "1", 1.0, "../x"):
        with pytest.raises(ConfigError, match="seed"):
            cache.path(MAZE, "Easy", bad)
    with pytest.raises(ConfigError, match="tier"):
        cache.path(MAZE, "../../etc", 1)
