"""The random agent: uniform samples of the env's action space (seeded)."""

from __future__ import annotations

from typing import Any

__all__ = ["RandomAgent"]


class RandomAgent:
    name = "random"

    def __init__(self, env, seed: int | None = None) -> None:
        self.space = env.action_space
        if seed is not None:
            self.space.seed(seed)

    def __call__(self, obs: Any = None, info: Any = None) -> dict:
        return self.space.sample()
