"""The env and its read-only faces.

* :mod:`~puzzlegym.env.core`: :class:`PuzzleEnv` (re-exported here): reset, step, frames;
* :mod:`~puzzlegym.env.config`: its keywords checked (:func:`parse_config`);
* :mod:`~puzzlegym.env.faces`: the step's ``info`` and the probe;
* :mod:`~puzzlegym.env.restore`: checkpoints taken and restored;
* :mod:`~puzzlegym.env.probe`: the frozen probe training code and the lab read;
* :mod:`~puzzlegym.env.checkpoint`: the whole suite as a document;
* :mod:`~puzzlegym.env.loop`: the one episode loop every tool uses;
* :mod:`~puzzlegym.env.navigation`: the click towards the objective's next level."""

from puzzlegym.env.config import ANNOTATION_KINDS, CONFIG_KEYS, OBSERVATIONS, REWARDS, STARTS
from puzzlegym.env.core import PuzzleEnv, puzzle_env

__all__ = [
    "ANNOTATION_KINDS",
    "CONFIG_KEYS",
    "OBSERVATIONS",
    "REWARDS",
    "STARTS",
    "PuzzleEnv",
    "puzzle_env",
]
