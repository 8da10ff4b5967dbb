"""RQ2 state hints: a truthful sentence about the board at takeover, in the text channel."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from puzzlegym import solvers
from puzzlegym.env import puzzle_env
from puzzlegym.env.probe import LEVEL
from puzzlegym.screen.labels import label
from puzzlegym.wrappers.condition import ConditionWrapper
from puzzlegym.wrappers.text import find_text_channel

__all__ = ["HINT_CONDITIONS", "HINT_MESSAGES", "RECOVERY_SECTION", "STATE_SECTION", "StateHint"]

HINT_CONDITIONS = ("A", "B", "C")
STATE_SECTION = "State information"
RECOVERY_SECTION = "Recovery information"
HINT_MESSAGES = {
    "dead_end": "The board in play can no longer be completed by forward moves. "
    "It has to be recovered before any further progress is possible.",
    "solvable": "The board in play can still be completed by forward moves.",
    "recovery": 'The control labelled "{label}" on the screen starts this level again.',
}


class StateHint(ConditionWrapper):
    """The paper's RQ2 conditions, over a :class:`~puzzlegym.wrappers.TextChannel`:

    * ``"A"``: no message;
    * ``"B"``: a truthful sentence in the ``State information`` section of the text
      observation: the board in play can still / can no longer be completed by forward
      moves, as the exhaustive certifier (:func:`puzzlegym.solvers.certify`) decides at
      takeover;
    * ``"C"``: B, plus (on a board that can no longer be completed) a ``Recovery
      information`` section naming the restart control as the screen labels it
      (``screen.labels``: "Restart"). On a solvable board C says what B says.

    Takeover is a ``reset`` that restores a checkpoint (``options={"checkpoint": ...}``), or
    an explicit :meth:`take_over` (after the lab's controller replayed a prefix). The message
    enters then and stays, also after a restart, until the next plain ``reset`` (a new
    episode, no takeover) clears it. When the certifier cannot decide ("unknown", past a
    search limit) or no board is in play, no sentence is given: a hint is never a guess.

    The verdict is kept in :attr:`verdict` and noted in the episode record; observation and
    info carry only the sentence. The screen passes through untouched.
    """

    conditions = HINT_CONDITIONS
    condition_kind = "state-hint"

    def __init__(self, env: gym.Env, condition: str = "A") -> None:
        super().__init__(env, condition)
        self.channel = find_text_channel(env)
        self.verdict: str | None = None  # the certifier's verdict at takeover (private)
        self.shown = ""  # the text shown since the takeover

    def _clear(self) -> None:
        self.shown = ""
        self.channel.set_section(STATE_SECTION, None)
        self.channel.set_section(RECOVERY_SECTION, None)

    def take_over(self) -> str:
        """Decide the message for the board in play now and show it from the next
        observation on; returns the text shown (``""`` under A or without a verdict)."""
        env = puzzle_env(self.env, "StateHint")
        probe = env.probe()
        board = probe.board
        self._clear()
        self.verdict = None
        if board is not None and probe.screen == LEVEL:
            self.verdict = solvers.certify(board.level, board.state)
        shown = ""
        if self.condition != "A" and self.verdict in ("dead_end", "solvable"):
            shown = HINT_MESSAGES[self.verdict]
            self.channel.set_section(STATE_SECTION, shown)
            if self.condition == "C" and self.verdict == "dead_end":
                recovery = HINT_MESSAGES["recovery"].format(label=label("restart"))
                self.channel.set_section(RECOVERY_SECTION, recovery)
                shown = f"{shown} {recovery}"
        env.annotate(
            {
                "kind": "intervention",
                "wrapper": "StateHint",
                "condition": self.condition,
                "verdict": self.verdict,
                "text": shown,
            }
        )
        self.shown = shown
        return shown

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        takeover = options is not None and options.get("checkpoint") is not None
        self._clear()
        self.verdict = None
        obs, info = self.env.reset(seed=seed, options=options)
        if takeover:
            self.take_over()
            obs = {**obs, "text": self.channel.compose(info)}
        return obs, info

    def step(self, action: Any):
        return self.env.step(action)
