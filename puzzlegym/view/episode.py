"""An episode record read into the viewer's data: its actions, its events on a timeline, the
progress series (the board's potential and the objective's FGP against actions), the
certified dead-end spans and the outcome.

Positions on the timeline are action counts: position ``p`` is the episode after ``p``
actions (``0``: after the reset), and an event at ``p`` happened during action ``p`` (the
events' own ``actions`` field). A dead-end span runs from the fatal move (its attempt run's
``fatal_actions``) to the first snapshot of that attempt whose board is no longer certified
dead (the undo, restart or move that left it), or to the attempt's end.

Everything here comes from the record's files alone; strings are cut to
:data:`MAX_TEXT` characters (they reach an HTML page).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from puzzlegym.base.errors import RecordError
from puzzlegym.record import metrics
from puzzlegym.record.events import (
    ActionTaken,
    Annotated,
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
    thaw,
)
from puzzlegym.record.files import read_log, read_manifest
from puzzlegym.record.outcome import Outcome, fold

__all__ = ["MAX_TEXT", "clip", "dead_end_spans", "read_episode"]

MAX_TEXT = 2000  # characters of any one string the page shows


def clip(text: Any, limit: int = MAX_TEXT) -> str:
    """``text`` as a string of at most ``limit`` characters (cut with a mark)."""
    text = text if isinstance(text, str) else str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Strings:
    """A table of the distinct strings of a page (feedback lines, screens): each stored once,
    referred to by index."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def __call__(self, text: Any) -> int:
        text = clip(text or "")
        if text not in self._index:
            self._index[text] = len(self.items)
            self.items.append(text)
        return self._index[text]


def _level(event: Any) -> dict[str, Any]:
    return {"game": event.game, "tier": event.tier, "level": event.level}


def dead_end_spans(events: list[Event], end: int) -> list[dict[str, Any]]:
    """The certified dead-end spans of an episode's events (see the module docstring), in
    order; ``end`` is the episode's last position (an attempt the record never closed ends
    there)."""
    spans: list[dict[str, Any]] = []
    snapshots = [e for e in events if isinstance(e, Snapshot)]
    closed = [e for e in events if isinstance(e, AttemptClosed)]

    def leaves(where: tuple, start: int, stop: int) -> int:
        for s in snapshots:
            if start < s.actions <= stop and (s.game, s.tier, s.level) == where and not s.dead_end:
                return s.actions
        return stop

    for a in closed:
        where = (a.game, a.tier, a.level)
        for run in a.runs:
            start = int(run["fatal_actions"])
            spans.append(
                {
                    "start": start,
                    "end": leaves(where, start, a.end_actions),
                    **dict(zip(("game", "tier", "level"), where, strict=True)),
                    "recovered_by": run.get("recovered_by"),
                    "delay": run.get("delay"),
                    "fatal_move": clip(thaw(run.get("fatal_move")), 200),
                }
            )
    # a torn record's attempt in progress was never closed: its open run from the snapshots
    last_close = max((a.end_actions for a in closed), default=-1)
    tail = [s for s in snapshots if s.actions > last_close]
    for i, s in enumerate(tail):
        before = tail[i - 1] if i else None
        same = before is not None and (before.game, before.tier, before.level) == (
            s.game,
            s.tier,
            s.level,
        )
        if (
            s.dead_end
            and s.cause == "move"
            and not (same and before is not None and before.dead_end)
        ):
            where = (s.game, s.tier, s.level)
            spans.append(
                {
                    "start": s.actions,
                    "end": leaves(where, s.actions, end),
                    **_level(s),
                    "recovered_by": None,
                    "delay": None,
                    "fatal_move": "",
                }
            )
    return sorted(spans, key=lambda span: span["start"])


def read_episode(record_dir: str | os.PathLike) -> dict[str, Any]:
    """The viewer's data of one episode record (everything but the frames and the model's
    turns): ``record`` (who played what), ``outcome``, ``n`` (actions), ``texts`` (the
    distinct strings), ``actions`` (``[t, action, accepted, screen, feedback]`` each,
    strings by index into ``texts``), ``events`` (``[at, kind, fields]``), ``potential``
    (``[at, value, dead, on_target]`` per snapshot; ``value`` None where the level was
    left), ``fgp`` (``[at, value]`` where the objective's FGP changed), ``spans`` (dead-end
    spans) and ``levels`` (``[at, game, tier, level, on_target]`` per level reached).
    A damaged record raises :class:`RecordError` naming file and line."""
    d = Path(record_dir)
    manifest = read_manifest(d)
    log = read_log(d)
    ep = metrics.episode_from_record(d)
    events = [event_from_record(rec, f"{d / 'log.jsonl'} line {i}") for i, rec in enumerate(log, 1)]
    texts = _Strings()
    outcome = Outcome.start(ep["game"], ep["tier"], ep["targets"])
    actions: list[list[Any]] = []
    out_events: list[list[Any]] = []
    potential: list[list[Any]] = []
    fgp: list[list[Any]] = [[0, 0.0]]
    levels: list[list[Any]] = []
    for event in events:
        outcome = fold(outcome, event)
        at = event.actions
        if isinstance(event, ActionTaken):
            if at != len(actions) + 1:
                raise RecordError(
                    f"{d / 'log.jsonl'}: action line {at} follows action {len(actions)}"
                )
            actions.append(
                [
                    event.t,
                    thaw(event.action),
                    int(bool(event.accepted)),
                    texts(event.screen),
                    texts(event.feedback),
                ]
            )
        elif isinstance(event, Snapshot):
            target = int(outcome.on_target(event))
            potential.append([at, round(event.potential, 4), int(bool(event.dead_end)), target])
        elif isinstance(event, LevelReached):
            target = int(outcome.on_target(event))
            levels.append([at, event.game, event.tier, event.level, target])
            out_events.append([at, "level_reached", {**_level(event), "target": target}])
        elif isinstance(event, LeftLevel):
            potential.append([at, None, 0, 0])
            out_events.append([at, "left_level", _level(event)])
        elif isinstance(event, MoveRejected):
            out_events.append([at, "rejected", {**_level(event), "reason": texts(event.reason)}])
        elif isinstance(event, (LevelWon, Restarted, Undone)):
            out_events.append([at, event.kind, _level(event)])
        elif isinstance(event, AttemptClosed):
            out_events.append(
                [
                    at,
                    "attempt",
                    {
                        **_level(event),
                        "end": event.end,
                        "moves": event.moves,
                        "undos": event.undos,
                        "dead_end": bool(event.dead_end),
                        "start": event.start_actions,
                    },
                ]
            )
        elif isinstance(event, Answered):
            out_events.append(
                [at, "answer", {"text": texts(event.text), "success": bool(event.success)}]
            )
        elif isinstance(event, Annotated):
            out_events.append([at, "note", {"text": texts(clip(thaw(event.note), 400))}])
        value = round(outcome.fgp, 4)
        if value != fgp[-1][1]:
            fgp.append([at, value])
    n = len(actions)
    config = manifest.get("config") or {}
    return {
        "record": {
            "dir": d.name,
            "env_id": ep["env_id"],
            "agent": clip(ep["agent"] or "unknown", 200),
            "seed": ep["seed"],
            "game": ep["game"],
            "tier": ep["tier"],
            "targets": ep["targets"],
            "instruction": clip(manifest.get("instruction") or "", 400),
            "puzzlegym_version": clip(manifest.get("puzzlegym_version") or "", 40),
            "clock": config.get("clock"),
            "budget_s": config.get("budget_s"),
            "start": config.get("start"),
            "level": config.get("level"),
            "finished": ep["finished"],
            "ended": clip((manifest.get("result") or {}).get("ended") or "", 40) or None,
            "torn_line": ep["torn_line"],
            "restored": ep["restored"],
        },
        "outcome": {
            "success": ep["success"],
            "lc": ep["lc"],
            "fgp": ep["fgp"],
            "end": ep["end"],
            "levels_won": ep["won"],
            "levels_reached": ep["reached"],
            "actions": n,
            "elapsed_s": ep["elapsed_s"],
            "mismatch": ep["mismatch"],
            "premature_exit": ep["premature_exit"],
        },
        "n": n,
        "texts": texts.items,
        "actions": actions,
        "events": out_events,
        "potential": potential,
        "fgp": fgp,
        "spans": dead_end_spans(events, n),
        "levels": levels,
    }
