"""Everything that happens in an episode, as typed events.

The env publishes each event to its subscribers as it happens (:class:`EventBus`,
``PuzzleEnv.subscribe``): an action taken, a level reached, a settled board's snapshot, a
move the rules rejected, a level won, an attempt closed, a restart, an undo, leaving a
level, the agent's answer, a frame hash, a wrapper's note, the episode's end. The episode
record is one subscriber (:class:`puzzlegym.record.files.RecordWriter`), the outcome
fold another (:mod:`puzzlegym.record.outcome`); GIFs, agent logs and study timelines
subscribe the same way.

Events are frozen: their fields cannot be reassigned and their JSON payloads (a board
state, an action, an attempt's runs) are read-only mappings and tuples. Each event is one
line of the record (:meth:`Event.to_record`), and :func:`event_from_record` reads a line
back, so a record's log is the episode's event stream.
"""

from __future__ import annotations

import copyreg
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, ClassVar, overload

from puzzlegym.record.shapes import check_log_line

__all__ = [
    "ActionTaken",
    "Annotated",
    "Answered",
    "AttemptClosed",
    "EpisodeEnded",
    "Event",
    "EventBus",
    "FrameHashed",
    "LeftLevel",
    "LevelEvent",
    "LevelReached",
    "LevelWon",
    "MoveRejected",
    "Restarted",
    "Snapshot",
    "Subscription",
    "Undone",
    "event_from_record",
    "freeze",
    "thaw",
    "upgrade_line",
]


def read_only(items: dict) -> MappingProxyType:
    """A read-only mapping of ``items`` (how a pickled one loads)."""
    return MappingProxyType(items)


def _reduce_read_only(mapping: MappingProxyType) -> tuple:
    return (read_only, (dict(mapping),))


# Read-only mappings (every frozen payload, the outcome's, a probe's controls) pickle and
# deep-copy as read-only mappings of the same items (the standard library refuses them), so
# envs, evaluators and probes can be pickled and copied.
copyreg.pickle(MappingProxyType, _reduce_read_only)


_SCALARS = (str, int, float, type(None))  # bool is an int


def freeze(value: Any) -> Any:
    """A read-only deep copy of a JSON-like value (mappings -> read-only mappings, lists ->
    tuples)."""
    if isinstance(value, _SCALARS):  # concrete types first: abstract checks are slow
        return value
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    return value


def thaw(value: Any) -> Any:
    """The plain JSON value of a :func:`freeze` d one (mappings -> dicts, tuples -> lists)."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Event:
    """One thing that happened when the episode had made ``actions`` primitive GUI actions
    (``info["actions"]`` then: the 1-based index of the action it followed, 0 before the
    first) and at episode time ``t`` (seconds)."""

    kind: ClassVar[str] = ""
    actions: int
    t: float

    def to_record(self) -> dict:
        """The event as one line of the episode record."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            out[f.name] = thaw(getattr(self, f.name))
        return out

    def as_mapping(self) -> Mapping:
        """The record line's fields as a read-only mapping (no copy of the frozen payloads)."""
        return MappingProxyType(
            {"kind": self.kind, **{f.name: getattr(self, f.name) for f in fields(self)}}
        )


@dataclass(frozen=True)
class LevelEvent(Event):
    """An event on one level's board: ``level`` is 1-based."""

    game: str
    tier: str
    level: int


@dataclass(frozen=True)
class ActionTaken(Event):
    """A primitive GUI action was performed (``action`` as its dict); ``accepted`` whether
    the env step so far pressed a control or changed the board or its selection; ``screen`` and
    ``feedback`` after it."""

    kind: ClassVar[str] = "action"
    action: Mapping
    accepted: bool
    screen: str
    feedback: str


@dataclass(frozen=True)
class LevelReached(LevelEvent):
    """A level's ready board was shown."""

    kind: ClassVar[str] = "level_reached"


@dataclass(frozen=True)
class Snapshot(LevelEvent):
    """A settled board (``cause``: ``ready``, ``move``, ``restart`` or ``undo``): its
    potential, whether it is solved, the dead-end certificate, the rules state as the game's
    JSON and, for some games, ``details`` (game facts such as free anchors)."""

    kind: ClassVar[str] = "snapshot"
    cause: str
    potential: float
    solved: bool
    dead_end: Any
    state: Any
    details: Mapping | None = None

    def to_record(self) -> dict:
        out = super().to_record()
        if self.details is None:
            del out["details"]
        return out


@dataclass(frozen=True)
class MoveRejected(LevelEvent):
    """The view read a move the rules refused (the board is unchanged)."""

    kind: ClassVar[str] = "rejected"
    move: Any
    reason: str


@dataclass(frozen=True)
class LevelWon(LevelEvent):
    kind: ClassVar[str] = "level_won"


@dataclass(frozen=True)
class Restarted(LevelEvent):
    kind: ClassVar[str] = "restart"


@dataclass(frozen=True)
class Undone(LevelEvent):
    kind: ClassVar[str] = "undo"


@dataclass(frozen=True)
class LeftLevel(LevelEvent):
    kind: ClassVar[str] = "left_level"


@dataclass(frozen=True)
class AttemptClosed(LevelEvent):
    """One try at a level ended (``end``: ``won``, ``restart``, ``left`` or
    ``episode_end``): the action count it started and ended at (``start_actions``,
    ``end_actions``), moves, undos, whether it reached a certified dead end, and its dead-end
    ``runs`` (``fatal_actions``: the action count when the fatal move was made,
    ``fatal_move``, ``delay``, ``recovered_by``)."""

    kind: ClassVar[str] = "attempt"
    start_actions: int
    moves: int
    undos: int
    dead_end: bool
    runs: tuple
    end: str
    end_actions: int


@dataclass(frozen=True)
class Answered(Event):
    """The agent's terminal answer (its completion declaration or voluntary exit)."""

    kind: ClassVar[str] = "answer"
    text: str
    success: bool


@dataclass(frozen=True)
class FrameHashed(Event):
    """The SHA-256 of the full-resolution frame after action ``actions``
    (``record_frames="hash"``)."""

    kind: ClassVar[str] = "frame"
    sha256: str

    def to_record(self) -> dict:
        return {"kind": self.kind, "actions": self.actions, "sha256": self.sha256}


@dataclass(frozen=True)
class Annotated(Event):
    """A wrapper's note of what it did (``PuzzleEnv.annotate``); ``note`` holds its fields,
    ``note["kind"]`` the line's kind (``intervention``)."""

    kind: ClassVar[str] = "annotation"
    note: Mapping

    def to_record(self) -> dict:
        return {**thaw(self.note), "actions": self.actions, "t": self.t}


@dataclass(frozen=True)
class EpisodeEnded(Event):
    """The episode ended: ``result`` is the evaluator's summary plus ``terminated``,
    ``truncated`` and, when it was ended from outside, ``ended`` (the reason). The record
    keeps it in its manifest, not in the log."""

    kind: ClassVar[str] = "result"
    result: Mapping


# the events a record's log holds, by line kind
_BY_KIND: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        ActionTaken,
        LevelReached,
        Snapshot,
        MoveRejected,
        LevelWon,
        Restarted,
        Undone,
        LeftLevel,
        AttemptClosed,
        Answered,
        FrameHashed,
    )
}


def event_from_record(rec: Mapping, where: str = "record line") -> Event:
    """The event of one record line. Raises :class:`RecordError` naming ``where`` and the
    field when a line has an unknown kind or does not have its kind's shape
    (:data:`puzzlegym.record.shapes.LOG_LINES`: ``actions`` and ``t`` (frame lines carry no
    time: 0), a level event's ``game``, ``tier`` and ``level``, a snapshot's ``potential``, an
    attempt's counts and runs; any field present of its type). Other missing fields read as
    None (lines written by hand or by an older version). Earlier records named the action count
    ``step`` (an attempt's ``start_step``/``end_step``, a run's ``fatal_step``); those lines
    read as today's names."""
    rec = check_log_line(upgrade_line(rec), where)
    kind = rec["kind"]
    if kind == "intervention":
        note = freeze({k: v for k, v in rec.items() if k not in ("actions", "t")})
        return Annotated(rec["actions"], float(rec["t"]), note)
    cls = _BY_KIND[kind]
    values: dict[str, Any] = {f.name: freeze(rec.get(f.name)) for f in fields(cls)}
    values["t"] = 0.0 if cls is FrameHashed else float(rec["t"])
    if cls is Snapshot:
        values["potential"] = float(rec["potential"])
    return cls(**values)


# the names lines of earlier records used ("step" was the action count)
OLD_NAMES = {"step": "actions", "start_step": "start_actions", "end_step": "end_actions"}
OLD_RUN_NAMES = {"fatal_step": "fatal_actions"}


@overload
def upgrade_line(rec: dict) -> dict: ...
@overload
def upgrade_line(rec: Mapping) -> Mapping: ...
def upgrade_line(rec: Mapping) -> Mapping:
    """``rec`` with an earlier record's names replaced by today's (``rec`` itself when it
    has none)."""
    old = [k for k in OLD_NAMES if k in rec and OLD_NAMES[k] not in rec]
    runs = rec.get("runs")
    old_runs = isinstance(runs, (list, tuple)) and any(
        isinstance(run, Mapping) and "fatal_step" in run for run in runs
    )
    if not old and not old_runs:
        return rec
    out = dict(rec)
    for name in old:
        out[OLD_NAMES[name]] = out.pop(name)
    if old_runs and isinstance(runs, (list, tuple)):
        out["runs"] = [
            {OLD_RUN_NAMES.get(k, k): v for k, v in run.items()}
            if isinstance(run, Mapping)
            else run
            for run in runs
        ]
    return out


class Subscription:
    """A subscriber's registration: :meth:`close` ends it (also as a context manager)."""

    def __init__(self, bus: EventBus, callback: Callable[[Event], None]) -> None:
        self._bus, self._callback = bus, callback

    def close(self) -> None:
        self._bus._remove(self._callback)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class EventBus:
    """Delivers each published event to every subscriber, in the order they subscribed."""

    def __init__(self) -> None:
        self._subscribers: list[Callable[[Event], None]] = []

    def subscribe(self, callback: Callable[[Event], None]) -> Subscription:
        """Call ``callback(event)`` for every event from now on."""
        if not callable(callback):
            raise TypeError(f"subscribe: expected a callable, got {type(callback).__name__}")
        self._subscribers.append(callback)
        return Subscription(self, callback)

    def _remove(self, callback: Callable[[Event], None]) -> None:
        if callback in self._subscribers:
            self._subscribers.remove(callback)

    def publish(self, event: Event) -> None:
        for callback in tuple(self._subscribers):
            callback(event)

    def publish_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.publish(event)
