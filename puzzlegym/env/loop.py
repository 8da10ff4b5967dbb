"""The episode loop: every tool that plays an episode plays it with :func:`play`.

``play(env, policy, observers=..., stop=...)`` resets the env (or starts from an observation
the caller already has), asks ``policy(obs, info)`` for an action, steps the env, and tells
each observer what happened, until the episode terminates or is truncated, ``stop`` says
so, or ``max_steps`` env steps were taken. Observers see the start, every action the
policy chose, every step, the env's events while the loop runs (``PuzzleEnv.subscribe``)
and the end; the episode GIF, a model agent's log, the RQ2 timeline and the PPO
evaluation are observers or thin callers of this one loop.

>>> import gymnasium as gym, puzzlegym
>>> from puzzlegym.agents import SolverAgent
>>> env = gym.make("LongPuzzle/MazePaint-Easy", level=1)
>>> end = play(env, SolverAgent(env), seed=0)
>>> end.reason, env.unwrapped.probe().success
('terminated', True)
>>> env.close()
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count

__all__ = ["EpisodeEnd", "Observer", "Step", "play"]

MAX_STEPS = 10_000_000  # the most env steps one loop may be asked to take


@dataclass(frozen=True)
class Step:
    """One env step of the loop: ``index`` counts this loop's steps from 1."""

    index: int
    action: Any
    obs: Any
    reward: float
    terminated: bool
    truncated: bool
    info: dict


@dataclass(frozen=True)
class EpisodeEnd:
    """How the loop ended: ``reason`` is ``terminated``, ``truncated``, ``stopped`` (``stop``
    returned true) or ``max_steps``; ``steps`` the env steps it took; ``obs``/``info`` the
    last ones; ``total_reward`` the sum of rewards."""

    reason: str
    steps: int
    obs: Any
    info: dict
    total_reward: float

    @property
    def done(self) -> bool:
        """Whether the episode itself ended (terminated or truncated)."""
        return self.reason in ("terminated", "truncated")


class Observer:
    """What an observer of :func:`play` may implement (every method is optional)."""

    def on_start(self, obs: Any, info: dict) -> None:
        """The first observation (after the reset, or the caller's)."""

    def on_policy(self, action: Any) -> None:
        """The policy just chose ``action`` (None if it raised), before the env steps."""

    def on_event(self, event: Any) -> None:
        """An event of the env (:mod:`puzzlegym.record.events`) while the loop runs."""

    def on_step(self, step: Step) -> None:
        """After each env step."""

    def on_end(self, end: EpisodeEnd) -> None:
        """After the last step (not called when the loop raised)."""


def play(
    env: Any,
    policy: Callable[[Any, dict], Any],
    observers: Iterable[Observer] = (),
    stop: Callable[[Step], bool] | None = None,
    *,
    max_steps: int | None = None,
    seed: int | None = None,
    options: dict | None = None,
    start: tuple[Any, dict] | None = None,
) -> EpisodeEnd:
    """Play one episode of ``env`` with ``policy`` (see the module docstring).

    ``start`` is ``(obs, info)`` when the caller has already reset (or restored) the env;
    otherwise ``env.reset(seed=seed, options=options)`` starts the episode. ``stop(step)``
    is asked after every step that did not end the episode."""
    check_count(max_steps, "max_steps", 0, MAX_STEPS, ConfigError, optional=True)
    observers = list(observers)
    base = getattr(env, "unwrapped", env)
    subscribe = getattr(base, "subscribe", None)
    watching = [o for o in observers if type(o).on_event is not Observer.on_event]
    subscription = None
    if watching and subscribe is not None:

        def deliver(event: Any) -> None:
            for o in watching:
                o.on_event(event)

        subscription = subscribe(deliver)
    try:
        obs, info = env.reset(seed=seed, options=options) if start is None else start
        for o in observers:
            o.on_start(obs, info)
        steps, total, reason = 0, 0.0, "max_steps"
        while max_steps is None or steps < max_steps:
            action = None
            try:
                action = policy(obs, info)
            finally:
                for o in observers:
                    o.on_policy(action)
            obs, reward, terminated, truncated, info = env.step(action)
            steps += 1
            total += float(reward)
            step = Step(steps, action, obs, float(reward), bool(terminated), bool(truncated), info)
            for o in observers:
                o.on_step(step)
            if terminated or truncated:
                reason = "terminated" if terminated else "truncated"
                break
            if stop is not None and stop(step):
                reason = "stopped"
                break
        end = EpisodeEnd(reason, steps, obs, info, total)
    finally:
        if subscription is not None:
            subscription.close()
    for o in observers:
        o.on_end(end)
    return end
