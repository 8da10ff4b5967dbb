"""The entry points ``gym.make`` calls: ``puzzlegym.env.objectives:MazePaint-Easy`` is the
creator of that objective's env, ``PuzzleEnv("MazePaint", "Easy", **kwargs)``.

The game and tier are the id's own, not keywords: a registration that passed them as keywords
would show them to the user in Gymnasium's messages (an unknown keyword listed ``game`` and
``tier`` beside the user's own) and would let ``gym.make("…/MazePaint-Easy", game=…)`` make
another game under this id. Here neither can be passed.
"""

from __future__ import annotations

from typing import Any

from puzzlegym.base.errors import UnknownKeywordError
from puzzlegym.env.core import PuzzleEnv

__all__ = ["ObjectiveCreator", "entry_point"]


class ObjectiveCreator:
    """``gym.make``'s creator of one objective's env (``metadata`` as the env's, which
    Gymnasium reads for the render modes)."""

    metadata = PuzzleEnv.metadata

    def __init__(self, game: str, tier: str) -> None:
        self.game, self.tier = game, tier

    def __call__(self, **kwargs: Any) -> PuzzleEnv:
        for name in ("game", "tier"):
            if name in kwargs:
                raise UnknownKeywordError.naming(
                    name,
                    f"LongPuzzle/{self.game}-{self.tier}",
                    "the env keywords (the id names the game and the tier)",
                )
        return PuzzleEnv(self.game, self.tier, **kwargs)


def entry_point(game: str, tier: str) -> str:
    """The entry point string of objective ``game``/``tier``."""
    return f"{__name__}:{game}-{tier}"


def __getattr__(name: str) -> ObjectiveCreator:
    game, sep, tier = name.partition("-")
    if not sep or not game or not tier:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return ObjectiveCreator(game, tier)
