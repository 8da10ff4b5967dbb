"""The in-process backend: synthetic input events and the renderer's own frame buffer."""

from __future__ import annotations

import numpy as np

from puzzlegym.actions import Action
from puzzlegym.screen.input import Event, action_events
from puzzlegym.screen.render import Canvas


class FrameBuffer:
    """The rendered frame of a suite, redrawn only when the suite changed (shared by every
    backend: they all show the same pixels)."""

    def __init__(self) -> None:
        self.canvas = Canvas()
        self._version = -1

    def render(self, suite) -> np.ndarray:
        """The suite's current frame (the canvas buffer itself: copy before handing out)."""
        if suite.version != self._version:
            self.canvas.render(suite.widgets())
            self._version = suite.version
        return self.canvas.frame

    def invalidate(self) -> None:
        """Forget the retained scene (new episode, restore): the next frame is drawn in full."""
        self.canvas.invalidate()
        self._version = -1


class NativeBackend(FrameBuffer):
    name = "native"

    def perform(self, action: Action, t_ms: int) -> list[Event]:
        """The input events of one primitive action starting at ``t_ms``."""
        return action_events(action, t_ms)

    def observe(self, suite) -> np.ndarray:
        """A fresh uint8 (900, 1280, 3) array of the suite's current screen."""
        return self.render(suite).copy()

    def close(self) -> None:
        pass
