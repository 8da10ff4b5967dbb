"""The in-process backend: synthetic input events and the renderer's own frame buffer."""

from __future__ import annotations

import numpy as np

from puzzlegym.backends.framepool import DirtyLog, FramePool
from puzzlegym.base.actions import Action
from puzzlegym.screen.input import Event, action_events
from puzzlegym.screen.render import Canvas
from puzzlegym.screen.resolution import SCREEN_WINDOW, Resolution, TrainingView
from puzzlegym.suite.view import suite_widgets, training_scene


class FrameBuffer:
    """The rendered frame of a suite, redrawn only when the suite changed (shared by every
    backend: they all show the same pixels).

    ``cache_bytes`` bounds each canvas's widget image cache (None: the renderer's
    documented default). ``training`` (a :class:`~puzzlegym.screen.resolution.TrainingView`)
    makes it the training view's frame: each screen's window of the training-style scene
    (:func:`~puzzlegym.suite.view.training_scene`), at that view's size."""

    def __init__(
        self, cache_bytes: int | None = None, training: TrainingView | None = None
    ) -> None:
        self.cache_bytes = cache_bytes
        self.training = training
        start = None if training is None else training.resolution(SCREEN_WINDOW)
        self.canvas = Canvas(start, cache_bytes=cache_bytes)
        self._version = -1
        self.dirty = DirtyLog()  # the regions each render redrew (full-resolution frames)

    def render(self, suite) -> np.ndarray:
        """The suite's current frame (the canvas buffer itself: copy before handing out)."""
        if suite.version != self._version:
            if self.training is None:
                self.dirty.add(self.canvas.render(suite_widgets(suite)))
            else:
                widgets, window = training_scene(suite)
                self.canvas.set_resolution(self.training.resolution(window))
                self.canvas.render(widgets)
            self._version = suite.version
        return self.canvas.frame

    def invalidate(self) -> None:
        """Forget the retained scene (new episode, restore): the next frame is drawn in full."""
        self.canvas.invalidate()
        self._version = -1

    def release(self) -> None:
        """Free the canvas's cached images (the env was closed)."""
        self.canvas.release()
        self._version = -1

    def __getstate__(self) -> dict:
        # a pickle or copy holds the canvas's resolution, not its frame and widget image
        # cache (megabytes): the copy draws its next frame in full, byte-identical
        state = self.__dict__.copy()
        state["canvas"] = self.canvas.resolution
        state["_version"] = -1
        if state.get("pool") is not None:  # nor the observations it may hand out again
            state["pool"] = FramePool(state["pool"].size)
        state.pop("dirty", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.canvas = Canvas(state["canvas"], cache_bytes=self.cache_bytes)
        self.dirty = DirtyLog()


class NativeBackend(FrameBuffer):
    """Observations at ``resolution`` (the full screen unless :meth:`set_resolution` chose a
    reduced one or the training view); :meth:`screenshot` is always the full 1280×900
    screen."""

    name = "native"

    def __init__(self, cache_bytes: int | None = None) -> None:
        super().__init__(cache_bytes)
        self._screen: FrameBuffer | None = None  # full-resolution frames, when observations are not
        # full-resolution observations reuse an array nobody holds, patched (framepool.py);
        # None: a full copy each time
        self.pool: FramePool | None = FramePool()

    @property
    def resolution(self) -> Resolution:
        return self.canvas.resolution

    def set_resolution(self, resolution: Resolution | TrainingView) -> None:
        """Composite observations at ``resolution`` (or as the training view) from now on (a
        new canvas: its cache holds images at that size); the full screen stays available
        via :meth:`screenshot`."""
        if isinstance(resolution, TrainingView):
            self.training = resolution
            self.canvas = Canvas(resolution.resolution(SCREEN_WINDOW), cache_bytes=self.cache_bytes)
        else:
            self.training = None
            self.canvas = Canvas(resolution, cache_bytes=self.cache_bytes)
        self._version = -1
        self._screen = None

    def perform(self, action: Action, t_ms: int) -> list[Event]:
        """The input events of one primitive action starting at ``t_ms``."""
        return action_events(action, t_ms)

    def observe(self, suite) -> np.ndarray:
        """A uint8 array of the suite's current screen at the observation resolution
        ((900, 1280, 3) by default) that no one else holds: at full resolution an earlier
        observation its holder dropped, brought up to date region by region
        (:class:`~puzzlegym.backends.framepool.FramePool`), else a fresh copy."""
        frame = self.render(suite)
        if self.pool is None or self.training is not None or not self.canvas.resolution.is_full:
            return frame.copy()
        return self.pool.take(frame, self.dirty)

    def screenshot(self, suite) -> np.ndarray:
        """The full-resolution frame (the buffer itself: copy before handing out); drawn by a
        second canvas, only when asked, if observations are at a reduced resolution."""
        if self.training is None and self.canvas.resolution.is_full:
            return self.render(suite)
        if self._screen is None:
            self._screen = FrameBuffer(self.cache_bytes)
        return self._screen.render(suite)

    def invalidate(self) -> None:
        super().invalidate()
        if self._screen is not None:
            self._screen.invalidate()

    def close(self) -> None:
        self.release()
        if self.pool is not None:
            self.pool.clear()
        if self._screen is not None:
            self._screen.release()
