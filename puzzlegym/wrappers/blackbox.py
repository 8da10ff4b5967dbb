"""The black-box view: agents see pixels and public info only."""

from __future__ import annotations

import gymnasium as gym

from puzzlegym.wrappers.info import InfoWrapper

__all__ = ["PRIVATE_INFO_KEYS", "BlackBox"]

PRIVATE_INFO_KEYS = ("evaluator",)


class BlackBox(InfoWrapper, gym.utils.RecordConstructorArgs):
    """Removes the evaluator's private section (``info["evaluator"]``) from the infos that
    ``reset`` and ``step`` return; every other key and the observation pass unchanged.

    The inner info dict is not modified (a shallow copy is returned). This wrapper hides
    information from the *agent's data stream* only: it is not a sandbox. Code holding the
    wrapper can still reach the raw env via ``env.unwrapped`` (and its evaluator, suite and
    level), as Gymnasium wrappers always allow; agents that are meant to be black-box must
    simply not do that.
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        super().__init__(env)

    @staticmethod
    def public(info: dict) -> dict:
        """``info`` without its private keys (a new dict)."""
        return {k: v for k, v in info.items() if k not in PRIVATE_INFO_KEYS}

    def info(self, info: dict) -> dict:
        return self.public(info)
