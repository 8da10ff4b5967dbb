"""The env and its read-only faces.

* :mod:`~puzzlegym.env.core`: :class:`PuzzleEnv` (re-exported here);
* :mod:`~puzzlegym.env.probe`: the frozen probe training code and the lab read;
* :mod:`~puzzlegym.env.checkpoint`: the whole suite as a document;
* :mod:`~puzzlegym.env.loop`: the one episode loop every tool uses;
* :mod:`~puzzlegym.env.navigation`: the click towards the objective's next level."""

from puzzlegym.env.core import (
    ANNOTATION_KINDS,
    CONFIG_KEYS,
    OBSERVATIONS,
    REWARDS,
    STARTS,
    PuzzleEnv,
    puzzle_env,
)

__all__ = [
    "STARTS",
    "CONFIG_KEYS",
    "OBSERVATIONS",
    "REWARDS",
    "ANNOTATION_KINDS",
    "puzzle_env",
    "PuzzleEnv",
]
