"""The actor-critic network of puzzlegym's JAX PPO (:mod:`puzzlegym.jax.ppo`) and of the
policies it saves (:mod:`puzzlegym.jax.policy.policy`), in flax.

:class:`NetworkSpec` is the whole description of a network (it is saved beside the weights,
so a policy file rebuilds its network from the file alone). ``kind="conv"`` reads the
symbolic board's ``(C, H, W)`` 0/1 planes with 3x3 convolutions (padding ``SAME``, so every
cell keeps its place and the same weights look at every cell, as
:class:`puzzlegym.rl.extractors.BoardCNN` does for SB3); ``kind="mlp"`` flattens any
observation. Both then share one dense ``features`` layer between the policy and the value
head, each head with its own ``hidden`` layers (ReLU throughout; orthogonal initialisation,
the policy's output scaled by 0.01 so the first policy is near uniform over the mask).

:func:`masked_logits` is how every caller applies an action mask: logits of disallowed
actions become :data:`MASKED`, a large finite negative number (not ``-inf``: the entropy
``sum p log p`` of a masked distribution stays finite), so sampling, ``argmax``, log
probabilities and entropies never choose or count a masked action.

Examples:
    >>> import jax, jax.numpy as jnp
    >>> spec = NetworkSpec(kind="conv", channels=(4,), features=16, hidden=())
    >>> net = spec.build(n_actions=5)
    >>> params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 3, 4, 4), jnp.uint8))
    >>> logits, value = net.apply(params, jnp.zeros((2, 3, 4, 4), jnp.uint8))
    >>> logits.shape, value.shape
    ((2, 5), (2,))
    >>> mask = jnp.array([True, False, True, False, False])
    >>> int(jnp.argmax(masked_logits(jnp.arange(5.0), mask)))
    2
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import flax.linen as nn
import jax.numpy as jnp

from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_count

__all__ = ["KINDS", "MASKED", "ActorCritic", "NetworkSpec", "masked_logits"]

KINDS = ("conv", "mlp")
MASKED = -1e9  # the logit of a masked action
MAX_WIDTH = 4096  # filters or units of one layer
MAX_LAYERS = 8


def masked_logits(logits: Any, mask: Any) -> Any:
    """``logits`` with every action whose ``mask`` entry is False set to :data:`MASKED`."""
    return jnp.where(mask, logits, MASKED)


def _layers(value: Any, name: str) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ConfigError(f"{name}: expected a list of layer sizes, got {shown(value)}")
    if len(value) > MAX_LAYERS:
        raise ConfigError(f"{name}: at most {MAX_LAYERS} layers, got {len(value)}")
    return tuple(
        check_count(v, f"{name}[{i}]", 1, MAX_WIDTH, ConfigError) for i, v in enumerate(value)
    )


@dataclass(frozen=True)
class NetworkSpec:
    """A network (by default ``configs/agent/jax_ppo.yaml``'s: an MLP of one 64-unit layer
    over the flattened planes, 3x3 convolutions being slow on XLA's CPU backend):
    ``kind`` (:data:`KINDS`), ``channels`` (the filters of each 3x3
    convolution; ``kind="conv"`` only, at least one), ``features`` (the shared dense layer)
    and ``hidden`` (each head's own layers). Every field is checked on construction."""

    kind: str = "mlp"
    channels: tuple[int, ...] = ()
    features: int = 64
    hidden: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(
                f"network.kind: {shown(self.kind)} is not allowed; allowed: {', '.join(KINDS)}"
            )
        channels = _layers(self.channels, "network.channels")
        if self.kind == "conv" and not channels:
            raise ConfigError("network.channels: kind='conv' needs at least one convolution")
        if self.kind == "mlp" and channels:
            raise ConfigError("network.channels: kind='mlp' has no convolutions; use []")
        object.__setattr__(self, "channels", channels)
        check_count(self.features, "network.features", 1, MAX_WIDTH, ConfigError)
        object.__setattr__(self, "hidden", _layers(self.hidden, "network.hidden"))

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "channels": list(self.channels),
            "features": self.features,
            "hidden": list(self.hidden),
        }

    @classmethod
    def from_dict(cls, doc: Any) -> NetworkSpec:
        """A spec from :meth:`to_dict`'s form (unknown keys refused by name)."""
        if not isinstance(doc, Mapping):
            raise ConfigError(f"network: expected a mapping, got {shown(doc)}")
        for key in doc:
            if key not in cls.__dataclass_fields__:
                raise ConfigError(
                    f"network.{key}: unknown key; allowed: {', '.join(cls.__dataclass_fields__)}"
                )
        return cls(**dict(doc))

    def check_observation(self, shape: Sequence[int]) -> None:
        """Refuse an observation shape this network cannot read (``conv``: ``(C, H, W)``)."""
        if self.kind == "conv" and len(shape) != 3:
            raise ConfigError(
                f"network.kind: 'conv' reads (C, H, W) board planes, got observations of shape "
                f"{tuple(shape)}; use kind='mlp'"
            )

    def build(self, n_actions: int) -> ActorCritic:
        """The flax module for ``n_actions`` actions."""
        return ActorCritic(
            n_actions=int(n_actions),
            kind=self.kind,
            channels=self.channels,
            features=self.features,
            hidden=self.hidden,
        )


def _dense(units: int, scale: float) -> nn.Dense:
    return nn.Dense(units, kernel_init=nn.initializers.orthogonal(scale))


class ActorCritic(nn.Module):
    """``(logits, value)``, shapes ``(B, n_actions)`` and ``(B,)``, of a batch of
    observations ``(B, *shape)`` (any dtype, read as float32). Built by
    :meth:`NetworkSpec.build`."""

    n_actions: int
    kind: str = "conv"
    channels: tuple[int, ...] = (16,)
    features: int = 128
    hidden: tuple[int, ...] = ()

    @nn.compact
    def __call__(self, obs: Any) -> tuple[Any, Any]:
        x = obs.astype(jnp.float32)
        if self.kind == "conv":
            x = jnp.moveaxis(x, -3, -1)  # (B, C, H, W) -> (B, H, W, C), flax's layout
            for width in self.channels:
                conv = nn.Conv(
                    width, (3, 3), padding="SAME", kernel_init=nn.initializers.orthogonal(2**0.5)
                )
                x = nn.relu(conv(x))
        x = x.reshape((x.shape[0], -1))
        x = nn.relu(_dense(self.features, 2**0.5)(x))
        pi = v = x
        for width in self.hidden:
            pi = nn.relu(_dense(width, 2**0.5)(pi))
            v = nn.relu(_dense(width, 2**0.5)(v))
        return _dense(self.n_actions, 0.01)(pi), _dense(1, 1.0)(v)[:, 0]
