"""Exceptions raised at puzzlegym's public entry points.

Every rejection of bad input raises one of these; each message names the offending field or
value and what is allowed, and the episode is left unchanged.
"""

from __future__ import annotations

import reprlib


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


class UnknownKeywordError(ConfigError, TypeError):
    """A keyword argument the callee does not take. It is a :class:`ConfigError` and also the
    ``TypeError`` Python raises for an unknown keyword, with the same "unexpected keyword
    argument 'NAME'" words, so a client that probes for optional keywords (TorchRL's
    ``GymEnv`` passes ``frameskip`` and drops it on that ``TypeError``) works unchanged.
    Built from one message, as ``gym.make`` re-raises a ``TypeError`` (``type(e)(message)``);
    :meth:`naming` writes the message."""

    @classmethod
    def naming(cls, name: str, callee: str, allowed: str) -> UnknownKeywordError:
        """The error for keyword ``name`` of ``callee``, listing the ``allowed`` keywords."""
        return cls(
            f"{name}: not a keyword argument of {callee} (unexpected keyword argument "
            f"{name!r}); allowed: {allowed}"
        )


class RecordError(PuzzleGymError, ValueError):
    """An episode record or a run directory is damaged (a corrupted log line, an unreadable
    result file) or in use by another run."""


class WorkerError(PuzzleGymError, RuntimeError):
    """A worker process of a vector env died, did not answer in time, or raised (the
    message names the worker, its envs and the worker's traceback)."""


_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother = 3, 60, 60
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = _SHOWN.maxset = 6


def shown(value: object) -> str:
    """A short repr of a client-supplied value for an error message: bounded in length and
    nesting depth, so a hostile value (a 100k-deep list, a 5,000-digit number) cannot blow up
    the message or the interpreter."""
    try:
        return _SHOWN.repr(value)
    except Exception:  # a value whose own __repr__ fails
        return f"<{type(value).__name__}>"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` for a message, the noun plural unless ``n`` is 1 (``plural``, or
    the noun with an ``s``).

    Examples:
        >>> counted(1, "episode"), counted(3, "episode"), counted(0, "index", "indexes")
        ('1 episode', '3 episodes', '0 indexes')
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
