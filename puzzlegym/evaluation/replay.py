"""``puzzlegym replay DIR``: re-run an episode record and check that it reproduces itself.

The record's manifest gives the env config and seed (and, for generated levels, the
episode's ``first_level``); its log gives every primitive action in order. The replay builds
a fresh env with that config, resets it with the seed (and that first level), performs the
logged actions (grouped into the same env steps when the record has frame hashes, since a
frame is observed once per step), records the replay to a scratch directory, and compares the
two logs line by line: every action line (time, acceptance, screen, feedback), every evaluator
event and snapshot (level, potential, win, dead-end certificate, board state) and, when the
record was made with ``record_frames="hash"``, every frame's SHA-256.

Wall-clock records are replayed on a clock that replays the logged action times, so the
gesture recognizer sees the same timestamps. A record whose process died mid-way is compared
up to its last complete action (the torn tail is reported, not failed). An episode ended from
outside (``PuzzleEnv.end_episode``: a ``serve`` session deleted, expired, reset over or
stopped; its result says ``ended``) is ended the same way after its last action. Each action
line carries that action's own acceptance, so a batch replays member by member when the
record has no frame hashes to group it by.

:func:`rerun` is the same replay for tools that watch it (the episode viewer): observers of
the episode loop see every frame, one env step per logged action (``per_action=True``), and
the record's frame hashes are checked against those frames at the actions they were taken.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from puzzlegym.base.errors import PuzzleGymError, RecordError
from puzzlegym.env.loop import Observer, Step, play
from puzzlegym.record.files import read_log, read_manifest

__all__ = ["ReplayClock", "format_report", "replay", "rerun"]


class ReplayClock:
    """A clock that replays logged action times (for wall-clock records)."""

    kind = "replay"

    def __init__(self, times: list[float], budget_s: float = float("inf")) -> None:
        # logged times are rounded to the millisecond: an action logged at the deadline was
        # performed just before it, so keep it under the budget (same rounding, same ms)
        self._times = [min(t, budget_s - 1e-7) for t in times]
        self._i = 0
        self._elapsed = 0.0

    @property
    def elapsed_s(self) -> float:
        return self._elapsed

    def tick(self) -> None:
        if self._i < len(self._times):
            self._elapsed = self._times[self._i]
            self._i += 1

    def finish(self, deadline: float) -> None:
        """The recorded episode ended at its deadline after its last action."""
        self._times = self._times[: self._i]
        self._elapsed = max(self._elapsed, deadline)

    def to_json(self) -> dict:
        return {"kind": "sim", "elapsed_s": self._elapsed}

    def load_json(self, doc: dict) -> None:  # pragma: no cover - replays never restore
        self._elapsed = float(doc["elapsed_s"])


# the env settings a manifest's config holds (PuzzleEnv.config)


def _steps(log: list[dict], per_action: bool = False) -> list[list[dict]]:
    """The logged actions grouped into env steps: with frame lines, the actions between two
    frame lines form one step; without (or ``per_action``), every primitive action is its own
    step."""
    has_frames = not per_action and any(rec.get("kind") == "frame" for rec in log)
    steps: list[list[dict]] = []
    current: list[dict] = []
    for rec in log:
        kind = rec.get("kind")
        if kind == "action":
            current.append(rec["action"])
            if not has_frames:
                steps.append(current)
                current = []
        elif kind == "frame" and current:
            steps.append(current)
            current = []
    if current:  # actions after the last frame line: a step whose frame was never written
        steps.append(current)
    return steps


def _diff(expected: Any, got: Any, path: str = "") -> str:
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in sorted(set(expected) | set(got)):
            if expected.get(key, "<missing>") != got.get(key, "<missing>"):
                return _diff(
                    expected.get(key, "<missing>"), got.get(key, "<missing>"), f"{path}.{key}"
                )
    return (
        f"{path or 'line'}: recorded {json.dumps(expected)[:200]}, replayed {json.dumps(got)[:200]}"
    )


def replay(directory: str | os.PathLike, backend: str | None = None) -> dict[str, Any]:
    """Replay the record in ``directory``; returns a report with ``ok`` (bool), ``actions``,
    ``steps``, ``lines_compared``, ``snapshots`` and ``frames`` checked, ``finished`` (the
    record has a final result), ``torn_tail`` (lines after the last complete action of an
    unfinished record, not compared) and ``mismatch`` (the first difference, or None)."""
    return rerun(directory, backend=backend)


def rerun(
    directory: str | os.PathLike,
    observers: Iterable[Observer] = (),
    *,
    per_action: bool = False,
    backend: str | None = None,
) -> dict[str, Any]:
    """:func:`replay`, with ``observers`` of the episode loop watching it. With
    ``per_action`` every logged primitive action is one env step (a batch played member by
    member: the same events, so the same log), the record's frame hashes are compared with
    the frames of the actions they were taken after, and the log is compared without its
    frame lines. The report is :func:`replay`'s."""
    from puzzlegym.game.registry import catalogue_sha256, parse_env_id

    d = Path(directory)
    manifest = read_manifest(d)
    original = read_log(d)
    config = _replay_config(d, manifest)
    env_id = config.pop("env_id")
    if backend is not None:
        config["backend"] = backend
    game, tier = parse_env_id(env_id)
    warnings = []
    if manifest.get("catalogue_sha256") not in (None, catalogue_sha256([game.name])):
        warnings.append("the record was made with another level catalogue")
    steps = _steps(original, per_action)
    times = [float(r["t"]) for r in original if r.get("kind") == "action"]
    hashes = _FrameHashes(original) if per_action else None
    watching = [*observers, *([hashes] if hashes is not None else [])]
    replayed, n_steps = _rerun(
        game.name, tier, manifest, config, steps, times, watching, hashes is None
    )
    finished = manifest.get("result") is not None
    compared_log = original if hashes is None else [r for r in original if r.get("kind") != "frame"]
    n, mismatch, torn = _compare(compared_log, replayed, finished)
    if hashes is not None and mismatch is None and hashes.mismatch is not None:
        mismatch = hashes.mismatch
    compared = compared_log[:n]
    return {
        "ok": mismatch is None,
        "record": str(d),
        "env_id": env_id,
        "seed": manifest.get("seed"),
        "actions": len(times),
        "steps": n_steps,
        "lines_compared": n,
        "snapshots": sum(1 for r in compared if r.get("kind") == "snapshot"),
        "frames": sum(1 for r in compared if r.get("kind") == "frame")
        if hashes is None
        else hashes.checked,
        "finished": finished,
        "torn_tail": torn,
        "torn_line": original.torn_line,
        "mismatch": mismatch,
        "warnings": warnings,
    }


class _FrameHashes(Observer):
    """Checks a per-action rerun's frames against the record's frame hashes (each taken after
    the action count it names)."""

    def __init__(self, original: list[dict]) -> None:
        self.want = {
            int(r["actions"]): r.get("sha256")
            for r in original
            if r.get("kind") == "frame" and isinstance(r.get("actions"), int)
        }
        self.checked = 0
        self.mismatch: dict | None = None

    def _check(self, actions: int, frame: Any) -> None:
        want = self.want.get(actions)
        if want is None:
            return
        got = hashlib.sha256(np.ascontiguousarray(frame).tobytes()).hexdigest()
        self.checked += 1
        if got != want and self.mismatch is None:
            self.mismatch = {
                "line": None,
                "detail": f"the frame after action {actions}: recorded sha256 {want}, "
                f"replayed {got}",
            }

    def on_start(self, obs: Any, info: dict) -> None:
        self._check(0, obs)

    def on_step(self, step: Step) -> None:
        self._check(int(step.info["actions"]), step.obs)


def _replay_config(d: Path, manifest: dict) -> dict[str, Any]:
    """The recorded env config (``env_id`` included), checked before anything runs."""
    from puzzlegym.env import CONFIG_KEYS

    config = dict(manifest.get("config", {}))
    if "env_id" not in config:
        raise RecordError(
            f"{d / 'manifest.json'}: manifest field 'config.env_id' is missing (the env to replay)"
        )
    unknown = sorted(set(config) - CONFIG_KEYS)
    if unknown:
        raise RecordError(
            f"{d / 'manifest.json'}: manifest field 'config.{unknown[0]}' is not an env setting"
        )
    if config.get("clock") == "wall" and not isinstance(config.get("budget_s"), (int, float)):
        raise RecordError(
            f"{d / 'manifest.json'}: a wall-clock record needs a numeric 'config.budget_s'"
        )
    return config  # every log line was checked against its kind's shape as it was read


def _rerun(
    game: str,
    tier: str,
    manifest: dict,
    config: dict,
    steps: list[list[dict]],
    times: list[float],
    observers: Iterable[Observer] = (),
    frames: bool = True,
) -> tuple[list[dict], int]:
    """The log of the recorded ``steps`` played again on a fresh env, and the steps played
    (``frames``: record frame hashes as the record did)."""
    from puzzlegym.env import PuzzleEnv

    with tempfile.TemporaryDirectory(prefix="puzzlegym-replay-") as tmp:
        env = PuzzleEnv(
            game,
            tier,
            record_dir=tmp,
            agent=manifest.get("agent"),
            record_frames=manifest.get("record_frames") if frames else None,
            **config,
        )
        try:
            # a generated episode's levels: its first training level, as recorded
            first = manifest.get("first_level")
            start = env.reset(
                seed=manifest.get("seed"), options=None if first is None else {"first_level": first}
            )
            if config.get("clock") == "wall":
                env.clock = ReplayClock(times, float(config["budget_s"]))
            recorded = iter(
                actions[0] if len(actions) == 1 else {"type": "batch", "actions": actions}
                for actions in steps
            )
            end = play(
                env,
                lambda obs, info: next(recorded),
                observers,
                max_steps=len(steps),
                start=start,
            )
            _finish_as_recorded(env, manifest.get("result") or {}, config, end.done)
        finally:
            env.close()
        return read_log(tmp), end.steps


def _finish_as_recorded(env: Any, result: dict, config: dict, done: bool) -> None:
    """End the replayed episode the way the recorded one ended after its last action."""
    if not done and result.get("truncated") and isinstance(env.clock, ReplayClock):
        # a wall-clock episode that hit the deadline after its last action: the deadline
        # step performs nothing, then the episode ends as recorded
        env.clock.finish(float(config["budget_s"]))
        env.step({"type": "wait"})
    if not done and isinstance(result.get("ended"), str):
        # ended from outside (a service session deleted, expired, reset over or stopped):
        # the attempt in progress was closed then, as the replay does now
        env.end_episode(result["ended"])


def _compare(
    original: list[dict], replayed: list[dict], finished: bool
) -> tuple[int, dict | None, int]:
    """Lines compared, the first difference (or None) and the torn tail of an unfinished
    record (its lines after the replay's last, not compared)."""
    n = min(len(original), len(replayed))
    for i in range(n):
        if original[i] != replayed[i]:
            return n, {"line": i + 1, "detail": _diff(original[i], replayed[i])}, 0
    if len(original) == len(replayed):
        return n, None, 0
    if finished or len(replayed) > len(original):
        return (
            n,
            {
                "line": n + 1,
                "detail": f"the record has {len(original)} log lines, the replay {len(replayed)}",
            },
            0,
        )
    return n, None, len(original) - len(replayed)


def format_report(rep: dict[str, Any]) -> str:
    head = "REPRODUCED" if rep["ok"] else "DIFFERS"
    lines = [
        f"{head}: {rep['record']} ({rep['env_id']}, seed {rep['seed']})",
        f"  {rep['actions']} actions in {rep['steps']} steps; "
        f"{rep['lines_compared']} log lines compared, "
        f"{rep['snapshots']} evaluator snapshots, {rep['frames']} frame hashes",
    ]
    if not rep["finished"]:
        lines.append(
            "  the record is unfinished (no final result); "
            f"torn tail of {rep['torn_tail']} line(s) not compared"
        )
    if rep.get("torn_line"):
        lines.append(
            f"  log line {rep['torn_line']} is torn (the writer was killed mid-line) and was "
            "dropped"
        )
    if rep["frames"] == 0:
        lines.append(
            "  (no frame hashes in this record: record with record_frames='hash' to check frames)"
        )
    if rep["mismatch"]:
        lines.append(
            f"  first difference at log line {rep['mismatch']['line']}: {rep['mismatch']['detail']}"
        )
    for w in rep["warnings"]:
        lines.append(f"  warning: {w}")
    return "\n".join(lines)


def cmd(args) -> int:
    """``puzzlegym replay DIR``: exit status 0 when the record reproduces, 1 otherwise."""
    from puzzlegym.record.metrics import find_records

    dirs = (
        [Path(args.dir)] if (Path(args.dir) / "manifest.json").exists() else find_records(args.dir)
    )
    if not dirs:
        print(f"no episode record under {args.dir}")
        return 2
    ok = True
    for d in dirs:
        try:
            rep = replay(d, backend=args.backend)
        except PuzzleGymError as exc:  # a damaged record (or a setting, an action in it that no
            # env accepts): say so, go on with the others
            ok = False
            print(
                json.dumps({"ok": False, "record": str(d), "damaged": str(exc)})
                if args.json
                else f"DAMAGED: {exc}"
            )
            continue
        ok &= rep["ok"]
        print(json.dumps(rep) if args.json else format_report(rep))
    return 0 if ok else 1
