"""Issue 21, item 5: every bad command line gets a clear error naming the field, a non-zero
exit status and no traceback; nothing is written by a refused command. Commands run through
``puzzlegym.cli.main`` (argv) or as subprocesses (the Hydra app)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

from puzzlegym.base.errors import ConfigError
from puzzlegym.cli import main
from puzzlegym.evaluation.runner import run_episode

ENV = "LongPuzzle/MazePaint-Easy"
ROOT = Path(__file__).resolve().parents[1]


def cli(argv, capsys) -> tuple[int, str]:
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse's own errors
        rc = exc.code
    out = capsys.readouterr()
    return rc, out.out + out.err


def refused(argv, capsys, fragment: str) -> str:
    rc, text = cli(argv, capsys)
    assert rc not in (0, None), (argv, text)
    assert "Traceback" not in text, text
    assert fragment in text, (argv, text)
    return text


def broken_agent(env):
    """An agent factory whose agent fails at its first step (every episode fails)."""

    def act(obs, info):
        raise RuntimeError("this agent always fails")

    return act


# ------------------------------------------------------------------------------- run, serve
@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--seed", "-1"], "seed: expected an integer 0..4294967295, got -1"),
        (["--max-steps", "-5"], "max_steps: expected an integer 1..1000000000 or None, got -5"),
        (["--agent", "nope"], "agent: 'nope' is not 'solver', 'random'"),
        (["--agent", "os:system"], "agent: 'os:system' is not an agent factory"),
        (["--agent", "os:sep"], "agent: 'os:sep' is a str, not a callable agent factory"),
        (["--agent", "no_such_module_x:f"], "agent: cannot import 'no_such_module_x:f'"),
        (["--budget-s", "inf"], "budget_s: expected a finite number > 0 (seconds), got inf"),
    ],
)
def test_run_refuses_bad_options_writing_nothing(tmp_path, capsys, args, fragment):
    out = tmp_path / "out"
    refused(["run", ENV, "--no-gif", "--out", str(out), *args], capsys, fragment)
    assert not out.exists()


def test_serve_refuses_a_port_out_of_range(capsys):
    refused(
        ["serve", "--port", "70000"],
        capsys,
        "argument --port: expected an integer 0..65535, got '70000'",
    )
    refused(["play", "--port", "-1"], capsys, "argument --port: expected an integer 0..65535")


# ------------------------------------------------------------------------------- eval
def test_eval_refuses_a_run_dir_that_is_a_file_or_a_dangling_symlink(tmp_path, capsys):
    a_file = tmp_path / "afile"
    a_file.write_text("mine")
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    refused(
        ["eval", "--run-dir", str(a_file), "--objectives", "MazePaint-Easy", "--quiet"],
        capsys,
        f"run_dir: {a_file} exists and is not a directory",
    )
    refused(
        ["eval", "--run-dir", str(dangling), "--objectives", "MazePaint-Easy", "--quiet"],
        capsys,
        f"run_dir: {dangling} is a symbolic link to nothing",
    )
    assert a_file.read_text() == "mine" and not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--seeds", "0-200000000"], "seeds: more than 10000 seeds in one run"),
        (["--seeds", "5-2"], "seeds: the range 5-2 is empty"),
        (
            ["--seeds", "99999999999"],
            "seeds: expected an integer 0..4294967295 (a seed), got 99999999999",
        ),
        (["--seeds", "-3"], "seeds: '-3' is not a seed"),
        (["--workers", "65"], "workers: expected an integer 1..64, got 65"),
        (["--workers", "0"], "workers: expected an integer 1..64, got 0"),
        (["--max-steps", "-5"], "max_steps: expected an integer 1..1000000000 or None"),
        (["--agents", "nope"], "agent: 'nope' is not"),
    ],
)
def test_eval_refuses_bad_options_writing_nothing(tmp_path, capsys, args, fragment):
    run = tmp_path / "run"
    refused(
        ["eval", "--run-dir", str(run), "--objectives", "MazePaint-Easy", "--quiet", *args],
        capsys,
        fragment,
    )
    assert not run.exists()


def test_eval_never_forks_more_workers_than_episodes(tmp_path, capsys):
    run = tmp_path / "run"
    rc, text = cli(
        [
            "eval",
            "--agents",
            "random",
            "--run-dir",
            str(run),
            "--objectives",
            "MazePaint-Easy",
            "--max-steps",
            "3",
            "--workers",
            "12",
            "--quiet",
        ],
        capsys,
    )
    assert rc == 0, text
    assert json.loads((run / "run.json").read_text())["workers"] == 1  # one episode, one process


def test_eval_never_overwrites_a_foreign_or_earlier_run_json(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text('{"mine": "not a puzzlegym run"}')
    base = [
        "eval",
        "--agents",
        "random",
        "--run-dir",
        str(run),
        "--objectives",
        "MazePaint-Easy",
        "--max-steps",
        "3",
        "--quiet",
    ]
    refused(base, capsys, f"run_dir: {run} already holds a run")
    refused([*base, "--resume"], capsys, "is not a puzzlegym eval run description; not resumed")
    assert (run / "run.json").read_text() == '{"mine": "not a puzzlegym run"}'
    assert sorted(p.name for p in run.iterdir()) == ["run.json"]
    other = tmp_path / "other"
    assert cli([*base[:4], str(other), *base[5:]], capsys)[0] == 0
    before = (other / "run.json").read_text()
    refused(
        [*base[:4], str(other), *base[5:6], "MazePaint-Hard", *base[7:]],
        capsys,
        f"run_dir: {other} already holds a run",
    )
    assert (other / "run.json").read_text() == before


def test_eval_where_every_episode_failed_is_a_clear_error(tmp_path, capsys):
    run = tmp_path / "run"
    text = refused(
        [
            "eval",
            "--agents",
            "tests.test_hardening_cli:broken_agent",
            "--run-dir",
            str(run),
            "--objectives",
            "MazePaint-Easy",
            "--seeds",
            "0,1",
            "--quiet",
        ],
        capsys,
        "every episode failed (2); nothing to score",
    )
    assert "RuntimeError: this agent always fails" in text


# ------------------------------------------------------------------------------- report
@pytest.fixture(scope="module")
def good_record(tmp_path_factory):
    out = tmp_path_factory.mktemp("good") / "ep"
    run_episode(ENV, "random", seed=0, out_dir=out, gif=False, max_steps=3, level=1)
    return out


def copy_episode(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True)
    (dst / "record").mkdir()
    for f in (src / "record").iterdir():
        (dst / "record" / f.name).write_bytes(f.read_bytes())
    return dst / "record"


@pytest.mark.parametrize(
    "case,fragment",
    [
        ("missing", "run_dir: {run} does not exist"),
        ("file", "run_dir: {run} is not a directory"),
        ("empty", "run_dir: no episode records"),
        ("run.json list", "{run}/run.json: the run description is not a puzzlegym eval run.json"),
        ("run.json torn", "{run}/run.json: the run description is damaged"),
        ("manifest number", "manifest.json: the record manifest is not a JSON object (got int)"),
    ],
)
def test_report_on_a_missing_empty_or_damaged_run_dir_is_a_clear_error(
    tmp_path, capsys, good_record, case, fragment
):
    run = tmp_path / "run"
    if case == "file":
        run.write_text("x")
    elif case != "missing":
        run.mkdir()
    if case.startswith("run.json") or case == "manifest number":
        rec = copy_episode(good_record, run / "episodes" / "a")
        if case == "run.json list":
            (run / "run.json").write_text("[1, 2]")
        elif case == "run.json torn":
            (run / "run.json").write_text('{"agents": ["rand')
        else:
            (rec / "manifest.json").write_text("42")
    refused(
        ["report", str(run), "--out", str(tmp_path / "report")], capsys, fragment.format(run=run)
    )
    assert not (tmp_path / "report" / "index.md").exists()


# ------------------------------------------------------------------------------- replay
def test_replay_of_a_damaged_manifest_or_log_line_names_it(tmp_path, capsys, good_record):
    rec = copy_episode(good_record, tmp_path / "a")
    (rec / "manifest.json").write_text("7")
    refused(
        ["replay", str(rec)],
        capsys,
        "DAMAGED: " + str(rec / "manifest.json") + ": the record manifest is not",
    )
    rec = copy_episode(good_record, tmp_path / "b")
    lines = (rec / "log.jsonl").read_text().splitlines()
    i = next(n for n, line in enumerate(lines) if json.loads(line)["kind"] == "action")
    doc = json.loads(lines[i])
    del doc["action"]
    lines[i] = json.dumps(doc)
    (rec / "log.jsonl").write_text("\n".join(lines) + "\n")
    refused(
        ["replay", str(rec)],
        capsys,
        f"{rec / 'log.jsonl'}:{i + 1}: missing key(s) action",
    )
    manifest = json.loads((good_record / "record" / "manifest.json").read_text())
    rec = copy_episode(good_record, tmp_path / "c")
    (rec / "manifest.json").write_text(
        json.dumps({**manifest, "config": {**manifest["config"], "record_dir": "/x"}})
    )
    refused(
        ["replay", str(rec)], capsys, "manifest field 'config.record_dir' is not an env setting"
    )


# ------------------------------------------------------------------------------- the API, Hydra
@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        ({"budget_s": 10**400}, "budget_s: expected a finite number > 0 (seconds), got "),
        ({"foo": 1}, "foo: not a keyword argument of puzzlegym envs"),
        ({"agent": ["x"]}, "agent: expected None or the agent's name"),
        ({"agent": ""}, "agent: expected None or the agent's name"),
    ],
)
def test_gym_make_refuses_bad_keyword_arguments(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        gym.make(ENV, **kwargs)


@pytest.mark.parametrize(
    "override,fragment",
    [
        ("+env.kwargs.foo=1", "foo: not a keyword argument of puzzlegym envs"),
        ("max_steps=-1", "max_steps: expected an integer 1..1000000000 or None, got -1"),
    ],
)
def test_hydra_app_refuses_bad_overrides(tmp_path, override, fragment):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "puzzlegym.run",
            "env=maze_paint_easy",
            "agent=random",
            override,
            f"hydra.run.dir={tmp_path / 'hydra'}",
            f"out_dir={tmp_path / 'out'}",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "HYDRA_FULL_ERROR": "0"},
    )
    text = proc.stdout + proc.stderr
    assert proc.returncode not in (0, None) and "Traceback" not in text and fragment in text, text
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "timesteps=1000",
            "timesteps: not a key of the training config; did you mean agent.timesteps?",
        ),
        (
            "agent.timestepz=3",
            "agent.timestepz: not a key of the training config; did you mean agent.timesteps",
        ),
        ("env=maze_paint", "env=maze_paint: no such env; one of: bolt_unscrew_easy, "),
        ("agent=foo", "agent=foo: no such agent; one of: "),
    ],
)
def test_train_override_mistakes_say_what_would_work(tmp_path, capsys, override, message):
    """Issue 43, item 4: Hydra's first line alone ("Could not override 'timesteps'") gave no
    hint of ``agent.timesteps``, and ``env=maze_paint`` no list of the valid names."""
    code, err = cli(["train", override, "--out", str(tmp_path / "run")], capsys)
    assert code == 2 and err.startswith(f"puzzlegym: error: {message}"), err
    if override.startswith("env="):
        assert "maze_paint_easy" in err  # the names listed are the group's own
    assert not (tmp_path / "run").exists()
