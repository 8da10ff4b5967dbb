"""Issue 45, the class closed for the rest of the handed-over files: environment checkpoints,
a run's configuration, level files and a plugin's game.

The attacks first (a checkpoint that is ``/dev/zero``, a pipe or a 600 MB sparse file), then a
property test per kind of file: valid files mutated (types, nulls, huge numbers, truncation)
are read and used, or refused with one error of puzzlegym's naming the field, never another
exception, and a refused checkpoint leaves the env as it was."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from puzzlegym.base.errors import CheckpointError, ConfigError, LevelError
from puzzlegym.env import checkpoint as env_checkpoint
from puzzlegym.env.checkpoint import Checkpoint
from puzzlegym.game.catalogue import Catalogue
from puzzlegym.game.registry import _check_game, get_game
from puzzlegym.training.rundir import check_resumable
from tests.memory import peak_memory
from tests.mutations import ODD_VALUES, key_paths, replaced

ODD = st.sampled_from(ODD_VALUES)
PROPERTY = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def test_a_checkpoint_that_is_a_device_a_pipe_or_huge_is_refused_unread(tmp_path):
    """``Checkpoint.load('/dev/zero')`` raised a bare MemoryError, and a 600 MB sparse file
    was read whole (1.26 GB peak). Only a regular file is read, and never past its bound."""
    with pytest.raises(CheckpointError, match=r"'/dev/zero' is corrupt: not a regular file"):
        Checkpoint.load("/dev/zero")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # nobody writes it: opening it for a plain read would block for ever
    with pytest.raises(CheckpointError, match="not a regular file"):
        Checkpoint.load(fifo)
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as fh:
        fh.truncate(600 * 2**20)  # sparse: no disk, 600 MB of zeros to a reader
    with peak_memory() as peak:
        with pytest.raises(CheckpointError, match=f"larger than {env_checkpoint.MAX_BYTES} bytes"):
            Checkpoint.load(huge)
    assert peak.bytes < env_checkpoint.MAX_BYTES + 16 * 2**20, peak


def test_a_run_whose_configuration_file_is_huge_is_refused_before_resuming(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"run was configured differently \(seed\)"):
        check_resumable(tmp_path, {"seed": 1})
    with open(tmp_path / "config.json", "wb") as fh:
        fh.truncate(3 * 2**20)
    with pytest.raises(ConfigError, match=r"config.json is unreadable \(larger than 1048576 bytes"):
        check_resumable(tmp_path, {"seed": 1})


# ---------------------------------------------------------------------- environment checkpoints
@pytest.fixture(scope="module")
def played():
    """An env two moves into Maze Paint Easy's level 1, and its checkpoint's document."""
    env = gym.make("LongPuzzle/MazePaint-Easy", start="board", level=1)
    env.reset(seed=0)
    for key in ("ArrowRight", "ArrowDown"):
        env.step({"type": "press_key", "key": key})
    yield env, env.unwrapped.checkpoint().to_json()
    env.close()


def _resealed(doc: dict) -> dict:
    """``doc`` with its digests made to match what it holds (as a forger would)."""

    def digest(value) -> str:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(text.encode()).hexdigest()

    out = dict(doc)
    if isinstance(doc.get("config"), dict) and isinstance(doc.get("payload"), dict):
        out["payload_sha256"] = digest([doc["config"], doc["payload"]])
    if isinstance(doc.get("certificate"), dict):
        out["certificate_sha256"] = digest(doc["certificate"])
    return out


@PROPERTY
@given(data=st.data())
def test_any_mutation_of_a_checkpoint_restores_or_is_refused_leaving_the_env_as_it_was(
    played, tmp_path_factory, data
):
    env, doc = played
    path = tmp_path_factory.mktemp("checkpoint") / "c.json"
    before = env.unwrapped.checkpoint().payload
    if data.draw(st.integers(0, 4), label="how") == 0:  # a fifth truncated, the rest mutated
        text = json.dumps(doc)
        path.write_text(text[: data.draw(st.integers(0, len(text) - 1), label="at")])
    else:
        at = data.draw(st.sampled_from(list(key_paths(doc, items=4))), label="path")
        mutated = replaced(doc, at, data.draw(ODD, label="value"))
        if isinstance(mutated, dict) and data.draw(st.integers(0, 3), label="reseal") > 0:
            mutated = _resealed(mutated)
        path.write_text(json.dumps(mutated))
    try:
        env.reset(options={"checkpoint": Checkpoint.load(path)})
    except CheckpointError as exc:
        event("refused: " + re.sub(r"'[^']*'", "PATH", str(exc))[:40])
        assert "\n" not in str(exc), exc
        assert env.unwrapped.checkpoint().payload == before  # nothing changed
    else:
        event("restored")
        env.reset(options={"checkpoint": Checkpoint.from_json(doc)})  # back to the original


# ---------------------------------------------------------------------- level files
@PROPERTY
@given(data=st.data())
def test_any_mutation_of_a_level_file_loads_or_is_refused_naming_the_file(tmp_path_factory, data):
    game = get_game(data.draw(st.sampled_from(["MazePaint", "RushHour", "NutAndBolt"])))
    tier = game.tiers[0]
    levels = game.catalogue(tier)
    doc = {"game": game.name, "tier": tier, "levels": [game.level_to_json(x) for x in levels]}
    root = tmp_path_factory.mktemp("levels")
    catalogue = Catalogue(game.name, game.level_from_json, root, game.tiers)
    at = data.draw(st.sampled_from(list(key_paths(doc, items=2))), label="path")
    catalogue.path(tier).write_text(json.dumps(replaced(doc, at, data.draw(ODD, label="value"))))
    try:
        loaded = catalogue.load(tier)
    except LevelError as exc:
        assert str(catalogue.path(tier)) in str(exc) and "\n" not in str(exc), exc
    else:
        assert loaded and all(type(level) is type(levels[0]) for level in loaded)


# ---------------------------------------------------------------------- a plugin's game
GAME_FIELDS = [f.name for f in dataclasses.fields(get_game("MazePaint")) if f.name != "view"]


@PROPERTY
@given(field=st.sampled_from(GAME_FIELDS), value=ODD)
def test_any_mutation_of_a_plugins_game_is_registered_typed_or_refused_naming_the_field(
    field, value
):
    """What the registry reads of a plugin's ``GAME`` before it registers it: each field
    replaced by an odd value is refused naming the field, or the game it accepts has every
    field the type the rest of puzzlegym reads."""
    game = dataclasses.replace(get_game("MazePaint"), **{field: value})
    try:
        checked = _check_game(game, "plugin")
    except (ValueError, TypeError) as exc:
        assert str(exc).startswith(f"its {field} "), (field, value, exc)
        return
    for name in ("name", "title", "instruction", "rule_card", "level_format", "controls"):
        assert isinstance(getattr(checked, name), str), name
    assert isinstance(checked.has_undo, bool) and isinstance(checked.can_dead_end, bool)
    assert all(isinstance(t, str) for t in checked.tiers)
    assert callable(checked.load_catalogue) and callable(checked.generate)
