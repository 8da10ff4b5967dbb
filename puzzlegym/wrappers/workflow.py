"""RQ4 workflow control: a deterministic controller performs game entry and level
advancement (P1), so the agent makes only puzzle moves; or it does nothing (P0)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from puzzlegym.base.errors import PuzzleGymError
from puzzlegym.env import puzzle_env
from puzzlegym.env.navigation import navigation_click
from puzzlegym.env.probe import LEVEL_COMPLETE
from puzzlegym.wrappers.condition import ConditionWrapper

__all__ = ["MAX_NAVIGATION", "WORKFLOW_CONDITIONS", "WorkflowController"]

WORKFLOW_CONDITIONS = ("P0", "P1")
MAX_NAVIGATION = 16  # controller clicks after one agent action (the longest path is 4)


class WorkflowController(ConditionWrapper):
    """Under ``"P1"``, after ``reset`` and after every agent action, the controller clicks
    through the suite (:func:`puzzlegym.env.navigation.navigation_click`: the game's card,
    the difficulty, Next after a win, Menu when the agent left for another level) until a
    target board of the objective is in play or the episode ends. Its clicks are ordinary GUI
    actions of the env (they take time on its clock and appear in the episode record, each
    followed by an ``intervention`` line naming it); the agent gets the observation after the
    last of them and the reward of all. Under ``"P0"`` it does nothing.

    :attr:`controller_actions` counts the controller's actions of the episode.
    """

    conditions = WORKFLOW_CONDITIONS
    condition_kind = "workflow"

    def __init__(self, env: gym.Env, condition: str = "P1") -> None:
        super().__init__(env, condition)
        self.controller_actions = 0

    def _navigate(self, obs, info, terminated: bool = False, truncated: bool = False):
        reward = 0.0
        if self.condition == "P0":
            return obs, reward, terminated, truncated, info
        env = puzzle_env(self.env, "WorkflowController")
        for _ in range(MAX_NAVIGATION):
            if terminated or truncated:
                break
            probe = env.probe()
            click = navigation_click(probe)
            if click is None:
                break
            purpose = "advance" if probe.screen == LEVEL_COMPLETE else "entry"
            obs, r, terminated, truncated, info = self.env.step(click)
            reward += float(r)
            self.controller_actions += 1
            env.annotate(
                {
                    "kind": "intervention",
                    "wrapper": "WorkflowController",
                    "purpose": purpose,
                    "action": click,
                }
            )
        else:
            raise PuzzleGymError(
                f"WorkflowController: no target board after {MAX_NAVIGATION} navigation clicks"
            )
        return obs, reward, terminated, truncated, info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.controller_actions = 0
        obs, info = self.env.reset(seed=seed, options=options)
        puzzle_env(self.env, "WorkflowController").annotate(
            {"kind": "intervention", "wrapper": "WorkflowController", "condition": self.condition}
        )
        obs, _reward, terminated, truncated, info = self._navigate(obs, info)
        if terminated or truncated:
            raise PuzzleGymError("WorkflowController: the episode ended while entering the game")
        return obs, info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        obs, extra, terminated, truncated, info = self._navigate(obs, info, terminated, truncated)
        return obs, reward + extra, terminated, truncated, info
