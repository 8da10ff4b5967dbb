"""Stable-Baselines3 ready envs: the wrappers stacked for ``CnnPolicy``."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from puzzlegym.wrappers.action import DiscreteGUIActions
from puzzlegym.wrappers.blackbox import BlackBox
from puzzlegym.wrappers.observation import DownscaleObservation

__all__ = ["make_sb3_env"]

def make_sb3_env(
    env_id: str = "LongPuzzle/MazePaint-Easy",
    size: tuple[int, int] = (84, 84),
    grid: tuple[int, int] = (4, 4),
    grayscale: bool = False,
    swipes: bool = True,
    keys: bool = True,
    **env_kwargs: Any,
) -> gym.Env:
    """``gym.make(env_id, **env_kwargs)`` wrapped as BlackBox → DownscaleObservation →
    DiscreteGUIActions: observations ``(size[0], size[1], 3)`` uint8 (``1`` channel with
    ``grayscale``), a ``Discrete`` action space and public infos, ready for SB3's
    ``CnnPolicy`` (NatureCNN needs ``size`` of at least 36×36). ``env_kwargs`` go to
    ``gym.make`` (e.g. ``start="board"``, ``level=1``, ``budget_s=200``,
    ``max_episode_steps=...``)."""
    env = gym.make(env_id, **env_kwargs)
    env = BlackBox(env)
    env = DownscaleObservation(env, size=size, grayscale=grayscale)
    return DiscreteGUIActions(env, grid=grid, swipes=swipes, keys=keys)
