"""puzzlegym: Gymnasium environments for long-horizon visual puzzles played through native
GUI actions. Importing the package registers every ``LongPuzzle/<Game>-<Tier>`` id."""

from __future__ import annotations

__version__ = "0.1.0"

from puzzlegym.registry import register_envs  # noqa: E402

register_envs()

from puzzlegym.checkpoint import Checkpoint  # noqa: E402
from puzzlegym.env import PuzzleEnv  # noqa: E402

__all__ = ["Checkpoint", "PuzzleEnv", "__version__"]
