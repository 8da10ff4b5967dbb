"""The on-disk cache of generated levels: what ``game.generate(tier, seed)`` returned, one
file per (game, tier, seed), so a slow tier (solver verification) is generated once per
machine rather than once per process.

Layout (``root`` is ``$PUZZLEGYM_CACHE``, else ``$XDG_CACHE_HOME/puzzlegym``, else
``~/.cache/puzzlegym``; ``PUZZLEGYM_CACHE=off`` turns the cache off)::

    <root>/levels/<puzzlegym version>/<Game>/<Tier>/<generator hash, 16 hex>/<seed>.json

The generator hash is the SHA-256 of the game package's Python sources and the solvers'
(:func:`generator_hash`), so editing a generator, its rules or a solver starts a new
directory instead of serving stale levels. A file is one JSON object::

    {"format": "puzzlegym-level-cache", "format_version": 1, "puzzlegym_version": ...,
     "generator": <full generator hash>, "game": ..., "tier": ..., "seed": ...,
     "level": <the level document>, "level_sha256": <SHA-256 of the level document>}

written atomically (:func:`puzzlegym.base.jsonio.write_atomic`). Reading trusts nothing: the file
must be small, strict JSON with exactly these keys and values, its level document must match
its digest, load through the game's strict ``level_from_json`` and write back to the same
document; anything else counts as corrupted (:attr:`LevelCache.corrupted`) and the caller
generates the level again, overwriting the file.

The cache is bounded in bytes on disk (``PUZZLEGYM_CACHE_MAX_MB``, default 256): the
writer measures the tree when it first writes and again after each sixteenth of the bound
it has written, and when the tree is over the bound deletes the least recently written
files (every version and game alike) down to three quarters of it. Several processes share
the tree; each keeps the bound this way, so it can be passed by at most a sixteenth of it
per process writing at that moment.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import time
import warnings
from pathlib import Path
from typing import Any

from puzzlegym.base import jsonio
from puzzlegym.base.errors import ConfigError, LevelError, PuzzleGymError
from puzzlegym.base.fields import check_count
from puzzlegym.base.version import __version__
from puzzlegym.game import Game

FORMAT = "puzzlegym-level-cache"
FORMAT_VERSION = 1
KEYS = (
    "format",
    "format_version",
    "puzzlegym_version",
    "generator",
    "game",
    "tier",
    "seed",
    "level",
    "level_sha256",
)
DEFAULT_MAX_MB = 256
MAX_FILE_BYTES = 1 << 20  # far above any level document (the largest catalogue level is ~3 KB)
OFF = ("off", "0", "none", "false")
STALE_TEMP_S = 600.0  # a writer's temporary file older than this was left by a dead process

_GENERATOR_HASHES: dict[str, str] = {}


def _digest(doc: Any) -> str:
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def generator_hash(game: Game) -> str:
    """SHA-256 (hex) of the sources a generated level of ``game`` depends on: every ``.py``
    file of the game's package (its solver included) and of the generic search engines
    (``puzzlegym.solvers``), by name and content."""
    found = _GENERATOR_HASHES.get(game.name)
    if found is None:
        h = hashlib.sha256()
        for name in (game.package, "puzzlegym.solvers"):
            spec = importlib.util.find_spec(name)
            if spec is None or spec.origin is None:
                raise PuzzleGymError(f"{name} is not installed (a generated level's sources)")
            folder = Path(spec.origin).resolve().parent
            for path in sorted(folder.rglob("*.py")):
                h.update(f"{folder.name}/{path.relative_to(folder).as_posix()}\n".encode())
                h.update(hashlib.sha256(path.read_bytes()).digest())
        found = _GENERATOR_HASHES[game.name] = h.hexdigest()
    return found


def default_root() -> Path | None:
    """The cache root the environment asks for (None: the cache is off)."""
    value = os.environ.get("PUZZLEGYM_CACHE")
    if value is not None:
        if value.strip().lower() in OFF or not value.strip():
            return None
        return Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "puzzlegym"


def default_max_bytes() -> int:
    value = os.environ.get("PUZZLEGYM_CACHE_MAX_MB")
    if value is None:
        return DEFAULT_MAX_MB * 2**20
    try:
        mb = int(value)
    except ValueError:
        mb = -1
    if not 1 <= mb <= 2**20:
        raise ConfigError(
            "PUZZLEGYM_CACHE_MAX_MB: expected an integer 1..1048576 (megabytes), "
            f"got {value[:40]!r}"
        )
    return mb * 2**20


def _disk_bytes(st: os.stat_result) -> int:
    blocks = getattr(st, "st_blocks", None)
    return blocks * 512 if blocks is not None else st.st_size


class LevelCache:
    """Generated levels under ``root`` (see the module docstring), at most about
    ``max_bytes`` on disk. ``get`` returns a cached level or None; ``put`` stores one.
    :attr:`hits`, :attr:`misses`, :attr:`corrupted`, :attr:`written` and :attr:`evicted`
    count what happened in this process."""

    def __init__(self, root: str | os.PathLike, max_bytes: int | None = None) -> None:
        self.root = Path(root)
        self.max_bytes = default_max_bytes() if max_bytes is None else int(max_bytes)
        if self.max_bytes < 1:
            raise ConfigError(f"max_bytes: expected a positive number of bytes, got {max_bytes!r}")
        self.hits = self.misses = self.corrupted = self.written = self.evicted = 0
        self._usage: int | None = None  # bytes under root/levels at the last measurement
        self._since = 0  # bytes written since then
        self._broken = False  # writing failed once: stop trying (and warn once)

    @classmethod
    def from_env(cls) -> LevelCache | None:
        """The cache ``PUZZLEGYM_CACHE`` / ``PUZZLEGYM_CACHE_MAX_MB`` ask for, or None."""
        root = default_root()
        return None if root is None else cls(root)

    # ------------------------------------------------------------------ files
    @property
    def levels_dir(self) -> Path:
        return self.root / "levels"

    def path(self, game: Game, tier: str, seed: int) -> Path:
        """The file of ``game.generate(tier, seed)``."""
        check_count(seed, "seed", 0, None, ConfigError)
        if tier not in game.tiers:
            raise ConfigError(f"tier: {tier!r} is not a tier of {game.name}")
        return (
            self.levels_dir
            / __version__
            / game.name
            / tier
            / generator_hash(game)[:16]
            / f"{seed}.json"
        )

    def _document(self, game: Game, tier: str, seed: int, level_doc: dict) -> dict:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "puzzlegym_version": __version__,
            "generator": generator_hash(game),
            "game": game.name,
            "tier": tier,
            "seed": seed,
            "level": level_doc,
            "level_sha256": _digest(level_doc),
        }

    def get(self, game: Game, tier: str, seed: int):
        """The cached ``game.generate(tier, seed)``, or None when absent or not valid."""
        path = self.path(game, tier, seed)
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_FILE_BYTES + 1)
        except FileNotFoundError:
            self.misses += 1
            return None
        except OSError:
            self.misses += 1
            return None
        level = self._parse(game, tier, seed, data)
        if level is None:
            self.corrupted += 1
            return None
        self.hits += 1
        return level

    def _parse(self, game: Game, tier: str, seed: int, data: bytes):
        if len(data) > MAX_FILE_BYTES:
            return None
        try:
            doc = jsonio.loads(data)
        except (jsonio.JSONError, UnicodeDecodeError, ValueError, RecursionError):
            return None
        if not isinstance(doc, dict) or set(doc) != set(KEYS):
            return None
        level_doc = doc["level"]
        if not isinstance(level_doc, dict) or doc != self._document(game, tier, seed, level_doc):
            return None  # another format, version, generator, game, tier or seed, or a bad digest
        try:
            level = game.level_from_json(level_doc)
        except (LevelError, ValueError, TypeError, KeyError, IndexError, RecursionError):
            return None
        if level.tier != tier or game.level_to_json(level) != level_doc:
            return None
        return level

    def put(self, game: Game, tier: str, seed: int, level) -> None:
        """Store ``level`` as ``game.generate(tier, seed)`` (atomically; a failure to write
        turns the cache off for this process with one warning)."""
        if self._broken:
            return
        path = self.path(game, tier, seed)
        text = (
            json.dumps(self._document(game, tier, seed, game.level_to_json(level)), allow_nan=False)
            + "\n"
        )
        try:
            if self._usage is None:
                self._measure_and_prune()
            for attempt in range(2):
                path.parent.mkdir(parents=True, exist_ok=True)
                try:
                    jsonio.write_atomic(path, text)
                    break
                except FileNotFoundError:  # another process pruned the empty folder just now
                    if attempt:
                        raise
        except OSError as exc:
            self._broken = True
            warnings.warn(
                f"puzzlegym level cache {self.root}: cannot write ({exc}); generating without it",
                stacklevel=2,
            )
            return
        self.written += 1
        self._since += max(len(text), 4096)  # a small file takes at least one block
        assert self._usage is not None  # measured above
        if self._usage + self._since > self.max_bytes or self._since > self.max_bytes // 16:
            self._measure_and_prune()

    # ------------------------------------------------------------------ the bound
    def usage(self) -> int:
        """Bytes on disk under ``root/levels`` now."""
        return sum(size for _, size, _ in self._files())

    def _files(self) -> list[tuple[float, int, Path]]:
        """(mtime, bytes on disk, path) of every file under ``root/levels``; writers'
        temporary files left by dead processes are deleted on the way."""
        out = []
        now = time.time()
        for folder, _dirs, names in os.walk(self.levels_dir):
            for name in names:
                path = Path(folder) / name
                try:
                    st = path.lstat()
                except OSError:
                    continue
                if name.startswith(".") and now - st.st_mtime > STALE_TEMP_S:
                    path.unlink(missing_ok=True)
                    continue
                out.append((st.st_mtime, _disk_bytes(st), path))
        return out

    def _measure_and_prune(self) -> None:
        files = self._files()
        usage = sum(size for _, size, _ in files)
        if usage > self.max_bytes:
            target = self.max_bytes * 3 // 4
            for _, size, path in sorted(files):
                if usage <= target:
                    break
                try:
                    path.unlink()
                except FileNotFoundError:
                    pass
                usage -= size
                self.evicted += 1
            self._remove_empty_dirs()
        self._usage, self._since = usage, 0

    def _remove_empty_dirs(self) -> None:
        for folder, _dirs, _names in sorted(os.walk(self.levels_dir), key=lambda t: -len(t[0])):
            if Path(folder) != self.levels_dir:
                try:
                    os.rmdir(folder)
                except OSError:
                    pass  # not empty (or already gone)
