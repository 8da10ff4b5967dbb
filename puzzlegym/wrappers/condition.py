"""ConditionWrapper: the base of the lab's intervention wrappers (StateHint, RuleCard,
WorkflowController), each run under one named condition of a study."""

from __future__ import annotations

import gymnasium as gym

from puzzlegym.base.errors import ConfigError, shown

__all__ = ["ConditionWrapper"]


class ConditionWrapper(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """A wrapper under one of ``conditions`` (e.g. RQ4's ``("K0", "K1")``), checked before
    anything is set up and kept as :attr:`condition`; Gymnasium records it as the wrapper's
    constructor argument. ``condition_kind`` names the set in the error message."""

    conditions: tuple[str, ...] = ()
    condition_kind = "intervention"

    def __init__(self, env: gym.Env, condition: str) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, condition=condition)
        super().__init__(env)
        if condition not in self.conditions:
            raise ConfigError(
                f"condition: {shown(condition)} is not a {self.condition_kind} condition; "
                f"allowed: {', '.join(self.conditions)}"
            )
        self.condition = condition
