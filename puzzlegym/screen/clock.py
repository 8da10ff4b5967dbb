"""Episode clocks. The model never reads a clock itself: time is an input.

* :class:`SimClock` (RL): every primitive action costs a fixed number of seconds.
* :class:`WallClock` (live agents): real elapsed time, including the agent's thinking time.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """What the env asks of its clock (:class:`SimClock`, :class:`WallClock`, or a replay's
    clock standing in for a wall clock)."""

    kind: str

    @property
    def elapsed_s(self) -> float: ...

    def tick(self) -> None: ...

    def to_json(self) -> dict: ...

    def load_json(self, doc: dict) -> None: ...


class SimClock:
    kind = "sim"

    def __init__(self, action_cost_s: float = 1.0) -> None:
        if not action_cost_s > 0:
            raise ValueError(f"action_cost_s: must be positive, got {action_cost_s!r}")
        self.action_cost_s = float(action_cost_s)
        self._elapsed = 0.0

    @property
    def elapsed_s(self) -> float:
        return self._elapsed

    def tick(self) -> None:
        """One primitive action happened."""
        self._elapsed += self.action_cost_s

    def to_json(self) -> dict:
        return {"kind": self.kind, "elapsed_s": self._elapsed}

    def load_json(self, doc: dict) -> None:
        self._elapsed = float(doc["elapsed_s"])


class WallClock:
    kind = "wall"

    def __init__(self) -> None:
        self._offset = 0.0
        self._start = time.monotonic()

    @property
    def elapsed_s(self) -> float:
        return self._offset + (time.monotonic() - self._start)

    def tick(self) -> None:
        """Wall time passes by itself."""

    def to_json(self) -> dict:
        return {"kind": self.kind, "elapsed_s": self.elapsed_s}

    def load_json(self, doc: dict) -> None:
        self._offset = float(doc["elapsed_s"])
        self._start = time.monotonic()


def make_clock(kind: str, action_cost_s: float = 1.0) -> SimClock | WallClock:
    if kind == "sim":
        return SimClock(action_cost_s)
    if kind == "wall":
        return WallClock()
    raise ValueError(f"clock: {kind!r} is not a clock; allowed: 'sim', 'wall'")
