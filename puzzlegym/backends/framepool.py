"""Observation arrays without a full frame copy per step, and without breaking Gymnasium's
contract that each observation is the caller's own array.

A step used to return ``frame.copy()``: 3.5 MB copied at 1280×900 however little changed.
:class:`FramePool` keeps the few arrays it handed out last. When one of them is referenced by
nothing but the pool (the caller dropped it: its count of references says so), it is brought
up to date by copying only the screen regions the renderer redrew since that array's frame
(:class:`DirtyLog`), and handed out again. An array anyone still holds (a replay buffer, a
frame stack, a view of it, the env's own last observation) is never written: the pool copies
a new one instead. So an observation never changes under its holder.
"""

from __future__ import annotations

import sys
from collections import deque

import numpy as np

from puzzlegym.screen.render import Rect

__all__ = ["DirtyLog", "FramePool"]


class DirtyLog:
    """The regions each render redrew, numbered: :meth:`since` answers which regions changed
    after render ``seq`` (None when the log no longer reaches back that far)."""

    def __init__(self, keep: int = 16) -> None:
        self.seq = 0
        self._entries: deque[tuple[int, list[Rect]]] = deque(maxlen=keep)

    def add(self, rects: list[Rect]) -> int:
        self.seq += 1
        self._entries.append((self.seq, list(rects)))
        return self.seq

    def reset(self) -> None:
        """Forget everything (a frame drawn some other way): nothing can be patched."""
        self.seq += 1
        self._entries.clear()

    def since(self, seq: int) -> list[Rect] | None:
        if seq == self.seq:
            return []
        wanted = [rects for s, rects in self._entries if s > seq]
        if len(wanted) != self.seq - seq:
            return None
        return [r for rects in wanted for r in rects]


def _refs(entry: list) -> int:
    """References to the pool's array of ``entry`` (this call's own included)."""
    return sys.getrefcount(entry[0])


class FramePool:
    """Up to ``size`` observation arrays, each reused only when nothing but the pool holds it
    (see the module docstring)."""

    def __init__(self, size: int = 3) -> None:
        self.size = size
        self._entries: list[list] = []  # [array, the DirtyLog seq its pixels are]
        self.patched = self.copied = 0  # how observations were made (for benchmarks, tests)

    def take(self, frame: np.ndarray, log: DirtyLog) -> np.ndarray:
        """An array equal to ``frame`` that no one else holds."""
        for entry in self._entries:
            if _refs(entry) == _FREE and entry[0].shape == frame.shape:
                rects = log.since(entry[1])
                array = entry[0]
                if rects is None:
                    np.copyto(array, frame)
                    self.copied += 1
                else:
                    for r in rects:
                        array[r.y : r.y1, r.x : r.x1] = frame[r.y : r.y1, r.x : r.x1]
                    self.patched += 1
                entry[1] = log.seq
                return array
        array = frame.copy()
        self.copied += 1
        if len(self._entries) < self.size:
            self._entries.append([array, log.seq])
        else:  # every pooled array is held: keep the newest instead of the oldest
            self._entries.pop(0)
            self._entries.append([array, log.seq])
        return array

    def clear(self) -> None:
        self._entries.clear()


_FREE = _refs([np.zeros(1)])  # the count of an array only the pool's entry holds
