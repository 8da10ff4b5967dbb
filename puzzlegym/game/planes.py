"""The symbolic board: a game's public board state as a fixed-shape tensor of binary planes.

This is privileged, opt-in training data (``puzzlegym.wrappers.BoardObservation`` reads it
through the env's probe); the agent-facing surfaces (pixels, public info, the text channel)
never carry it. A game provides it in its package's ``planes.py`` as ``PLANES``, an instance of
a :class:`Planes` subclass, which :meth:`puzzlegym.game.Game.from_package` finds by that
convention.

A tensor is ``uint8`` of shape ``(C, H, W)``, channel first (the layout of PyTorch's
convolutions and of the images SB3's CNNs see), every value 0 or 1. Its planes are the
game's *fixed* planes (named, the same for every level) and then, for games that need
them, one *numbered* plane per colour, pair or layer (``colour0``, ``colour1``, ...). ``H``
and ``W`` are the largest board of the levels the shape was made for (a tier's catalogue):
a smaller board fills the top-left corner, and padding cells are 0 in every plane (each
game has a plane that marks the cells a level has). Each game documents its planes in its
``format.md``.

A subclass gives ``fixed``, ``numbered`` (the numbered planes' name, or ""), ``dims(level)``
(the numbered planes, height and width a level needs), ``static(level, out)`` (the planes
that depend on the level only, drawn once per level and cached) and ``dynamic(level, state,
ui, out)`` (the board's and the interaction state's planes, drawn into a copy of the static
ones at every encode); ``tables(level, shape)`` (optional) precomputes what ``dynamic``
looks up (flat indices of each piece's cells, ...), cached per level with the static planes
and read back with :meth:`Planes.table`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Planes", "set_cells"]

_CACHE_LIMIT = 512  # levels whose static planes one encoder keeps


def set_cells(out: np.ndarray, plane: int, cells) -> None:
    """Set ``out[plane, row, col] = 1`` for every ``(row, col)`` of ``cells``."""
    for r, c in cells:
        out[plane, r, c] = 1


class Planes:
    """A game's symbolic board encoder (see the module docstring)."""

    fixed: tuple[str, ...] = ()
    numbered: str = ""  # the name of the numbered planes ("colour", "pair", "layer"), or ""

    def __init__(self) -> None:
        # (id(level), shape) -> (level, static planes, tables): the level is kept alive, so
        # its id stays its own while the entry lives
        self._cache: dict[tuple[int, tuple[int, int, int]], tuple[Any, np.ndarray, Any]] = {}

    # -- what a game writes -------------------------------------------------------------------
    def dims(self, level: Any) -> tuple[int, int, int]:
        """(numbered planes, height, width) that ``level`` needs."""
        raise NotImplementedError

    def static(self, level: Any, out: np.ndarray) -> None:
        """Set the planes of ``level`` that no move changes into the zeroed ``out``."""

    def dynamic(self, level: Any, state: Any, ui: Any, out: np.ndarray) -> None:
        """Set the planes of the board ``state`` and the interaction state ``ui``."""
        raise NotImplementedError

    def tables(self, level: Any, shape: tuple[int, int, int]) -> Any:
        """What ``dynamic`` looks up for ``level`` in a tensor of ``shape`` (optional)."""
        return None

    # -- the encoder --------------------------------------------------------------------------
    def plane(self, name: str) -> int:
        """The index of fixed plane ``name``."""
        return self.fixed.index(name)

    def shape(self, levels) -> tuple[int, int, int]:
        """``(C, H, W)``: the shape that fits every level of ``levels`` (a tier's catalogue)."""
        dims = [self.dims(level) for level in levels]
        if not dims:
            raise ValueError("planes: no levels to size the board tensor by")
        return (
            len(self.fixed) + max(d[0] for d in dims),
            max(d[1] for d in dims),
            max(d[2] for d in dims),
        )

    def names(self, shape: tuple[int, int, int]) -> tuple[str, ...]:
        """The name of every plane of a tensor of ``shape``, in order."""
        extra = shape[0] - len(self.fixed)
        return self.fixed + tuple(f"{self.numbered}{i}" for i in range(extra))

    def fits(self, level: Any, shape: tuple[int, int, int]) -> bool:
        n, h, w = self.dims(level)
        return len(self.fixed) + n <= shape[0] and h <= shape[1] and w <= shape[2]

    def encode(self, level: Any, state: Any, ui: Any, shape: tuple[int, int, int]) -> np.ndarray:
        """The board (``level``, rules ``state``, view ``ui``) as a new ``uint8`` array of
        ``shape``; ValueError when the level does not fit in it."""
        out = self._entry(level, shape)[1].copy()
        self.dynamic(level, state, ui, out)
        return out

    def table(self, level: Any, shape: tuple[int, int, int]) -> Any:
        """The cached :meth:`tables` of ``level`` at ``shape``."""
        return self._entry(level, shape)[2]

    def _entry(self, level: Any, shape: tuple[int, int, int]) -> tuple[Any, np.ndarray, Any]:
        key = (id(level), shape)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is level:
            return hit
        if not self.fits(level, shape):
            n, h, w = self.dims(level)
            raise ValueError(
                f"planes: level {getattr(level, 'id', '?')!r} needs {len(self.fixed) + n} planes "
                f"of {h}x{w}, more than the board tensor's {shape[0]} of {shape[1]}x{shape[2]} "
                "(sized by the tier's catalogue); pass a larger shape"
            )
        base = np.zeros(shape, dtype=np.uint8)
        self.static(level, base)
        base.setflags(write=False)
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        hit = self._cache[key] = (level, base, self.tables(level, shape))
        return hit
