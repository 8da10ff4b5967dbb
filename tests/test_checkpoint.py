"""Checkpoints: whole-suite snapshots restore exactly, in memory and on disk; corrupt or
mismatched checkpoints are rejected with a clear error and the episode is unchanged."""

import dataclasses
import json

import pytest

from puzzlegym import Checkpoint
from puzzlegym.agents import SolverAgent
from puzzlegym.base.errors import CheckpointError

from .conftest import frame_hash


def advance(env, agent, n):
    for _ in range(n):
        env.step(agent())


def actions_after(env, n):
    """The solver's next ``n`` actions from the env's current state (planned on a copy)."""
    agent = SolverAgent(env)
    out = []
    ckpt = env.unwrapped.checkpoint()
    for _ in range(n):
        a = agent()
        out.append(a)
        env.step(a)
    env.reset(options={"checkpoint": ckpt})
    return out


@pytest.mark.parametrize("moves_before", [0, 1, 17, 40])
def test_restore_then_same_actions_gives_byte_identical_frames(make_env, tmp_path, moves_before):
    env = make_env("LongPuzzle/MazePaint-Medium")
    env.reset(seed=0)
    advance(env, SolverAgent(env.unwrapped), moves_before)
    ckpt = env.unwrapped.checkpoint()
    path = ckpt.save(tmp_path / "ckpt.json")
    script = actions_after(env, 30)

    original = [frame_hash(env.step(a)[0]) for a in script]

    assert Checkpoint.load(path) == ckpt
    fresh = make_env("LongPuzzle/MazePaint-Medium")
    obs, info = fresh.reset(options={"checkpoint": Checkpoint.load(path)})
    assert info["elapsed_s"] == ckpt.payload["clock"]["elapsed_s"]
    restored = [frame_hash(fresh.step(a)[0]) for a in script]
    assert restored == original
    assert fresh.unwrapped.evaluator.to_json() == env.unwrapped.evaluator.to_json()
    assert fresh.unwrapped.checkpoint().payload == env.unwrapped.checkpoint().payload


def test_restored_first_frame_equals_the_live_frame(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy")
    obs, _ = env.reset()
    agent = SolverAgent(env.unwrapped)
    for _ in range(14):  # into level 2 or so, mid-board
        obs, *_ = env.step(agent())
    ckpt = env.unwrapped.checkpoint()
    other = make_env("LongPuzzle/MazePaint-Easy")
    restored, _ = other.reset(options={"checkpoint": ckpt})
    assert frame_hash(restored) == frame_hash(obs)


def test_checkpoint_captures_level_complete_screen_and_progress(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy")
    env.reset()
    agent = SolverAgent(env.unwrapped)
    while env.unwrapped.suite.screen != "level_complete":
        env.step(agent())
    ckpt = env.unwrapped.checkpoint()
    assert ckpt.payload["suite"]["screen"] == "level_complete"
    assert ckpt.payload["suite"]["progress"] == {"MazePaint/Easy": [0]}
    other = make_env("LongPuzzle/MazePaint-Easy")
    other.reset(options={"checkpoint": ckpt})
    assert other.unwrapped.evaluator.levels_won == [1]
    assert other.unwrapped.suite.targets().keys() >= {"next", "menu"}


def test_corrupt_checkpoint_files_are_rejected(make_env, tmp_path):
    env = make_env()
    env.reset()
    path = env.unwrapped.checkpoint().save(tmp_path / "c.json")
    doc = json.loads(path.read_text())

    (tmp_path / "garbage.json").write_bytes(b"\x00\x01not json")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        Checkpoint.load(tmp_path / "garbage.json")

    doc2 = json.loads(json.dumps(doc))
    doc2["payload"]["clock"]["elapsed_s"] = 12.0
    (tmp_path / "tampered.json").write_text(json.dumps(doc2))
    with pytest.raises(CheckpointError, match="corrupt"):
        Checkpoint.load(tmp_path / "tampered.json")

    doc3 = dict(doc, format="something-else")
    (tmp_path / "wrong.json").write_text(json.dumps(doc3))
    with pytest.raises(CheckpointError, match="not a puzzlegym checkpoint"):
        Checkpoint.load(tmp_path / "wrong.json")

    doc4 = dict(doc, format_version=99)
    (tmp_path / "future.json").write_text(json.dumps(doc4))
    with pytest.raises(CheckpointError, match="format_version 99"):
        Checkpoint.load(tmp_path / "future.json")

    with pytest.raises(CheckpointError, match="cannot read"):
        Checkpoint.load(tmp_path / "missing.json")


def test_mismatched_checkpoint_is_rejected_and_episode_unchanged(make_env):
    easy = make_env("LongPuzzle/MazePaint-Easy")
    easy.reset()
    ckpt = easy.unwrapped.checkpoint()
    hard = make_env("LongPuzzle/MazePaint-Hard")
    hard.reset()
    agent = SolverAgent(hard.unwrapped)
    for _ in range(5):
        hard.step(agent())
    before = hard.unwrapped.checkpoint().payload
    with pytest.raises(CheckpointError, match="env_id is 'LongPuzzle/MazePaint-Easy' there"):
        hard.reset(options={"checkpoint": ckpt})
    with pytest.raises(CheckpointError, match="expected a puzzlegym Checkpoint"):
        hard.reset(options={"checkpoint": {"payload": {}}})
    other_catalogue = Checkpoint(ckpt.config, ckpt.payload, "0" * 64, ckpt.version)
    with pytest.raises(CheckpointError, match="another MazePaint level catalogue"):
        easy.reset(options={"checkpoint": other_catalogue})
    assert hard.unwrapped.checkpoint().payload == before


def test_invalid_payload_is_rejected_and_episode_unchanged(make_env):
    env = make_env(start="board")
    env.reset()
    good = env.unwrapped.checkpoint()
    payload = json.loads(json.dumps(good.payload))
    payload["suite"]["board"]["state"]["ball"] = [0, 0]  # a wall cell
    bad = Checkpoint(good.config, payload, good.catalogue, good.version)
    env.step({"type": "wait"})
    before = env.unwrapped.checkpoint().payload
    with pytest.raises(CheckpointError, match="payload is invalid"):
        env.reset(options={"checkpoint": bad})
    assert env.unwrapped.checkpoint().payload == before
    env.step({"type": "wait"})  # still playable


def test_another_games_catalogue_changing_leaves_a_checkpoint_valid(make_env, monkeypatch):
    """Catalogue hashes are per game: a checkpoint (and a record) carries its objective's
    game's hash, so a game added or changed leaves the others' checkpoints valid."""
    from puzzlegym.game import registry

    env = make_env("LongPuzzle/MazePaint-Easy", start="board")
    env.reset(seed=0)
    ckpt = env.unwrapped.checkpoint()
    assert ckpt.catalogue == registry.game_catalogue_sha256("MazePaint")
    everything = registry.catalogue_sha256()
    nut = registry.get_game("NutAndBolt")
    changed = dataclasses.replace(
        nut, load_catalogue=lambda tier: list(reversed(nut.load_catalogue(tier)))
    )
    monkeypatch.setitem(registry.games(), "NutAndBolt", changed)
    registry.game_catalogue_sha256.cache_clear()
    try:
        assert registry.catalogue_sha256() != everything  # the whole set did change
        assert registry.catalogue_sha256(["MazePaint"]) == ckpt.catalogue
        obs, _ = env.reset(options={"checkpoint": ckpt})
        assert env.unwrapped.probe().board.game.name == "MazePaint"
    finally:
        monkeypatch.undo()
        registry.game_catalogue_sha256.cache_clear()


def test_editing_a_checkpoints_json_document_leaves_the_checkpoint_as_it_is(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy")
    env.reset(seed=0)
    env.step(SolverAgent(env.unwrapped)())
    ckpt = env.unwrapped.checkpoint()
    before = json.dumps(ckpt.to_json(), sort_keys=True)
    doc = ckpt.to_json()
    doc["payload"]["evaluator"]["events"].clear()
    doc["config"]["budget_s"] = 1.0
    assert json.dumps(ckpt.to_json(), sort_keys=True) == before
    assert Checkpoint.from_json(json.loads(before)) == ckpt
