"""The env's two faces besides the observation: the step's ``info`` (public fields, plus a copy
of the probe's figures that :class:`~puzzlegym.wrappers.BlackBox` drops) and the read-only
:class:`~puzzlegym.env.probe.Probe` for training code and the lab. A mixin of
:class:`puzzlegym.env.PuzzleEnv`."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from puzzlegym.base.errors import PuzzleGymError
from puzzlegym.env.probe import Probe
from puzzlegym.record.evaluator import Evaluator
from puzzlegym.screen.clock import Clock
from puzzlegym.screen.layout import BOARD_AREA
from puzzlegym.suite.shell import Suite

__all__ = ["Faces"]


class Faces:
    """``info``, :meth:`probe` and :meth:`summary` of an env (see the module docstring)."""

    # the env's (puzzlegym.env.core.PuzzleEnv)
    suite: Suite | None
    evaluator: Evaluator | None
    config: dict[str, Any]
    clock: Clock
    instruction: str
    steps: int
    actions: int
    _episode: int
    _phi: float
    _probe_cache: tuple[tuple, Probe] | None

    def _live(self, what: str) -> tuple[Suite, Evaluator]:
        """The episode's suite and evaluator; ``what`` before the first reset() raises."""
        if self.suite is None or self.evaluator is None:
            raise PuzzleGymError(f"{what} before reset()")
        return self.suite, self.evaluator

    def _info(self, accepted: bool) -> dict:
        suite, _ = self._live("_info()")
        # the step is over: a probe made while it ran (by an event subscriber) may predate its
        # progress, so the info's copy is taken from a probe of the settled step
        self._probe_cache = None
        board = suite.board
        return {
            # public: what the player could know
            "step": self.steps,
            "actions": self.actions,
            "elapsed_s": self.clock.elapsed_s,
            "budget_s": self.config["budget_s"],
            "accepted": accepted,
            "screen": suite.screen,
            "feedback": board.feedback if board else "",
            "instruction": self.instruction,
            "pressed": list(suite.pressed),  # the controls this step pressed (e.g. ["restart"])
            # private: a copy of the probe's figures (strip with puzzlegym.wrappers.BlackBox)
            "evaluator": self.probe().evaluator_info(),
        }

    # ------------------------------------------------------------------ probe
    def probe(self) -> Probe:
        """A frozen, read-only view of the episode now (:class:`puzzlegym.env.probe.Probe`): the
        screen, the objective, the board in play, the named controls and the board area, the
        last settled snapshot and its dead-end certificate, counters and results. Privileged:
        for training code and the lab, never for evaluated agents."""
        suite, ev = self._live("probe()")
        # a probe is a value of these: one per moment, however many readers ask for it
        key = (self._episode, suite.version, self.actions, self.steps)
        cached = self._probe_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        probe = Probe(
            env_id=self.config["env_id"],
            objective=ev.objective,
            screen=suite.screen,
            game=suite.game,
            tier=suite.tier,
            board=suite.board,
            controls=MappingProxyType(suite.targets()),
            board_area=BOARD_AREA,
            episode=self._episode,
            version=suite.version,
            steps=self.steps,
            actions=self.actions,
            elapsed_s=self.clock.elapsed_s,
            levels_won=tuple(ev.levels_won),
            success=ev.success,
            lc=ev.lc,
            fgp=ev.fgp,
            progress=self._phi,
            mismatch=ev.mismatch,
            _snapshot=ev.last_snapshot,
        )
        self._probe_cache = (key, probe)
        return probe

    def summary(self) -> dict:
        """The evaluator's summary of the episode so far (what the record's result holds:
        success, LC, FGP, levels won, per-level results, attempts, ...). Privileged."""
        if self.evaluator is None:
            raise PuzzleGymError("summary() before reset()")
        return self.evaluator.summary()
