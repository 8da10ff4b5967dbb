"""The evaluator: the private record of an objective episode.

It listens to the suite and records level reached / won events, restarts, undos, rejected
(invalid) moves, and a snapshot of every settled board (level, potential, win, dead-end certificate, board state).
From these it computes the episode's level completion (LC) and fine-grained progress (FGP)
for its objective. Nothing here reaches the agent's pixels; training code reads it through
``info["evaluator"]`` and ``env.unwrapped.evaluator``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from puzzlegym.screen.suite import Board


@dataclass(frozen=True)
class Objective:
    """A game, a difficulty and its target levels (0-based indices into the tier)."""

    game: str
    tier: str
    targets: tuple[int, ...]

    @property
    def key(self) -> tuple[str, str]:
        return (self.game, self.tier)


@dataclass
class LevelResult:
    reached: bool = False
    won: bool = False
    max_potential: float = 0.0


@dataclass
class Evaluator:
    """Records one episode of one objective (see module docstring).

    ``sink`` (optional) receives every event and snapshot as it happens (the episode record
    on disk); ``step`` and ``t`` are set by the env before each action so records carry them.
    """

    objective: Objective
    sink: Callable[[dict], None] | None = None
    results: dict[int, LevelResult] = field(default_factory=dict)
    snapshots: list[dict] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    mismatch: bool = False
    answered: str | None = None
    attempts: list[dict] = field(default_factory=list)  # closed level attempts
    attempt: dict | None = None  # the attempt in progress
    step: int = 0
    t: float = 0.0

    def __post_init__(self) -> None:
        for i in self.objective.targets:
            self.results.setdefault(i, LevelResult())

    # ------------------------------------------------------------------ queries
    def is_target(self, board: Board) -> bool:
        return (board.game.name, board.tier) == self.objective.key and board.index in self.results

    @property
    def levels_won(self) -> list[int]:
        """Won target levels, 1-based."""
        return [i + 1 for i, r in sorted(self.results.items()) if r.won]

    @property
    def success(self) -> bool:
        return all(r.won for r in self.results.values())

    @property
    def lc(self) -> float:
        return sum(r.won for r in self.results.values()) / len(self.results)

    @property
    def fgp(self) -> float:
        total = 0.0
        for r in self.results.values():
            total += 1.0 if r.won else (r.max_potential if r.reached else 0.0)
        return total / len(self.results)

    def progress(self, board: Board | None) -> float:
        """Objective progress: won target levels plus the potential of the target board in
        play (the reward shaping potential)."""
        won = sum(r.won for r in self.results.values())
        if board is not None and self.is_target(board) and not self.results[board.index].won:
            return won + board.potential
        return float(won)

    def summary(self) -> dict:
        return {
            "objective": f"{self.objective.game}-{self.objective.tier}",
            "success": self.success,
            "lc": self.lc,
            "fgp": self.fgp,
            "levels_won": self.levels_won,
            "levels": {str(i + 1): asdict(r) for i, r in sorted(self.results.items())},
            "mismatch": self.mismatch,
            "answered": self.answered,
            "snapshots": len(self.snapshots),
            "attempts": len(self.attempts) + (self.attempt is not None),
            "dead_end_attempts": sum(a["dead_end"] for a in self.all_attempts()),
        }

    def all_attempts(self) -> list[dict]:
        """Closed attempts plus the one in progress."""
        return self.attempts + ([self.attempt] if self.attempt is not None else [])

    # ------------------------------------------------------------------ recording
    def _emit(self, kind: str, board: Board | None = None, **extra: Any) -> dict:
        rec: dict[str, Any] = {"kind": kind, "step": self.step, "t": round(self.t, 3)}
        if board is not None:
            rec.update(game=board.game.name, tier=board.tier, level=board.index + 1)
        rec.update(extra)
        self.events.append(rec)
        if self.sink:
            self.sink(rec)
        return rec

    def _snapshot(self, board: Board, cause: str) -> None:
        potential = board.potential
        solved = board.solved
        snap = {
            "kind": "snapshot",
            "step": self.step,
            "t": round(self.t, 3),
            "cause": cause,
            "game": board.game.name,
            "tier": board.tier,
            "level": board.index + 1,
            "potential": potential,
            "solved": solved,
            "dead_end": board.game.dead_end(board.level, board.state),
            "state": board.game.state_to_json(board.level, board.state),
        }
        if board.game.describe is not None:
            snap["details"] = board.game.describe(board.level, board.state)
        self.snapshots.append(snap)
        if self.sink:
            self.sink(snap)
        if self.is_target(board):
            res = self.results[board.index]
            res.max_potential = max(res.max_potential, potential)

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
            "start_step": self.step,
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
        a["end_step"] = self.step
        self.attempts.append(a)
        self.attempt = None
        self._emit("attempt", None, **{k: v for k, v in a.items() if k not in ("game", "tier", "level")},
                   game=a["game"], tier=a["tier"], level=a["level"])

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
                    a["runs"].append({"fatal_step": self.step, "fatal_move": move, "delay": 1, "recovered_by": None})
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
        self._emit("level_reached", board)
        if self.is_target(board):
            self.results[board.index].reached = True
        elif (board.game.name, board.tier) != self.objective.key:
            self.mismatch = True  # play in another game or difficulty earns no credit
        self._open_attempt(board)
        self._snapshot(board, "ready")

    def board_settled(self, board: Board, move: Any) -> None:
        self._snapshot(board, "move")
        self._track("move", move, self.snapshots[-1]["dead_end"])

    def move_rejected(self, board: Board, move: Any, reason: str) -> None:
        """An invalid move: the view read a move the rules refused (the board is unchanged)."""
        self._emit("rejected", board, move=move, reason=reason)

    def level_won(self, board: Board) -> None:
        self._emit("level_won", board)
        if self.is_target(board):
            self.results[board.index].won = True
        self._close_attempt("won")

    def restarted(self, board: Board) -> None:
        self._emit("restart", board)
        self._close_attempt("restart")
        self._open_attempt(board)
        self._snapshot(board, "restart")

    def undone(self, board: Board) -> None:
        self._emit("undo", board)
        self._snapshot(board, "undo")
        self._track("undo", None, self.snapshots[-1]["dead_end"])

    def left_level(self, board: Board) -> None:
        self._emit("left_level", board)
        self._close_attempt("left")

    def finish(self) -> None:
        """The episode ended: close the attempt in progress."""
        self._close_attempt("episode_end")

    def answer(self, text: str) -> None:
        self.answered = text
        self._emit("answer", None, text=text, success=self.success)

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
        results = {int(i): LevelResult(**r) for i, r in doc["results"].items()}
        if set(results) != set(self.objective.targets):
            raise ValueError(
                f"evaluator.results: levels {sorted(results)} are not this objective's targets {list(self.objective.targets)}"
            )
        self.results = results
        self.snapshots = list(doc["snapshots"])
        self.events = list(doc["events"])
        self.mismatch = bool(doc["mismatch"])
        self.answered = doc["answered"]
        self.attempts = list(doc["attempts"])
        self.attempt = doc["attempt"]
