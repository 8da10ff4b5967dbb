"""The fields every trainer's config shares, checked once: :class:`RunConfig`.

A trainer's config (:class:`puzzlegym.rl.train.TrainConfig`, SB3;
:class:`puzzlegym.jax.train.JaxTrainConfig`, JAX PPO and the planner) is a frozen dataclass that
extends :class:`RunConfig` with its learner's settings. The shared fields say what a run is
measured on and when: the ``protocol`` (:class:`~puzzlegym.training.protocol.Protocol`), the
``timesteps`` and ``seed``, ``episodes`` per level in every evaluation, the learning curve
(``curve_every`` steps; None: none), checkpoints (``checkpoint_every`` steps; None: none), the
generated held-out set (``heldout_generated`` levels from level seed ``heldout_generated_start``:
:mod:`puzzlegym.training.heldout`) and ``progress`` (a bar). Each is checked on construction and
an error names the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_count
from puzzlegym.game.heldout import MAX_HELD_OUT, check_seeds
from puzzlegym.training.protocol import MAX_EPISODES, Protocol

__all__ = ["HELDOUT_START", "MAX_TIMESTEPS", "RunConfig", "check_flag", "count"]

MAX_TIMESTEPS = 100_000_000
HELDOUT_START = 1_000_000  # the generated held-out set's first level seed (training: 0 .. 499)


def count(value: Any, name: str, lo: int, hi: int) -> int:
    """``value`` as a checked integer in ``lo..hi`` (a :class:`ConfigError` naming ``name``)."""
    return check_count(value, name, lo, hi, ConfigError)


def check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name}: expected true or false, got {shown(value)}")
    return value


@dataclass(frozen=True)
class RunConfig:
    """The fields every trainer's config shares (see the module docstring)."""

    protocol: Protocol
    timesteps: int = 100_000
    seed: int = 0
    episodes: int = 10
    curve_every: int | None = None
    checkpoint_every: int | None = None
    heldout_generated: int = 1000
    heldout_generated_start: int = HELDOUT_START
    progress: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.protocol, Protocol):
            raise ConfigError(
                "protocol: expected a puzzlegym.training.protocol.Protocol, got "
                f"{shown(self.protocol)}"
            )
        count(self.timesteps, "timesteps", 1, MAX_TIMESTEPS)
        count(self.seed, "seed", 0, 2**31 - 1)
        count(self.episodes, "episodes", 1, MAX_EPISODES)
        if self.curve_every is not None:
            count(self.curve_every, "curve_every", 1, MAX_TIMESTEPS)
        if self.checkpoint_every is not None:
            count(self.checkpoint_every, "checkpoint_every", 1, MAX_TIMESTEPS)
        count(self.heldout_generated, "heldout_generated", 0, MAX_HELD_OUT)
        if self.heldout_generated:
            check_seeds(
                self.protocol.split,
                self.heldout_generated_start,
                self.heldout_generated,
                name="heldout_generated_start",
            )
        check_flag(self.progress, "progress")

    def run_dict(self) -> dict:
        """The shared fields as ``config.json`` holds them (a trainer adds its own)."""
        return {
            "protocol": self.protocol.to_dict(),
            "timesteps": self.timesteps,
            "seed": self.seed,
            "episodes": self.episodes,
            "curve_every": self.curve_every,
            "checkpoint_every": self.checkpoint_every,
            "heldout_generated": self.heldout_generated,
            "heldout_generated_start": self.heldout_generated_start,
        }
