"""puzzlegym: Gymnasium environments for long-horizon visual puzzles played through native
GUI actions. Importing the package registers every ``LongPuzzle/<Game>-<Tier>`` id."""

from __future__ import annotations

from puzzlegym.checkpoint import Checkpoint
from puzzlegym.env import PuzzleEnv
from puzzlegym.registry import register_envs
from puzzlegym.version import __version__

register_envs()

__all__ = ["Checkpoint", "PuzzleEnv", "__version__"]
