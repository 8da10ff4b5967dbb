"""The env's keyword arguments checked before anything is built: :func:`parse_config` turns
them into an :class:`EnvConfig` or raises :class:`~puzzlegym.base.errors.ConfigError` naming
the first bad keyword and what is allowed."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from puzzlegym.base.errors import ConfigError, UnknownKeywordError, shown
from puzzlegym.base.fields import check_count, check_number
from puzzlegym.game import Game
from puzzlegym.game.registry import get_game
from puzzlegym.game.splits import Split, check_split

__all__ = [
    "ANNOTATION_KINDS",
    "CONFIG_KEYS",
    "OBSERVATIONS",
    "REWARDS",
    "STARTS",
    "EnvConfig",
    "parse_config",
]

STARTS = ("home", "board")
# the keys of PuzzleEnv.config: what shapes an episode (records and checkpoints carry it)
CONFIG_KEYS = frozenset(
    {
        "env_id",
        "backend",
        "start",
        "level",
        "clock",
        "budget_s",
        "reward",
        "action_cost_s",
        "levels",
        "num_levels",
        "start_level",
    }
)
OBSERVATIONS = ("pixels", "none")  # set_observation: frames, or none painted at all
REWARDS = ("potential", "sparse")
ANNOTATION_KINDS = ("intervention",)  # record lines wrappers may add (PuzzleEnv.annotate)


def _seconds(value: Any, name: str) -> float:
    return check_number(value, name, 0, None, ConfigError, numpy=True, lo_open=True, what="seconds")


def _check_record_dir(record_dir: Any) -> str:
    """``record_dir`` is a path whose parent can be created and written (a record goes to
    ``record_dir`` or, if that holds one, to ``record_dir-2``, ... beside it); checked by
    creating the parent and writing a probe file there, so a bad path fails here, not at the
    first reset."""
    if not isinstance(record_dir, (str, os.PathLike)) or not str(record_dir).strip():
        raise ConfigError(
            f"record_dir: expected a directory path (str or os.PathLike), got {shown(record_dir)}"
        )
    path = Path(record_dir)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"record_dir: {str(path)!r} exists and is not a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as exc:
        raise ConfigError(
            f"record_dir: cannot write records under {str(path.parent)!r}: {exc.strerror}"
        ) from None
    return str(record_dir)


@dataclass(frozen=True)
class EnvConfig:
    """An env's checked keywords: the game and tier, ``config`` (what shapes an episode, the
    keys of :data:`CONFIG_KEYS`: records and checkpoints carry it), the split of generated
    levels (None: the catalogue) and the keywords that do not shape an episode."""

    game: Game
    tier: str
    config: dict[str, Any]
    split: Split | None
    render_mode: str | None
    record_dir: str | None
    record_frames: str | None
    agent: str | None
    render_cache_bytes: int | None


def parse_config(
    game: str,
    tier: str,
    backend: str = "native",
    start: str = "home",
    level: int | None = None,
    clock: str = "sim",
    budget_s: float = 3600.0,
    reward: str = "potential",
    render_mode: str | None = None,
    action_cost_s: float = 1.0,
    levels: str = "catalogue",
    num_levels: int | None = None,
    start_level: int | None = None,
    record_dir: str | None = None,
    agent: str | None = None,
    record_frames: str | None = None,
    render_cache_bytes: int | None = None,
    **unknown: Any,
) -> EnvConfig:
    """Check every keyword of :class:`puzzlegym.env.PuzzleEnv` (see its docstring)."""
    if unknown:
        raise UnknownKeywordError.naming(
            sorted(unknown)[0],
            "puzzlegym envs",
            "backend, start, level, clock, budget_s, reward, render_mode, action_cost_s, "
            "levels, num_levels, start_level, record_dir, agent, record_frames, "
            "render_cache_bytes",
        )
    if agent is not None and (not isinstance(agent, str) or not 1 <= len(agent) <= 200):
        raise ConfigError(
            f"agent: expected None or the agent's name (1..200 characters), got {shown(agent)}"
        )
    the_game = get_game(game)
    if tier not in the_game.tiers:
        raise ConfigError(
            f"tier: {tier!r} is not a tier of {game}; allowed: {', '.join(the_game.tiers)}"
        )
    n = len(the_game.catalogue(tier))
    if start not in STARTS:
        raise ConfigError(f"start: {start!r} is not allowed; allowed: {', '.join(STARTS)}")
    level = check_count(
        level, "level", 1, n, ConfigError, optional=True, what=f"a level of {game}-{tier}"
    )
    if clock not in ("sim", "wall"):
        raise ConfigError(f"clock: {clock!r} is not allowed; allowed: sim, wall")
    budget_s = _seconds(budget_s, "budget_s")
    if reward not in REWARDS:
        raise ConfigError(f"reward: {reward!r} is not allowed; allowed: {', '.join(REWARDS)}")
    if render_mode not in (None, "rgb_array"):
        raise ConfigError(
            f"render_mode: {render_mode!r} is not supported; allowed: None, 'rgb_array'"
        )
    action_cost_s = _seconds(action_cost_s, "action_cost_s")
    split = check_split(levels, num_levels, start_level)
    if record_frames not in (None, "hash"):
        raise ConfigError(f"record_frames: {record_frames!r} is not allowed; allowed: None, 'hash'")
    if record_dir is not None:
        record_dir = _check_record_dir(record_dir)
    render_cache_bytes = check_count(
        render_cache_bytes, "render_cache_bytes", 0, None, ConfigError, optional=True
    )
    config: dict[str, Any] = {
        "env_id": the_game.env_id(tier),
        "backend": backend,
        "start": start,
        "level": level,
        "clock": clock,
        "budget_s": budget_s,
        "reward": reward,
        "action_cost_s": action_cost_s,
        "levels": levels,
    }
    if split is not None:  # catalogue configs stay as they were (records, checkpoints)
        config.update(num_levels=split.num_levels, start_level=split.start_level)
    return EnvConfig(
        the_game,
        tier,
        config,
        split,
        render_mode,
        record_dir,
        record_frames,
        agent,
        render_cache_bytes,
    )
