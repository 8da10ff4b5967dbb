"""``puzzlegym replay``: a record re-runs to the same log (actions, evaluator snapshots and
events, frame hashes), including batched steps and unfinished records; tampering is caught."""

import json

import gymnasium as gym
import pytest

from puzzlegym.cli import main
from puzzlegym.evaluation.replay import _steps, replay
from puzzlegym.evaluation.runner import run_episode
from puzzlegym.record.files import read_log


@pytest.fixture(scope="module")
def solver_record(tmp_path_factory):
    out = tmp_path_factory.mktemp("rec") / "solver"
    run_episode(
        "LongPuzzle/MazePaint-Easy", "solver", seed=0, out_dir=out, gif=False, record_frames="hash"
    )
    return out / "record"


def _rewrite(src, dst, edit):
    dst.mkdir()
    (dst / "manifest.json").write_text((src / "manifest.json").read_text())
    lines = read_log(src)
    edit(lines)
    (dst / "log.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return dst


def test_replay_reproduces_states_and_frames(solver_record):
    rep = replay(solver_record)
    assert rep["ok"], rep["mismatch"]
    log = read_log(solver_record)
    assert rep["lines_compared"] == len(log) and rep["finished"]
    assert rep["snapshots"] == sum(1 for x in log if x["kind"] == "snapshot") > 0
    # one frame hash at reset plus one per env step
    assert rep["frames"] == rep["steps"] + 1 == rep["actions"] + 1


def test_replay_catches_a_changed_frame_and_a_changed_snapshot(solver_record, tmp_path):
    def bad_frame(lines):
        i = [k for k, x in enumerate(lines) if x["kind"] == "frame"][5]
        lines[i]["sha256"] = "0" * 64

    rep = replay(_rewrite(solver_record, tmp_path / "f", bad_frame))
    assert not rep["ok"] and "sha256" in rep["mismatch"]["detail"]

    def bad_snapshot(lines):
        i = [k for k, x in enumerate(lines) if x["kind"] == "snapshot"][3]
        lines[i]["potential"] = 0.123

    rep = replay(_rewrite(solver_record, tmp_path / "s", bad_snapshot))
    assert not rep["ok"] and "potential" in rep["mismatch"]["detail"]


def test_replay_of_batched_steps_and_an_unfinished_record(tmp_path):
    rec = tmp_path / "batch"
    env = gym.make("LongPuzzle/MazePaint-Easy", record_dir=str(rec), record_frames="hash")
    env.reset(seed=5)
    suite = env.unwrapped.suite
    x, y = suite.targets()["game:MazePaint"].center
    env.step({"type": "batch", "actions": [{"type": "click", "x": x, "y": y}, {"type": "wait"}]})
    env.step({"type": "click", "x": 10, "y": 10})
    env.step({"type": "drag", "x0": 100, "y0": 400, "x1": 900, "y1": 420})
    env.close()  # not finished: no result in the manifest
    log = read_log(rec)
    assert [len(s) for s in _steps(log)] == [2, 1, 1]
    rep = replay(rec)
    assert rep["ok"] and not rep["finished"] and rep["frames"] == 4 and rep["actions"] == 4
    assert main(["replay", str(rec)]) == 0


def test_record_frames_is_off_by_default_and_validated(tmp_path):
    from puzzlegym.base.errors import ConfigError

    env = gym.make("LongPuzzle/MazePaint-Easy", record_dir=str(tmp_path / "plain"))
    env.reset(seed=0)
    env.step({"type": "wait"})
    env.close()
    assert not any(x["kind"] == "frame" for x in read_log(tmp_path / "plain"))
    assert replay(tmp_path / "plain")["ok"]
    with pytest.raises(ConfigError, match="record_frames"):
        gym.make("LongPuzzle/MazePaint-Easy", record_frames="png")


@pytest.mark.parametrize("agent,budget", [("solver", 3600.0), ("random", 0.2)])
def test_wall_clock_records_replay_on_their_logged_times(tmp_path, agent, budget):
    out = tmp_path / agent
    run_episode(
        "LongPuzzle/MazePaint-Easy",
        agent,
        seed=1,
        out_dir=out,
        gif=False,
        clock="wall",
        budget_s=budget,
    )
    rep = replay(out / "record")
    assert rep["ok"], rep["mismatch"]
    assert rep["finished"] and rep["lines_compared"] == len(read_log(out / "record"))
