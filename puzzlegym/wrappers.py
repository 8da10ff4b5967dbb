"""Gymnasium wrappers for puzzlegym envs, each doing one job.

* :class:`BlackBox` drops the private ``info["evaluator"]`` section, so an agent sees pixels
  and the public info keys only.
* :class:`TextChannel` adds a text observation (instruction, feedback line, intervention
  text) next to the untouched screen.
* :class:`DownscaleObservation` shrinks the screen (Pillow, deterministic), optionally to
  grayscale.
* :class:`DiscreteGUIActions` replaces the GUI action dicts by a ``Discrete(n)`` space of
  clicks and swipes on a grid over the screen plus the arrow keys.
* :func:`make_sb3_env` stacks BlackBox → DownscaleObservation → DiscreteGUIActions into an env
  that Stable-Baselines3's ``CnnPolicy`` accepts.

Typical use::

    env = make_sb3_env("LongPuzzle/MazePaint-Easy", start="board", level=1, budget_s=200)
    model = stable_baselines3.PPO("CnnPolicy", env)
"""

from __future__ import annotations

import string
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from PIL import Image

from puzzlegym.actions import SCREEN_HEIGHT, SCREEN_WIDTH
from puzzlegym.errors import ActionError, ConfigError

__all__ = [
    "BlackBox",
    "DiscreteGUIActions",
    "DownscaleObservation",
    "TextChannel",
    "make_sb3_env",
]

PRIVATE_INFO_KEYS = ("evaluator",)


class BlackBox(gym.Wrapper, gym.utils.RecordConstructorArgs):
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

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self.public(info)

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, self.public(info)


TEXT_MAX_LENGTH = 2048
TEXT_CHARSET = frozenset(string.printable) - frozenset("\t\r\x0b\x0c")  # printable ASCII + "\n"
_REPLACEMENT = "?"


class TextChannel(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Makes the observation ``{"screen": <inner observation>, "text": str}``.

    ``text`` holds the public instruction (``info["instruction"]``) and the board's feedback
    line (``info["feedback"]``), one per line, plus a ``Note:`` line with whatever an
    intervention set with :meth:`set_text`::

        Instruction: Complete all levels of Maze Paint at Easy difficulty in the Game Suite.
        Feedback: The ball cannot roll that way
        Note: try the other corridor

    The screen is the inner observation object itself: no text is drawn onto the pixels.
    The text is limited to printable ASCII and newlines (other characters become ``?``) and
    truncated to :data:`TEXT_MAX_LENGTH` characters so it always lies in the
    ``spaces.Text`` space. Works below or above :class:`BlackBox` (it reads public keys only).
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        super().__init__(env)
        self.observation_space = spaces.Dict(
            {
                "screen": env.observation_space,
                "text": spaces.Text(TEXT_MAX_LENGTH, min_length=0, charset=TEXT_CHARSET),
            }
        )
        self._note = ""

    def set_text(self, text: str | None) -> None:
        """Set the intervention text shown from the next observation on (it stays until
        replaced; ``None`` or ``""`` clears it). It is not cleared by ``reset``."""
        if text is not None and not isinstance(text, str):
            raise TypeError(f"set_text: expected a string or None, got {type(text).__name__}")
        self._note = text or ""

    def compose(self, info: dict) -> str:
        """The text observation for ``info`` (and the current intervention text)."""
        lines = [
            f"Instruction: {info.get('instruction', '')}",
            f"Feedback: {info.get('feedback', '')}",
        ]
        if self._note:
            lines.append(f"Note: {self._note}")
        text = "\n".join(lines)
        text = "".join(ch if ch in TEXT_CHARSET else _REPLACEMENT for ch in text)
        return text[:TEXT_MAX_LENGTH]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        return {"screen": obs, "text": self.compose(info)}, info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return {"screen": obs, "text": self.compose(info)}, reward, terminated, truncated, info


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


SWIPE_PX = 120
SWIPES = {"up": (0, -SWIPE_PX), "down": (0, SWIPE_PX), "left": (-SWIPE_PX, 0), "right": (SWIPE_PX, 0)}
ARROW_KEYS = ("ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight")


class DiscreteGUIActions(gym.ActionWrapper, gym.utils.RecordConstructorArgs):
    """A ``Discrete(n)`` action space over a ``grid=(rows, cols)`` laid on the full
    1280×900 screen. Grid cells are numbered row-major, ``cell = row * cols + col``; with
    ``C = rows * cols`` the indices are:

    * ``0 .. C-1``: click at the centre of cell ``i``;
    * ``C + 4*cell + d`` (if ``swipes``): a drag of :data:`SWIPE_PX` px from the centre of
      ``cell`` in direction ``d`` = up, down, left, right (end point clamped to the screen);
    * the last 4 (if ``keys``): ArrowUp, ArrowDown, ArrowLeft, ArrowRight.

    So ``n = C + (4*C if swipes) + (4 if keys)``. Cell centres are
    ``x = (2*col + 1) * 1280 // (2*cols)`` and ``y = (2*row + 1) * 900 // (2*rows)``.
    :meth:`action_meaning` gives the GUI action dict of an index; :meth:`click_index`,
    :meth:`swipe_index` and :meth:`key_index` go the other way.

    A coarse grid need not hit every button (e.g. the tier buttons when ``start="home"``);
    choose the grid for the screens the agent has to use. On a Maze Paint board any swipe
    that starts inside the board area rolls the ball, so any grid cell there will do.
    With more than 22 rows or 32 columns, swipes from edge cells towards the edge are
    clamped below the recogniser's 20 px swipe threshold and stop being swipes.
    """

    def __init__(
        self,
        env: gym.Env,
        grid: tuple[int, int] = (4, 4),
        swipes: bool = True,
        keys: bool = True,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, grid=tuple(grid), swipes=swipes, keys=keys
        )
        super().__init__(env)
        rows, cols = (int(v) for v in grid)
        if not (1 <= rows <= SCREEN_HEIGHT and 1 <= cols <= SCREEN_WIDTH):
            raise ConfigError(f"grid: expected (rows, cols) within the screen, got {grid!r}")
        self.grid = (rows, cols)
        self.swipes, self.keys = bool(swipes), bool(keys)
        self.n_cells = rows * cols
        table: list[dict] = []
        centres = [self._centre(cell) for cell in range(self.n_cells)]
        table.extend({"type": "click", "x": x, "y": y} for x, y in centres)
        if self.swipes:
            for x, y in centres:
                for dx, dy in SWIPES.values():
                    x1 = min(max(x + dx, 0), SCREEN_WIDTH - 1)
                    y1 = min(max(y + dy, 0), SCREEN_HEIGHT - 1)
                    table.append({"type": "drag", "x0": x, "y0": y, "x1": x1, "y1": y1})
        if self.keys:
            table.extend({"type": "press_key", "key": key} for key in ARROW_KEYS)
        self._table = tuple(table)
        self.action_space = spaces.Discrete(len(table))

    def _centre(self, cell: int) -> tuple[int, int]:
        rows, cols = self.grid
        row, col = divmod(cell, cols)
        return (2 * col + 1) * SCREEN_WIDTH // (2 * cols), (2 * row + 1) * SCREEN_HEIGHT // (2 * rows)

    # -------------------------------------------------------------- index <-> GUI action
    def action_meaning(self, index: int) -> dict:
        """The GUI action dict of discrete action ``index`` (a new dict)."""
        if isinstance(index, np.ndarray) and index.shape == ():
            index = index.item()  # a 0-d array, as some vectorised callers pass
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise ActionError(f"action: expected an integer index, got {index!r}")
        i = int(index)
        if not 0 <= i < len(self._table):
            raise ActionError(f"action: {i} is out of range; allowed 0..{len(self._table) - 1}")
        return dict(self._table[i])

    def action(self, action: Any) -> dict:
        return self.action_meaning(action)

    def cell_at(self, x: int, y: int) -> int:
        """The grid cell containing screen pixel ``(x, y)``."""
        if not (0 <= x < SCREEN_WIDTH and 0 <= y < SCREEN_HEIGHT):
            raise ActionError(f"({x}, {y}) is off the {SCREEN_WIDTH}x{SCREEN_HEIGHT} screen")
        rows, cols = self.grid
        return (y * rows // SCREEN_HEIGHT) * cols + x * cols // SCREEN_WIDTH

    def click_index(self, x: int, y: int) -> int:
        """Index of the click at the centre of the grid cell containing ``(x, y)``."""
        return self.cell_at(x, y)

    def swipe_index(self, x: int, y: int, direction: str) -> int:
        """Index of the swipe in ``direction`` from the grid cell containing ``(x, y)``."""
        if not self.swipes:
            raise ActionError("this DiscreteGUIActions has no swipes (swipes=False)")
        if direction not in SWIPES:
            raise ActionError(f"direction: {direction!r}; allowed: {', '.join(SWIPES)}")
        return self.n_cells + 4 * self.cell_at(x, y) + list(SWIPES).index(direction)

    def key_index(self, key: str) -> int:
        """Index of pressing arrow ``key`` ("ArrowUp", ...)."""
        if not self.keys:
            raise ActionError("this DiscreteGUIActions has no keys (keys=False)")
        if key not in ARROW_KEYS:
            raise ActionError(f"key: {key!r}; allowed: {', '.join(ARROW_KEYS)}")
        return len(self._table) - 4 + ARROW_KEYS.index(key)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:  # like PuzzleEnv, which seeds its own action space on reset
            self.action_space.seed(seed)
        return self.env.reset(seed=seed, options=options)


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
    import puzzlegym  # noqa: F401  (registers the LongPuzzle ids)

    env = gym.make(env_id, **env_kwargs)
    env = BlackBox(env)
    env = DownscaleObservation(env, size=size, grayscale=grayscale)
    return DiscreteGUIActions(env, grid=grid, swipes=swipes, keys=keys)
