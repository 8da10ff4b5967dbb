"""The exception types of puzzlegym (the public name of :mod:`puzzlegym.base.errors`): each
error names the field that was wrong and what is allowed."""

from puzzlegym.base.errors import (
    ActionError,
    CheckpointError,
    ConfigError,
    LevelError,
    PuzzleGymError,
    RecordError,
    UnknownKeywordError,
    WorkerError,
    shown,
)

__all__ = [
    "PuzzleGymError",
    "ActionError",
    "LevelError",
    "CheckpointError",
    "ConfigError",
    "UnknownKeywordError",
    "RecordError",
    "WorkerError",
    "shown",
]
