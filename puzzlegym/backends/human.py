"""What the human page (``puzzlegym play``) shows a person beyond the env's settled frames.

A :class:`HumanPage` composites on a canvas of its own, so the env's observations never see
its frames:

* the settled screen, exactly the env's frame (the same widgets on the same renderer);
* after a step whose gesture tried a board move, the move's in-between frames (a truck
  rolling to its blocker and back, a vehicle sliding, the ball rolling; at most
  :data:`~puzzlegym.suite.view.MAX_MOTION_FRAMES`), then the settled screen;
* while a drag is held, a preview of it (a vehicle following the pointer);
* the pointer's shape over a pixel (:func:`puzzlegym.suite.shell.pointer_shape`).

Each call returns the screen regions it changed; the frame is :attr:`HumanPage.frame`.
Everything it shows is pixels of the screen and a pointer shape; no game state reaches the
page.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from puzzlegym.screen.render import Canvas, Rect
from puzzlegym.suite.shell import pointer_shape
from puzzlegym.suite.view import drag_scene, motion_scenes, suite_widgets

__all__ = ["HumanPage"]


class HumanPage:
    """The human page's frames for the env ``env`` (see the module docstring)."""

    def __init__(self, env) -> None:
        self.env = env.unwrapped
        self.canvas = Canvas()
        self.previewing = False  # the frame shows a drag preview

    @property
    def frame(self) -> np.ndarray:
        """The page's current frame (the canvas buffer itself: copy before keeping it)."""
        return self.canvas.frame

    def settled(self) -> list[Rect]:
        """Show the env's current screen; the regions that changed."""
        self.previewing = False
        return self.canvas.render(suite_widgets(self.env.suite))

    def full(self) -> list[Rect]:
        """Show the env's current screen, drawn in full."""
        self.canvas.invalidate()
        return self.settled()

    def after_step(self) -> Iterator[list[Rect]]:
        """The frames of the last step, one at a time: the in-between frames of its board
        move, if any, then the settled screen; each the regions it changed (read
        :attr:`frame` before asking for the next: it is redrawn in place)."""
        for scene in motion_scenes(self.env.suite):
            yield self.canvas.render(scene)
        yield self.settled()

    def preview(self, x0: int, y0: int, x: int, y: int) -> list[Rect] | None:
        """Show the preview of a drag from ``(x0, y0)`` held at ``(x, y)``; the regions that
        changed, or None when there is nothing to preview there (a preview shown before is
        taken back)."""
        scene = drag_scene(self.env.suite, x0, y0, x, y)
        if scene is None:
            return self.settled() if self.previewing else None
        self.previewing = True
        return self.canvas.render(scene)

    def cursor(self, x: int, y: int) -> str:
        """The pointer's shape over screen pixel ``(x, y)``."""
        suite = self.env.suite
        return pointer_shape(suite.screen, suite.targets(), suite.board, x, y)
