"""The generated held-out set: levels of a tier a training run never saw, next to the
catalogue.

A run trains on the split ``train`` (:class:`~puzzlegym.game.splits.Split`: ``num_levels``
level seeds from ``start_level``). Its generated held-out set of ``size`` levels is drawn
from the level seeds from ``start_level`` (a range disjoint from the training range, checked):
candidate ``j`` is level ``j`` of the unbounded split from there (so, as every generated
level, never a catalogue level of the game and never larger than the tier), kept unless its
canonical hash (:func:`~puzzlegym.game.levelhash.level_hash`: equal up to the game's
symmetries and names) is that of a training level or of a candidate kept before it. Disjoint
seed ranges can still hold the same board (a small generator space gives the same board to
several seeds), so the hashes, not the seeds, make the set disjoint.

At most ``max_candidates`` candidates are tried (default :data:`CANDIDATES_PER_LEVEL` times
``size``): a tier whose
generator has fewer new boards gives fewer levels, and :attr:`HeldOut.levels` says how many
(with :attr:`HeldOut.dropped_training` and :attr:`HeldOut.dropped_repeats`, the candidates
left out and why, and :attr:`HeldOut.training_distinct`, how many distinct boards the
training split's seeds gave). The levels are generated now or read from the level cache.

Examples:
    >>> from puzzlegym.game.splits import Split
    >>> from puzzlegym.game.registry import get_game
    >>> held = held_out(get_game("MazePaint"), "Easy", Split(20, 0), start_level=10_000, size=5)
    >>> len(held.levels), held.candidates, held.seeds[:2]
    (5, 5, [10000, 10001])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from puzzlegym.base.errors import ConfigError, LevelError
from puzzlegym.base.fields import check_count
from puzzlegym.game import Game
from puzzlegym.game.levelhash import level_hash
from puzzlegym.game.splits import SEED_LIMIT, Split, TrainingLevels

__all__ = [
    "CANDIDATES_PER_LEVEL",
    "MAX_HELD_OUT",
    "HeldOut",
    "check_seeds",
    "generator_size",
    "held_out",
]

MAX_HELD_OUT = 100_000  # levels a held-out set may hold
CANDIDATES_PER_LEVEL = 4  # candidates tried per level asked for, by default


@dataclass
class HeldOut:
    """A generated held-out set (see the module docstring): ``levels`` in order, the level
    seed each came from (``seeds``: the seed's candidate, as :class:`TrainingLevels` draws it),
    the candidates tried and those left out."""

    start_level: int
    size: int  # the levels asked for
    levels: list[Any] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)
    candidates: int = 0
    dropped_training: int = 0  # a training level's board
    dropped_repeats: int = 0  # a board kept before
    training_distinct: int = 0  # the distinct boards of the training split
    hashes: set[str] = field(default_factory=set, repr=False)  # the kept levels' hashes

    def to_dict(self) -> dict:
        """What a run's result says of the set (no levels)."""
        return {
            "start_level": self.start_level,
            "size": self.size,
            "levels": len(self.levels),
            "candidates": self.candidates,
            "dropped_training": self.dropped_training,
            "dropped_repeats": self.dropped_repeats,
            "training_distinct": self.training_distinct,
        }


def check_seeds(
    train: Split,
    start_level: Any,
    size: int,
    max_candidates: Any = None,
    name: str = "start_level",
) -> tuple[int, int]:
    """``(start_level, max_candidates)`` of a held-out set of ``size`` levels, checked: the
    candidate seeds ``[start_level, start_level + max_candidates)`` (default
    :data:`CANDIDATES_PER_LEVEL` a level) lie below ``2**31`` and outside ``train``'s range.
    Errors name ``name`` (the caller's key for ``start_level``)."""
    if not isinstance(train, Split):
        raise ConfigError(f"train: expected a puzzlegym.game.splits.Split, got {train!r}")
    if train.num_levels == 0:
        raise ConfigError("train: an unbounded training split leaves no level seed held out")
    most = check_count(
        CANDIDATES_PER_LEVEL * size if max_candidates is None else max_candidates,
        "max_candidates",
        size,
        CANDIDATES_PER_LEVEL * MAX_HELD_OUT,
        ConfigError,
    )
    start = check_count(start_level, name, 0, SEED_LIMIT - most, ConfigError)
    lo, hi = train.start_level, train.start_level + train.num_levels
    if start < hi and lo < start + most:
        raise ConfigError(
            f"{name}: the held-out seeds [{start}, {start + most}) overlap the training "
            f"seeds [{lo}, {hi}); start at {hi} or above"
        )
    return start, most


def held_out(
    game: Game,
    tier: str,
    train: Split,
    start_level: int,
    size: int,
    max_candidates: int | None = None,
) -> HeldOut:
    """The generated held-out set of ``size`` levels of ``game``'s ``tier`` for a run trained
    on ``train``, from level seed ``start_level`` (see the module docstring)."""
    size = check_count(size, "size", 1, MAX_HELD_OUT, ConfigError)
    start, most = check_seeds(train, start_level, size, max_candidates)
    training = TrainingLevels(game, tier, train)
    seen = {level_hash(game, training.level(i)) for i in range(train.num_levels)}
    candidates = TrainingLevels(game, tier, Split(0, start))
    out = HeldOut(start_level=start, size=size, training_distinct=len(seen))
    for j in range(most):
        if len(out.levels) == size:
            break
        out.candidates += 1
        try:
            source, level = candidates.entry(j)
        except LevelError:  # this seed's candidates are all refused: the next seed
            continue
        digest = level_hash(game, level)
        if digest in seen:
            if digest in out.hashes:
                out.dropped_repeats += 1
            else:
                out.dropped_training += 1
            continue
        seen.add(digest)
        out.hashes.add(digest)
        out.levels.append(level)
        out.seeds.append(source)
    return out


def generator_size(draws: int, distinct: int) -> int | None:
    """How many boards a generator holds, estimated from ``draws`` level seeds that gave
    ``distinct`` boards: the least ``N`` for which a uniform draw from ``N`` boards gives at
    least ``distinct`` of them in ``draws`` draws on average (``N (1 - (1 - 1/N)^draws) >=
    distinct``); None when no board repeated (the space is larger than the draws can tell).
    A generator that favours some boards holds more than its estimate.

    Examples:
        >>> generator_size(500, 500) is None
        True
        >>> generator_size(1000, 632)  # 1,000 draws from 1,000 boards give 632.3 on average
        999
    """
    draws = check_count(draws, "draws", 1, 2**40, ConfigError)
    distinct = check_count(distinct, "distinct", 1, draws, ConfigError)
    if distinct == draws:
        return None

    def expected(n: int) -> float:
        return n * -math.expm1(draws * math.log1p(-1 / n)) if n > 1 else 1.0

    lo, hi = distinct - 1, max(distinct, 2)
    while expected(hi) < distinct:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if expected(mid) < distinct:
            lo = mid
        else:
            hi = mid
    return hi
