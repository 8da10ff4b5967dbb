"""The declared shapes (:mod:`puzzlegym.base.schema`) of the lines a record holds: the episode
log's lines by kind (:data:`LOG_LINES`), a closed attempt and its dead-end runs
(:data:`ATTEMPT`, also part of a training run's book) and the agent log's lines by kind
(:data:`AGENT_LINES`).

Records are files a user or a model can hand over, so every reader checks a line against its
kind's shape before it uses a field (:func:`check_log_line`, :func:`check_agent_line`): a
damaged line is one :class:`~puzzlegym.base.errors.RecordError` naming the file, the line and
the field, never another exception in a reader further on. Fields an older writer did not
write may be missing (they read as None) unless a reader needs them; a field that is present
has its type. Lines may carry fields a later version adds (they are kept, not read).
"""

from __future__ import annotations

from typing import Any

from puzzlegym.base.errors import RecordError, shown
from puzzlegym.base.schema import (
    Any_,
    Bool,
    Int,
    List,
    Map,
    Num,
    Obj,
    Shape,
    Str,
    check,
    optional,
)

__all__ = [
    "AGENT_LINES",
    "ATTEMPT",
    "LOG_LINES",
    "MANIFEST",
    "RUN",
    "agent_line_shape",
    "check_agent_line",
    "check_log_line",
]

NAME = Str(100)  # a game, a tier, a screen's name, a tool's name
WORD = Str(40)  # a kind, a cause, an end, an outcome
TEXT = Str(100_000)  # feedback, reasons, a model's text (records cut theirs far below)
COUNT = Int(0)
ITEMS = 10_000  # items of one list in one line

_EVENT = {"kind": WORD, "actions": COUNT, "t": Num()}
_LEVEL = {**_EVENT, "game": NAME, "tier": NAME, "level": Int(1, 10**6)}

RUN = Obj(  # one dead-end run of an attempt
    {"fatal_actions": COUNT, "delay": COUNT},
    {"fatal_move": Any_(), "recovered_by": optional(WORD)},
    extra=True,
)

ATTEMPT_FIELDS: dict[str, Shape] = {
    "start_actions": COUNT,
    "end_actions": COUNT,
    "runs": List(RUN, ITEMS),
}
ATTEMPT_OPTIONAL: dict[str, Shape] = {
    "moves": optional(COUNT),
    "undos": optional(COUNT),
    "dead_end": optional(Bool()),
    "end": optional(WORD),
}
ATTEMPT = Obj(  # a closed attempt as play_levels and the reports keep it
    {"game": NAME, "tier": NAME, "level": Int(1, 10**6), **ATTEMPT_FIELDS},
    ATTEMPT_OPTIONAL,
    extra=True,
)

ACTION = Obj({"type": WORD}, extra=True)

LOG_LINES: dict[str, Shape] = {
    "action": Obj(
        {**_EVENT, "action": ACTION},
        {
            "accepted": optional(Bool()),
            "screen": optional(NAME),
            "feedback": optional(TEXT),
        },
        extra=True,
    ),
    "level_reached": Obj(_LEVEL, extra=True),
    "snapshot": Obj(
        {**_LEVEL, "potential": Num()},
        {
            "cause": optional(WORD),
            "solved": optional(Bool()),
            "details": optional(Map(Any_(), 1000)),
        },
        extra=True,
    ),
    "rejected": Obj(_LEVEL, {"reason": optional(TEXT)}, extra=True),
    "level_won": Obj(_LEVEL, extra=True),
    "restart": Obj(_LEVEL, extra=True),
    "undo": Obj(_LEVEL, extra=True),
    "left_level": Obj(_LEVEL, extra=True),
    "attempt": Obj({**_LEVEL, **ATTEMPT_FIELDS}, ATTEMPT_OPTIONAL, extra=True),
    "answer": Obj(_EVENT, {"text": optional(TEXT), "success": optional(Bool())}, extra=True),
    "frame": Obj({"kind": WORD, "actions": COUNT, "sha256": Str(64)}, extra=True),
    "intervention": Obj(_EVENT, extra=True),
}

_AGENT = {"kind": WORD}
_AGENT_COMMON: dict[str, Shape] = {"actions": optional(COUNT), "t": optional(Num())}

AGENT_LINES: dict[str, Obj] = {
    "request": Obj(
        _AGENT,
        {
            **_AGENT_COMMON,
            "purpose": optional(WORD),
            "latency_s": optional(Num(0.0)),
            "prompt_tokens": optional(COUNT),
            "completion_tokens": optional(COUNT),
            "retries": optional(COUNT),
            "finish_reason": optional(NAME),
            "tool_calls": optional(List(NAME, ITEMS)),
            "faults": optional(List(Any_(), ITEMS)),
            "content": optional(TEXT),
            "reasoning": optional(TEXT),
            "calls": optional(List(Obj({"name": NAME}, {"arguments": Any_()}, extra=True), ITEMS)),
        },
        extra=True,
    ),
    "turn": Obj(
        _AGENT,
        {
            **_AGENT_COMMON,
            "tool": optional(NAME),
            "source": optional(WORD),
            "native": optional(Bool()),
            "action": optional(ACTION),
        },
        extra=True,
    ),
    "result": Obj(_AGENT, {**_AGENT_COMMON, "text": optional(TEXT)}, extra=True),
    "code": Obj(
        _AGENT,
        {
            **_AGENT_COMMON,
            "outcome": optional(WORD),
            "gui_calls": optional(COUNT),
            "screenshots": optional(COUNT),
            "code": optional(TEXT),
            "output": optional(TEXT),
            "error": optional(TEXT),
        },
        extra=True,
    ),
    "malformed": Obj(
        _AGENT, {**_AGENT_COMMON, "tool": optional(NAME), "error": optional(TEXT)}, extra=True
    ),
    "harness_wait": Obj(_AGENT, {**_AGENT_COMMON, "reason": optional(TEXT)}, extra=True),
    "error": Obj(_AGENT, {**_AGENT_COMMON, "error": optional(TEXT)}, extra=True),
    "config": Obj(
        _AGENT,
        {
            **_AGENT_COMMON,
            "setting": optional(WORD),
            "memory": optional(WORD),
            "model": optional(NAME),
        },
        extra=True,
    ),
}
AGENT_LINES["step"] = AGENT_LINES["turn"]  # earlier logs' name of a turn
_OTHER_AGENT_LINE = Obj(_AGENT, _AGENT_COMMON, extra=True)  # memory lines, later kinds


ENV_ID = Str(200)
LEVEL = Int(1, 10**6)
MANIFEST = Obj(  # a record's manifest.json: what the readers use, each of its type
    {},
    {
        "env_id": ENV_ID,
        "objective": ENV_ID,  # records written before 0.2
        "agent": optional(Str(1000)),
        "seed": optional(Int()),
        "instruction": optional(TEXT),
        "puzzlegym_version": optional(NAME),
        "targets": optional(List(LEVEL, 10**6)),
        "config": optional(
            Obj(
                {},
                {
                    "env_id": ENV_ID,
                    "clock": optional(WORD),
                    "budget_s": optional(Num(0.0)),
                    "start": optional(WORD),
                    "level": optional(LEVEL),
                },
                extra=True,
            )
        ),
        "result": optional(
            Obj(
                {},
                {
                    "levels": optional(Map(Any_(), 10**6)),
                    "truncated": optional(Bool()),
                    "terminated": optional(Bool()),
                    "ended": optional(WORD),
                },
                extra=True,
            )
        ),
    },
    extra=True,
)


def check_log_line(rec: Any, where: str) -> dict:
    """An episode log line (today's names) checked against its kind's shape; a
    :class:`RecordError` naming ``where`` and the field otherwise (an unknown kind too)."""
    kind = rec.get("kind") if isinstance(rec, dict) else None
    shape = LOG_LINES.get(kind) if isinstance(kind, str) else None
    if shape is None:
        check(rec, Obj(_EVENT, extra=True), where, RecordError)
        raise RecordError(f"{where}: unknown kind {shown(kind)}")
    return check(rec, shape, where, RecordError)


def agent_line_shape(kind: Any) -> Obj:
    """The declared shape of an agent log line of ``kind``."""
    shape = AGENT_LINES.get(kind) if isinstance(kind, str) else None
    return shape if isinstance(shape, Obj) else _OTHER_AGENT_LINE


def check_agent_line(rec: Any, where: str) -> dict:
    """An agent log line checked against its kind's shape (kinds without one: the common
    fields only); a :class:`RecordError` naming ``where`` and the field otherwise."""
    kind = rec.get("kind") if isinstance(rec, dict) else None
    return check(rec, agent_line_shape(kind), where, RecordError)
