"""TorchRL clients: a TorchRL env over :func:`make_sb3_env` with the info numbers and the
action masks read (:func:`make_torchrl_env`), and TorchRL's spec for the raw env's GUI action
dicts (:func:`register_torchrl_spaces`, so ``torchrl.envs.GymEnv`` takes a raw id).

TorchRL (the ``torchrl`` extra) is imported only when one of these is called."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from puzzlegym.base.actions import GUIActionSpace
from puzzlegym.wrappers.action_mask import MASK_KEY, OBSERVATION_KEY, ActionMaskObservation
from puzzlegym.wrappers.info import torchrl_info_reader
from puzzlegym.wrappers.sb3 import make_sb3_env

__all__ = ["TORCHRL_DEFAULT_ACTION", "make_torchrl_env", "register_torchrl_spaces"]

# what TorchRL's spec of a GUI action dict gives for spec.rand() and spec.zero(), and so
# what a random rollout of the raw env sends at every step: the no-op
TORCHRL_DEFAULT_ACTION = {"type": "wait"}


def _gui_action_spec(space: GUIActionSpace, dtype=None, device=None, **_: Any):
    """TorchRL's spec of :class:`GUIActionSpace`: one action dict, not a tensor."""
    from torchrl.data import NonTensor

    return NonTensor((), device=device, example_data=dict(TORCHRL_DEFAULT_ACTION))


def register_torchrl_spaces() -> None:
    """Tell TorchRL how to convert the raw env's action space (:class:`GUIActionSpace`, the
    GUI action dicts), with TorchRL's public ``register_gym_spec_conversion``: the action
    spec becomes a ``NonTensor`` spec, one action dict per step. Call it once per process
    before ``torchrl.envs.GymEnv("LongPuzzle/...")`` or ``GymWrapper(gym.make(...))`` on a
    raw env; calling it again changes nothing.

    The action goes under ``"action"`` as ``tensordict.NonTensorData({"type": "click", "x":
    ..., "y": ...})`` (any dict :func:`~puzzlegym.base.actions.parse_action` accepts; a
    malformed one raises :class:`~puzzlegym.base.errors.ActionError` from ``env.step``).
    ``spec.rand()`` has no GUI action to draw from: a random rollout sends
    :data:`TORCHRL_DEFAULT_ACTION` (``wait``) at every step. For a learning agent use
    :func:`make_torchrl_env`, whose actions are indexes with masks. Needs TorchRL."""
    from torchrl.envs import register_gym_spec_conversion

    register_gym_spec_conversion(GUIActionSpace)(_gui_action_spec)


def _observation_key(space: spaces.Space) -> str:
    """The key TorchRL's ``GymWrapper`` gives a single observation: ``"pixels"`` for an RGB
    image (``(H, W, 3)``, 0..255), ``"observation"`` otherwise (the board, grayscale)."""
    image = (
        isinstance(space, spaces.Box)
        and len(space.shape) == 3
        and space.shape[-1] == 3
        and bool(np.all(space.low == 0))
        and bool(np.all(space.high == 255))
    )
    return "pixels" if image else "observation"


def make_torchrl_env(
    env_id: str = "LongPuzzle/MazePaint-Easy",
    *,
    actions: str = "board",
    mask: bool | None = None,
    categorical_action_encoding: bool = True,
    **kwargs: Any,
):
    """A TorchRL env over ``make_sb3_env(env_id, actions=actions, **kwargs)`` (``kwargs`` as
    there: ``observation``, ``start``, ``level``, ``budget_s``, ...): TorchRL's
    ``GymWrapper`` with :func:`torchrl_info_reader` set, so its tensordicts carry ``step``,
    ``actions`` (int64), ``elapsed_s``, ``budget_s`` (float64) and ``accepted`` (bool).

    The observation is ``"pixels"`` (RGB) or ``"observation"`` (the board, grayscale), as
    ``GymWrapper(make_sb3_env(...))`` names it. ``categorical_action_encoding=True`` (the
    default) makes the action one int64 index of the ``Discrete`` space; ``False`` one-hot.

    ``mask`` (default: with ``actions="board"``) adds ``"action_mask"`` (bool, one entry per
    action, ``BoardActions.action_masks()`` read after every reset and step) and TorchRL's
    ``ActionMask`` transform, so a random rollout (``env.rollout(n)``) takes only valid
    actions; the env is then a ``TransformedEnv``. ``actions="grid"`` has no masks
    (``mask=True`` with it raises :class:`~puzzlegym.base.errors.ConfigError`). Needs
    TorchRL (the ``torchrl`` extra)."""
    from torchrl.envs import GymWrapper

    if mask is None:
        mask = actions == "board"
    env = make_sb3_env(env_id, actions=actions, **kwargs)
    if not mask:
        out = GymWrapper(env, categorical_action_encoding=categorical_action_encoding)
        out.set_info_dict_reader(torchrl_info_reader())
        return out

    import torch
    from torchrl.envs import (
        ActionMask,
        Compose,
        DTypeCastTransform,
        RenameTransform,
        TransformedEnv,
    )

    key = _observation_key(env.observation_space)
    try:
        masked = ActionMaskObservation(env)  # a ConfigError for the grid, which has no masks
    except Exception:
        env.close()
        raise
    out = GymWrapper(masked, categorical_action_encoding=categorical_action_encoding)
    out.set_info_dict_reader(torchrl_info_reader())
    return TransformedEnv(
        out,
        Compose(
            RenameTransform([OBSERVATION_KEY], [key]),
            DTypeCastTransform(torch.float32, torch.bool, in_keys=[MASK_KEY]),
            ActionMask(mask_key=MASK_KEY),
        ),
    )
