# puzzlegym/agents/vision/reader.py
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


@dataclass(frozen=True)
class Reading:
    # the game's rules.Level built from the pixels (id/tier/metadata may be placeholders:
    # compare structure)
    level: Any
    state: Any  # the game's rules.State
    geometry: Any  # whatever the reader measured that actions() needs (cell centres, bolt x, ...)


class GameReader(Protocol):
    game: str  # "MazePaint"

    def read(
        self, frame: np.ndarray, tier: str
    ) -> Reading: ...  # frame: full 1280x900 level screen
    def actions(
        self, reading: Reading, move: Any
    ) -> list[dict]: ...  # GUI action dicts performing a rules move
    def public(
        self, level: Any, state: Any
    ) -> Any: ...  # the public projection the tests compare (what the pixels can show)


# each module exposes READER = <its GameReader>; the framework finds readers by module name
# (snake_case of the game).


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
