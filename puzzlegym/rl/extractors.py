"""Feature extractors for SB3 policies on the symbolic board (``observation="board"``).

:class:`BoardCNN` reads the ``(C, H, W)`` 0/1 planes of
:class:`~puzzlegym.wrappers.BoardObservation` with two 3x3 convolutions (padding 1, so every
cell keeps its place) and a linear layer: the same weights look at every cell, which suits
boards whose pieces move over a grid. Use it with ``MlpPolicy``
(``TrainConfig(extractor="board_cnn")``, or ``policy_kwargs={"features_extractor_class":
BoardCNN}``)."""

from __future__ import annotations

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from puzzlegym.base.errors import ConfigError

__all__ = ["BoardCNN"]


class BoardCNN(BaseFeaturesExtractor):
    """Two 3x3 convolutions of ``channels`` filters (ReLU) over the board planes, flattened,
    then a linear layer to ``features_dim`` (ReLU)."""

    def __init__(
        self, observation_space: spaces.Box, channels: int = 32, features_dim: int = 256
    ) -> None:
        if not isinstance(observation_space, spaces.Box) or len(observation_space.shape) != 3:
            raise ConfigError(
                f"BoardCNN: reads the symbolic board's (C, H, W) planes, got {observation_space}"
            )
        super().__init__(observation_space, features_dim)
        c, h, w = observation_space.shape
        self.net = nn.Sequential(
            nn.Conv2d(c, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(channels * h * w, features_dim),
            nn.ReLU(),
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations.float())
