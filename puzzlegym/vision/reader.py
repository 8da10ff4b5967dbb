"""The contract of a game's vision reader: the board read back from the pixels of the level
screen, and the GUI actions that perform a rules move on it.

A game provides its reader in its own package, ``<package>/reader.py``, as ``READER`` (found
through its :class:`puzzlegym.game.Game`'s ``reader`` part; the vision agent
:class:`puzzlegym.agents.vision.VisionAgent` plays any game that has one). A reader sees the
1280x900 frame and nothing else: it imports no view, layout, env or record code (the test
suite checks every registered game's reader), and it measures what it needs with
:mod:`puzzlegym.vision.pixels` and :mod:`puzzlegym.vision.text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

__all__ = ["GameReader", "Reading", "check_pair"]


@dataclass(frozen=True)
class Reading:
    """What a reader saw: ``level`` (the game's rules ``Level`` built from the pixels; its
    id, tier and metadata may be placeholders, so compare structure), ``state`` (the rules
    ``State``) and ``geometry`` (whatever the reader measured that :meth:`GameReader.actions`
    needs: cell centres, bolt positions, ...)."""

    level: Any
    state: Any
    geometry: Any


class GameReader(Protocol):
    """A game's vision reader."""

    game: str  # the Game's name, "MazePaint"

    def read(self, frame: np.ndarray, tier: str) -> Reading:
        """The board of the full 1280x900 level screen ``frame`` (a level of ``tier``);
        :class:`puzzlegym.vision.pixels.ReadError` when the frame shows no such board."""
        ...

    def actions(self, reading: Reading, move: Any) -> list[dict]:
        """The GUI action dicts that perform the rules move ``move`` on the board read."""
        ...

    def public(self, level: Any, state: Any) -> Any:
        """The public projection of a board: what the pixels can show of it (two boards
        the screen shows alike project alike; the vision agent and the tests compare
        these)."""
        ...


def check_pair(move: Any, n: int, what: str) -> tuple[int, int]:
    """``move`` as a (source, target) pair of indices 0..n-1 (``what`` names them in the
    error), or ValueError: the move of a game whose moves take a thing from one place to
    another."""
    if (
        not isinstance(move, tuple | list)
        or len(move) != 2
        or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n for v in move)
    ):
        raise ValueError(f"move: expected {what} indices 0..{n - 1}, got {move!r}")
    return move[0], move[1]
