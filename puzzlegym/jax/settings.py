"""What every JAX learner's settings share (:class:`~puzzlegym.jax.ppo.PPOConfig`,
:class:`~puzzlegym.jax.planner.PlannerConfig`): counts and rates checked by name, the network,
the update's steps split into equal minibatches, and the mapping form a run's ``config.json``
holds (unknown keys refused by name)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, ClassVar, TypeVar

from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_count, check_number
from puzzlegym.jax.policy.network import NetworkSpec

__all__ = ["LearnerSettings"]

S = TypeVar("S", bound="LearnerSettings")


class LearnerSettings:
    """A mixin of a frozen dataclass with ``num_envs``, ``num_steps``, ``num_minibatches`` and
    ``network`` fields: :meth:`check` (called by its ``__post_init__``), :attr:`steps_per_update`,
    :meth:`to_dict` and :meth:`from_dict`. ``COUNTS`` and ``RATES`` name the integer and the
    real fields with their bounds; ``SECTION`` is the config section's name."""

    COUNTS: ClassVar[dict[str, tuple[int, int]]]
    RATES: ClassVar[dict[str, tuple[float, float]]]
    SECTION: ClassVar[str]
    num_envs: int
    num_steps: int
    num_minibatches: int
    network: NetworkSpec

    def check(self) -> None:
        for name, (lo, hi) in self.COUNTS.items():
            check_count(getattr(self, name), name, lo, hi, ConfigError)
        for name, (low, high) in self.RATES.items():
            value = check_number(getattr(self, name), name, low, high, ConfigError)
            object.__setattr__(self, name, value)
        if not isinstance(self.network, NetworkSpec):
            raise ConfigError(f"network: expected a NetworkSpec, got {shown(self.network)}")
        if self.steps_per_update % self.num_minibatches:
            raise ConfigError(
                f"num_minibatches: {self.num_minibatches} does not divide the "
                f"{self.steps_per_update} steps of an update (num_envs * num_steps)"
            )

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.num_steps

    def to_dict(self) -> dict:
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]
        out["network"] = self.network.to_dict()
        return out

    @classmethod
    def from_dict(cls: type[S], doc: Any) -> S:
        """Settings from :meth:`to_dict`'s form (unknown keys refused by name)."""
        if not isinstance(doc, Mapping):
            raise ConfigError(f"{cls.SECTION}: expected a mapping, got {shown(doc)}")
        names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        for key in doc:
            if key not in names:
                raise ConfigError(f"{key}: unknown key; allowed: {', '.join(names)}")
        doc = dict(doc)
        if "network" in doc:
            doc["network"] = NetworkSpec.from_dict(doc["network"])
        return cls(**doc)
