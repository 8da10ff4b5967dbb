"""Public info numbers as numpy scalars: the form tensor libraries' info readers take."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

__all__ = ["NUMERIC_INFO_KEYS", "InfoWrapper", "NumpyInfo", "torchrl_info_reader"]

# the public info keys that hold numbers, and the numpy type each becomes
NUMERIC_INFO_KEYS: dict[str, type] = {
    "step": np.int64,
    "actions": np.int64,
    "elapsed_s": np.float64,
    "budget_s": np.float64,
    "accepted": np.bool_,
}


class InfoWrapper(gym.Wrapper):
    """A wrapper that changes only the infos of ``reset`` and ``step`` (:meth:`info` maps
    one info to a new dict); observations, rewards and flags pass unchanged."""

    def info(self, info: dict) -> dict:
        raise NotImplementedError

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self.info(info)

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, self.info(info)


class NumpyInfo(InfoWrapper, gym.utils.RecordConstructorArgs):
    """The public numbers of ``reset`` and ``step`` infos (:data:`NUMERIC_INFO_KEYS`: the
    step and action counts, the elapsed time and the budget, whether the step was accepted)
    as numpy scalars of one type each; every other key (text: the screen, the feedback line,
    the instruction; the list of pressed controls) passes unchanged. The inner info dict is
    not modified.

    Tensor libraries read infos by their ``dtype``: TorchRL's ``GymWrapper`` takes these keys
    with ``env.set_info_dict_reader(torchrl_info_reader())`` or
    ``env.auto_register_info_dict(info_dict_reader=torchrl_info_reader())`` (a bare
    ``auto_register_info_dict()`` reads every key, and text has no tensor form).
    ``make_sb3_env`` includes this wrapper.
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        super().__init__(env)

    def info(self, info: dict) -> dict:
        """``info`` with its numbers as numpy scalars (a new dict)."""
        out = dict(info)
        for key, kind in NUMERIC_INFO_KEYS.items():
            if key in out:
                out[key] = kind(out[key])
        return out


def torchrl_info_reader():
    """TorchRL's ``default_info_dict_reader`` for :data:`NUMERIC_INFO_KEYS` alone, each with a
    declared spec of its tensor dtype: ``step`` and ``actions`` int64, ``elapsed_s`` and
    ``budget_s`` float64, ``accepted`` bool (``torch.bool`` in the specs, the fake
    tensordict and every rollout; a reader given the keys without specs declares float32).
    The text keys (``screen``, ``feedback``, ``instruction``) and the ``pressed`` list are
    not read: they have no tensor form, and TorchRL's own ``auto_register_info_dict()``,
    which reads every key, fails on them.

    Use it over an env whose infos :class:`NumpyInfo` typed (``make_sb3_env`` does):
    ``GymWrapper(env).set_info_dict_reader(torchrl_info_reader())``, or
    ``GymWrapper(env).auto_register_info_dict(info_dict_reader=torchrl_info_reader())``.
    Python's ``int`` and ``bool`` (a raw env's infos) have no ``dtype`` for the reader.
    Needs TorchRL (the ``torchrl`` extra)."""
    import torch
    from torchrl.data import Unbounded
    from torchrl.envs import default_info_dict_reader

    dtypes = {np.int64: torch.int64, np.float64: torch.float64, np.bool_: torch.bool}
    spec = {key: Unbounded((), dtype=dtypes[kind]) for key, kind in NUMERIC_INFO_KEYS.items()}
    return default_info_dict_reader(list(NUMERIC_INFO_KEYS), spec=spec)
