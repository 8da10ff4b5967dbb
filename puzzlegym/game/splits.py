"""Level splits as Procgen has them: train on generated levels, test on the catalogue.

``gym.make(id, levels="generated", num_levels=N, start_level=S)`` plays levels of the
objective's tier drawn from a *training distribution*: training level ``i`` (``i >= 0``) has
level seed ``S + i mod M``, where ``M = N``, or ``M = 2**31 - S`` when ``N = 0`` (unbounded:
every level seed from ``S`` up). Defaults: ``num_levels=0``, ``start_level=0``.

* **The level of a seed.** Level seed ``s`` is ``game.generate(tier, s)`` (seeded and
  solver-verified), unless that level is a catalogue level of the game (any tier, by its
  canonical hash: :mod:`puzzlegym.game.levelhash`), has more board targets than the tier's
  largest catalogue level (so action spaces padded to the tier fit every generated level),
  or the generator finds none for that seed (``RuntimeError``); then the next candidate is
  ``generate(tier, s + 2**31)``, ``s + 2 * 2**31``, ... (seeds no other level seed uses), at
  most :data:`MAX_REDRAWS` times. So the catalogue's levels are a clean test set.
* **An episode's levels.** An objective of ``n`` target levels (the tier's catalogue size) is
  ``n`` consecutive training levels: each reset draws the episode's first training level
  ``j`` uniformly from ``[0, M)`` with the env's seeded generator (``env.np_random``:
  ``reset(seed=k)`` seeds it, later resets without a seed continue it, as in Gymnasium), and
  level ``k`` (1-based) of the episode is training level ``j + k - 1``. With ``level=k`` the
  episode is that one level, so one-level episodes play training levels uniformly too.
  ``reset(options={"first_level": j})`` fixes ``j`` instead of drawing it (replays use it).
  The episode's first target level is generated at reset, before anything changes; the
  others when first opened (a level never reached costs nothing). Levels are kept in memory
  (:data:`MEMO_LEVELS` per env) and on disk (:mod:`puzzlegym.game.levelcache`).

The env's config carries ``levels``, ``num_levels`` and ``start_level`` (records and
checkpoints too) and its checkpoints the episode's ``first_level``, so a generated episode
restores and replays exactly.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlegym.base.errors import ConfigError, LevelError, shown
from puzzlegym.base.fields import check_count
from puzzlegym.game import Game
from puzzlegym.game.levelcache import LevelCache
from puzzlegym.game.levelhash import catalogue_hashes, level_hash
from puzzlegym.screen.layout import BOARD_AREA

LEVELS = ("catalogue", "generated")
SEED_LIMIT = 2**31  # level seeds are 0 .. 2**31 - 1 (Procgen's range)
MAX_REDRAWS = 64  # candidates tried for one level seed before giving up
MEMO_LEVELS = 1024  # generated levels an env keeps in memory

_TIER_TARGETS: dict[tuple[str, str], int] = {}


@dataclass(frozen=True)
class Split:
    """The training distribution's seeds: ``num_levels`` (0: unbounded) from ``start_level``."""

    num_levels: int
    start_level: int

    @property
    def size(self) -> int:
        """``M``: the number of distinct level seeds (``2**31 - start_level`` if unbounded)."""
        return self.num_levels or SEED_LIMIT - self.start_level

    def level_seed(self, index: int) -> int:
        """The level seed of training level ``index``: ``start_level + index mod M``."""
        return self.start_level + index % self.size

    def draw(self, rng: np.random.Generator) -> int:
        """An episode's first training level, uniform over ``[0, M)``."""
        return int(rng.integers(0, self.size))

    def check_first_level(self, value: Any, where: str) -> int:
        """``value`` as an episode's first training level (``where`` names it in errors)."""
        return check_count(
            value, where, 0, self.size - 1, ConfigError, numpy=True, what="a training level"
        )


def check_split(levels: Any, num_levels: Any = None, start_level: Any = None) -> Split | None:
    """The env keywords ``levels``, ``num_levels`` and ``start_level`` checked together: a
    :class:`Split` for ``levels="generated"`` (None given: 0), None for the catalogue (which
    takes neither keyword). Raises :class:`ConfigError` naming the keyword."""
    if not isinstance(levels, str) or levels not in LEVELS:
        raise ConfigError(f"levels: {shown(levels)} is not allowed; allowed: {', '.join(LEVELS)}")
    if levels == "catalogue":
        for name, value in (("num_levels", num_levels), ("start_level", start_level)):
            if value is not None:
                raise ConfigError(
                    f"{name}: only with levels='generated' (the catalogue's levels are fixed); "
                    f"got {name}={shown(value)} with levels='catalogue'"
                )
        return None
    start = check_count(
        0 if start_level is None else start_level,
        "start_level",
        0,
        SEED_LIMIT - 1,
        ConfigError,
        numpy=True,
        what="the first level seed",
    )
    n = check_count(
        0 if num_levels is None else num_levels,
        "num_levels",
        0,
        None,
        ConfigError,
        numpy=True,
        what="0: unbounded",
    )
    if start + n > SEED_LIMIT:
        raise ConfigError(
            f"num_levels: start_level + num_levels must be at most 2**31 (level seeds are "
            f"0..{SEED_LIMIT - 1}), got start_level={start}, num_levels={n}"
        )
    return Split(n, start)


def level_targets(game: Game, level: Any) -> int:
    """How many board targets (``GameView.board_targets``) ``level`` has at its start."""
    state = game.rules.initial_state(level)
    return len(
        game.view.board_targets(level, state, game.view.initial_ui(level, state), BOARD_AREA)
    )


def tier_targets(game: Game, tier: str) -> int:
    """The most board targets of a catalogue level of ``tier``: what every generated level of
    the tier fits (computed once)."""
    key = (game.name, tier)
    if key not in _TIER_TARGETS:
        _TIER_TARGETS[key] = max(level_targets(game, level) for level in game.catalogue(tier))
    return _TIER_TARGETS[key]


class TrainingLevels:
    """The training distribution of one tier under a :class:`Split`: :meth:`level` ``(i)``
    is training level ``i`` (see the module docstring), generated on first use, then kept in
    memory (the :data:`MEMO_LEVELS` most recent) and in ``cache`` (a
    :class:`~puzzlegym.game.levelcache.LevelCache`; ``"env"``: the one ``PUZZLEGYM_CACHE`` names;
    None: none). :attr:`generated` counts the calls of the game's generator."""

    def __init__(
        self, game: Game, tier: str, split: Split, cache: LevelCache | str | None = "env"
    ) -> None:
        if tier not in game.tiers:
            raise ConfigError(
                f"tier: {tier!r} is not a tier of {game.name}; allowed: {', '.join(game.tiers)}"
            )
        if not isinstance(split, Split):
            raise ConfigError(
                f"split: expected a puzzlegym.game.splits.Split, got {type(split).__name__}"
            )
        self.game, self.tier, self.split = game, tier, split
        if cache is not None and cache != "env" and not isinstance(cache, LevelCache):
            raise ConfigError(
                f"cache: expected a puzzlegym LevelCache, 'env' or None, got {shown(cache)}"
            )
        self.cache = LevelCache.from_env() if isinstance(cache, str) else cache
        self.generated = 0
        self._memo: OrderedDict[int, tuple[int, Any]] = (
            OrderedDict()
        )  # level seed -> (source, level)

    def _generate(self, seed: int):
        """The generator's level for ``seed`` (None: the generator found none)."""
        if self.cache is not None:
            level = self.cache.get(self.game, self.tier, seed)
            if level is not None:
                return level
        self.generated += 1
        try:
            level = self.game.generate(self.tier, seed)
        except RecursionError:
            raise
        except RuntimeError:  # "no level found for seed ... in N attempts": take the next candidate
            return None
        if self.cache is not None:
            self.cache.put(self.game, self.tier, seed, level)
        return level

    def accepts(self, level: Any) -> bool:
        """Whether a generated level may be a training level: no catalogue level of the game
        (canonical hash) and no more board targets than the tier's largest catalogue level."""
        return level_hash(self.game, level) not in catalogue_hashes(self.game) and level_targets(
            self.game, level
        ) <= tier_targets(self.game, self.tier)

    def entry(self, index: int) -> tuple[int, Any]:
        """``(generator seed, level)`` of training level ``index``."""
        seed = self.split.level_seed(check_count(index, "index", 0, None, ConfigError, numpy=True))
        found = self._memo.get(seed)
        if found is not None:
            self._memo.move_to_end(seed)
            return found
        for k in range(MAX_REDRAWS):
            source = seed + k * SEED_LIMIT
            level = self._generate(source)
            if level is not None and self.accepts(level):
                break
        else:
            raise LevelError(
                f"{self.game.name}-{self.tier}: level seed {seed} has no training level: "
                f"for its {MAX_REDRAWS} candidates the generator found none, a catalogue "
                "level or one too large"
            )
        self._memo[seed] = (source, level)
        if len(self._memo) > MEMO_LEVELS:
            self._memo.popitem(last=False)
        return source, level

    def level(self, index: int):
        """Training level ``index``."""
        return self.entry(index)[1]


class LevelSet:
    """The levels of one tier in one episode, as the suite reads them (``len``, ``[k]``):
    the catalogue, or, given ``training``, the tier's ``n`` catalogue slots filled with
    training levels ``first``, ``first + 1``, ... (generated when first opened)."""

    def __init__(
        self, game: Game, tier: str, training: TrainingLevels | None = None, first: int = 0
    ) -> None:
        self.game, self.tier, self.training, self.first = game, tier, training, first
        self._levels: Sequence | None = None  # the catalogue, loaded when first read

    @property
    def _catalogue(self) -> Sequence:
        """The tier's catalogue, loaded when the suite first reads this tier (so an episode
        loads only the catalogues it shows, and one game's broken catalogue touches only the
        episodes that open that game)."""
        if self._levels is None:
            self._levels = self.game.catalogue(self.tier)
        return self._levels

    def __len__(self) -> int:
        return len(self._catalogue)

    def __getitem__(self, index: int):
        if self.training is None:
            return self._catalogue[index]
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self.training.level(self.first + index)
