"""The example scripts and Hydra configs: each script runs as a subprocess with small
arguments, exits 0 and prints what it promises. Everything is written under tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

import puzzlegym  # noqa: F401  (registers the ids)
from puzzlegym.run import ENV_CONFIGS

from .test_rl_train import TINY_OVERRIDES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CONFIGS = ROOT / "configs"


def run(
    script: str, *args: str, cwd: Path, expect_rc: int = 0, timeout: int = 120
) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=cwd,  # a stray relative path lands in tmp_path, not in the source tree
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == expect_rc, (
        f"rc={proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    )
    return proc


def last_json(stdout: str) -> dict:
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    assert lines, f"no JSON line in:\n{stdout}"
    return json.loads(lines[-1])


# ---------------------------------------------------------------------- configs
@pytest.mark.parametrize("name", sorted(ENV_CONFIGS))
def test_env_configs_make_their_env(name):
    cfg = OmegaConf.create(ConfigStore.instance().load(f"env/{name}.yaml").node)
    assert cfg.id in gym.registry
    env = gym.make(cfg.id, **OmegaConf.to_container(cfg.kwargs))
    env.reset(seed=0)
    env.close()


# ---------------------------------------------------------------------- run_hydra.py
def hydra_args(tmp_path: Path, *overrides: str) -> list[str]:
    return [f"hydra.run.dir={tmp_path / 'hydra'}", f"out_dir={tmp_path / 'episode'}", *overrides]


def test_run_hydra_solver_one_level(tmp_path):
    proc = run(
        "run_hydra.py", *hydra_args(tmp_path, "env.kwargs.level=1", "gif=false"), cwd=tmp_path
    )
    result = last_json(proc.stdout)
    assert result["env_id"] == "LongPuzzle/MazePaint-Easy" and result["agent"] == "solver"
    assert result["success"] is True and result["levels_won"] == [1]
    assert json.loads((tmp_path / "episode" / "result.json").read_text()) == result
    assert (tmp_path / "hydra" / ".hydra" / "config.yaml").exists()
    assert not (tmp_path / "outputs").exists()  # hydra.run.dir was honoured


def test_run_hydra_group_overrides(tmp_path):
    proc = run(
        "run_hydra.py",
        *hydra_args(tmp_path, "env=maze_paint_hard", "agent=random", "max_steps=50"),
        cwd=tmp_path,
    )
    result = last_json(proc.stdout)
    assert result["env_id"] == "LongPuzzle/MazePaint-Hard" and result["agent"] == "random"
    assert result["steps"] == 50 and result["success"] is False
    assert Path(result["gif"]).exists() and Path(result["final_frame"]).exists()


def test_run_hydra_experiment(tmp_path):
    overrides = ("+experiment=generated_levels", "env.kwargs.level=2", "seed=5", "gif=false")
    proc = run("run_hydra.py", *hydra_args(tmp_path, *overrides), cwd=tmp_path)
    result = last_json(proc.stdout)
    assert result["success"] is True and result["levels_won"] == [2]
    # the experiment's settings reached the env: the episode record names them
    manifest = json.loads((tmp_path / "episode" / "record" / "manifest.json").read_text())
    assert manifest["config"]["levels"] == "generated" and manifest["config"]["start"] == "board"
    assert manifest["seed"] == 5


def test_run_hydra_reports_a_bad_setting(tmp_path):
    proc = run(
        "run_hydra.py", *hydra_args(tmp_path, "env.kwargs.level=99"), cwd=tmp_path, expect_rc=2
    )
    assert "level: expected an integer" in proc.stderr and "got 99" in proc.stderr


# ---------------------------------------------------------------------- the other examples
def test_solver_agent(tmp_path):
    proc = run("solver_agent.py", "--level", "1", cwd=tmp_path)
    summary = last_json(proc.stdout)
    assert summary["env_id"] == "LongPuzzle/MazePaint-Easy"
    assert summary["success"] is True and summary["levels_won"] == [1]


def test_random_agent(tmp_path):
    proc = run(
        "random_agent.py",
        "--env-id",
        "LongPuzzle/MazePaint-Hard",
        "--steps",
        "40",
        "--every",
        "20",
        cwd=tmp_path,
    )
    assert "step    40" in proc.stdout
    summary = last_json(proc.stdout)
    assert summary["env_id"] == "LongPuzzle/MazePaint-Hard" and summary["lc"] == 0.0


def test_checkpoint_diagnostics(tmp_path):
    proc = run("checkpoint_diagnostics.py", "--out", str(tmp_path / "ckpt"), cwd=tmp_path)
    assert "MazePaint-Hard level 3: solution has" in proc.stdout
    assert "frames byte-identical" in proc.stdout
    assert proc.stdout.rstrip().endswith("OK: the checkpoint restores the episode exactly")
    assert (tmp_path / "ckpt" / "level3-half.ckpt.json").exists()


# ---------------------------------------------------------------------- the dead-end lab
def test_diagnose_dead_ends_prints_the_abc_table(tmp_path):
    proc = run(
        "diagnose_dead_ends.py", "--out", str(tmp_path / "lab"), "--window-s", "60", cwd=tmp_path
    )
    assert "Timely restart" in proc.stdout and "Verified recovery" in proc.stdout
    summary = last_json(proc.stdout)
    rows = {(r["game"], r["class"], r["condition"]): r for r in summary["outcomes"]}
    assert {g for g, _c, _k in rows} == {"BoltUnscrew", "NutAndBolt"}
    for game in ("BoltUnscrew", "NutAndBolt"):
        a, b, c = (rows[(game, "D", k)] for k in "ABC")
        # the scripted agent never restarts unaided, and always when the hint says the board is lost
        assert (
            a["n"] >= 1
            and a["timely_restart"] == 0
            and a["verified_recovery"] == 0
            and a["same_level_win"] == 0
        )
        assert (
            b["timely_restart"] == b["verified_recovery"] == b["n"]
            and c["timely_restart"] == c["n"]
        )
        for k in "AB":  # no solvable control triggers a restart
            assert (
                rows[(game, "N", k)]["timely_restart"] == 0
                and rows[(game, "N", k)]["verified_recovery"] is None
            )
    assert (tmp_path / "lab" / "rq2").is_dir() and list(
        (tmp_path / "lab" / "checkpoints").glob("*-D-*.ckpt.json")
    )


def test_run_hydra_rq4_experiment(tmp_path):
    overrides = (
        "+experiment=rq4",
        "study.objectives=[LongPuzzle/BoltUnscrew-Easy]",
        "study.cells=[K0P0,K1P1]",
        "study.max_steps=40",
    )
    proc = run(
        "run_hydra.py",
        f"hydra.run.dir={tmp_path / 'hydra'}",
        f"out_dir={tmp_path / 'rq4'}",
        *overrides,
        cwd=tmp_path,
    )
    summary = last_json(proc.stdout)
    assert summary["study"] == "rq4" and summary["sessions"] == 2
    cells = {c["cell"]: c for c in summary["cells"]}
    assert cells["K0P0"]["controller_actions"] == 0 and cells["K1P1"]["controller_actions"] >= 2
    session = json.loads(next((tmp_path / "rq4").rglob("session.json")).read_text())
    assert session["study"] == "rq4" and session["agent"] == "scripted"


def test_run_hydra_rq2_experiment(tmp_path):
    overrides = (
        "+experiment=rq2",
        "study.find=[{env_id:LongPuzzle/BoltUnscrew-Hard,level:1,source:solution,count:1}]",
        "study.conditions=[A,B]",
        "study.limits.window_s=20",
    )
    proc = run(
        "run_hydra.py",
        f"hydra.run.dir={tmp_path / 'hydra'}",
        f"out_dir={tmp_path / 'rq2'}",
        *overrides,
        cwd=tmp_path,
    )
    summary = last_json(proc.stdout)
    assert (
        summary["study"] == "rq2" and summary["checkpoints"] == 2 and summary["continuations"] == 4
    )
    rows = {(r["class"], r["condition"]): r for r in summary["outcomes"]}
    assert rows[("D", "B")]["timely_restart"] == 1 and rows[("D", "A")]["timely_restart"] == 0
    bad = run(
        "run_hydra.py",
        f"hydra.run.dir={tmp_path / 'h2'}",
        f"out_dir={tmp_path / 'x'}",
        "+experiment=rq2",
        "+study.colour=red",
        cwd=tmp_path,
        expect_rc=2,
    )
    assert "study.colour: unknown key" in bad.stderr


@pytest.mark.parametrize("name", ["rq2", "rq4"])
def test_lab_experiment_configs_name_their_study(name):
    cfg = OmegaConf.load(CONFIGS / "experiment" / f"{name}.yaml")
    assert cfg.study.name == name and cfg.study.agent == "scripted"


# ---------------------------------------------------------------------- python -m puzzlegym.run


def test_every_registered_objective_has_an_env_config():
    from hydra import compose, initialize_config_module

    from puzzlegym.game.registry import env_ids

    assert sorted(ENV_CONFIGS.values()) == sorted(env_ids())
    with initialize_config_module("puzzlegym.configs", version_base=None):
        for name, env_id in ENV_CONFIGS.items():
            cfg = compose("run", overrides=[f"env={name}"])
            assert cfg.env.id == env_id and cfg.env.kwargs.start == "home"


def run_module(*args: str, cwd: Path, expect_rc: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlegym.run", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == expect_rc, f"rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_puzzlegym_run_composes_packaged_configs(tmp_path):
    proc = run_module(
        *hydra_args(
            tmp_path,
            "env=nut_and_bolt_easy",
            "agent=random",
            "max_steps=5",
            "gif=false",
            "env.kwargs.start=board",
        ),
        cwd=tmp_path,
    )
    result = last_json(proc.stdout)
    assert result["env_id"] == "LongPuzzle/NutAndBolt-Easy" and result["agent"] == "random"
    assert result["steps"] == 5
    proc = run_module(*hydra_args(tmp_path, "wrappers=rl"), cwd=tmp_path, expect_rc=2)
    assert "wrappers=rl: GUI agents" in proc.stderr


def test_train_ppo_example_prints_held_out_success_beside_both_random_policies(tmp_path):
    """The README's PPO command, shortened: trained on generated levels, tested on the
    catalogue, its last line the headline figures."""
    out = tmp_path / "ppo"
    proc = run(
        "train_ppo.py",
        f"hydra.run.dir={tmp_path / 'hydra'}",
        f"out_dir={out}",
        *TINY_OVERRIDES,
        cwd=tmp_path,
        timeout=600,
    )
    assert "random policy: held-out success" in proc.stdout
    assert "trained policy: held-out success" in proc.stdout
    head = last_json(proc.stdout)
    assert set(head) >= {
        "heldout_success",
        "train_success",
        "random_success",
        "random_masked_success",
        "timesteps",
        "seconds",
    }
    assert head["env_id"] == "LongPuzzle/MazePaint-Easy" and head["timesteps"] == 64
    result = json.loads((out / "result.json").read_text())
    assert head["heldout_success"] == result["trained"]["test"]["success"]
    assert head["random_masked_success"] == result["random_masked"]["test"]["success"]
    # the README's settings: the board's planes through BoardCNN, twice each solver solution
    assert result["config"]["extractor"] == "board_cnn" and result["policy"] == "MlpPolicy"
    assert result["config"]["protocol"]["budget_multiple"] == 2.0
    assert [t["budget_actions"] for t in result["test_levels"]] == [
        14,
        14,
        16,
        16,
        18,
        18,
        18,
        20,
        20,
        22,
    ]
    assert result["actions"] == 4  # the four swipes, no buttons
    for name in ("config.json", "progress.csv", "curve.csv", "curve.png", "model.zip"):
        assert (out / name).exists(), name
    # a second run never overwrites the record
    again = run(
        "train_ppo.py",
        f"hydra.run.dir={tmp_path / 'hydra2'}",
        f"out_dir={out}",
        cwd=tmp_path,
        expect_rc=2,
    )
    assert "holds a finished run (result.json)" in again.stderr


def test_plain_ppo_on_pixels_and_grid_actions_smoke(tmp_path):
    """agent=ppo wrappers=rl: plain PPO (no masks) from 56x80 pixels with grid actions."""
    proc = run(
        "train_ppo.py",
        f"hydra.run.dir={tmp_path / 'hydra'}",
        f"out_dir={tmp_path / 'ppo'}",
        "agent=ppo",
        "wrappers=rl",
        "wrappers.actions=grid",
        "wrappers.grid=[2,2]",
        "agent.extractor=flatten",
        "agent.timesteps=64",
        "agent.n_envs=1",
        "agent.episodes=1",
        "agent.curve_every=null",
        "agent.progress=false",
        "agent.hyperparameters.n_steps=64",
        "agent.hyperparameters.batch_size=64",
        "agent.hyperparameters.n_epochs=1",
        "agent.protocol.num_levels=4",
        "agent.protocol.train_levels=1",
        cwd=tmp_path,
        timeout=600,
    )
    result = json.loads((tmp_path / "ppo" / "result.json").read_text())
    assert result["policy"] == "CnnPolicy" and result["observation_shape"] == [56, 80, 1]
    assert result["config"]["algo"] == "ppo" and result["actions"] == 4 + 16 + 4
    assert last_json(proc.stdout)["timesteps"] == 64
    bad = run(
        "train_ppo.py",
        f"hydra.run.dir={tmp_path / 'hydra2'}",
        f"out_dir={tmp_path / 'ppo2'}",
        "wrappers=rl",
        "wrappers.actions=grid",
        cwd=tmp_path,
        expect_rc=2,
    )
    assert "algo: maskable_ppo needs board actions" in bad.stderr


# ---------------------------------------------------------------------- without the rl extra
@pytest.mark.parametrize("how", ["puzzlegym train", "examples/train_ppo.py"])
def test_training_without_the_rl_extra_says_how_to_install_it(tmp_path, how):
    """Issue 29, as a new user meets it: without torch, ``puzzlegym train`` and the example
    printed a 25-line ModuleNotFoundError traceback. torch is hidden here by a module of its
    name that raises exactly what a missing package raises."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "torch.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n"
    )
    out = tmp_path / "out"
    if how == "puzzlegym train":
        cmd = [sys.executable, "-m", "puzzlegym", "train", "--out", str(out)]
        prefix = "puzzlegym: error: "
    else:
        cmd = [sys.executable, str(EXAMPLES / "train_ppo.py"), f"out_dir={out}"]
        prefix = "puzzlegym.run: error: "
    proc = subprocess.run(
        cmd,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(shadow)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        f"{prefix}training needs the rl extra (no module named 'torch'); install the rl extra: "
        "pip install 'torch==2.13.0' --index-url https://download.pytorch.org/whl/cpu (the CPU "
        "build), then pip install -e '.[rl]' (scripts/setup.sh dev does both)"
    )
    assert not out.exists()  # refused before anything was written


def test_the_demo_says_what_it_installs_before_it_installs(tmp_path):
    """Issue 33, item 5: scripts/demo.sh was silent for about a minute while pip ran. Run on a
    copy of the scripts whose .venv holds stand-ins for python and puzzlegym (each logs its
    arguments), every step is announced before it runs."""
    import shutil
    import stat

    root = Path(__file__).resolve().parents[1]
    (tmp_path / "scripts").mkdir()
    for name in ("demo.sh", "setup.sh"):
        shutil.copy(root / "scripts" / name, tmp_path / "scripts" / name)
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, line in {
        "python": 'case "$*" in *"print(puzzlegym.__version__)"*) echo 9.9;; '
        '*) echo "ran python $*";; esac',
        "puzzlegym": 'echo "ran puzzlegym $*"',
    }.items():
        stub = bin_dir / name
        stub.write_text(f"#!/bin/sh\n{line}\n")
        stub.chmod(stub.stat().st_mode | stat.S_IXUSR)
    proc = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "demo.sh")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "OUT": "runs/x"},
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "demo: installing puzzlegym into .venv first (scripts/setup.sh)"
    assert lines[1].startswith("setup: installing puzzlegym (editable) and its dependencies")
    assert lines[2] == "ran python -m pip install -q -e ."  # after it was announced
    assert lines[3] == "setup: done: .venv/bin/puzzlegym 9.9"
    assert lines[4] == (
        "demo: the solver agent plays LongPuzzle/MazePaint-Easy from the suite home screen "
        "through GUI actions"
    )
    assert lines[5] == "ran puzzlegym run LongPuzzle/MazePaint-Easy --agent solver --out runs/x"


# ---------------------------------------------------------------------- the README's RL commands
def test_the_readmes_rl_commands_are_the_tested_ones():
    """Issue 43, item 1: the README's torch snippet ran 16.6 minutes silently. Its RL section
    now gives commands whose runs the suite tests shortened (the example above, the JAX
    train command in tests/test_jax_train.py), each with what it installs first."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Reinforcement learning") : text.index("## Agent evaluation")]
    assert "```python" not in section  # no snippet to paste and wait on
    assert "scripts/setup.sh rl && .venv/bin/python examples/train_ppo.py" in section
    assert "scripts/setup.sh jax && .venv/bin/puzzlegym train agent=jax_ppo" in section
    assert "a run took 1.0–1.2 minutes here" in " ".join(section.split())
    assert "given four settings" in " ".join(section.split())  # what "index for index" needs
    assert len(text.splitlines()) < 170  # issue 43, item 7: the README grew to 202 lines


def test_setup_rl_says_what_it_installs_before_it_installs(tmp_path):
    """Issue 43, item 7: ``scripts/setup.sh rl`` installed silently for about 4 minutes. With
    stand-ins for python (each logs its arguments), every pip step is announced first."""
    import shutil
    import stat

    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    stub = bin_dir / "python"
    stub.write_text(
        '#!/bin/sh\ncase "$*" in *"print(torch.__version__)"*) echo 2.13.0;; '
        '*"print(puzzlegym.__version__)"*) echo 9.9;; *) echo "ran python $*";; esac\n'
    )
    stub.chmod(stub.stat().st_mode | stat.S_IXUSR)
    proc = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "setup.sh"), "rl"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    installs = [i for i, ln in enumerate(lines) if ln.startswith("ran python -m pip install")]
    assert len(installs) == 2
    for i in installs:  # each pip run follows the line that says what it installs
        assert lines[i - 1].startswith("setup: installing "), lines
    assert "sb3-contrib" in lines[installs[1] - 1]
    assert lines[-1] == "setup: done: .venv/bin/puzzlegym 9.9"
