"""Issue 21, item 4: a forged checkpoint cannot buy a score. The attack: take a checkpoint of
an unsolved board, set every ``results[*].won`` (and more) true, recompute the SHA-256 as the
file format allows anyone to, write it to disk and restore it. Results that the payload's own
history does not support are refused, with the env left as it was; a payload whose history
was forged too restores, but its record says ``restored`` and neither ``report`` nor
``aggregate_records`` scores it as an objective run."""

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from puzzlegym.base.errors import CheckpointError
from puzzlegym.cli import main
from puzzlegym.env.checkpoint import Checkpoint
from puzzlegym.evaluation.runner import run_episode
from puzzlegym.record.metrics import aggregate_records, episode_from_record
from puzzlegym.report.load import load_run

ENV_ID = "LongPuzzle/MazePaint-Easy"


def resealed(tmp_path: Path, ckpt: Checkpoint, edit) -> Checkpoint:
    """The hostile file: payload edited, ``payload_sha256`` recomputed, loaded from disk."""
    doc = json.loads(json.dumps(ckpt.to_json()))  # a copy: the file, not the env's document
    edit(doc["payload"])
    forged = Checkpoint(
        doc["config"], doc["payload"], doc["catalogue_sha256"], doc["puzzlegym_version"]
    )
    path = forged.save(tmp_path / "forged.ckpt.json")
    return Checkpoint.load(path)  # the digest checks out


@pytest.fixture
def unsolved(tmp_path):
    env = gym.make(ENV_ID, level=2, start="board", record_dir=str(tmp_path / "rec"))
    env.reset(seed=0)
    env.step({"type": "drag", "x0": 640, "y0": 450, "x1": 640, "y1": 250})
    yield env
    env.close()


def win_all(p):
    for r in p["evaluator"]["results"].values():
        r["won"] = True


def max_potential(p):
    for r in p["evaluator"]["results"].values():
        r["max_potential"] = 1.0


def reached_unseen(p):
    p["evaluator"]["events"] = [e for e in p["evaluator"]["events"] if e["kind"] != "level_reached"]


def won_without_solved_board(p):
    win_all(p)
    p["evaluator"]["events"].append(
        {
            "kind": "level_won",
            "actions": 1,
            "t": 1.0,
            "game": "MazePaint",
            "tier": "Easy",
            "level": 2,
        }
    )


def extra_result(p):
    p["evaluator"]["results"]["7"] = {"reached": False, "won": False, "max_potential": 0.0}


@pytest.mark.parametrize(
    "edit,field",
    [
        (win_all, r"results\.1\.won"),
        (max_potential, r"results\.1\.max_potential"),
        (reached_unseen, r"results\.1\.reached"),
        (won_without_solved_board, r"results\.1\.won: no snapshot"),
        (extra_result, r"evaluator\.results: levels \[1, 7\]"),
    ],
)
def test_forged_results_with_a_resealed_digest_are_refused(unsolved, tmp_path, edit, field):
    env = unsolved
    before, frame = env.unwrapped.checkpoint(), env.unwrapped._frame.copy()
    assert env.unwrapped.evaluator.success is False
    forged = resealed(tmp_path, before, edit)
    with pytest.raises(CheckpointError, match=field):
        env.reset(options={"checkpoint": forged})
    assert env.unwrapped.checkpoint().payload == before.payload  # nothing changed
    assert np.array_equal(env.unwrapped._frame, frame)
    assert env.unwrapped.evaluator.success is False and env.unwrapped.evaluator.lc == 0.0


def forge_history(p):
    """Results and a matching history: a solved snapshot and a level_won event."""
    ev = p["evaluator"]
    snap = dict(ev["snapshots"][-1], solved=True, potential=1.0)
    ev["snapshots"].append(snap)
    ev["events"].append(
        {
            "kind": "level_won",
            "actions": snap["actions"],
            "t": snap["t"],
            "game": "MazePaint",
            "tier": "Easy",
            "level": 2,
        }
    )
    for r in ev["results"].values():
        r.update(won=True, max_potential=1.0)


def test_a_forged_history_restores_only_as_an_unscored_restored_episode(unsolved, tmp_path):
    env = unsolved
    forged = resealed(tmp_path, env.unwrapped.checkpoint(), forge_history)
    env.reset(options={"checkpoint": forged})
    assert env.unwrapped.evaluator.success is True  # the evaluator believes its document ...
    env.step({"type": "answer", "text": "done"})
    record = Path(env.unwrapped.record_path)
    manifest = json.loads((record / "manifest.json").read_text())
    assert manifest["restored"]["payload_sha256"] == forged.to_json()["payload_sha256"]
    assert manifest["restored"]["actions"] == 1
    # ... but the episode is marked and never scored as an objective run
    assert episode_from_record(record)["restored"] is True
    run = tmp_path / "run"
    honest = run_episode(ENV_ID, "solver", seed=0, out_dir=run / "solver", gif=False, level=1)
    assert honest["success"] is True
    both = aggregate_records([record, Path(honest["record"])])
    assert (both["n"], both["S"], both["OSR"]) == (1, 1, 100.0)  # the forged one is left out
    (run / "forged").mkdir()
    for f in record.iterdir():
        (run / "forged" / f.name).write_bytes(f.read_bytes())
    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 0
    table = (tmp_path / "report" / "index.md").read_text()
    assert "restored from a checkpoint: not an objective run (not scored)" in table
    data = load_run(run)
    assert data["agents"] == ["solver"] and len(data["rows"]["solver"]) == 1  # the honest one


def test_an_honest_checkpoint_still_restores_and_is_marked(unsolved):
    env = unsolved
    ckpt = env.unwrapped.checkpoint()
    env.reset(options={"checkpoint": ckpt})
    manifest = json.loads((Path(env.unwrapped.record_path) / "manifest.json").read_text())
    assert manifest["restored"] == {
        "payload_sha256": ckpt.to_json()["payload_sha256"],
        "steps": 1,
        "actions": 1,
        "elapsed_s": 1.0,
    }
