"""Observation wrappers: the screen resized (and optionally grayscale) for learning."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from PIL import Image

from puzzlegym.base.errors import ConfigError

__all__ = ["DownscaleObservation"]

_RESAMPLE = {"box": Image.Resampling.BOX, "bilinear": Image.Resampling.BILINEAR}


class DownscaleObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Resizes an ``(H, W, 3)`` uint8 screen to ``size=(height, width)`` with Pillow.

    ``resample`` is ``"box"`` (area average, the default; best for strong downscaling) or
    ``"bilinear"``. With ``grayscale=True`` the result is ``(height, width, 1)`` (ITU-R 601
    luma, Pillow's ``"L"`` mode); the channel axis is kept so image-aware libraries still see
    an image. The result is a fresh uint8 array; the same input always gives the same output.
    """

    def __init__(
        self,
        env: gym.Env,
        size: tuple[int, int] = (84, 84),
        grayscale: bool = False,
        resample: str = "box",
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, size=tuple(size), grayscale=grayscale, resample=resample
        )
        super().__init__(env)
        space = env.observation_space
        if not (
            isinstance(space, spaces.Box)
            and space.dtype == np.uint8
            and len(space.shape) == 3
            and space.shape[2] == 3
        ):
            raise ConfigError(
                f"DownscaleObservation: needs a uint8 (H, W, 3) Box observation, got {space}"
            )
        height, width = (int(v) for v in size)
        if height < 1 or width < 1:
            raise ConfigError(f"size: expected positive (height, width), got {size!r}")
        if resample not in _RESAMPLE:
            raise ConfigError(f"resample: {resample!r} is not allowed; allowed: box, bilinear")
        self.size = (height, width)
        self.grayscale = bool(grayscale)
        self._resample = _RESAMPLE[resample]
        channels = 1 if self.grayscale else 3
        self.observation_space = spaces.Box(0, 255, (height, width, channels), np.uint8)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        height, width = self.size
        img = Image.fromarray(np.asarray(observation, dtype=np.uint8), "RGB")
        img = img.resize((width, height), self._resample)  # Pillow takes (width, height)
        if self.grayscale:
            return np.asarray(img.convert("L"), dtype=np.uint8)[:, :, None].copy()
        return np.array(img, dtype=np.uint8)
