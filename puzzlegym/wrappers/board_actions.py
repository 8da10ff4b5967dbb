"""A board-aligned discrete action space: the game's own targets plus the suite's buttons.

This uses privileged layout knowledge (where the view draws each cell, bolt, anchor or
vehicle, through ``GameView.board_targets``), so it is meant for training; agents evaluated
by the protocol act with raw GUI actions or the generic screen grid
(:class:`~puzzlegym.wrappers.DiscreteGUIActions`).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from puzzlegym.base.actions import Action, Click, GUIActionSpace, Wait, to_dict
from puzzlegym.base.errors import ActionError, ConfigError, PuzzleGymError
from puzzlegym.base.fields import check_count
from puzzlegym.env import PuzzleEnv
from puzzlegym.env.navigation import home_control
from puzzlegym.env.probe import HOME, LEVEL
from puzzlegym.game.splits import tier_targets
from puzzlegym.screen.input import GestureRecognizer, action_events

__all__ = ["BUTTONS", "BoardActions"]

# the suite's controls an agent may press: Restart, Undo (games with undo), Next (level
# advance), Menu, and the way back in from the home screen (the objective's game card, then
# its difficulty)
BUTTONS = ("restart", "undo", "next", "menu", "game", "tier")


class BoardActions(gym.ActionWrapper, gym.utils.RecordConstructorArgs):
    """``Discrete(K + B)``: index ``i < K`` performs the level's ``i``-th board target
    (``GameView.board_targets``: a swipe of the ball in Maze Paint, a click on bolt ``i`` in
    Nut and Bolt, on anchor ``i`` in Bolt Unscrew, ...), index ``K + j`` presses
    ``buttons[j]``.

    ``K`` is the tier's largest number of board targets over its catalogue levels
    (:func:`~puzzlegym.game.splits.tier_targets`; no generated level exceeds it), whichever
    levels the env plays: ``level=k``, every catalogue level, or ``levels="generated"``.
    Levels with fewer are padded with targets that do not exist, so every level of a tier
    has one layout: the one a policy trained across levels needs and, with
    ``buttons=("restart",)`` (``("restart", "undo")`` where the game has Undo), the JAX
    twin's (:func:`puzzlegym.jax.make`).
    ``max_targets`` sets it higher by hand.
    ``buttons`` (default: every entry of :data:`BUTTONS` the game has) are clicks on the
    suite's controls: ``"game"`` and ``"tier"`` are the objective's card on the home screen
    and its difficulty button. Past six games the home screen pages its cards: while the
    objective's card is on another page, ``"game"`` presses the page control towards it.

    An index whose target does not exist right now (a board target off the level screen, a
    button not on this screen) performs a ``wait``: time passes and nothing else happens.
    :meth:`action_masks` marks the indices that would change the screen, the board or its
    selection (asked of the env's probe, which changes nothing: ``Probe.would_change``),
    in the form sb3-contrib's ``MaskablePPO`` reads; when nothing would change anything (and
    before the first ``reset()``), every index is marked valid, so a masked policy can still
    act.

    Examples:
        >>> import gymnasium as gym
        >>> env = BoardActions(gym.make("LongPuzzle/MazePaint-Easy", start="board", level=1))
        >>> env.action_space, env.n_targets, env.buttons  # Maze Paint's targets: the 4 swipes
        (Discrete(9), 4, ('restart', 'next', 'menu', 'game', 'tier'))
        >>> _ = env.reset(seed=0)
        >>> env.action_masks().astype(int).tolist()  # a swipe into a wall changes nothing
        [1, 1, 0, 1, 0, 0, 1, 0, 0]
    """

    def __init__(
        self,
        env: gym.Env,
        buttons: tuple[str, ...] | list[str] | None = None,
        max_targets: int | None = None,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, buttons=None if buttons is None else tuple(buttons), max_targets=max_targets
        )
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, PuzzleEnv):
            raise ConfigError(
                f"BoardActions: wraps puzzlegym envs only (gym.make('LongPuzzle/...')), got "
                f"{type(base).__name__}; other envs keep their own action space"
            )
        game = base.game
        if not isinstance(env.action_space, GUIActionSpace):
            raise ConfigError(
                f"BoardActions: performs puzzlegym GUI actions, but the wrapped env acts with "
                f"{env.action_space}; apply it in place of DiscreteGUIActions, not over it"
            )
        self._base = base
        if buttons is None:
            buttons = tuple(b for b in BUTTONS if b != "undo" or game.has_undo)
        if isinstance(buttons, str):
            raise ConfigError(f"buttons: expected a list of names, got the string {buttons!r}")
        buttons = tuple(buttons)
        for b in buttons:
            if b not in BUTTONS:
                raise ConfigError(f"buttons: {b!r} is not a button; allowed: {', '.join(BUTTONS)}")
        if len(set(buttons)) != len(buttons):
            raise ConfigError(f"buttons: {buttons!r} names a button twice")
        self.buttons = buttons
        self._button_names = tuple(self._suite_name(b) for b in buttons)
        n = self._objective_targets()
        if max_targets is not None:
            n = check_count(
                max_targets,
                "max_targets",
                n,
                None,
                ConfigError,
                what="the most board targets of a level of this objective",
            )
        self.n_targets = n
        self._n_actions = n + len(buttons)
        self.action_space = spaces.Discrete(self._n_actions)
        self._gestures: dict[Action, list] = {}
        self._memo: tuple[tuple[int, int], list] | None = None  # ((episode, version), targets)
        self._mask_memo: tuple[tuple[int, int, bool], np.ndarray] | None = None
        self._board_memo: tuple[Any, list] | None = None  # (board, its targets)

    # -------------------------------------------------------------- layout
    def _suite_name(self, button: str) -> str:
        if button == "game":
            return f"game:{self._base.game.name}"
        if button == "tier":
            return f"tier:{self._base.tier}"
        return button

    def _control_now(self, name: str, probe) -> str:
        """The suite control a button presses on the screen shown: the objective's card is
        reached through the home screen's pages (its page control until its page shows)."""
        if probe.screen == HOME and name == f"game:{self._base.game.name}":
            return home_control(probe)
        return name

    def _objective_targets(self) -> int:
        """The most board targets of a catalogue level of the env's tier, whichever levels
        it plays (no generated level has more: :mod:`puzzlegym.game.splits`)."""
        game = self._base.game
        most = tier_targets(game, self._base.tier)
        if most == 0:
            raise ConfigError(
                f"BoardActions: {game.name} has no board targets (GameView.board_targets)"
            )
        return most

    def _probe(self):
        try:
            return self._base.probe()
        except PuzzleGymError:
            raise PuzzleGymError("BoardActions: call reset() first") from None

    def targets(self, probe=None) -> list[Action | None]:
        """The GUI action of every index now (``None`` where the target does not exist)."""
        probe = self._probe() if probe is None else probe
        key = (probe.episode, probe.version)
        memo = self._memo
        if memo is not None and memo[0] == key:
            return list(memo[1])
        out: list[Action | None] = [None] * self.n_targets
        board = probe.board
        if probe.screen == LEVEL and board is not None:
            # a board is an immutable value: its targets are computed once, however many
            # steps leave it as it is (a rejected click, a button, a redraw elsewhere)
            held = self._board_memo
            if held is not None and held[0] is board:
                found = held[1]
            else:
                found = board.board_targets()
                self._board_memo = (board, found)
            if len(found) > self.n_targets:
                raise PuzzleGymError(
                    f"BoardActions: level {board.number} has {len(found)} board targets, more "
                    f"than the {self.n_targets} of this action space; "
                    f"pass max_targets={len(found)} or more"
                )
            out[: len(found)] = found
        for name in self._button_names:
            rect = probe.control(self._control_now(name, probe))
            out.append(None if rect is None else Click(*rect.center))
        self._memo = (key, out)
        return list(out)

    def names(self) -> list[str]:
        """A name for every index: ``target0`` ... and the buttons."""
        return [f"target{i}" for i in range(self.n_targets)] + list(self.buttons)

    # -------------------------------------------------------------- actions
    def _index(self, index: Any) -> int:
        if isinstance(index, np.ndarray) and index.shape == ():
            index = index.item()
        return check_count(index, "action", 0, self._n_actions - 1, ActionError, numpy=True)

    def action_meaning(self, index: int) -> dict:
        """The GUI action dict index ``index`` performs now (``{"type": "wait"}`` when its
        target does not exist)."""
        action = self.targets()[self._index(index)]
        return to_dict(Wait() if action is None else action)

    def action(self, action: Any) -> Action:
        i = self._index(action)
        target = self.targets()[i]
        return Wait() if target is None else target

    def action_masks(self) -> np.ndarray:
        """A bool array over the indices: True where the action would change the screen, the
        board or its selection (all True when none would, and before the first ``reset()``:
        vector envs may ask before they reset). Computed in one pass when the game's view
        has ``target_changes`` (the board targets from the rules' legal moves and the
        selection, the buttons as the suite decides a press), else as
        :meth:`tried_masks`; the two are equal (tested over random play of every id)."""
        return self._masks(computed=True)

    def tried_masks(self) -> np.ndarray:
        """:meth:`action_masks` found by trying every index's gestures on the probe
        (``Probe.would_change``), whatever the game's view computes."""
        return self._masks(computed=False)

    def _masks(self, computed: bool) -> np.ndarray:
        try:
            probe = self._base.probe()
        except PuzzleGymError:  # no episode yet
            return np.ones(self._n_actions, dtype=bool)
        key = (probe.episode, probe.version, computed)  # the screen decides the mask
        if self._mask_memo is not None and self._mask_memo[0] == key:
            return self._mask_memo[1].copy()
        mask = self._computed_mask(probe) if computed else None
        if mask is None:
            mask = np.zeros(self._n_actions, dtype=bool)
            for i, action in enumerate(self.targets(probe)):
                if action is not None:
                    mask[i] = any(probe.would_change(g) for g in self._gestures_of(action))
        if not mask.any():
            mask[:] = True
        self._mask_memo = (key, mask)
        return mask.copy()

    def _computed_mask(self, probe) -> np.ndarray | None:
        """The mask from ``GameView.target_changes`` and ``Probe.press_changes`` (None when
        the game's view does not compute its targets' changes)."""
        if getattr(self._base.game.view, "target_changes", None) is None:
            return None
        mask = np.zeros(self._n_actions, dtype=bool)
        board = probe.board
        if probe.screen == LEVEL and board is not None:
            changes = board.target_changes()
            if changes is None or len(changes) > self.n_targets:
                return None  # another game's board, or too many targets: targets() says so
            mask[: len(changes)] = changes
        for j, name in enumerate(self._button_names):
            mask[self.n_targets + j] = probe.press_changes(self._control_now(name, probe))
        return mask

    def _gestures_of(self, action: Action) -> list:
        """The gestures ``action`` makes on its own (a fresh recognizer: a click is a click)."""
        found = self._gestures.get(action)
        if found is None:
            if len(self._gestures) > 4096:
                self._gestures.clear()
            recognizer = GestureRecognizer()
            found = [g for e in action_events(action, 0) for g in recognizer.feed(e)]
            self._gestures[action] = found
        return found

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.action_space.seed(seed)
        return self.env.reset(seed=seed, options=options)
