"""MaskedPPOTorchRLModule: RLlib's default PPO model (torch, new API stack) that reads the
action mask from a ``Dict`` observation (``{"action_mask": ..., "observations": ...}``,
:class:`~puzzlegym.wrappers.ActionMaskObservation`) and never picks a masked action.

Imports ``ray.rllib`` (the ``rllib`` extra); :func:`puzzlegym.rl.rllib.ppo_config` uses it
for masked envs.
"""

from __future__ import annotations

from typing import Any, cast

import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns

from puzzlegym.base.errors import ConfigError
from puzzlegym.wrappers.action_mask import MASK_KEY, OBSERVATION_KEY

__all__ = ["MaskedPPOTorchRLModule"]


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default encoder, policy and value heads built for the ``"observations"``
    entry of a ``Dict`` observation space; the policy's logits of actions whose
    ``"action_mask"`` entry is 0 are lowered to the most negative float before sampling,
    greedy inference and the loss, so those actions get probability 0 (the mask is never
    all zeros). The value function sees the observations only."""

    def __init__(self, *, observation_space: spaces.Space | None = None, **kwargs: Any) -> None:
        if not (
            isinstance(observation_space, spaces.Dict)
            and set(observation_space.spaces) == {MASK_KEY, OBSERVATION_KEY}
        ):
            raise ConfigError(
                f"MaskedPPOTorchRLModule: needs a Dict observation space of {MASK_KEY!r} and "
                f"{OBSERVATION_KEY!r} (ActionMaskObservation), got {observation_space}"
            )
        super().__init__(observation_space=observation_space[OBSERVATION_KEY], **kwargs)
        # the env's space, as RLlib's connectors and checkpoints see it
        self.observation_space = observation_space

    @staticmethod
    def _split(batch: dict) -> tuple[torch.Tensor, dict]:
        obs = batch[Columns.OBS]
        return obs[MASK_KEY], {**batch, Columns.OBS: obs[OBSERVATION_KEY]}

    @staticmethod
    def _masked(out: dict, mask: torch.Tensor) -> dict:
        logits = out[Columns.ACTION_DIST_INPUTS]
        lowest = torch.finfo(logits.dtype).min
        out[Columns.ACTION_DIST_INPUTS] = torch.where(
            mask > 0, logits, torch.full_like(logits, lowest)
        )
        return out

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = self._split(batch)
        return self._masked(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings: Any = None) -> torch.Tensor:
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return cast(
            torch.Tensor, super().compute_values(batch, embeddings)
        )  # a torch module's values
