"""The training entry point (puzzlegym.training.protocol, train, sweep, report): tiny runs end to
end through ``puzzlegym train`` and ``python -m puzzlegym.run``, a used run directory refused,
a killed sweep resumed, bad settings named, and seeds that reproduce every figure."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from puzzlegym.base.errors import CheckpointError, ConfigError  # noqa: E402
from puzzlegym.rl.sweep import SUPERSEDED, Run, plan, run_sweep  # noqa: E402
from puzzlegym.rl.train import TrainConfig, train  # noqa: E402
from puzzlegym.training.protocol import Protocol  # noqa: E402
from puzzlegym.training.report import aggregate, dead_end_rows, interval, seed_interval  # noqa: E402
from puzzlegym.training.results import summary  # noqa: E402
from tests.memory import peak_memory  # noqa: E402

MAZE = "LongPuzzle/MazePaint-Easy"
# MazePaint-Easy's ten catalogue levels: the solver's slides (one swipe each)
MAZE_SOLUTIONS = [7, 7, 8, 8, 9, 9, 9, 10, 10, 11]
# the tiny run of every test: 64 steps, one episode per level, two training levels
TINY_OVERRIDES = (
    "agent.timesteps=64",
    "agent.n_envs=2",
    "agent.episodes=1",
    "agent.curve_every=32",
    "agent.curve_episodes=1",
    "agent.progress=false",
    "agent.hyperparameters.n_steps=32",
    "agent.hyperparameters.batch_size=64",
    "agent.hyperparameters.n_epochs=1",
    "agent.protocol.num_levels=4",
    "agent.protocol.train_levels=2",
    "agent.heldout_generated=2",
)
TIMES = ("train_s", "train_fps", "curve_s", "total_s")


def tiny(seed: int = 0, timesteps: int = 64, **kw) -> TrainConfig:
    protocol = Protocol(
        MAZE,
        num_levels=4,
        budget_multiple=2.0,
        train_levels=2,
        wrappers={"observation": "board", "buttons": []},
    )
    settings = dict(
        timesteps=timesteps,
        n_envs=2,
        episodes=1,
        curve_every=32,
        curve_episodes=1,
        heldout_generated=2,
        progress=False,
        seed=seed,
        hyperparameters=dict(n_steps=32, batch_size=64, n_epochs=1),
    )
    settings.update(kw)
    return TrainConfig(protocol=protocol, **settings)


def figures(result: dict) -> dict:
    """A result without its times (what a seed must reproduce)."""
    out = {k: v for k, v in result.items() if k not in TIMES}
    out["curve"] = [{k: v for k, v in row.items() if k != "elapsed_s"} for row in result["curve"]]
    return out


def last_json(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


def cli(*args: str, cwd: Path, expect_rc: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == expect_rc, f"rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


# ---------------------------------------------------------------------- the protocol
def test_protocol_budgets_are_multiples_of_the_solver_solutions():
    p = Protocol(
        MAZE, num_levels=4, budget_multiple=1.5, train_levels=2, wrappers={"observation": "board"}
    )
    levels = p.test_levels()
    assert [t.name for t in levels] == [f"catalogue:{k}" for k in range(1, 11)]
    assert [t.solution_actions for t in levels] == MAZE_SOLUTIONS
    assert [t.budget_actions for t in levels] == [11, 11, 12, 12, 14, 14, 14, 15, 15, 17]
    assert p.train_budget_actions() == 17  # 1.5 x the longest catalogue solution, rounded up
    assert p.budget_s(17) == 16.5  # exactly 17 actions of 1 simulated second
    kw = p.train_kwargs()
    assert (kw["levels"], kw["num_levels"], kw["start_level"], kw["level"], kw["start"]) == (
        "generated",
        4,
        0,
        1,
        "board",
    )
    assert kw["level_bits"] is False and kw["max_targets"] == 4 and kw["actions"] == "board"
    assert p.level_kwargs(levels[2])["level"] == 3 and "levels" not in p.level_kwargs(levels[2])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(budget_multiple=0.5), "budget_multiple: expected a number 1..100, got 0.5"),
        (dict(num_levels=0), "num_levels: the protocol trains on a finite split"),
        (dict(train_levels=5, num_levels=4), "train_levels: expected an integer 1..4, got 5"),
        (dict(env_kwargs={"level": 3}), "env_kwargs.level: set by the protocol"),
        (dict(env_kwargs={"gif": True}), "env_kwargs.gif: not allowed here"),
        (dict(wrappers={"level_bits": True}), "wrappers.level_bits: set by the protocol"),
        (dict(wrappers={"budget_s": 9}), "wrappers.budget_s: an env keyword"),
    ],
)
def test_protocol_names_the_bad_field(kwargs, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        Protocol(MAZE, **kwargs)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(timesteps=0), "timesteps: expected an integer 1..100000000, got 0"),
        (dict(timesteps=True), "timesteps: expected an integer"),
        (dict(algo="dqn"), "algo: 'dqn' is not allowed; allowed: maskable_ppo, ppo"),
        (dict(net_arch=[64, 0]), r"net_arch\[1\]: expected an integer 1..4096, got 0"),
        (dict(extractor="resnet"), "extractor: 'resnet' is not allowed"),
        (dict(hyperparameters={"lr": 1e-3}), "hyperparameters.lr: not allowed"),
        (
            dict(hyperparameters={"gamma": 1.5}),
            "hyperparameters.gamma: expected a number 0..1, got 1.5",
        ),
        (dict(hyperparameters={"n_steps": 2.5}), "hyperparameters.n_steps: expected an integer"),
        (
            dict(hyperparameters={"ent_coef": float("nan")}),
            "hyperparameters.ent_coef: expected a number",
        ),
        (dict(episodes=1001), "episodes: expected an integer 1..1000, got 1001"),
        (dict(vec="ray"), "vec: 'ray' is not allowed"),
    ],
)
def test_train_config_names_the_bad_field(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        tiny(**kwargs)


def test_train_config_round_trips_and_refuses_unknown_keys():
    config = tiny(seed=3)
    assert TrainConfig.from_dict(json.loads(json.dumps(config.to_dict())), progress=False) == config
    doc = config.to_dict()
    with pytest.raises(ConfigError, match="learning_rate: unknown key"):
        TrainConfig.from_dict({**doc, "learning_rate": 1e-3})
    with pytest.raises(ConfigError, match="protocol.level: unknown key"):
        TrainConfig.from_dict({**doc, "protocol": {**doc["protocol"], "level": 2}})


def test_bad_settings_leave_the_run_directory_untouched(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match="extractor: board_cnn reads the symbolic board"):
        train(
            TrainConfig(
                protocol=Protocol(MAZE, wrappers={"scale": "1/16", "grayscale": True}),
                extractor="board_cnn",
                progress=False,
            ),
            out,
        )
    with pytest.raises(ConfigError, match="policy: 'CnnPolicy' does not fit observation='board'"):
        train(tiny(policy="CnnPolicy"), out)
    assert not out.exists()


# ---------------------------------------------------------------------- train()
def test_a_run_writes_its_directory_and_a_seed_reproduces_every_figure(tmp_path):
    a = train(tiny(seed=5), tmp_path / "a", log=lambda line: None)
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [
        ".lock",
        "config.json",
        "curve.csv",
        "curve.png",
        "model.zip",
        "progress.csv",
        "result.json",
    ]
    assert json.loads((tmp_path / "a" / "result.json").read_text()) == a
    assert json.loads((tmp_path / "a" / "config.json").read_text()) == tiny(seed=5).to_dict()
    assert a["observation_shape"] == [9, 8, 8]  # no level-index planes
    assert a["actions"] == 4 and a["policy"] == "MlpPolicy" and a["timesteps"] == 64
    assert [t["solution_actions"] for t in a["test_levels"]] == MAZE_SOLUTIONS
    assert [t["budget_actions"] for t in a["test_levels"]] == [2 * n for n in MAZE_SOLUTIONS]
    assert [row["timesteps"] for row in a["curve"]] == [2, 34, 64]
    lines = (tmp_path / "a" / "curve.csv").read_text().splitlines()
    assert lines[0] == "timesteps,train_success,test_success,elapsed_s" and len(lines) == 4
    for phase in ("random_uniform", "random_masked", "trained", "trained_greedy"):
        assert len(a[phase]["test"]["per_level"]) == 10 and len(a[phase]["train"]["per_level"]) == 2
        assert a[phase]["test"]["dead_ends"]["attempts"] >= 10  # one attempt per episode at least
    s = summary(a)
    assert set(s) >= {
        "heldout_success",
        "train_success",
        "random_success",
        "random_masked_success",
        "timesteps",
        "seconds",
    }
    assert s["heldout_success"] == a["trained"]["test"]["success"]
    b = train(tiny(seed=5), tmp_path / "b", log=lambda line: None)
    assert figures(b) == figures(a)
    assert (tmp_path / "a" / "model.zip").read_bytes() != b""


def test_a_used_run_directory_is_refused(tmp_path):
    out = tmp_path / "run"
    train(tiny(), out, log=lambda line: None)
    before = (out / "result.json").read_bytes()
    with pytest.raises(ConfigError, match="holds a finished run"):
        train(tiny(seed=1), out)
    assert (out / "result.json").read_bytes() == before
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "progress.csv").write_text("x\n")
    with pytest.raises(ConfigError, match="holds an unfinished run's files"):
        train(tiny(), stray)
    assert sorted(p.name for p in stray.iterdir()) == ["progress.csv"]
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigError, match="exists and is not a directory"):
        train(tiny(), tmp_path / "file")


def test_a_locked_run_directory_is_refused(tmp_path):
    import fcntl

    out = tmp_path / "run"
    out.mkdir()
    with open(out / ".lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(Exception, match="the run directory"):
            train(tiny(), out)
    assert sorted(p.name for p in out.iterdir()) == [".lock"]


# ---------------------------------------------------------------------- entry points
def test_puzzlegym_train_and_the_hydra_app_run_the_protocol(tmp_path):
    proc = cli("-m", "puzzlegym", "train", *TINY_OVERRIDES, "seed=2", cwd=tmp_path)
    head = last_json(proc.stdout)
    out = tmp_path / "runs" / "train" / "MazePaint-Easy" / "seed2"
    result = json.loads((out / "result.json").read_text())
    assert head == summary(result) and head["seed"] == 2 and head["timesteps"] == 64
    assert "random policy: held-out success" in proc.stdout and "trained policy" in proc.stdout
    # the same command again goes to the next free directory, the first one untouched
    again = last_json(
        cli("-m", "puzzlegym", "train", *TINY_OVERRIDES, "seed=2", cwd=tmp_path).stdout
    )
    assert (out.parent / "seed2-2" / "result.json").exists()
    assert figures(json.loads((out.parent / "seed2-2" / "result.json").read_text())) == figures(
        result
    )
    assert {k: again[k] for k in again if k not in ("seconds", "train_fps")} == {
        k: head[k] for k in head if k not in ("seconds", "train_fps")
    }
    # python -m puzzlegym.run: the same run, and out_dir refused when it holds one
    run_dir = tmp_path / "hydra_run"
    proc = cli(
        "-m",
        "puzzlegym.run",
        "agent=maskable_ppo",
        "wrappers=board",
        *TINY_OVERRIDES,
        "seed=2",
        f"hydra.run.dir={tmp_path / 'h'}",
        f"out_dir={run_dir}",
        cwd=tmp_path,
    )
    assert figures(json.loads((run_dir / "result.json").read_text())) == figures(result)
    refused = cli(
        "-m",
        "puzzlegym.run",
        "agent=maskable_ppo",
        "wrappers=board",
        *TINY_OVERRIDES,
        f"hydra.run.dir={tmp_path / 'h2'}",
        f"out_dir={run_dir}",
        cwd=tmp_path,
        expect_rc=2,
    )
    assert "holds a finished run (result.json)" in refused.stderr


@pytest.mark.parametrize(
    "override, message",
    [
        ("agent.timesteps=-5", "agent.timesteps: expected an integer 1..100000000, got -5"),
        (
            "agent.protocol.budget_multiple=0.5",
            "agent.protocol.budget_multiple: expected a number 1..100",
        ),
        (
            "+agent.protocol.colour=1",
            "agent.protocol: Protocol.__init__() got an unexpected keyword argument 'colour'",
        ),
        ("+agent.lr=0.1", "agent.lr: unknown key"),
        ("+agent.hyperparameters.clip=0.1", "agent.hyperparameters.clip: not allowed"),
        ("env.kwargs.level=3", "env.kwargs.level: set by the training protocol"),
        ("agent=random", "agent: random is not a training agent"),
        ("wrappers=none", "wrappers=none"),
        ("out_dir=/tmp/elsewhere", "out_dir: not an override of puzzlegym train; use --out DIR"),
    ],
)
def test_puzzlegym_train_names_the_bad_setting(tmp_path, override, message):
    proc = cli("-m", "puzzlegym", "train", override, cwd=tmp_path, expect_rc=2)
    assert message in proc.stderr
    assert not (tmp_path / "runs").exists()


# ---------------------------------------------------------------------- sweeps
SWEEP_SCRIPT = textwrap.dedent("""
    import sys
    sys.path[:0] = [{tests!r}, {tests!r} + "/.."]  # the module, and the tests package it uses
    from test_rl_train import tiny
    from puzzlegym.rl.sweep import Run, run_sweep
    run_sweep([Run("a", tiny(seed=0)), Run("b", tiny(seed=1, timesteps={long}))], {root!r}, jobs=1)
""")


def test_a_killed_sweep_continues_where_it_stopped(tmp_path):
    root = tmp_path / "sweep"
    script = SWEEP_SCRIPT.format(tests=str(Path(__file__).parent), long=100_000, root=str(root))
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 500  # a bound on the wait, not a measured figure
        while not (root / "b" / "curve.csv").exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "run b never started"
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert (root / "a" / "result.json").exists() and not (root / "b" / "result.json").exists()
    finished_a = (root / "a" / "result.json").read_bytes()
    interrupted_files = sorted(p.name for p in (root / "b").iterdir())
    runs = [Run("a", tiny(seed=0)), Run("b", tiny(seed=1, timesteps=100_000))]
    assert plan(runs, root) == {"finished": ["a"], "interrupted": ["b"], "new": []}
    # started again (b shortened under a new name: the same configuration is not asked twice)
    runs = [Run("a", tiny(seed=0)), Run("b2", tiny(seed=1))]
    lines: list[str] = []
    results = run_sweep(runs, root, jobs=1, log=lines.append)
    assert (root / "a" / "result.json").read_bytes() == finished_a  # skipped, never rewritten
    assert results["a"] == json.loads(finished_a) and results["b2"]["timesteps"] == 64
    assert "sweep: 1 finished (skipped), 1 to run, 1 at a time" in lines
    # b, interrupted, under its own name again: moved aside untouched, then run from scratch
    runs = [Run("a", tiny(seed=0)), Run("b", tiny(seed=1))]
    lines.clear()
    b2 = results["b2"]
    results = run_sweep(runs, root, jobs=1, log=lines.append)
    moved = root / SUPERSEDED / "b"
    assert sorted(p.name for p in moved.iterdir()) == interrupted_files
    assert any(line.startswith("sweep: b was interrupted: its files moved to") for line in lines)
    assert figures(results["b"]) == figures(b2)  # a run is a function of its config
    assert plan(runs, root) == {"finished": ["a", "b"], "interrupted": [], "new": []}


def test_a_sweep_refuses_another_configuration_under_a_finished_name(tmp_path):
    # tuples in the config (as Hydra's wrappers give them) read back as lists: still the same
    grid = Protocol(
        MAZE,
        num_levels=4,
        budget_multiple=2.0,
        train_levels=2,
        wrappers={"observation": "board", "buttons": (), "grid": (4, 4)},
    )
    config = TrainConfig(
        protocol=grid, **{k: v for k, v in vars(tiny(seed=0)).items() if k != "protocol"}
    )
    run_sweep([Run("a", config)], tmp_path, jobs=1, log=lambda line: None)
    assert plan([Run("a", config)], tmp_path) == {"finished": ["a"], "interrupted": [], "new": []}
    with pytest.raises(
        ConfigError, match="run a: .* holds a finished run of another configuration"
    ):
        run_sweep([Run("a", tiny(seed=1))], tmp_path, jobs=1)
    for bad, message in ((Run, "name: expected 1..128 letters"),):
        with pytest.raises(ConfigError, match=message):
            bad("../x", tiny())
    with pytest.raises(ConfigError, match="name: expected"):
        Run(SUPERSEDED, tiny())
    with pytest.raises(ConfigError, match="runs: the name 'a' is given twice"):
        run_sweep([Run("a", tiny()), Run("a", tiny(seed=1))], tmp_path)
    with pytest.raises(ConfigError, match="jobs: expected an integer 1..16, got 0"):
        run_sweep([Run("a", tiny())], tmp_path, jobs=0)


# ---------------------------------------------------------------------- the table
def test_interval_uses_rliable_stratified_bootstrap():
    pytest.importorskip("rliable")
    flat = interval(np.full((3, 4), 0.25), reps=200)
    assert flat == {"mean": 0.25, "mean_ci": [0.25, 0.25], "iqm": 0.25, "iqm_ci": [0.25, 0.25]}
    # 3 runs x 2 tasks: the mean is 0.5; the IQM drops the lowest and highest quarter of the
    # six scores (0, 0, 0.5, 0.5, 1, 1 -> the middle ones, 0.5 after weighting)
    scores = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]])
    out = interval(scores, reps=500, seed=1)
    assert out["mean"] == 0.5 and out["iqm"] == 0.5
    assert 0.0 <= out["mean_ci"][0] <= 0.5 <= out["mean_ci"][1] <= 1.0
    assert out == interval(scores, reps=500, seed=1)
    with pytest.raises(ValueError, match="scores: expected a non-empty"):
        interval(np.zeros(3))


def _fake_result(seed, trained, masked, dead):
    test = {
        "per_level": trained,
        "success": float(np.mean(trained)),
        "dead_ends": {
            "attempts": 10,
            "dead_end_attempts": dead,
            "runs": dead,
            "recovered": dead - 1,
            "delays": [2] * (dead - 1),
        },
    }
    other = {
        "per_level": masked,
        "success": float(np.mean(masked)),
        "dead_ends": {
            "attempts": 10,
            "dead_end_attempts": 0,
            "runs": 0,
            "recovered": 0,
            "delays": [],
        },
    }
    train_ = {"per_level": [1.0], "success": 1.0}
    return {
        "env_id": MAZE,
        "config": {"seed": seed, "protocol": {"budget_multiple": 2.0, "num_levels": 4}},
        "trained": {"test": test, "train": train_},
        "trained_greedy": {"test": test, "train": train_},
        "random_masked": {"test": other, "train": train_},
        "random_uniform": {"test": other, "train": train_},
        "timesteps": 64,
        "total_s": 10.0 + seed,
        "train_fps": 100.0,
        "test_levels": [0, 0],
        "train_levels": [0],
    }


def test_aggregate_and_dead_end_rows_pool_the_seeds():
    pytest.importorskip("rliable")
    results = [_fake_result(s, [1.0, 0.8], [0.1, 0.0], dead=3) for s in range(3)]
    row = aggregate(results, reps=200)
    assert row["seeds"] == [0, 1, 2] and row["runs"] == 3
    assert row["trained_test"]["mean"] == pytest.approx(0.9)
    assert row["random_masked_test"]["mean"] == pytest.approx(0.05)
    assert row["beats_masked"] is True and row["total_s"] == [10.0, 11.0, 12.0]
    d = dead_end_rows(results)
    assert d["trained"] == {
        "attempts": 30,
        "dead_end_attempts": 9,
        "dead_end_share": 30.0,
        "runs": 9,
        "recovered": 6,
        "mean_delay": 2,
        "median_delay": 2.0,
    }
    assert d["random_masked"]["dead_end_share"] == 0.0 and d["random_masked"]["mean_delay"] is None
    tie = aggregate([_fake_result(s, [0.1, 0.0], [0.1, 0.0], dead=1) for s in range(3)], reps=200)
    assert tie["beats_masked"] is False
    assert "trained_generated" not in row  # no generated held-out set in these runs


def test_aggregate_adds_the_generated_held_out_set_when_every_run_has_one():
    pytest.importorskip("rliable")
    results = [_fake_result(s, [1.0, 0.8], [0.1, 0.0], dead=3) for s in range(3)]
    for s, r in enumerate(results):
        r["generated"] = {
            "set": {"levels": 4},
            "trained": {"per_level": [0.5, 0.5, 1.0, 0.0], "success": 0.5 + s / 100},
            "random_masked": {"per_level": [0.0, 0.0, 0.5, 0.0], "success": 0.125},
        }
    row = aggregate(results, reps=200)
    assert row["trained_generated"]["mean"] == pytest.approx(0.5)
    assert row["random_masked_generated"]["mean"] == pytest.approx(0.125)
    assert row["per_seed_generated"] == [0.5, 0.51, 0.52] and row["levels"]["generated"] == 4
    assert row["beats_masked_generated"] is True
    for r in results:  # masked random as good as trained: the intervals meet
        r["generated"]["random_masked"]["per_level"] = [0.5, 0.5, 1.0, 0.0]
    assert aggregate(results, reps=200)["beats_masked_generated"] is False
    results[0].pop("generated")
    assert "trained_generated" not in aggregate(results, reps=200)


def test_seed_interval_is_the_t_interval_of_the_per_seed_figures():
    pytest.importorskip("scipy")
    # mean 0.2, standard deviation 0.1, t(0.975, 2) = 4.3027: half-width 0.2484
    assert seed_interval([0.1, 0.2, 0.3]) == [-0.0484, 0.4484]
    assert seed_interval([0.4, 0.4, 0.4, 0.4, 0.4]) == [0.4, 0.4]
    assert seed_interval([0.7]) == [0.7, 0.7]
    assert seed_interval([0.1, 0.2, 0.3], (0, 1)) == [0.0, 0.4484]  # a share's range
    assert all(type(v) is float for v in seed_interval([0.1, 0.2, 0.3], (0, 1)))
    with pytest.raises(ValueError, match="values: expected a non-empty"):
        seed_interval([])


def _baselines_module():
    spec = importlib.util.spec_from_file_location(
        "rl_baselines_page", Path(__file__).resolve().parent.parent / "benchmarks/rl_baselines.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_baseline_page_calls_trained_apart_only_when_the_seeds_agree():
    pytest.importorskip("scipy")
    page = _baselines_module()

    def fake_row(name, per_seed, masked_per_seed, rliable_apart):
        return {
            "objective": name,
            "generated_success": float(np.mean(per_seed)),
            "generated_ci": [0.30, 0.40] if rliable_apart else [0.05, 0.40],
            "random_masked_generated_success": float(np.mean(masked_per_seed)),
            "random_masked_generated_ci": [0.08, 0.10],
            "beats_masked_generated": rliable_apart,
            "generated_seed_ci": page.seed_interval(per_seed),
            "random_masked_generated_seed_ci": page.seed_interval(masked_per_seed),
            "beats_masked_generated_seeds": (
                page.seed_interval(per_seed)[0] > page.seed_interval(masked_per_seed)[1]
            ),
        }

    steady = fake_row("A-Easy", [0.34, 0.35, 0.36], [0.09, 0.09, 0.09], True)
    # one seed learned, two did not: rliable's interval over a thousand levels sits above
    # masked random's, the seeds' t-interval reaches below it
    lucky = fake_row("B-Easy", [0.95, 0.05, 0.05], [0.09, 0.09, 0.09], True)
    flat = fake_row("C-Easy", [0.1, 0.1, 0.1], [0.09, 0.09, 0.09], False)
    lines = page.verdicts([steady, lucky, flat], ["A-Easy", "B-Easy", "C-Easy"])
    assert lines[1].startswith(
        "Trained beats masked random on the generated set with both intervals apart on 1 of "
        "the 3 first tiers where masked random solves below 90 % (A-Easy)."
    )
    assert "**A-Easy**: trained beats masked random on the generated set with both" in lines[2]
    assert "seeds' t-intervals overlap" in lines[3] and "not shown to beat" in lines[3]
    assert "**C-Easy**: trained does not beat masked random" in lines[4]


def test_the_readme_run_is_one_configuration_under_its_three_names():
    """examples/train_ppo.py (configs/train_ppo.yaml), +experiment=ppo_maze_paint and
    puzzlegym train's defaults with the same overrides compose one TrainConfig."""
    from hydra import compose, initialize_config_module

    from puzzlegym.run import train_config

    with initialize_config_module("puzzlegym.configs", version_base=None):
        readme = compose("train_ppo", overrides=["out_dir=null"])
        experiment = compose("run", overrides=["+experiment=ppo_maze_paint", "out_dir=null"])
        command = compose(
            "run",
            overrides=[
                "agent=maskable_ppo",
                "wrappers=board",
                "agent.extractor=board_cnn",
                "agent.timesteps=80000",
                "agent.episodes=10",
                "agent.curve_every=10000",
                "agent.checkpoint_every=null",
                "agent.heldout_generated=0",
                "out_dir=null",
            ],
        )
    a, b, c = (train_config(cfg) for cfg in (readme, experiment, command))
    assert a == b == c
    assert (a.protocol.env_id, a.extractor, a.timesteps, a.protocol.budget_multiple) == (
        MAZE,
        "board_cnn",
        80_000,
        2,
    )
    assert a.hyperparameters == {
        "n_steps": 128,
        "batch_size": 256,
        "n_epochs": 4,
        "learning_rate": 0.001,
        "ent_coef": 0.01,
        "gamma": 0.99,
    }


# ---------------------------------------------------------------------- checkpoints and --resume
def test_a_killed_run_resumes_to_the_figures_of_an_unbroken_run(tmp_path, monkeypatch):
    """Checkpoints every rollout (2 envs x 32 steps); the run is stopped right after its first
    checkpoint (the process dies there: nothing after the save runs), then resumed: every
    figure, the curve and the final parameters equal an unbroken run's with the same seed."""
    import torch
    from sb3_contrib import MaskablePPO

    from puzzlegym.rl import checkpoints

    config = tiny(seed=3, timesteps=128, checkpoint_every=64, curve_every=64)
    unbroken = train(config, tmp_path / "unbroken", log=lambda line: None)

    real_save = checkpoints.save

    def save_then_die(*args, **kwargs):
        real_save(*args, **kwargs)
        raise KeyboardInterrupt("killed after the first checkpoint")

    monkeypatch.setattr(checkpoints, "save", save_then_die)
    with pytest.raises(KeyboardInterrupt):
        train(config, tmp_path / "killed", log=lambda line: None)
    monkeypatch.setattr(checkpoints, "save", real_save)
    killed = tmp_path / "killed"
    assert not (killed / "result.json").exists() and not (killed / "model.zip").exists()
    with pytest.raises(ConfigError, match="holds an unfinished run"):
        train(config, killed, log=lambda line: None)  # without --resume: refused
    with pytest.raises(ConfigError, match="configured differently"):
        train(tiny(seed=4, timesteps=128, checkpoint_every=64, curve_every=64), killed, resume=True)
    # issue 45, item 6: a damaged book is refused, naming its field, before anything resumes
    for change, field in [
        (lambda book: {"updates": 0}, "book: missing key(s) phases"),
        (lambda book: {**book, "curve_next_at": "x"}, "book.curve_next_at: expected an integer"),
        (lambda book: {**book, "resumed_at": 5}, "book.resumed_at: expected a list"),
        (lambda book: {**book, "curve": [{"timesteps": None}]}, "book.curve[0]: missing key(s)"),
    ]:
        damaged = tmp_path / "damaged"
        shutil.rmtree(damaged, ignore_errors=True)
        shutil.copytree(killed, damaged)
        _rewrite_book(damaged / "checkpoint.zip", change)
        with pytest.raises(CheckpointError, match=re.escape(field)):
            train(config, damaged, log=lambda line: None, resume=True)
        assert not (damaged / "result.json").exists()

    # issue 45: a model.zip that inflates, or holds a zip that inflates, past what this model's
    # parameters take is refused from the headers, before a byte of it is inflated: the
    # refusal's peak memory is within 16 MiB of a refusal that never opens model.zip (the
    # damaged book above: the run's envs and model built, then refused)
    def peak_of_refused(run: Path, field: str) -> int:
        with peak_memory() as peak, pytest.raises(CheckpointError, match=field):
            train(config, run, log=lambda line: None, resume=True)
        return peak.bytes

    baseline = peak_of_refused(damaged, re.escape(field))
    for nested, field in [(False, "model.zip declares"), (True, "bytes inflated, more than")]:
        bomb = tmp_path / "bomb"
        shutil.rmtree(bomb, ignore_errors=True)
        shutil.copytree(killed, bomb)
        _plant_bomb(bomb / "checkpoint.zip", nested)
        assert (bomb / "checkpoint.zip").stat().st_size < 2 * 2**20
        assert peak_of_refused(bomb, field) < baseline + 16 * 2**20, (nested, baseline)
    lines: list[str] = []
    resumed = train(config, killed, log=lines.append, resume=True)
    assert "resumed at 64 steps (segment 1)" in lines
    assert resumed["resumed_at"] == [64] and unbroken["resumed_at"] == []
    same = {k: v for k, v in figures(resumed).items() if k != "resumed_at"}
    assert same == {k: v for k, v in figures(unbroken).items() if k != "resumed_at"}
    assert [row["timesteps"] for row in resumed["curve"]] == [2, 66, 128]
    assert (killed / "progress-2.csv").exists()  # the first run's log is kept
    a = MaskablePPO.load(tmp_path / "unbroken" / "model.zip").policy.state_dict()
    b = MaskablePPO.load(killed / "model.zip").policy.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    with pytest.raises(ConfigError, match="holds a finished run"):
        train(config, killed, resume=True)


def _rewrite_book(path: Path, change) -> None:
    """Rewrite checkpoint.zip's state.json with ``change(book)`` in place of its book."""
    import zipfile

    with zipfile.ZipFile(path) as zf:
        parts = {name: zf.read(name) for name in zf.namelist()}
    state = json.loads(parts["state.json"])
    state["book"] = change(state["book"])
    parts["state.json"] = json.dumps(state).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in parts.items():
            zf.writestr(name, data)


def _plant_bomb(path: Path, nested: bool) -> None:
    """Replace checkpoint.zip's model.zip by 256 MiB of deflated zeros (about 256 KiB), or by
    a stored zip whose one member is those zeros."""
    import io
    import zipfile

    def zeros(zf: zipfile.ZipFile, name: str) -> None:
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(info, "w", force_zip64=True) as fh:
            for _ in range(256):
                fh.write(bytes(2**20))

    with zipfile.ZipFile(path) as zf:
        parts = {name: zf.read(name) for name in zf.namelist() if name != "model.zip"}
    inner = io.BytesIO()
    if nested:
        with zipfile.ZipFile(inner, "w") as zf:
            zeros(zf, "policy.pth")
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
        if nested:
            zf.writestr("model.zip", inner.getvalue())
        else:
            zeros(zf, "model.zip")


def test_a_forged_checkpoint_is_refused_before_training(tmp_path):
    """A checkpoint.zip that is not ours (a model zip with pickled code, a broken zip) is a
    CheckpointError; nothing of it is unpickled."""
    import zipfile

    from puzzlegym.base.errors import CheckpointError

    config = tiny(seed=3, timesteps=64, checkpoint_every=64)
    out = tmp_path / "run"
    out.mkdir()
    (out / "config.json").write_text(json.dumps(json.loads(json.dumps(config.to_dict()))))
    with zipfile.ZipFile(out / "checkpoint.zip", "w") as zf:
        zf.writestr("state.json", "{}")
        zf.writestr("evil.pkl", b"cos\nsystem\n(S'touch pwned'\ntR.")
    with pytest.raises(CheckpointError, match="expected the members"):
        train(config, out, log=lambda line: None, resume=True)
    assert not (tmp_path / "pwned").exists() and not (out / "result.json").exists()
