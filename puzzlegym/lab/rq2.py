"""RQ2: take over at dead-end (D) and solvable (N) checkpoints under state hints A/B/C.

For each checkpoint and condition, :func:`run_takeover` restores the board (the controller,
:mod:`puzzlegym.lab.controller`), stacks ``TextChannel -> StateHint(condition) -> BlackBox``
over the env, hands the first observation to the agent and lets it act until the time
window closes, the action ceiling is reached, the level is won or the episode ends. It
keeps a *timeline* of the continuation (each agent action and each evaluator event and
snapshot, stamped with the takeover action index ``i`` and the takeover time ``t``) and
computes the outcomes (the LongPuzzleBench paper's Appendix D.3) with :func:`compute_outcomes`:

* **timely restart**: the first recovery action -- a Restart, re-entering the level after
  leaving it, or an Undo that leaves a solvable board -- comes within the first
  ``timely_actions`` (10) actions and ``timely_s`` (120) seconds;
* **verified recovery** (D only): a ready, non-dead board on the same level (a snapshot of it
  without the dead-end certificate) within ``window_s`` (300) seconds;
* **same-level win**: the level's win within ``window_s``;
* **recurrence** (D, after a verified recovery): a new certified dead end on the same level
  after the first recovery and within ``window_s``.

The takeover clock is the env's clock by default (``clock="env"``: with the simulated clock
each action costs ``action_cost_s``), or the wall clock (``"wall"``: agent inference
included). Each continuation is written as a record: ``<out>/rq2/<checkpoint>/<condition>/``
holds ``outcome.json`` (study, checkpoint, class, condition, agent, limits, timeline,
outcomes) and ``record/`` (the env's episode record of the continuation). A record is never
overwritten.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from puzzlegym.agents import make_agent
from puzzlegym.base.errors import ConfigError, PuzzleGymError
from puzzlegym.base.fields import check_count, check_number
from puzzlegym.base.version import __version__
from puzzlegym.env.checkpoint import Checkpoint
from puzzlegym.env.loop import Observer, Step, play
from puzzlegym.lab import checkpoints as files
from puzzlegym.lab.controller import Controller
from puzzlegym.lab.documents import find_documents
from puzzlegym.record.events import Event, LevelEvent, Snapshot
from puzzlegym.wrappers import HINT_CONDITIONS, BlackBox, StateHint, TextChannel

__all__ = [
    "STUDY",
    "Limits",
    "aggregate",
    "compute_outcomes",
    "find_outcomes",
    "run_rq2",
    "run_takeover",
]

STUDY = "rq2"
OUTCOME_FILE = "outcome.json"
_EVENT_KINDS = ("restart", "undo", "level_reached", "left_level", "level_won", "rejected")


@dataclass(frozen=True)
class Limits:
    """The RQ2 limits (paper D.3): a timely restart within ``timely_actions`` actions and
    ``timely_s`` seconds; recovery, win and recurrence within ``window_s``; at most
    ``max_actions`` agent actions per continuation."""

    timely_actions: int = 10
    timely_s: float = 120.0
    window_s: float = 300.0
    max_actions: int = 600

    def __post_init__(self) -> None:
        for name in ("timely_actions", "max_actions"):
            check_count(getattr(self, name), f"limits.{name}", 1, 100_000, ConfigError)
        for name in ("timely_s", "window_s"):
            check_number(
                getattr(self, name),
                f"limits.{name}",
                0,
                86_400,
                ConfigError,
                lo_open=True,
                what="seconds",
            )


# ---------------------------------------------------------------------- outcomes
def compute_outcomes(
    timeline: Iterable[dict], cls: str, where: tuple[str, str, int], limits: Limits = Limits()
) -> dict:
    """The RQ2 outcomes of one continuation (module docstring) from its ``timeline``: dicts
    with ``kind`` (``"action"``, ``"snapshot"`` or an evaluator event kind), ``i`` (takeover
    action index, 1-based), ``t`` (takeover seconds) and, for events and snapshots, ``game``,
    ``tier``, ``level``; snapshots also ``cause`` and ``dead_end``. ``where`` is the
    checkpoint's (game, tier, level); ``cls`` its class, ``"D"`` or ``"N"``."""
    if cls not in files.CLASSES:
        raise ConfigError(f"cls: {cls!r}; allowed: {', '.join(files.CLASSES)}")
    timeline = list(timeline)

    def same(e: dict) -> bool:
        return (e.get("game"), e.get("tier"), e.get("level")) == tuple(where)

    first_recovery = None
    left = False
    for e in timeline:
        if e["kind"] == "left_level" and same(e):
            left = True
        how = None
        if same(e) and e["kind"] == "restart":
            how = "restart"
        elif same(e) and e["kind"] == "level_reached" and left:
            how = "re-entry"
        elif (
            same(e)
            and e["kind"] == "snapshot"
            and e.get("cause") == "undo"
            and not e.get("dead_end")
        ):
            how = "undo"
        if how is not None:
            first_recovery = {"i": e["i"], "t": e["t"], "how": how}
            break
    timely = (
        first_recovery is not None
        and first_recovery["i"] <= limits.timely_actions
        and first_recovery["t"] <= limits.timely_s
    )
    in_window = [e for e in timeline if e["t"] <= limits.window_s and same(e)]
    win = next((e for e in in_window if e["kind"] == "level_won"), None)
    recovered = recurrence = back = again = None
    if cls == "D":
        back = next(
            (e for e in in_window if e["kind"] == "snapshot" and not e.get("dead_end")), None
        )
        recovered = back is not None
        if back is not None:
            again = next(
                (
                    e
                    for e in in_window
                    if e["kind"] == "snapshot" and e.get("dead_end") and e["t"] > back["t"]
                ),
                None,
            )
            recurrence = again is not None
    actions = [e for e in timeline if e["kind"] == "action"]
    return {
        "timely_restart": timely,
        "first_recovery": first_recovery,
        "verified_recovery": recovered,
        "recovery_t": None if back is None else back["t"],
        "same_level_win": win is not None,
        "win_t": None if win is None else win["t"],
        "recurrence": recurrence,
        "recurrence_t": None if again is None else again["t"],
        "actions": len(actions),
        "rejected_moves": sum(1 for e in timeline if e["kind"] == "rejected"),
        "elapsed_s": max((e["t"] for e in actions), default=0.0),
    }


# ---------------------------------------------------------------------- the runner
def _agent_factory(agent: str | Callable) -> tuple[Callable, str]:
    """(factory env -> policy, the agent's name) for a name or a factory."""
    if isinstance(agent, str):
        return (lambda env: make_agent(agent, env.unwrapped)), agent
    if callable(agent):
        return agent, getattr(agent, "__name__", type(agent).__name__)
    raise ConfigError(
        "agent: expected a name (scripted, solver, random, module:callable) or a factory "
        f"env -> policy, got {agent!r}"
    )


class Timeline(Observer):
    """The continuation's timeline, as :func:`compute_outcomes` reads it: after each action
    (``i``, from 1; ``t``, takeover seconds on the env's or the wall clock) the evaluator
    events and snapshots it caused, in the order they happened, then the action itself."""

    def __init__(self, env, clock: str) -> None:
        self.env, self.clock = env, clock
        self.t0, self.wall0 = env.probe().elapsed_s, time.perf_counter()
        self.items: list[dict] = []
        self.t = 0.0
        self._happened: list[dict] = []  # the events of the action in progress

    def on_event(self, event: Event) -> None:
        if isinstance(event, Snapshot):
            self._happened.append(
                {
                    "kind": "snapshot",
                    "game": event.game,
                    "tier": event.tier,
                    "level": event.level,
                    "cause": event.cause,
                    "dead_end": event.dead_end,
                    "solved": event.solved,
                }
            )
        elif isinstance(event, LevelEvent) and event.kind in _EVENT_KINDS:
            self._happened.append(
                {"kind": event.kind, "game": event.game, "tier": event.tier, "level": event.level}
            )

    def on_step(self, step: Step) -> None:
        elapsed = (
            self.env.probe().elapsed_s - self.t0
            if self.clock == "env"
            else time.perf_counter() - self.wall0
        )
        self.t = t = round(elapsed, 3)
        self.items.extend({**e, "i": step.index, "t": t} for e in self._happened)
        self._happened.clear()
        self.items.append(
            {
                "kind": "action",
                "i": step.index,
                "t": t,
                "accepted": bool(step.info["accepted"]),
                "screen": step.info["screen"],
            }
        )

    def won(self, where: tuple) -> bool:
        return any(
            e["kind"] == "level_won" and (e["game"], e["tier"], e["level"]) == tuple(where)
            for e in self.items
        )


def _write_json(path: Path, doc: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def run_takeover(
    checkpoint: Checkpoint,
    condition: str,
    agent: str | Callable = "scripted",
    *,
    backend: str = "native",
    out_dir: str | os.PathLike | None = None,
    limits: Limits = Limits(),
    clock: str = "env",
    handover: str = "restore",
    name: str | None = None,
) -> dict:
    """One continuation: ``checkpoint`` (a lab checkpoint) under ``condition`` (A, B or C)
    with ``agent`` on ``backend``; returns the outcome document (also written to
    ``out_dir/outcome.json`` with the env record in ``out_dir/record`` when ``out_dir`` is
    given). ``handover`` is ``"restore"`` or ``"replay"`` (the controller replays the
    prefix); both hand over the same pixels."""
    cert = files.certificate_of(checkpoint)
    if condition not in HINT_CONDITIONS:
        raise ConfigError(f"condition: {condition!r}; allowed: {', '.join(HINT_CONDITIONS)}")
    if clock not in ("env", "wall"):
        raise ConfigError(f"clock: {clock!r}; allowed: env, wall")
    if handover not in ("restore", "replay"):
        raise ConfigError(f"handover: {handover!r}; allowed: restore, replay")
    factory, agent_name = _agent_factory(agent)
    out = None
    if out_dir is not None:
        out = Path(out_dir)
        if (out / OUTCOME_FILE).exists() or (out / "record").exists():
            raise PuzzleGymError(
                f"{out} already holds a takeover record; records are never overwritten"
            )
        out.mkdir(parents=True, exist_ok=True)
    controller = Controller(checkpoint)
    env = controller.make_env(
        backend, record_dir=None if out is None else str(out / "record"), agent=agent_name
    )
    hint = StateHint(TextChannel(env), condition)
    wrapped = BlackBox(hint)
    try:
        policy = factory(wrapped)
        if handover == "restore":
            obs, info = controller.restore(wrapped)
        else:
            frame, raw_info = controller.replay(wrapped)
            hint.take_over()
            info = BlackBox.public(raw_info)
            obs = {"screen": frame, "text": hint.channel.compose(info)}
        where = (cert["game"], cert["tier"], cert["level"])
        timeline = Timeline(env.unwrapped, clock)
        ended = play(
            wrapped,
            policy,
            [timeline],
            stop=lambda step: timeline.won(where) or timeline.t >= limits.window_s,
            max_steps=limits.max_actions,
            start=(obs, info),
        )
        reason = {"terminated": "terminated", "truncated": "truncated", "max_steps": "max_actions"}
        end = "won" if timeline.won(where) else reason.get(ended.reason, "window")
        items = timeline.items
    finally:
        wrapped.close()
    doc = {
        "study": STUDY,
        "puzzlegym_version": __version__,
        "checkpoint": name or files.checkpoint_name(checkpoint),
        "class": cert["class"],
        "game": cert["game"],
        "tier": cert["tier"],
        "level": cert["level"],
        "depth": cert["depth"],
        "visible": cert["visible"],
        "condition": condition,
        "hint": hint.shown,
        "verdict_at_takeover": hint.verdict,
        "agent": agent_name,
        "backend": backend,
        "clock": clock,
        "handover": handover,
        "limits": asdict(limits),
        "end": end,
        "outcomes": compute_outcomes(items, cert["class"], where, limits),
        "timeline": items,
    }
    if out is not None:
        _write_json(out / OUTCOME_FILE, doc)
    return doc


def run_rq2(
    checkpoints: Iterable[str | os.PathLike | Checkpoint],
    out_dir: str | os.PathLike,
    agent: str | Callable = "scripted",
    *,
    conditions: Iterable[str] = HINT_CONDITIONS,
    backend: str = "native",
    limits: Limits = Limits(),
    clock: str = "env",
    handover: str = "restore",
    n_conditions: tuple[str, ...] = ("A", "B"),
    progress: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Every checkpoint under every condition (N checkpoints under ``n_conditions`` only, as
    in the paper: C differs from B on dead ends alone); continuations are written to
    ``out_dir/rq2/<checkpoint>/<condition>/``. Returns the outcome documents."""
    conditions = tuple(conditions)
    done = []
    for item in checkpoints:
        if isinstance(item, Checkpoint):
            ckpt, stem = item, files.checkpoint_name(item)
        else:
            ckpt = files.load(item)
            stem = Path(item).name.removesuffix(files.SUFFIX)
        cls = files.certificate_of(ckpt)["class"]
        for condition in conditions:
            if cls == "N" and condition not in n_conditions:
                continue
            doc = run_takeover(
                ckpt,
                condition,
                agent,
                backend=backend,
                limits=limits,
                clock=clock,
                handover=handover,
                out_dir=Path(out_dir) / STUDY / stem / condition,
                name=stem,
            )
            done.append(doc)
            if progress:
                progress(doc)
    return done


# ---------------------------------------------------------------------- aggregation
def find_outcomes(root: str | os.PathLike) -> list[dict]:
    """Every RQ2 outcome document under ``root``."""
    return find_documents(root, OUTCOME_FILE, STUDY)


def aggregate(outcomes: Iterable[dict]) -> list[dict]:
    """Counts per (game, class, condition) in the paper's Table 13 order (D before N, then
    A, B, C): ``n``, ``timely_restart``, ``verified_recovery`` (None for N),
    ``same_level_win``, ``recurrence`` (of the recovered D continuations)."""
    groups: dict[tuple, list[dict]] = {}
    for doc in outcomes:
        groups.setdefault((doc["game"], doc["class"], doc["condition"]), []).append(doc["outcomes"])
    rows = []
    for (game, cls, cond), outs in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])
    ):
        recovered = [o for o in outs if o["verified_recovery"]]
        rows.append(
            {
                "game": game,
                "class": cls,
                "condition": cond,
                "n": len(outs),
                "timely_restart": sum(bool(o["timely_restart"]) for o in outs),
                "verified_recovery": None if cls == "N" else len(recovered),
                "same_level_win": sum(bool(o["same_level_win"]) for o in outs),
                "recurrence": None if cls == "N" else sum(bool(o["recurrence"]) for o in recovered),
            }
        )
    return rows
