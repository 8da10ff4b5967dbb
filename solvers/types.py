"""Result types shared by every solver."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Verdict = Literal["solvable", "dead_end", "unknown"]


@dataclass(frozen=True)
class Solution:
    """A solution from a state: the moves in order, their count, and whether it is proved
    shortest. ``expanded`` counts the states the search expanded."""

    moves: tuple[Any, ...]
    optimal: bool
    expanded: int = 0
    meta: dict = field(default_factory=dict, compare=False)

    @property
    def length(self) -> int:
        return len(self.moves)


class Unsolvable(Exception):
    """Raised by ``solve`` when the state is proved to be a dead end. ``proof`` (optional) is
    a plain document saying how it was proved (e.g. an UNSAT core, or the exhausted search
    and its counts)."""

    def __init__(self, message: str = "", proof: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.proof = proof
