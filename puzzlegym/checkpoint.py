"""Checkpoints (the public name of :mod:`puzzlegym.env.checkpoint`): the whole suite as a
document, saved and loaded with format, version and SHA-256 checks."""

from puzzlegym.env.checkpoint import (
    FORMAT,
    FORMAT_VERSION,
    Checkpoint,
    check_results,
    validate_payload,
)

__all__ = [
    "Checkpoint",
    "check_results",
    "validate_payload",
    "FORMAT",
    "FORMAT_VERSION",
]
