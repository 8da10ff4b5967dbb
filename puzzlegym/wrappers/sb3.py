"""Stable-Baselines3 ready envs: the wrappers stacked for ``CnnPolicy`` (pixels) or
``MlpPolicy`` (the symbolic board), and the checks that turn SB3's generic errors (or a
20 GiB CNN) into a message naming the wrappers."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium import spaces

from puzzlegym.base.errors import ConfigError
from puzzlegym.env import puzzle_env
from puzzlegym.wrappers.action import DiscreteGUIActions
from puzzlegym.wrappers.blackbox import BlackBox
from puzzlegym.wrappers.board_actions import BoardActions
from puzzlegym.wrappers.board_observation import BoardObservation
from puzzlegym.wrappers.info import NumpyInfo
from puzzlegym.wrappers.lowres import DEFAULT_SIZE, FITS, VIEWS, LowResObservation, resolution_for
from puzzlegym.wrappers.observation import DownscaleObservation

__all__ = [
    "ACTIONS",
    "MAX_CNN_PARAMETERS",
    "OBSERVATIONS",
    "POLICIES",
    "check_sb3_env",
    "make_sb3_env",
    "nature_cnn_parameters",
]

ACTIONS = ("grid", "board")
OBSERVATIONS = ("pixels", "board")
# the SB3 policy each observation trains with
POLICIES = {"pixels": "CnnPolicy", "board": "MlpPolicy"}
# NatureCNN (SB3's CnnPolicy) feature extractors above this many parameters are refused
# unless forced: a 1280x900 screen gives 557M (2.1 GiB of float32 weights, ~8 GiB with
# gradients and Adam's moments); 84x84 gives 1.7M, a quarter-scale 225x320 frame 28.4M.
MAX_CNN_PARAMETERS = 32_000_000


def _conv(n: int, kernel: int, stride: int) -> int:
    return (n - kernel) // stride + 1


def nature_cnn_parameters(shape: tuple[int, ...], features_dim: int = 512) -> int:
    """Parameters of SB3's NatureCNN on an image observation of ``shape`` (H, W, C):
    conv 8/4 (32), conv 4/2 (64), conv 3/1 (64), then a linear layer to ``features_dim``."""
    h, w, c = shape
    h3 = _conv(_conv(_conv(h, 8, 4), 4, 2), 3, 1)
    w3 = _conv(_conv(_conv(w, 8, 4), 4, 2), 3, 1)
    if h3 < 1 or w3 < 1:
        raise ConfigError(f"observation {h}x{w}: NatureCNN (CnnPolicy) needs at least 36x36")
    convs = (8 * 8 * c * 32 + 32) + (4 * 4 * 32 * 64 + 64) + (3 * 3 * 64 * 64 + 64)
    return convs + 64 * h3 * w3 * features_dim + features_dim


def _cnn_check(shape: tuple[int, ...], force: bool, where: str) -> None:
    params = nature_cnn_parameters(shape)
    if params > MAX_CNN_PARAMETERS and not force:
        gib = params * 4 / 2**30
        raise ConfigError(
            f"{where}: a {shape[0]}x{shape[1]} observation builds an SB3 NatureCNN (CnnPolicy) of "
            f"{params / 1e6:.0f}M parameters ({gib:.1f} GiB of weights, ~{4 * gib:.0f} GiB with "
            f"gradients and Adam; the limit is {MAX_CNN_PARAMETERS / 1e6:.0f}M). Render smaller "
            "observations: make_sb3_env(size=(84, 84)) or puzzlegym.wrappers.LowResObservation; "
            "pass force=True to build it anyway"
        )


_RAW_HINT = (
    "wrap it for RL: puzzlegym.wrappers.make_sb3_env(env_id, actions='board') builds the "
    "whole stack; or BoardActions (board-aligned targets with action_masks() for MaskablePPO) "
    "or DiscreteGUIActions (a grid over the screen) for the actions, and LowResObservation "
    "(rendered directly at e.g. 84x84) for the observations"
)


def observation_kind(env: gym.Env) -> str:
    """``"board"`` when ``env``'s observations are the symbolic board (a
    :class:`BoardObservation` in the stack), else ``"pixels"``."""
    while isinstance(env, gym.Wrapper):
        if isinstance(env, BoardObservation):
            return "board"
        env = env.env
    return "pixels"


def check_sb3_env(env: gym.Env, force: bool = False, policy: str | None = None) -> None:
    """Raise :class:`~puzzlegym.base.errors.ConfigError` naming the puzzlegym wrappers when
    ``env`` cannot train with SB3: GUI action dicts (or any space SB3 does not take);
    pixels: non-image observations, or an observation that builds a CNN above
    :data:`MAX_CNN_PARAMETERS` (unless ``force``); ``policy`` (when given) not the policy
    the observation trains with (:data:`POLICIES`: ``CnnPolicy`` for pixels, ``MlpPolicy``
    for the board)."""
    act, obs = env.action_space, env.observation_space
    if not isinstance(act, (spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary, spaces.Box)):
        raise ConfigError(
            f"action space {type(act).__name__}: Stable-Baselines3 takes Discrete, MultiDiscrete, "
            f"MultiBinary or Box actions, not puzzlegym's GUI action dicts; {_RAW_HINT}"
        )
    kind = observation_kind(env)
    if policy is not None and policy != POLICIES[kind]:
        why = (
            "the symbolic board is not an image (planes of 0/1, channel first)"
            if kind == "board"
            else "pixels are images"
        )
        raise ConfigError(
            f"policy: {policy!r} does not fit observation={kind!r} ({why}); use {POLICIES[kind]!r}"
        )
    if kind == "board":
        return
    if not (isinstance(obs, spaces.Box) and len(obs.shape) == 3):
        raise ConfigError(
            f"observation space {obs}: SB3's CnnPolicy takes an image Box (H, W, C); "
            f"a TextChannel or other Dict observation needs its own policy; {_RAW_HINT}"
        )
    _cnn_check(obs.shape, force, "observation")


def make_sb3_env(
    env_id: str = "LongPuzzle/MazePaint-Easy",
    size: tuple[int, int] | None = None,
    grid: tuple[int, int] = (4, 4),
    grayscale: bool | None = None,
    swipes: bool = True,
    keys: bool = True,
    actions: str = "grid",
    buttons: tuple[str, ...] | None = None,
    fit: str | None = None,
    scale=None,
    max_targets: int | None = None,
    force: bool = False,
    observation: str = "pixels",
    board_shape: tuple[int, int, int] | None = None,
    level_bits: bool = True,
    view: str | None = None,
    **env_kwargs: Any,
) -> gym.Env:
    """``gym.make(env_id, **env_kwargs)`` ready for Stable-Baselines3.

    ``observation="pixels"`` (the default), for ``CnnPolicy``: observations
    ``(size[0], size[1], 3)`` uint8 (``size`` default ``(84, 84)``; ``1`` channel with
    ``grayscale``) rendered directly at that size (:class:`LowResObservation`,
    ``fit="stretch"`` (default) fills the frame, ``"letterbox"`` keeps the aspect ratio; the
    browser backend's screenshots are resized instead). A uniform ``scale`` (e.g.
    ``"1/16"``: 56×80) replaces ``size``. Sizes whose NatureCNN would exceed
    :data:`MAX_CNN_PARAMETERS` are refused unless ``force=True`` (NatureCNN needs at least
    36×36). ``view="board"`` observes through the training view (the board's panel alone, in
    the training style: :class:`LowResObservation`; the native backend only); ``"screen"``
    (the default) the whole screen.

    ``observation="board"``, for ``MlpPolicy``: the symbolic board
    (:class:`BoardObservation`: the game's public board state as ``uint8`` 0/1 planes,
    ``(C, H, W)``, ``board_shape`` as its ``shape``, ``level_bits=False`` without the level's
    index); no frame is painted at any step (the native backend only). ``size``, ``scale``,
    ``grayscale``, ``fit`` and ``view`` do not apply.

    Then public infos only (:class:`BlackBox`), their numbers as numpy scalars
    (:class:`NumpyInfo`), and a ``Discrete`` action space: ``actions="grid"`` clicks and
    swipes on a ``grid`` over the screen plus arrow keys (:class:`DiscreteGUIActions`),
    ``actions="board"`` the level's board targets, padded to the tier's most so that every
    level of a tier has one layout (the JAX twin's), plus the suite's ``buttons``
    (:class:`BoardActions`, with ``action_masks()`` for ``MaskablePPO``; ``max_targets`` as
    there). ``env_kwargs`` go to ``gym.make`` (e.g. ``start="board"``, ``level=1``,
    ``budget_s=200``, ``max_episode_steps=...``)."""
    if observation not in OBSERVATIONS:
        raise ConfigError(
            f"observation: {observation!r} is not allowed; allowed: {', '.join(OBSERVATIONS)}"
        )
    if actions not in ACTIONS:
        raise ConfigError(f"actions: {actions!r} is not allowed; allowed: {', '.join(ACTIONS)}")
    if observation == "board":
        return _make_board_env(
            env_id,
            actions,
            grid,
            swipes,
            keys,
            buttons,
            max_targets,
            board_shape,
            level_bits,
            {"size": size, "scale": scale, "grayscale": grayscale, "fit": fit, "view": view},
            env_kwargs,
        )
    if board_shape is not None:
        raise ConfigError("board_shape: applies to observation='board' only")
    if level_bits is not True:
        raise ConfigError("level_bits: applies to observation='board' only")
    size = DEFAULT_SIZE if size is None else size
    grayscale = bool(grayscale)
    fit = "stretch" if fit is None else fit
    view = "screen" if view is None else view
    if fit not in FITS:
        raise ConfigError(f"fit: {fit!r} is not allowed; allowed: {', '.join(FITS)}")
    if view not in VIEWS:
        raise ConfigError(f"view: {view!r} is not allowed; allowed: {', '.join(VIEWS)}")
    if scale is not None:
        res = resolution_for(None, scale, grayscale, view=view)
        height, width = res.height, res.width
        size = None
    else:
        try:
            height, width = (int(v) for v in size)
        except (TypeError, ValueError):
            raise ConfigError(f"size: expected (height, width), got {size!r}") from None
        size = (height, width)
    _cnn_check((height, width, 1 if grayscale else 3), force, f"size=({height}, {width})")
    env = gym.make(env_id, **env_kwargs)
    try:
        if puzzle_env(env, "make_sb3_env").config["backend"] == "native":
            env = LowResObservation(
                env, size=size, grayscale=grayscale, scale=scale, fit=fit, view=view
            )
        elif view == "board":
            raise ConfigError(
                "view: 'board' (the training view) is rendered in process and needs "
                "backend='native'; this env uses "
                f"{puzzle_env(env, 'make_sb3_env').config['backend']!r}, whose "
                "screenshots can only be resized (view='screen')"
            )
        else:
            env = DownscaleObservation(env, size=(height, width), grayscale=grayscale)
        return _actions(NumpyInfo(BlackBox(env)), actions, grid, swipes, keys, buttons, max_targets)
    except Exception:
        env.close()
        raise


def _actions(env, actions, grid, swipes, keys, buttons, max_targets) -> gym.Env:
    if actions == "board":
        return BoardActions(env, buttons=buttons, max_targets=max_targets)
    return DiscreteGUIActions(env, grid=grid, swipes=swipes, keys=keys)


def _make_board_env(
    env_id,
    actions,
    grid,
    swipes,
    keys,
    buttons,
    max_targets,
    board_shape,
    level_bits,
    pixel_options,
    env_kwargs,
) -> gym.Env:
    for name, value in pixel_options.items():
        if value is not None:
            raise ConfigError(
                f"{name}: applies to observation='pixels' only; observation='board' observes "
                "the symbolic board (board_shape sets its shape)"
            )
    env = gym.make(env_id, **env_kwargs)
    try:
        env = BoardObservation(env, shape=board_shape, level_bits=level_bits)
        return _actions(NumpyInfo(BlackBox(env)), actions, grid, swipes, keys, buttons, max_targets)
    except Exception:
        env.close()
        raise
