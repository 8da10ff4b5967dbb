"""RQ4 rule card: the game's mechanics in the text channel (K1), or nothing (K0)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from puzzlegym.env import puzzle_env
from puzzlegym.wrappers.condition import ConditionWrapper
from puzzlegym.wrappers.text import find_text_channel

__all__ = ["RULE_CARD_CONDITIONS", "RULES_SECTION", "RuleCard"]

RULE_CARD_CONDITIONS = ("K0", "K1")
RULES_SECTION = "Rules"


class RuleCard(ConditionWrapper):
    """Under ``"K1"`` the text observation carries the game's rule card (``Game.rule_card``,
    the game's ``card.md``: the legal interactions and constraints, no level-specific hint) in
    its ``Rules`` section, from the first observation on; under ``"K0"`` it carries nothing.
    Needs a :class:`~puzzlegym.wrappers.TextChannel` below it; the screen passes through
    untouched. Each ``reset`` notes the condition in the episode record."""

    conditions = RULE_CARD_CONDITIONS
    condition_kind = "rule-card"

    def __init__(self, env: gym.Env, condition: str = "K1") -> None:
        super().__init__(env, condition)
        self.channel = find_text_channel(env)
        self.card = puzzle_env(env, "RuleCard").game.rule_card.strip() if condition == "K1" else ""
        self.channel.set_section(RULES_SECTION, self.card or None)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        puzzle_env(self.env, "RuleCard").annotate(
            {"kind": "intervention", "wrapper": "RuleCard", "condition": self.condition}
        )
        return obs, info

    def step(self, action: Any):
        return self.env.step(action)
