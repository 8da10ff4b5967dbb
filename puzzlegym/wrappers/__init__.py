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

from puzzlegym.wrappers.action import ARROW_KEYS, SWIPE_PX, SWIPES, DiscreteGUIActions
from puzzlegym.wrappers.blackbox import PRIVATE_INFO_KEYS, BlackBox
from puzzlegym.wrappers.observation import DownscaleObservation
from puzzlegym.wrappers.sb3 import make_sb3_env
from puzzlegym.wrappers.text import TEXT_CHARSET, TEXT_MAX_LENGTH, TextChannel

__all__ = [
    "ARROW_KEYS",
    "PRIVATE_INFO_KEYS",
    "SWIPES",
    "SWIPE_PX",
    "TEXT_CHARSET",
    "TEXT_MAX_LENGTH",
    "BlackBox",
    "DiscreteGUIActions",
    "DownscaleObservation",
    "TextChannel",
    "make_sb3_env",
]
