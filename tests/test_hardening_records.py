"""Issue 15, items 9-10: damaged records and result files are reported, never silently
counted short; a run directory has one writer; result files are written atomically."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest

from puzzlegym.agents import make_agent
from puzzlegym.base.errors import ConfigError, RecordError
from puzzlegym.cli import main
from puzzlegym.evaluation.eval import episode_dir, run_eval
from puzzlegym.evaluation.replay import format_report, replay
from puzzlegym.evaluation.runner import run_episode
from puzzlegym.metrics import episode_from_record, find_records
from puzzlegym.record.files import EpisodeRecorder, read_log
from puzzlegym.report.load import load_run


def solved_record(path: Path, steps: int | None = None) -> Path:
    """A record of the solver on MazePaint-Easy level 1 (won, FGP 1)."""
    env = gym.make(
        "LongPuzzle/MazePaint-Easy", level=1, start="board", record_dir=str(path), agent="solver"
    )
    try:
        obs, info = env.reset(seed=0)
        agent = make_agent("solver", env.unwrapped)
        done, n = False, 0
        while not done and (steps is None or n < steps):
            obs, _, term, trunc, info = env.step(agent(obs, info))
            done, n = term or trunc, n + 1
    finally:
        env.close()
    return path


# ------------------------------------------------------------------------------- item 9
def test_a_corrupted_log_line_is_an_error_naming_file_and_line(tmp_path, capsys):
    rec = solved_record(tmp_path / "rec")
    assert episode_from_record(rec)["fgp"] == 1.0
    log = rec / "log.jsonl"
    lines = log.read_bytes().split(b"\n")
    n = len(lines) // 2
    lines[n - 1] = lines[n - 1][: len(lines[n - 1]) // 2]  # a torn line in the middle (two writers)
    log.write_bytes(b"\n".join(lines))
    with pytest.raises(RecordError, match=f"{log}:{n}: corrupted log line"):
        read_log(rec)
    with pytest.raises(RecordError, match=f"log.jsonl:{n}"):
        episode_from_record(rec)  # not an episode counted short
    assert main(["replay", str(rec)]) == 1
    assert f"DAMAGED: {log}:{n}" in capsys.readouterr().out
    assert main(["report", str(tmp_path)]) == 2  # a clear error, not figures from half a log
    assert f"{log}:{n}" in capsys.readouterr().err


def test_a_torn_last_line_is_reported_as_such(tmp_path, capsys):
    rec = solved_record(tmp_path / "rec", steps=3)
    whole = read_log(rec)
    assert whole.torn_line is None
    with open(rec / "log.jsonl", "ab") as fh:
        fh.write(b'{"kind":"snapsh')  # the process was killed mid-line
    log = read_log(rec)
    assert log == whole and log.torn_line == len(whole) + 1
    assert episode_from_record(rec)["torn_line"] == len(whole) + 1
    rep = replay(rec)
    assert rep["ok"] and rep["torn_line"] == len(whole) + 1
    assert f"log line {len(whole) + 1} is torn" in format_report(rep)
    data = load_run(tmp_path)
    assert data["torn"] and "is torn" in data["torn"][0]
    assert main(["report", str(tmp_path)]) == 0
    assert "is torn" in (tmp_path / "report" / "index.md").read_text()


def test_a_record_has_one_writer(tmp_path):
    """A second env on the same record_dir never writes into the first one's record: it
    starts its own beside it; a recorder opened on an existing record is refused."""
    first = gym.make("LongPuzzle/MazePaint-Easy", record_dir=str(tmp_path / "rec"))
    second = gym.make("LongPuzzle/MazePaint-Easy", record_dir=str(tmp_path / "rec"))
    try:
        first.reset(seed=0)
        first.step({"type": "wait"})
        second.reset(seed=0)
        assert second.unwrapped.record_path == str(tmp_path / "rec-2")
        second.step({"type": "wait"})
        first.step({"type": "wait"})
        assert [r["actions"] for r in read_log(tmp_path / "rec") if r["kind"] == "action"] == [1, 2]
        assert [r["actions"] for r in read_log(tmp_path / "rec-2") if r["kind"] == "action"] == [1]
        with pytest.raises(RecordError, match="already holds an episode record"):
            EpisodeRecorder(tmp_path / "rec", {})
    finally:
        first.close()
        second.close()


def test_records_and_run_outputs_are_never_overwritten(tmp_path):
    """Every later episode gets a new directory: env resets, a second env, a second
    `run_episode` into the same --out, a second eval into the same run (refused without
    --resume); an unfinished episode a resumed run plays again is kept, not counted."""
    env = gym.make("LongPuzzle/MazePaint-Easy", record_dir=str(tmp_path / "rec"))
    try:
        for _ in range(3):
            env.reset(seed=0)
            env.step({"type": "wait"})
    finally:
        env.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rec", "rec-2", "rec-3"]
    logs = {p.name: (p / "log.jsonl").read_bytes() for p in tmp_path.iterdir()}

    out = tmp_path / "out"
    first = run_episode("LongPuzzle/MazePaint-Easy", "random", out_dir=out, max_steps=5, level=1)
    kept = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    second = run_episode("LongPuzzle/MazePaint-Easy", "random", out_dir=out, max_steps=7, level=1)
    assert first["out"] == str(out) and second["out"] == str(tmp_path / "out-2")
    assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == kept
    assert json.loads((tmp_path / "out-2" / "result.json").read_text())["steps"] == 7
    assert {p.name: (p / "log.jsonl").read_bytes() for p in tmp_path.glob("rec*")} == logs

    run = tmp_path / "run"
    run_eval(["random"], ["LongPuzzle/MazePaint-Easy"], [0, 1], run, max_steps=5, progress=False)
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file() and p.name != ".lock"}
    with pytest.raises(ConfigError, match=r"already holds a run .*; continue it with --resume"):
        run_eval(
            ["random"], ["LongPuzzle/MazePaint-Easy"], [0, 1], run, max_steps=5, progress=False
        )
    assert {
        p: p.read_bytes() for p in run.rglob("*") if p.is_file() and p.name != ".lock"
    } == before
    unfinished = episode_dir(run, "random", "LongPuzzle/MazePaint-Easy", 1)
    (unfinished / "result.json").unlink()  # as if the run had been killed mid-episode
    log = (unfinished / "record" / "log.jsonl").read_bytes()
    run_eval(
        ["random"],
        ["LongPuzzle/MazePaint-Easy"],
        [0, 1],
        run,
        max_steps=5,
        progress=False,
        resume=True,
    )
    kept_aside = run / "superseded" / unfinished.relative_to(run)
    assert (kept_aside / "record" / "log.jsonl").read_bytes() == log
    assert (unfinished / "result.json").exists()
    assert len(load_run(run)["episodes"]["random"]) == 2  # the superseded attempt is not counted


def test_a_run_directory_is_locked_by_the_run_writing_it(tmp_path):
    run = tmp_path / "run"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "puzzlegym",
            "eval",
            "--agents",
            "random",
            "--objectives",
            "MazePaint-Easy",
            "--seeds",
            "0-1",
            "--max-steps",
            "1500",
            "--run-dir",
            str(run),
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not (run / "run.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read()
        with pytest.raises(RecordError, match="another puzzlegym eval"):
            run_eval(
                ["random"], ["LongPuzzle/MazePaint-Easy"], [0, 1], run, max_steps=5, progress=False
            )
        assert proc.wait(timeout=300) == 0
    finally:
        proc.kill()
        proc.wait()
    assert len(find_records(run)) == 2 and all(
        episode_from_record(r)["actions"] == 1500 for r in find_records(run)
    )


# ------------------------------------------------------------------------------- item 10
def test_result_files_are_written_atomically(tmp_path, monkeypatch):
    out = tmp_path / "out"
    run_episode("LongPuzzle/MazePaint-Easy", "random", out_dir=out, max_steps=20, level=1)
    kept = {name: (out / name).read_bytes() for name in ("result.json", "final.png", "episode.gif")}
    renamed = []
    real_replace = os.replace
    monkeypatch.setattr(
        os, "replace", lambda a, b: (renamed.append(Path(b).name), real_replace(a, b))[1]
    )

    import imageio.v3 as iio

    def dies_mid_write(path, *args, **kwargs):
        Path(path).write_bytes(b"GIF89a")  # half a file, then the writer fails
        raise OSError("disk full")

    monkeypatch.setattr(iio, "imwrite", dies_mid_write)
    with pytest.raises(OSError, match="disk full"):
        run_episode("LongPuzzle/MazePaint-Easy", "random", out_dir=out, max_steps=20, level=1)
    assert (out / "episode.gif").read_bytes() == kept["episode.gif"]  # the old file, whole
    assert "final.png" in renamed  # written through a temporary file and a rename
    assert sorted(p.name for p in out.iterdir()) == [
        "episode.gif",
        "final.png",
        "record",
        "result.json",
    ]
    monkeypatch.undo()
    run_episode("LongPuzzle/MazePaint-Easy", "random", out_dir=out, max_steps=20, level=1)
    assert json.loads((out / "result.json").read_text())["steps"] == 20


def test_damaged_result_files_are_reported_and_the_rest_goes_on(tmp_path, capsys):
    run = tmp_path / "run"
    run_eval(["random"], ["LongPuzzle/MazePaint-Easy"], [0, 1], run, max_steps=10, progress=False)
    results = sorted(run.rglob("result.json"))
    assert len(results) == 2
    results[0].write_text("")  # an interrupted non-atomic write
    good = results[1].read_bytes()
    assert main(["report", str(run)]) == 0
    err = capsys.readouterr().err
    assert f"{results[0]}: the episode result is empty" in err
    assert str(results[0]) in (run / "report" / "index.md").read_text()
    out = run_eval(
        ["random"],
        ["LongPuzzle/MazePaint-Easy"],
        [0, 1],
        run,
        max_steps=10,
        progress=False,
        resume=True,
    )
    assert "running that episode again" in capsys.readouterr().err
    assert [r["steps"] for r in out] == [10, 10]
    assert json.loads(results[0].read_text())["steps"] == 10 and results[1].read_bytes() == good


def test_atomic_writes_leave_files_with_the_umask_mode_and_no_temporaries(tmp_path):
    """write_atomic's temporary file is private (0600); the written file gets the mode a plain
    open() would give (reports and records stay readable as before), bytes, text and writer
    callables alike, and nothing is left beside it."""
    import os
    import stat

    from puzzlegym.base import jsonio

    umask = os.umask(0o022)
    os.umask(umask)
    expected = 0o666 & ~umask
    jsonio.write_atomic(tmp_path / "a.txt", "text")
    jsonio.write_atomic(tmp_path / "b.bin", b"\x00\x01")
    jsonio.write_atomic(tmp_path / "c.json", lambda tmp: tmp.write_text("{}"))
    for name in ("a.txt", "b.bin", "c.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == expected, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.bin", "c.json"]
    assert (tmp_path / "a.txt").read_text() == "text" and (
        tmp_path / "b.bin"
    ).read_bytes() == b"\x00\x01"


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_multi_worker_eval_takes_its_workers_and_lock_with_it(tmp_path):
    """Issue 29 item 13, the attack: ``kill -9`` of ``puzzlegym eval --workers 2``'s main
    process while both workers wait on their model. Before, both lived on (then blocked for
    ever on a pipe), holding the run directory's lock, and ``--resume`` was refused."""
    from tests.conftest import scripted

    run = tmp_path / "run"
    slow = {"delay_s": 60, "tool_calls": [{"name": "answer", "arguments": {"text": "late"}}]}
    answer = {"tool_calls": [{"name": "answer", "arguments": {"text": "stop"}}]}
    with scripted({"models": {"a": [slow, answer], "b": [slow, answer]}}) as (model, url):
        args = [
            sys.executable,
            "-m",
            "puzzlegym",
            "eval",
            "--agents",
            "openai:a,openai:b",
            "--objectives",
            "MazePaint-Easy",
            "--seeds",
            "0",
            "--workers",
            "2",
            "--run-dir",
            str(run),
            "--base-url",
            url,
            "--quiet",
        ]
        main_proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 120  # a bound on this test's wait, not a measurement
            while len(model.requests) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            children = _children(main_proc.pid)
            # the two workers, and the resource tracker a spawning pool starts beside them
            workers = [c for c in children if b"resource_tracker" not in _cmdline(c)]
            assert len(model.requests) == 2 and len(workers) == 2  # both wait on the model
            main_proc.kill()  # SIGKILL: no handler, no cleanup
            main_proc.wait(timeout=30)
            while any(map(_alive, children)) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert [c for c in children if _alive(c)] == []
        finally:
            if main_proc.poll() is None:
                main_proc.kill()
                main_proc.wait()
        resumed = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "being written by another process" not in resumed.stderr
    results = []
    for m in ("a", "b"):
        out = episode_dir(run, f"openai:{m}/native/M1", "LongPuzzle/MazePaint-Easy", 0)
        results.append(json.loads((out / "result.json").read_text()))
    assert [r.get("error") for r in results] == [None, None]
