"""The example scripts and Hydra configs: each script runs as a subprocess with small
arguments, exits 0 and prints what it promises. Everything is written under tmp_path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
from omegaconf import OmegaConf

import puzzlegym  # noqa: F401  (registers the ids)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CONFIGS = ROOT / "configs"


def run(script: str, *args: str, cwd: Path, expect_rc: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=cwd,  # a stray relative path lands in tmp_path, not in the source tree
        capture_output=True,
        text=True,
        timeout=120,
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
@pytest.mark.parametrize("path", sorted((CONFIGS / "env").glob("*.yaml")), ids=lambda p: p.stem)
def test_env_configs_make_their_env(path):
    cfg = OmegaConf.load(path)
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
    assert "level: 99" in proc.stderr


# ---------------------------------------------------------------------- the other examples
def test_solver_agent(tmp_path):
    proc = run("solver_agent.py", "--level", "1", cwd=tmp_path)
    summary = last_json(proc.stdout)
    assert summary["objective"] == "MazePaint-Easy"
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
    assert summary["objective"] == "MazePaint-Hard" and summary["lc"] == 0.0


def test_checkpoint_diagnostics(tmp_path):
    proc = run("checkpoint_diagnostics.py", "--out", str(tmp_path / "ckpt"), cwd=tmp_path)
    assert "MazePaint-Hard level 3: solution has" in proc.stdout
    assert "frames byte-identical" in proc.stdout
    assert proc.stdout.rstrip().endswith("OK: the checkpoint restores the episode exactly")
    assert (tmp_path / "ckpt" / "level3-half.ckpt.json").exists()
