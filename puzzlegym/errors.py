"""Exceptions raised at puzzlegym's public entry points.

Every rejection of bad input raises one of these; each message names the offending field or
value and what is allowed, and the episode is left unchanged.
"""

from __future__ import annotations


class PuzzleGymError(Exception):
    """Base class of every puzzlegym error."""


class ActionError(PuzzleGymError, ValueError):
    """A GUI action is malformed (unknown type, missing field, value out of range)."""


class LevelError(PuzzleGymError, ValueError):
    """A level document is malformed or describes an impossible level."""


class CheckpointError(PuzzleGymError, ValueError):
    """A checkpoint is corrupt, from another version/catalogue, or does not fit this env."""


class ConfigError(PuzzleGymError, ValueError):
    """An env id, keyword argument or CLI option is not one of the allowed values."""
