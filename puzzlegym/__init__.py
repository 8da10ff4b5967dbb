"""puzzlegym: Gymnasium environments for long-horizon visual puzzles played through native
GUI actions. Importing the package registers every ``LongPuzzle/<Game>-<Tier>`` id."""

from __future__ import annotations

from puzzlegym.base.version import __version__
from puzzlegym.env import PuzzleEnv
from puzzlegym.env.checkpoint import Checkpoint
from puzzlegym.game.registry import register_envs

register_envs()

__all__ = ["Checkpoint", "PuzzleEnv", "__version__"]
