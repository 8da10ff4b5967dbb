"""Low-resolution observations rendered directly at the training resolution (no resize), of
the whole screen or, as the training view, of the board alone."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from puzzlegym.base.actions import SCREEN_HEIGHT, SCREEN_WIDTH
from puzzlegym.base.errors import ConfigError
from puzzlegym.env import PuzzleEnv
from puzzlegym.screen.resolution import FITS, Resolution, TrainingView

__all__ = ["DEFAULT_SIZE", "FITS", "VIEWS", "LowResObservation", "resolution_for"]

DEFAULT_SIZE = (84, 84)
VIEWS = ("screen", "board")  # what an observation shows: the whole screen, or the training view


def resolution_for(
    size: tuple[int, int] | None = None,
    scale=None,
    grayscale: bool = False,
    fit: str | None = None,
    view: str = "screen",
) -> Resolution | TrainingView:
    """The :class:`~puzzlegym.screen.resolution.Resolution` of ``size=(height, width)``
    (``fit`` = "letterbox", the default: the whole screen at one scale between black bars;
    "stretch": each axis scaled on its own) or of a uniform ``scale`` (e.g. ``0.25``,
    ``"1/8"``); with ``view="board"`` the :class:`~puzzlegym.screen.resolution.TrainingView`
    of ``size`` (``fit`` "stretch" by default: the board's panel fills the frame;
    "letterbox" keeps its aspect ratio)."""
    if view not in VIEWS:
        raise ConfigError(f"view: {view!r} is not allowed; allowed: {', '.join(VIEWS)}")
    if (size is None) == (scale is None):
        raise ConfigError("LowResObservation: give exactly one of size=(height, width) or scale")
    if fit is not None and fit not in FITS:
        raise ConfigError(f"fit: {fit!r} is not allowed; allowed: {', '.join(FITS)}")
    if scale is not None:
        if view == "board":
            raise ConfigError(
                "scale: view='board' frames the board at a fixed size=(height, width); a uniform "
                "scale of the screen is view='screen' only"
            )
        return Resolution.scaled(scale, grayscale)
    assert size is not None  # exactly one of size and scale (checked above)
    try:
        height, width = size
    except (TypeError, ValueError):
        raise ConfigError(f"size: expected (height, width), got {size!r}") from None
    if view == "board":
        return TrainingView(height, width, bool(grayscale), fit or "stretch")
    make = Resolution.stretch if fit == "stretch" else Resolution.fit
    return make(height, width, grayscale)


class LowResObservation(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Observations rendered at a reduced resolution by the renderer itself.

    Unlike :class:`~puzzlegym.wrappers.DownscaleObservation`, which shrinks every
    1280×900 frame with Pillow, this asks the env's in-process renderer to composite frames
    directly at ``size=(height, width)`` (default ``(84, 84)``, the whole screen letterboxed;
    ``fit="stretch"`` fills it) or at a uniform ``scale`` (``0.25``: 225×320, ``"1/8"``:
    113×160), optionally ``grayscale`` (``(h, w, 1)``). Widget images are reduced once into
    the renderer's cache, so a step costs about as much as a full-resolution step without
    the 3.5 MB frame: see ``benchmarks/bench_rl.py``. ``render()`` still returns the full
    screen.

    ``view="board"`` is the training view: on a level screen the frame shows the board's
    panel alone (no header, instruction or feedback line), stretched to fill ``size``
    (``fit="letterbox"`` keeps its aspect ratio between black bars), painted in the training
    style (palette colours at lumas that stay apart in grayscale, no letters, headings and
    selections drawn to survive 84x84: ``docs/rl-observations.md``, "The training view"); the
    level-complete screen shows the same panel dimmed under its banner, and the home,
    difficulty and objective-complete screens the whole screen. Only the observation is
    framed: actions (``BoardActions``' board targets and buttons included) keep using
    screen coordinates.

    It must wrap a puzzlegym env on the native backend whose observations are still the full
    screen (it changes what the env renders); for the browser backend use
    ``DownscaleObservation``.

    Examples:
        >>> import gymnasium as gym
        >>> base = gym.make("LongPuzzle/MazePaint-Easy", render_mode="rgb_array")
    >>> env = LowResObservation(base, size=(84, 84), grayscale=True)
        >>> obs, _info = env.reset(seed=0)
        >>> obs.shape, obs.dtype.name, env.render().shape  # render() still shows the full screen
        ((84, 84, 1), 'uint8', (900, 1280, 3))
    """

    def __init__(
        self,
        env: gym.Env,
        size: tuple[int, int] | None = None,
        grayscale: bool = False,
        scale=None,
        fit: str | None = None,
        view: str = "screen",
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self,
            size=None if size is None else tuple(size),
            grayscale=grayscale,
            scale=scale,
            fit=fit,
            view=view,
        )
        super().__init__(env)
        if size is None and scale is None:
            size = DEFAULT_SIZE
        resolution = resolution_for(size, scale, grayscale, fit, view)
        base = env.unwrapped
        if not isinstance(base, PuzzleEnv):
            raise ConfigError(
                f"LowResObservation: wraps puzzlegym envs only, got {type(base).__name__}; "
                "use DownscaleObservation to resize another env's frames"
            )
        space = env.observation_space
        full = spaces.Box(0, 255, (SCREEN_HEIGHT, SCREEN_WIDTH, 3), np.uint8)
        if space != full or not base.resolution.is_full:
            raise ConfigError(
                "LowResObservation: the wrapped env's observations must be the full 1280x900 "
                f"screen, got {space}; apply LowResObservation first (directly on gym.make(...))"
            )
        base.set_resolution(resolution)  # ConfigError for the browser backend
        self.resolution = resolution  # a Resolution, or the TrainingView of view="board"
        self.view = view
        self.observation_space = spaces.Box(0, 255, resolution.shape, np.uint8)
