"""The action mask inside the observation: the form of libraries that read masks from a
``Dict`` observation (RLlib's action-masking RLModule, among others) rather than from an
``action_masks()`` method (sb3-contrib's ``MaskablePPO``)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from puzzlegym.base.errors import ConfigError

__all__ = ["MASK_KEY", "OBSERVATION_KEY", "ActionMaskObservation"]

MASK_KEY = "action_mask"
OBSERVATION_KEY = "observations"


class ActionMaskObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Observations ``Dict({"action_mask": Box(0, 1, (n,), float32), "observations":
    <the wrapped observation>})``: the wrapped env's ``action_masks()`` (1.0 where an index
    is valid) beside its observation, read after every ``reset`` and ``step``, so the mask
    is the one of the observation it comes with.

    The wrapped env has a ``Discrete(n)`` action space and an ``action_masks()`` method
    (:class:`~puzzlegym.wrappers.BoardActions`, or ``make_sb3_env(actions="board")``); the
    mask is never all zeros (``BoardActions`` marks every index valid when none would change
    anything). The key names are those of RLlib's action-masking example RLModule.
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        super().__init__(env)
        if not isinstance(env.action_space, spaces.Discrete):
            raise ConfigError(
                f"ActionMaskObservation: needs a Discrete action space, got {env.action_space}; "
                "wrap the env in BoardActions (make_sb3_env(actions='board'))"
            )
        try:
            self._masks = env.get_wrapper_attr("action_masks")
        except AttributeError:
            raise ConfigError(
                "ActionMaskObservation: the env has no action_masks(); wrap it in BoardActions "
                "(make_sb3_env(actions='board')): the screen grid (actions='grid') has no masks"
            ) from None
        self.observation_space = spaces.Dict(
            {
                MASK_KEY: spaces.Box(0.0, 1.0, (int(env.action_space.n),), np.float32),
                OBSERVATION_KEY: env.observation_space,
            }
        )

    def observation(self, observation) -> dict:
        mask = np.asarray(self._masks(), dtype=np.float32)
        return {MASK_KEY: mask, OBSERVATION_KEY: observation}
