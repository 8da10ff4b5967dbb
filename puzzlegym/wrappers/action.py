"""Action wrappers: a discrete space of GUI actions on a grid over the screen."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from puzzlegym.base.actions import SCREEN_HEIGHT, SCREEN_WIDTH, GUIActionSpace
from puzzlegym.base.errors import ActionError, ConfigError
from puzzlegym.base.fields import check_count

__all__ = ["ARROW_KEYS", "SWIPES", "SWIPE_PX", "DiscreteGUIActions"]

SWIPE_PX = 120
SWIPES = {
    "up": (0, -SWIPE_PX),
    "down": (0, SWIPE_PX),
    "left": (-SWIPE_PX, 0),
    "right": (SWIPE_PX, 0),
}
ARROW_KEYS = ("ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight")


class DiscreteGUIActions(gym.ActionWrapper, gym.utils.RecordConstructorArgs):
    """A ``Discrete(n)`` action space over a ``grid=(rows, cols)`` laid on the full
    1280×900 screen. Grid cells are numbered row-major, ``cell = row * cols + col``; with
    ``C = rows * cols`` the indices are:

    * ``0 .. C-1``: click at the centre of cell ``i``;
    * ``C + 4*cell + d`` (if ``swipes``): a drag of :data:`SWIPE_PX` px from the centre of
      ``cell`` in direction ``d`` = up, down, left, right (end point clamped to the screen);
    * the last 4 (if ``keys``): ArrowUp, ArrowDown, ArrowLeft, ArrowRight.

    So ``n = C + (4*C if swipes) + (4 if keys)``. Cell centres are
    ``x = (2*col + 1) * 1280 // (2*cols)`` and ``y = (2*row + 1) * 900 // (2*rows)``.
    :meth:`action_meaning` gives the GUI action dict of an index; :meth:`click_index`,
    :meth:`swipe_index` and :meth:`key_index` go the other way.

    A coarse grid need not hit every button (e.g. the tier buttons when ``start="home"``);
    choose the grid for the screens the agent has to use. On a Maze Paint board any swipe
    that starts inside the board area rolls the ball, so any grid cell there will do.
    With more than 22 rows or 32 columns, swipes from edge cells towards the edge are
    clamped below the recognizer's 20 px swipe threshold and stop being swipes.

    Examples:
        >>> import gymnasium as gym
        >>> env = DiscreteGUIActions(gym.make("LongPuzzle/MazePaint-Easy"))
        >>> env.action_space
        Discrete(84)
        >>> _ = env.reset(seed=0)
        >>> env.action(0)["type"], env.action(env.action_space.n - 1)["type"]
        ('click', 'press_key')
    """

    def __init__(
        self,
        env: gym.Env,
        grid: tuple[int, int] = (4, 4),
        swipes: bool = True,
        keys: bool = True,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, grid=tuple(grid), swipes=swipes, keys=keys)
        super().__init__(env)
        if not isinstance(env.action_space, GUIActionSpace):
            raise ConfigError(
                f"DiscreteGUIActions: maps indices to puzzlegym GUI actions, but the wrapped env "
                f"acts with {env.action_space}; wrap a puzzlegym env (gym.make('LongPuzzle/...')) "
                "whose actions are still GUI action dicts"
            )
        rows, cols = (int(v) for v in grid)
        if not (1 <= rows <= SCREEN_HEIGHT and 1 <= cols <= SCREEN_WIDTH):
            raise ConfigError(f"grid: expected (rows, cols) within the screen, got {grid!r}")
        self.grid = (rows, cols)
        self.swipes, self.keys = bool(swipes), bool(keys)
        self.n_cells = rows * cols
        table: list[dict] = []
        centres = [self._centre(cell) for cell in range(self.n_cells)]
        table.extend({"type": "click", "x": x, "y": y} for x, y in centres)
        if self.swipes:
            for x, y in centres:
                for dx, dy in SWIPES.values():
                    x1 = min(max(x + dx, 0), SCREEN_WIDTH - 1)
                    y1 = min(max(y + dy, 0), SCREEN_HEIGHT - 1)
                    table.append({"type": "drag", "x0": x, "y0": y, "x1": x1, "y1": y1})
        if self.keys:
            table.extend({"type": "press_key", "key": key} for key in ARROW_KEYS)
        self._table = tuple(table)
        self.action_space = spaces.Discrete(len(table))

    def _centre(self, cell: int) -> tuple[int, int]:
        rows, cols = self.grid
        row, col = divmod(cell, cols)
        return (2 * col + 1) * SCREEN_WIDTH // (2 * cols), (2 * row + 1) * SCREEN_HEIGHT // (
            2 * rows
        )

    # -------------------------------------------------------------- index <-> GUI action
    def action_meaning(self, index: int) -> dict:
        """The GUI action dict of discrete action ``index`` (a new dict)."""
        if isinstance(index, np.ndarray) and index.shape == ():
            index = index.item()  # a 0-d array, as some vectorised callers pass
        i = check_count(index, "action", 0, len(self._table) - 1, ActionError, numpy=True)
        return dict(self._table[i])

    def action(self, action: Any) -> dict:
        return self.action_meaning(action)

    def cell_at(self, x: int, y: int) -> int:
        """The grid cell containing screen pixel ``(x, y)``."""
        if not (0 <= x < SCREEN_WIDTH and 0 <= y < SCREEN_HEIGHT):
            raise ActionError(f"({x}, {y}) is off the {SCREEN_WIDTH}x{SCREEN_HEIGHT} screen")
        rows, cols = self.grid
        return (y * rows // SCREEN_HEIGHT) * cols + x * cols // SCREEN_WIDTH

    def click_index(self, x: int, y: int) -> int:
        """Index of the click at the centre of the grid cell containing ``(x, y)``."""
        return self.cell_at(x, y)

    def swipe_index(self, x: int, y: int, direction: str) -> int:
        """Index of the swipe in ``direction`` from the grid cell containing ``(x, y)``."""
        if not self.swipes:
            raise ActionError("this DiscreteGUIActions has no swipes (swipes=False)")
        if direction not in SWIPES:
            raise ActionError(f"direction: {direction!r}; allowed: {', '.join(SWIPES)}")
        return self.n_cells + 4 * self.cell_at(x, y) + list(SWIPES).index(direction)

    def key_index(self, key: str) -> int:
        """Index of pressing arrow ``key`` ("ArrowUp", ...)."""
        if not self.keys:
            raise ActionError("this DiscreteGUIActions has no keys (keys=False)")
        if key not in ARROW_KEYS:
            raise ActionError(f"key: {key!r}; allowed: {', '.join(ARROW_KEYS)}")
        return len(self._table) - 4 + ARROW_KEYS.index(key)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:  # like PuzzleEnv, which seeds its own action space on reset
            self.action_space.seed(seed)
        return self.env.reset(seed=seed, options=options)
