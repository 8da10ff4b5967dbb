"""Ray: ``puzzlegym eval --executor ray`` and the Ray rollout example, on one local Ray
instance bound to 127.0.0.1 (started once for this module)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from puzzlegym.base.errors import ConfigError  # noqa: E402
from puzzlegym.cli import main as cli_main  # noqa: E402
from puzzlegym.evaluation.distributed import start_local_ray  # noqa: E402
from puzzlegym.evaluation.eval import run_eval  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def local_ray():
    start_local_ray(2, log_to_driver=False)
    assert [node["NodeManagerAddress"] for node in ray.nodes()] == ["127.0.0.1"]
    yield ray
    ray.shutdown()


def _strip(result: dict) -> dict:
    return {
        k: v
        for k, v in result.items()
        if k not in ("wall_s", "final_frame", "record", "gif", "out")
    }


def test_eval_on_ray_writes_the_records_a_local_run_writes(local_ray, tmp_path):
    args = dict(
        agents=["random", "solver"],
        objectives=["LongPuzzle/MazePaint-Easy"],
        seeds=[0],
        max_steps=30,
        progress=False,
    )
    on_ray = run_eval(run_dir=tmp_path / "ray", executor="ray", **args)
    local = run_eval(run_dir=tmp_path / "local", **args)
    assert [_strip(r) for r in on_ray] == [_strip(r) for r in local]
    assert not any("error" in r for r in on_ray)
    assert [Path(r["out"]).relative_to(tmp_path / "ray") for r in on_ray] == [
        Path(r["out"]).relative_to(tmp_path / "local") for r in local
    ]
    for agent in ("random", "solver"):
        ep = tmp_path / "ray" / "episodes" / agent / "MazePaint-Easy" / "seed0"
        assert (ep / "result.json").exists() and (ep / "record" / "manifest.json").exists()
        log_ray = (ep / "record" / "log.jsonl").read_text()
        log_local = (
            tmp_path
            / "local"
            / "episodes"
            / agent
            / "MazePaint-Easy"
            / "seed0"
            / "record"
            / "log.jsonl"
        ).read_text()
        assert log_ray == log_local  # the same episode, step for step
    assert json.loads((tmp_path / "ray" / "run.json").read_text())["executor"] == "ray"


def test_cli_eval_executor_ray(local_ray, tmp_path, capsys):
    rc = cli_main(
        [
            "eval",
            "--agents",
            "solver",
            "--objectives",
            "MazePaint-Easy",
            "--seeds",
            "1",
            "--max-steps",
            "20",
            "--executor",
            "ray",
            "--run-dir",
            str(tmp_path / "run"),
            "--quiet",
        ]
    )
    assert rc == 0
    assert (
        tmp_path / "run" / "episodes" / "solver" / "MazePaint-Easy" / "seed1" / "result.json"
    ).exists()
    assert "(1 episode, 1 objective)" in capsys.readouterr().out


def test_eval_rejects_a_bad_executor_before_writing(tmp_path):
    with pytest.raises(ConfigError, match="executor"):
        run_eval(["random"], ["LongPuzzle/MazePaint-Easy"], [0], tmp_path / "x", executor="dask")
    with pytest.raises(ConfigError, match="address"):
        run_eval(["random"], ["LongPuzzle/MazePaint-Easy"], [0], tmp_path / "x", address="auto")
    assert not (tmp_path / "x").exists()


def test_ray_rollout_example_actors_host_vector_envs(local_ray):
    spec = importlib.util.spec_from_file_location(
        "ray_rollout", ROOT / "examples" / "ray_rollout.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    make_kwargs = dict(
        actions="board",
        buttons=(),
        scale="1/16",
        grayscale=True,
        start="board",
        level=1,
        budget_s=14,
    )
    summary = module.rollout(
        "LongPuzzle/MazePaint-Easy",
        actors=2,
        envs_per_actor=2,
        steps=60,
        seed=0,
        make_kwargs=make_kwargs,
    )
    assert summary["env_steps"] == 2 * 2 * 60
    # episodes last at most 14 steps, so every env finished several
    assert summary["episodes"] >= 4 * (60 // 15)
    assert 0 <= summary["successes"] <= summary["episodes"]
