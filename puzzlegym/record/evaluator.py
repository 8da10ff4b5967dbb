"""The evaluator: the private record of an objective episode.

It listens to the suite and records level reached / won events, restarts, undos, rejected
(invalid) moves, and a snapshot of every settled board (level, potential, win, dead-end
certificate, board state). From these it computes the episode's level completion (LC) and
fine-grained progress (FGP) for its objective. Nothing here reaches the agent's pixels;
training code reads it through ``info["evaluator"]`` and ``env.unwrapped.evaluator``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from puzzlegym.game.registry import ID_PREFIX
from puzzlegym.record.events import (
    Answered,
    AttemptClosed,
    Event,
    LeftLevel,
    LevelReached,
    LevelWon,
    MoveRejected,
    Restarted,
    Snapshot,
    Undone,
    event_from_record,
    freeze,
)
from puzzlegym.record.outcome import Outcome, fold, fold_all
from puzzlegym.suite.board import Board


@dataclass(frozen=True)
class Objective:
    """A game, a difficulty and its target levels (0-based indices into the tier)."""

    game: str
    tier: str
    targets: tuple[int, ...]

    @property
    def key(self) -> tuple[str, str]:
        return (self.game, self.tier)

    def has(self, board: Board) -> bool:
        """Whether ``board`` shows one of the objective's target levels."""
        return (board.game.name, board.tier) == self.key and board.index in self.targets


@dataclass(frozen=True)
class LevelResult:
    """One target level's result so far (from the episode's :class:`Outcome`)."""

    reached: bool = False
    won: bool = False
    max_potential: float = 0.0


def _no_stamp() -> tuple[int, float]:
    return 0, 0.0


class Evaluator:
    """Records one episode of one objective (see module docstring).

    ``publish`` (optional) receives every event as it happens (the env's event bus: the
    episode record and any other subscriber); ``stamp()`` gives the env's action count and
    the current action's time, which every event carries. The figures (LC, FGP, success)
    come from :attr:`outcome`, the fold of the events it published
    (:mod:`puzzlegym.record.outcome`).
    """

    def __init__(
        self,
        objective: Objective,
        publish: Callable[[Event], None] | None = None,
        stamp: Callable[[], tuple[int, float]] = _no_stamp,
    ) -> None:
        self.objective = objective
        self.publish = publish
        self.stamp = stamp
        self.outcome = Outcome.start(
            objective.game, objective.tier, (i + 1 for i in objective.targets)
        )
        self._snapshots: list[Snapshot] = []  # every snapshot
        self._events: list[Event] = []  # every other evaluator event
        self._lines: dict[str, list[dict]] = {"snapshots": [], "events": []}  # as record lines
        self.attempts: list[dict] = []  # closed level attempts
        self.attempt: dict | None = None  # the attempt in progress

    def detach(self) -> None:
        """Forget the env's callbacks (publish, stamp) when the env closes: they are bound
        methods of the env, so keeping them would keep a closed env alive in a cycle."""
        self.publish, self.stamp = None, _no_stamp

    # ------------------------------------------------------------------ queries
    def _as_lines(self, name: str, events: Sequence[Event]) -> list[dict]:
        """``events`` as record lines, converted once each, when someone asks."""
        lines = self._lines[name]
        lines.extend(e.to_record() for e in events[len(lines) :])
        return lines

    @property
    def snapshots(self) -> list[dict]:
        """Every snapshot of a settled board, as record lines."""
        return self._as_lines("snapshots", self._snapshots)

    @property
    def events(self) -> list[dict]:
        """Every other event the evaluator published, as record lines."""
        return self._as_lines("events", self._events)

    @property
    def last_snapshot(self) -> Snapshot | None:
        """The latest snapshot (None before the first board)."""
        return self._snapshots[-1] if self._snapshots else None

    def is_target(self, board: Board) -> bool:
        return self.objective.has(board)

    @property
    def results(self) -> dict[int, LevelResult]:
        """Each target level's result, by 0-based index."""
        return _results_of(self.outcome, self.objective.targets)

    @property
    def levels_won(self) -> list[int]:
        """Won target levels, 1-based."""
        return self.outcome.levels_won

    @property
    def success(self) -> bool:
        return self.outcome.success

    @property
    def lc(self) -> float:
        return self.outcome.lc

    @property
    def fgp(self) -> float:
        return self.outcome.fgp

    @property
    def mismatch(self) -> bool:
        return self.outcome.mismatch

    @property
    def answered(self) -> str | None:
        return self.outcome.answered

    def progress(self, board: Board | None) -> float:
        """Objective progress: won target levels plus the potential of the target board in
        play (the reward shaping potential)."""
        won = len(self.outcome.won)
        if board is not None and self.is_target(board) and board.index + 1 not in self.outcome.won:
            return won + board.potential
        return float(won)

    def summary(self) -> dict:
        return {
            "env_id": f"{ID_PREFIX}{self.objective.game}-{self.objective.tier}",
            "success": self.success,
            "lc": self.lc,
            "fgp": self.fgp,
            "levels_won": self.levels_won,
            "levels": {str(i + 1): asdict(r) for i, r in sorted(self.results.items())},
            "mismatch": self.mismatch,
            "answered": self.answered,
            "snapshots": len(self._snapshots),
            "attempts": len(self.attempts) + (self.attempt is not None),
            "dead_end_attempts": sum(a["dead_end"] for a in self.all_attempts()),
        }

    def all_attempts(self) -> list[dict]:
        """Closed attempts plus the one in progress."""
        return self.attempts + ([self.attempt] if self.attempt is not None else [])

    # ------------------------------------------------------------------ recording
    def _publish(self, event: Event) -> None:
        self.outcome = fold(self.outcome, event)
        if self.publish is not None:
            self.publish(event)

    def _emit(self, cls: type[Event], board: Board | None = None, **extra: Any) -> None:
        actions, t = self.stamp()
        if board is not None:
            extra.update(game=board.game.name, tier=board.tier, level=board.index + 1)
        event = cls(actions=actions, t=round(t, 3), **{k: freeze(v) for k, v in extra.items()})
        self._events.append(event)
        self._publish(event)

    def _snapshot(self, board: Board, cause: str) -> None:
        actions, t = self.stamp()
        details = (
            board.game.describe(board.level, board.state)
            if board.game.describe is not None
            else None
        )
        certify = board.game.dead_end  # None: the game certifies no dead ends
        event = Snapshot(
            actions=actions,
            t=round(t, 3),
            game=board.game.name,
            tier=board.tier,
            level=board.index + 1,
            cause=cause,
            potential=board.potential,
            solved=board.solved,
            dead_end=None if certify is None else certify(board.level, board.state),
            state=freeze(board.game.state_to_json(board.level, board.state)),
            details=None if details is None else freeze(details),
        )
        self._snapshots.append(event)
        self._publish(event)

    # ------------------------------------------------------------------ attempts
    # An attempt is one try at a level: from its ready board until a restart, leaving the
    # level, winning it, or the end of the episode. Within it, a dead-end run starts at the
    # first move that leaves an unsolvable board (the fatal move) and counts moves until an
    # undo or restart returns to a solvable board, or the attempt ends (the delay).
    def _open_attempt(self, board: Board) -> None:
        self.attempt = {
            "game": board.game.name,
            "tier": board.tier,
            "level": board.index + 1,
            "start_actions": self.stamp()[0],
            "moves": 0,
            "undos": 0,
            "dead_end": False,
            "runs": [],
            "end": None,
        }

    def _close_run(self, how: str) -> None:
        a = self.attempt
        if a is not None and a["runs"] and a["runs"][-1]["recovered_by"] is None:
            a["runs"][-1]["recovered_by"] = how

    def _close_attempt(self, how: str) -> None:
        a = self.attempt
        if a is None:
            return
        self._close_run("restart" if how == "restart" else "attempt_end")
        a["end"] = how
        a["end_actions"] = self.stamp()[0]
        self.attempts.append(a)
        self.attempt = None
        self._emit(AttemptClosed, None, **a)

    def _track(self, cause: str, move: Any, dead: Any) -> None:
        a = self.attempt
        if a is None:
            return
        open_run = a["runs"][-1] if a["runs"] and a["runs"][-1]["recovered_by"] is None else None
        if cause == "move":
            a["moves"] += 1
            if dead:
                if open_run is None:
                    a["dead_end"] = True
                    run = {
                        "fatal_actions": self.stamp()[0],
                        "fatal_move": move,
                        "delay": 1,
                        "recovered_by": None,
                    }
                    a["runs"].append(run)
                else:
                    open_run["delay"] += 1
            elif open_run is not None:
                open_run["recovered_by"] = "move"
        elif cause == "undo":
            a["undos"] += 1
            if open_run is not None and not dead:
                open_run["recovered_by"] = "undo"

    # SuiteListener
    def level_ready(self, board: Board) -> None:
        self._emit(LevelReached, board)
        self._open_attempt(board)
        self._snapshot(board, "ready")

    def board_settled(self, board: Board, move: Any) -> None:
        self._snapshot(board, "move")
        self._track("move", move, self._snapshots[-1].dead_end)

    def move_rejected(self, board: Board, move: Any, reason: str) -> None:
        """An invalid move: the view read a move the rules refused (the board is unchanged)."""
        self._emit(MoveRejected, board, move=move, reason=reason)

    def level_won(self, board: Board) -> None:
        self._emit(LevelWon, board)
        self._close_attempt("won")

    def restarted(self, board: Board) -> None:
        self._emit(Restarted, board)
        self._close_attempt("restart")
        self._open_attempt(board)
        self._snapshot(board, "restart")

    def undone(self, board: Board) -> None:
        self._emit(Undone, board)
        self._snapshot(board, "undo")
        self._track("undo", None, self._snapshots[-1].dead_end)

    def left_level(self, board: Board) -> None:
        self._emit(LeftLevel, board)
        self._close_attempt("left")

    def finish(self) -> None:
        """The episode ended: close the attempt in progress."""
        self._close_attempt("episode_end")

    def answer(self, text: str) -> None:
        self._emit(Answered, None, text=text, success=self.success)

    # ------------------------------------------------------------------ state document
    def to_json(self) -> dict:
        return {
            "objective": {**asdict(self.objective), "targets": list(self.objective.targets)},
            "results": {str(i): asdict(r) for i, r in self.results.items()},
            "snapshots": self.snapshots,
            "events": self.events,
            "mismatch": self.mismatch,
            "answered": self.answered,
            "attempts": self.attempts,
            "attempt": self.attempt,
        }

    def load_json(self, doc: dict) -> None:
        """Replace the record by ``doc`` (from :meth:`to_json`). The figures are not taken
        from the document: they are the fold of its events and snapshots, and the document's
        ``results``, ``mismatch`` and ``answered`` must agree with that fold (a document that
        claims a win its own history does not hold is refused); raises ValueError naming
        the field."""
        obj = doc["objective"]
        if (obj["game"], obj["tier"], tuple(obj["targets"])) != (
            self.objective.game,
            self.objective.tier,
            self.objective.targets,
        ):
            raise ValueError(
                f"evaluator.objective: checkpoint is for {obj['game']}-{obj['tier']} "
                f"levels {obj['targets']}, this env plays {self.objective}"
            )
        claimed = {int(i): LevelResult(**r) for i, r in doc["results"].items()}
        if set(claimed) != set(self.objective.targets):
            raise ValueError(
                f"evaluator.results: levels {sorted(claimed)} are not this objective's targets "
                f"{list(self.objective.targets)}"
            )
        events = [
            event_from_record(rec, f"evaluator.events.{n}") for n, rec in enumerate(doc["events"])
        ]
        for n, event in enumerate(events):
            if isinstance(event, Snapshot):
                raise ValueError(
                    f"evaluator.events.{n}: a snapshot, which belongs in evaluator.snapshots"
                )
        snapshots: list[Snapshot] = []
        for n, rec in enumerate(doc["snapshots"]):
            snap = event_from_record(rec, f"evaluator.snapshots.{n}")
            if not isinstance(snap, Snapshot):
                raise ValueError(f"evaluator.snapshots.{n}: a {snap.kind} event, not a snapshot")
            snapshots.append(snap)
        outcome = fold_all(
            Outcome.start(self.objective.game, self.objective.tier, self.outcome.targets),
            [*events, *snapshots],
        )
        derived = _results_of(outcome, self.objective.targets)
        for i in sorted(claimed):
            if claimed[i] != derived[i]:
                raise ValueError(
                    f"evaluator.results.{i}: {asdict(claimed[i])} is not what the checkpoint's own "
                    f"events and snapshots give ({asdict(derived[i])})"
                )
        if bool(doc["mismatch"]) != outcome.mismatch or doc["answered"] != outcome.answered:
            raise ValueError(
                "evaluator.mismatch/answered: not what the checkpoint's own events give"
            )
        self.outcome = outcome
        self._snapshots, self._events = snapshots, events
        self._lines = {"snapshots": list(doc["snapshots"]), "events": list(doc["events"])}
        self.attempts = list(doc["attempts"])
        self.attempt = doc["attempt"]


def _results_of(o: Outcome, targets: tuple[int, ...]) -> dict[int, LevelResult]:
    return {
        i: LevelResult(i + 1 in o.reached, i + 1 in o.won, o.best.get(i + 1, 0.0)) for i in targets
    }
