"""``puzzlegym eval``: the run layout, parallel workers, record/evaluator agreement, and a
record whose process is killed mid-way still being readable and aggregating."""

import json
import subprocess
import sys
import time

import pytest

from puzzlegym.base.errors import ConfigError
from puzzlegym.cli import main
from puzzlegym.evaluation.eval import episode_dir, parse_objectives, parse_seeds, run_eval
from puzzlegym.game.registry import env_ids
from puzzlegym.metrics import (
    aggregate,
    aggregate_records,
    episode_from_record,
    episode_row,
    find_records,
)
from puzzlegym.record.files import read_log


def test_parse_objectives_and_seeds():
    assert parse_objectives("all") == env_ids()
    assert parse_objectives("MazePaint-Easy,LongPuzzle/MazePaint-Hard,MazePaint-Easy") == [
        "LongPuzzle/MazePaint-Easy",
        "LongPuzzle/MazePaint-Hard",
    ]
    with pytest.raises(ConfigError, match="allowed"):
        parse_objectives("MazePaint-Impossible")
    assert parse_seeds("0,1") == [0, 1] and parse_seeds("2-4,7") == [2, 3, 4, 7]
    with pytest.raises(ConfigError):
        parse_seeds("x")


def test_eval_two_agents_in_parallel_workers_writes_records_that_match_the_evaluator(tmp_path):
    run = tmp_path / "run"
    results = run_eval(
        ["solver", "random"],
        ["LongPuzzle/MazePaint-Easy"],
        [0],
        run,
        workers=2,
        max_steps=400,
        progress=False,
    )
    assert [r["agent"] for r in results] == ["solver", "random"] and not any(
        "error" in r for r in results
    )
    meta = json.loads((run / "run.json").read_text())
    assert meta["agents"] == ["solver", "random"] and meta["env_kwargs"]["budget_s"] == 3600.0
    solver_dir = episode_dir(run, "solver", "LongPuzzle/MazePaint-Easy", 0)
    assert (solver_dir / "result.json").exists() and (solver_dir / "record" / "log.jsonl").exists()
    records = find_records(run)
    assert len(records) == 2
    for rec in records:
        ep = episode_from_record(rec)
        manifest = json.loads((rec / "manifest.json").read_text())
        assert manifest["config"]["start"] == "home" and "Maze Paint" in manifest["instruction"]
        result = json.loads((rec.parent / "result.json").read_text())
        # the record alone gives the evaluator's numbers
        assert ep["lc"] == pytest.approx(result["lc"]) and ep["fgp"] == pytest.approx(result["fgp"])
        assert ep["won"] == result["levels_won"]
        if ep["agent"] == "solver":
            assert ep["success"] and ep["end"] == "complete" and ep["finished"]
            assert manifest["result"]["lc"] == 1.0 and len(ep["attempts"]) == 10
        else:
            assert ep["end"] == "stopped" and ep["actions"] == 400  # stopped by the harness cap
    out = aggregate_records(records)
    assert out["n"] == 2 and out["S"] == 1 and out["OSR"] == 50.0 and out["PER"] == 0.0


def test_eval_and_report_from_the_command_line(tmp_path, capsys):
    run = tmp_path / "cli"
    code = main(
        [
            "eval",
            "--agents",
            "solver",
            "--objectives",
            "MazePaint-Easy",
            "--seeds",
            "3",
            "--workers",
            "1",
            "--run-dir",
            str(run),
            "--quiet",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "solver: OSR 100.0  LC 100.0  FGP 100.0  (1 episode, 1 objective)" in out
    assert f"1 episode, records under {run / 'episodes'}; " in out  # not "1 episodes"
    assert main(["report", str(run)]) == 0
    assert (run / "report" / "index.md").exists()


KILLED_EPISODE = r"""
import sys, time
import gymnasium as gym
import puzzlegym
from puzzlegym.agents import make_agent
env = gym.make("LongPuzzle/MazePaint-Easy", record_dir=sys.argv[1], agent="solver")
obs, info = env.reset(seed=0)
agent = make_agent("solver", env.unwrapped)
while True:
    obs, r, term, trunc, info = env.step(agent(obs, info))
    time.sleep(0.01)
    if term or trunc:
        break
print("finished")
"""


def test_a_record_of_a_killed_episode_is_readable_and_aggregates(tmp_path):
    rec = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_EPISODE, str(rec)], stdout=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        wins = 0
        while time.monotonic() < deadline and wins < 2:
            time.sleep(0.05)
            if (rec / "log.jsonl").exists():
                wins = (rec / "log.jsonl").read_text().count('"kind":"level_won"')
        assert wins >= 2, "the episode never got going"
    finally:
        proc.kill()  # SIGKILL mid-episode: no clean-up runs
        proc.wait()
    assert b"finished" not in proc.stdout.read()
    manifest = json.loads((rec / "manifest.json").read_text())
    assert "result" not in manifest
    lines = read_log(rec)
    assert lines and all(isinstance(x, dict) for x in lines)
    ep = episode_from_record(rec)
    assert len(ep["won"]) >= 2 and ep["won"] == list(range(1, len(ep["won"]) + 1))
    assert ep["end"] == "stopped" and not ep["finished"] and not ep["premature_exit"]
    assert ep["lc"] == pytest.approx(len(ep["won"]) / 10)
    out = aggregate([episode_row(ep)])
    assert out["LC"] == pytest.approx(100 * len(ep["won"]) / 10) and out["OSR"] == 0.0
    # a torn last line (the process died while writing it) is skipped, not an error
    with open(rec / "log.jsonl", "a") as fh:
        fh.write('{"kind":"snapsh')
    assert episode_from_record(rec)["won"] == ep["won"]


def answering_agent(env):
    """An importable agent factory: claims completion at once (a premature exit)."""
    return lambda obs, info: {"type": "answer", "text": "All levels complete"}


def test_eval_with_an_importable_agent_counts_its_false_claim_as_a_premature_exit(tmp_path):
    run = tmp_path / "claim"
    (result,) = run_eval(
        ["tests.test_evaluation:answering_agent"],
        ["LongPuzzle/MazePaint-Easy"],
        [0],
        run,
        progress=False,
    )
    assert result["terminated"] and not result["success"]
    (rec,) = find_records(run)
    ep = episode_from_record(rec)
    assert ep["premature_exit"] and ep["end"] == "answer" and ep["actions"] == 1
    out = aggregate([episode_row(ep)])
    assert (out["OSR"], out["PER"], out["SMR"], out["LPR"]) == (0.0, 100.0, 0.0, None)
