"""One meaning of "step": record lines, attempts, dead-end runs and checkpoints count actions
as ``actions``; records and checkpoints written with the earlier name ``step`` (and
``start_step``, ``end_step``, ``fatal_step``) read exactly as today's."""

from __future__ import annotations

import hashlib
import json

import gymnasium as gym
import numpy as np

from puzzlegym.agents import SolverAgent
from puzzlegym.base.actions import to_dict
from puzzlegym.env.checkpoint import Checkpoint, _canonical
from puzzlegym.evaluation.replay import replay
from puzzlegym.record.events import upgrade_line
from puzzlegym.record.files import read_log
from puzzlegym.record.metrics import episode_from_record

OLD = {"actions": "step", "start_actions": "start_step", "end_actions": "end_step"}


def _old_names(line: dict) -> dict:
    """A line as an earlier puzzlegym wrote it."""
    out = {OLD.get(k, k): v for k, v in line.items()}
    if isinstance(out.get("runs"), list):
        out["runs"] = [
            {("fatal_step" if k == "fatal_actions" else k): v for k, v in r.items()}
            for r in out["runs"]
        ]
    return out


def test_upgrade_line_renames_exactly_the_earlier_names():
    old = {
        "kind": "attempt",
        "step": 9,
        "t": 9.0,
        "start_step": 2,
        "end_step": 9,
        "moves": 3,
        "runs": [{"fatal_step": 5, "fatal_move": [0, 1], "delay": 2, "recovered_by": None}],
    }
    assert upgrade_line(old) == {
        "kind": "attempt",
        "actions": 9,
        "t": 9.0,
        "start_actions": 2,
        "end_actions": 9,
        "moves": 3,
        "runs": [{"fatal_actions": 5, "fatal_move": [0, 1], "delay": 2, "recovered_by": None}],
    }
    today = {"kind": "action", "actions": 3, "t": 3.0, "action": {"type": "wait"}}
    assert upgrade_line(today) is today  # nothing to rename: the line itself
    # a line that has both keeps today's value (and the other field as it is)
    both = {"kind": "action", "actions": 3, "step": 7, "t": 3.0}
    assert upgrade_line(both) == both


def _random_record(path):
    """Random board clicks on Nut and Bolt Hard (dead ends, restarts, closed attempts)."""
    env = gym.make(
        "LongPuzzle/NutAndBolt-Hard", record_dir=str(path), record_frames="hash", start="board"
    )
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    probe = env.unwrapped.probe()
    targets = [to_dict(a) for a in probe.board.board_targets() if a is not None]
    x, y = probe.controls["restart"].center
    for i in range(160):
        if i % 40 == 39:
            env.step({"type": "click", "x": x, "y": y})
        else:
            env.step(targets[int(rng.integers(len(targets)))])
    env.close()
    return path


def test_a_record_with_the_earlier_names_gives_the_same_episode_and_replays(tmp_path):
    new = _random_record(tmp_path / "new")
    lines = read_log(new)
    attempts = [x for x in lines if x["kind"] == "attempt"]
    assert attempts and any(a["runs"] for a in attempts), (
        "the walk must close attempts with dead-end runs"
    )
    old = tmp_path / "old"
    old.mkdir()
    (old / "manifest.json").write_text((new / "manifest.json").read_text())
    (old / "log.jsonl").write_text("".join(json.dumps(_old_names(x)) + "\n" for x in lines))
    assert (
        '"step"' in (old / "log.jsonl").read_text()
        and '"fatal_step"' in (old / "log.jsonl").read_text()
    )
    assert read_log(old) == lines
    assert {**episode_from_record(old), "dir": None} == {**episode_from_record(new), "dir": None}
    assert replay(old)["ok"]


def test_a_format_1_checkpoint_restores_the_same_state(tmp_path):
    env = gym.make("LongPuzzle/MazePaint-Medium")
    env.reset(seed=0)
    agent = SolverAgent(env.unwrapped)
    for _ in range(25):
        env.step(agent())
    ckpt = env.unwrapped.checkpoint()
    doc = ckpt.to_json()
    ev = doc["payload"]["evaluator"]
    assert ev["events"] and ev["snapshots"] and (ev["attempts"] or ev["attempt"])
    for name in ("events", "snapshots", "attempts"):
        ev[name] = [_old_names(x) for x in ev[name]]
    ev["attempt"] = _old_names(ev["attempt"]) if ev["attempt"] else None
    doc["format_version"] = 1
    doc["payload_sha256"] = hashlib.sha256(_canonical([doc["config"], doc["payload"]])).hexdigest()
    assert '"step"' in json.dumps(ev) and '"actions"' not in json.dumps(ev["snapshots"])
    old = Checkpoint.from_json(doc)
    assert old.payload == ckpt.payload
    fresh = gym.make("LongPuzzle/MazePaint-Medium")
    fresh.reset(options={"checkpoint": old})
    assert fresh.unwrapped.checkpoint().payload == ckpt.payload
    env.close()
    fresh.close()
