"""The paper's optional RQ4 controller: restart the level right after a certified dead end."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from puzzlegym.base.actions import Click, to_dict
from puzzlegym.env import puzzle_env

__all__ = ["DeadEndRestart"]


class DeadEndRestart(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """After ``reset`` and after every agent action: when the board in play is a certified
    dead end (the evaluator's snapshot of it carries the exhaustive certificate), the
    controller clicks the level's Restart control, an ordinary GUI action of the env. The
    agent gets the observation of the restarted board and the reward of both actions.

    It records that it intervened: :attr:`interventions` lists ``{"actions", "game", "tier",
    "level"}`` of each restart (``actions``: the action count once it restarted), and the episode
    record gets an ``intervention`` line after the restart. Nothing reaches the agent's
    observation but the restarted screen itself.
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        super().__init__(env)
        self.interventions: list[dict] = []

    def _restart(self, obs, info, terminated: bool = False, truncated: bool = False):
        reward = 0.0
        env = puzzle_env(self.env, "DeadEndRestart")
        probe = env.probe()
        board = probe.board  # in play whenever there is a dead end
        if terminated or truncated or not probe.dead_end or board is None:
            return obs, reward, terminated, truncated, info
        x, y = probe.controls["restart"].center
        obs, step_reward, terminated, truncated, info = self.env.step(to_dict(Click(x, y)))
        reward = float(step_reward)
        record = {
            "actions": env.probe().actions,
            "game": board.game.name,
            "tier": board.tier,
            "level": board.number,
        }
        self.interventions.append(record)
        env.annotate(
            {
                "kind": "intervention",
                "wrapper": "DeadEndRestart",
                **{k: v for k, v in record.items() if k != "actions"},
            }
        )
        return obs, reward, terminated, truncated, info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.interventions = []
        obs, info = self.env.reset(seed=seed, options=options)
        obs, _reward, _terminated, _truncated, info = self._restart(obs, info)
        return obs, info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        obs, extra, terminated, truncated, info = self._restart(obs, info, terminated, truncated)
        return obs, reward + extra, terminated, truncated, info
