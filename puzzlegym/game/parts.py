"""A game's optional parts that live in modules of their own and are imported on first use:
its solver, its vision reader and its JAX twin (:class:`Part`).

A twin imports ``jax`` (the optional ``jax`` extra) and a solver may pull in a SAT solver, so
a :class:`~puzzlegym.game.Game` holds where each part is, not the part itself; code that
needs one calls :meth:`Part.load`. A part is a plain value (two strings), so a game, and
everything that holds one, pickles without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from importlib.util import find_spec
from typing import Any, Generic, TypeVar

__all__ = ["Part"]

T = TypeVar("T")


@dataclass(frozen=True)
class Part(Generic[T]):
    """Module ``module``'s attribute ``attribute`` (the module itself when ``attribute`` is
    empty), e.g. ``Part("puzzlegym.envs.maze_paint.twin", "TWIN")``."""

    module: str
    attribute: str = ""

    def __str__(self) -> str:
        return f"{self.module}.{self.attribute}" if self.attribute else self.module

    def exists(self) -> bool:
        """Whether the module is there, found without importing it (its package is)."""
        try:
            return find_spec(self.module) is not None
        except (ImportError, ValueError):
            return False

    def load(self) -> T:
        """The part, its module imported now (an ImportError of the module's own imports,
        such as a missing optional extra, propagates as it is)."""
        module: Any = import_module(self.module)
        if not self.attribute:
            return module
        try:
            return getattr(module, self.attribute)
        except AttributeError:
            raise AttributeError(
                f"{self.module} has no {self.attribute} (the game's part {self})"
            ) from None
