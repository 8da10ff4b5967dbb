"""An episode's outcome as a pure fold over its events: the one place LC, FGP, success and
the episode's end are computed.

The evaluator folds each event as it publishes it (the live figures in ``info`` and the
reward's progress), and :func:`puzzlegym.record.metrics.episode_from_record` folds the
events read back from a record's log: the same function, so a record and the live episode
can never disagree.

>>> o = Outcome.start("MazePaint", "Easy", (1, 2))
>>> o = fold(o, LevelReached(1, 1.0, "MazePaint", "Easy", 1))
>>> o = fold(o, Snapshot(1, 1.0, "MazePaint", "Easy", 1, "move", 0.5, False, False, {}))
>>> o = fold(o, LevelWon(2, 2.0, "MazePaint", "Easy", 1))
>>> o.lc, o.fgp, o.success, o.end
(0.5, 0.5, False, 'stopped')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from puzzlegym.record.events import (
    ActionTaken,
    Answered,
    AttemptClosed,
    EpisodeEnded,
    Event,
    LevelEvent,
    LevelReached,
    LevelWon,
    Snapshot,
)

__all__ = ["Outcome", "fold", "fold_all"]

_EMPTY: Mapping[int, float] = MappingProxyType({})


@dataclass(frozen=True)
class Outcome:
    """What an episode of one objective (``game``, ``tier``, 1-based ``targets``) achieved so
    far: target levels ``reached`` and ``won``, the ``best`` potential seen on each reached
    target level, whether play strayed into another game or difficulty (``mismatch``), the
    agent's answer, the times of target wins (``win_times``: ``(t, level)``), the closed
    ``attempts``, the time and actions so far, and how the episode ended (``result``: the
    :class:`~puzzlegym.record.events.EpisodeEnded` result, None while it runs)."""

    game: str
    tier: str
    targets: tuple[int, ...]
    reached: frozenset = frozenset()
    won: frozenset = frozenset()
    best: Mapping[int, float] = field(default_factory=lambda: _EMPTY)
    mismatch: bool = False
    answered: str | None = None
    win_times: tuple = ()
    attempts: tuple = ()
    elapsed_s: float = 0.0
    actions: int = 0
    result: Mapping | None = None

    @classmethod
    def start(cls, game: str, tier: str, targets: Iterable[int]) -> Outcome:
        """The outcome before anything happened."""
        return cls(game, tier, tuple(targets))

    # ------------------------------------------------------------------ figures
    @property
    def success(self) -> bool:
        """Every target level won (an answer alone is not success)."""
        return self.won >= set(self.targets)

    @property
    def lc(self) -> float:
        """Level completion: the share of target levels won."""
        return len(self.won) / len(self.targets)

    @property
    def fgp(self) -> float:
        """Fine-grained progress: per target level 1 if won, else the best potential seen on
        it if it was reached, else 0; averaged over the target levels."""
        total = 0.0
        for level in self.targets:
            total += (
                1.0
                if level in self.won
                else self.best.get(level, 0.0)
                if level in self.reached
                else 0.0
            )
        return total / len(self.targets)

    @property
    def levels_won(self) -> list[int]:
        """Won target levels, 1-based, in order."""
        return sorted(self.won)

    @property
    def premature_exit(self) -> bool:
        """The agent answered without success (the env takes answers only within budget)."""
        return self.answered is not None and not self.success

    @property
    def end(self) -> str:
        """``complete``, ``answer``, ``timeout`` (the budget ran out) or ``stopped`` (ended
        from outside, or the record stops without a result)."""
        if self.success:
            return "complete"
        if self.answered is not None:
            return "answer"
        if self.result is not None and self.result.get("truncated"):
            return "timeout"
        return "stopped"

    def on_target(self, event: LevelEvent) -> bool:
        return event.game == self.game and event.tier == self.tier and event.level in self.targets


def fold(o: Outcome, event: Event) -> Outcome:
    """The outcome after ``event`` (a pure function: ``o`` is not changed)."""
    t = max(o.elapsed_s, event.t)
    if isinstance(event, ActionTaken):
        return replace(o, elapsed_s=t, actions=max(o.actions, event.actions))
    if isinstance(event, Snapshot):
        if o.on_target(event):
            best = max(o.best.get(event.level, 0.0), event.potential)
            if o.best.get(event.level) != best:
                return replace(o, elapsed_s=t, best=MappingProxyType({**o.best, event.level: best}))
    elif isinstance(event, LevelReached):
        if o.on_target(event):
            return replace(o, elapsed_s=t, reached=o.reached | {event.level})
        if (event.game, event.tier) != (o.game, o.tier):
            return replace(o, elapsed_s=t, mismatch=True)
    elif isinstance(event, LevelWon):
        if o.on_target(event) and event.level not in o.won:
            return replace(
                o,
                elapsed_s=t,
                won=o.won | {event.level},
                win_times=(*o.win_times, (event.t, event.level)),
            )
    elif isinstance(event, AttemptClosed):
        return replace(o, elapsed_s=t, attempts=(*o.attempts, event))
    elif isinstance(event, Answered):
        return replace(o, elapsed_s=t, answered=event.text)
    elif isinstance(event, EpisodeEnded):
        return replace(o, elapsed_s=t, result=event.result)
    return o if t == o.elapsed_s else replace(o, elapsed_s=t)


def fold_all(o: Outcome, events: Iterable[Event]) -> Outcome:
    """``fold`` over ``events`` in order."""
    for event in events:
        o = fold(o, event)
    return o
