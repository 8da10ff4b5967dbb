"""The in-process backend: synthetic input events and the renderer's own frame buffer."""

from __future__ import annotations

import numpy as np

from puzzlegym.actions import Action
from puzzlegym.input import Event, action_events
from puzzlegym.render import Canvas


class NativeBackend:
    name = "native"

    def __init__(self) -> None:
        self.canvas = Canvas()
        self._version = -1

    def perform(self, action: Action, t_ms: int) -> list[Event]:
        """The input events of one primitive action starting at ``t_ms``."""
        return action_events(action, t_ms)

    def observe(self, suite) -> np.ndarray:
        """A fresh uint8 (900, 1280, 3) array of the suite's current screen."""
        if suite.version != self._version:
            self.canvas.render(suite.widgets())
            self._version = suite.version
        return self.canvas.frame.copy()

    def invalidate(self) -> None:
        """Forget the retained scene (after a restore): the next frame is drawn in full."""
        self.canvas.invalidate()
        self._version = -1

    def close(self) -> None:
        pass
