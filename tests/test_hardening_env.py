"""Issue 15, items 11-13: checkpoints, env construction, actions and level files reject hostile
input with puzzlegym's own errors (naming the field and file) and change nothing."""

import copy
import json
import os
import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlegym.base.actions import Batch, Click, PressKey, Scroll, TypeText, parse_action
from puzzlegym.base.errors import ActionError, CheckpointError, ConfigError, LevelError
from puzzlegym.env.checkpoint import Checkpoint
from puzzlegym.game.catalogue import Catalogue
from puzzlegym.game.registry import get_game


def deep(n: int):
    x: list = []
    for _ in range(n):
        x = [x]
    return x


def played(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy", start="board")
    env.reset(seed=3)
    for action in ({"type": "click", "x": 640, "y": 450}, {"type": "wait"}):
        env.step(action)
    return env


def tampered(ckpt: Checkpoint, edit) -> Checkpoint:
    payload = copy.deepcopy(ckpt.payload)
    edit(payload)
    return Checkpoint(ckpt.config, payload, ckpt.catalogue, ckpt.version)


# ------------------------------------------------------------------------------- item 11
def test_rejected_restore_leaves_a_generated_episode_unchanged(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy", levels="generated", start="board")
    obs0, _ = env.reset(seed=7)
    good = env.unwrapped.checkpoint()
    bad = tampered(good, lambda p: p.update(steps=-1))
    with pytest.raises(CheckpointError, match="payload.steps"):
        env.reset(options={"checkpoint": bad})
    assert env.unwrapped._seed == 7  # the rejected restore did not clear the episode's seed
    later = env.unwrapped.checkpoint()
    assert later.payload["seed"] == 7
    obs1, _ = env.reset(options={"checkpoint": later})
    assert np.array_equal(obs0, obs1)  # the same generated level, not variant 0


BAD_PAYLOADS = [
    ("payload.steps", lambda p: p.update(steps=-1)),
    ("payload.steps", lambda p: p.update(steps=1e300)),
    ("payload.actions", lambda p: p.update(actions=2**70)),
    ("payload.terminated", lambda p: p.update(terminated="no")),
    ("payload.seed", lambda p: p.update(seed=-5)),
    ("payload.clock.elapsed_s", lambda p: p["clock"].update(elapsed_s=float("inf"))),
    ("payload.clock.kind", lambda p: p["clock"].update(kind="wall")),
    ("payload.recognizer.down", lambda p: p["recognizer"].update(down=[1, 2])),
    ("payload.suite.board.index", lambda p: p["suite"]["board"].update(index=True)),
    ("suite.board.index", lambda p: p["suite"]["board"].update(index=99)),
    ("suite.board", lambda p: p["suite"]["board"].update(game="NutAndBolt", tier="Easy")),
    ("suite.game", lambda p: p["suite"].update(game="Tetris")),
    (
        "payload.evaluator.snapshots.0.potential",
        lambda p: p["evaluator"]["snapshots"][0].update(potential=7),
    ),
    ("payload.evaluator.attempt.runs", lambda p: p["evaluator"]["attempt"].pop("runs")),
    ("evaluator.results", lambda p: p["evaluator"]["results"].pop("0")),
    # a forged win: the results claim level 1 won, the payload's own events never won it
    ("evaluator.results.0", lambda p: p["evaluator"]["results"]["0"].update(won=True)),
    ("evaluator.results.0", lambda p: p["evaluator"]["results"]["0"].update(max_potential=0.9)),
    ("evaluator.mismatch", lambda p: p["evaluator"].update(mismatch=True)),
    ("payload.evaluator.events", lambda p: p["evaluator"].update(events=[{"kind": "x"}])),
    # a snapshot line hidden among the events (the evaluator keeps the two streams apart)
    (
        "evaluator.events.1",
        lambda p: p["evaluator"]["events"].append(p["evaluator"]["snapshots"][0]),
    ),
    ("ui", lambda p: p["suite"]["board"].update(ui=[1])),
    ("payload.suite", lambda p: p["suite"].update(extra=1)),
]


@pytest.mark.parametrize(
    "field,edit", BAD_PAYLOADS, ids=[f"{i}-{f}" for i, (f, _) in enumerate(BAD_PAYLOADS)]
)
def test_checkpoint_payload_is_checked_whole_before_anything_changes(make_env, field, edit):
    env = make_env("LongPuzzle/MazePaint-Easy", level=1, start="board")
    env.reset(seed=0)
    before = env.unwrapped.checkpoint()
    frame = env.unwrapped._frame.copy()
    with pytest.raises(CheckpointError, match=field.replace(".", r"\.")):
        env.reset(options={"checkpoint": tampered(before, edit)})
    assert env.unwrapped.checkpoint().payload == before.payload
    assert np.array_equal(env.unwrapped._frame, frame)
    obs, *_ = env.step({"type": "wait"})  # the episode goes on
    assert np.array_equal(obs, frame)


def test_hostile_checkpoint_json_is_a_checkpoint_error(make_env, tmp_path):
    env = played(make_env)
    ckpt = env.unwrapped.checkpoint()
    doc = ckpt.to_json()
    path = tmp_path / "deep.json"
    path.write_text(
        '{"format": "puzzlegym-checkpoint", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    with pytest.raises(CheckpointError, match="nested too deeply"):
        Checkpoint.load(path)
    with pytest.raises(CheckpointError, match="nested too deeply"):
        env.reset(
            options={
                "checkpoint": tampered(ckpt, lambda p: p["suite"]["board"].update(ui=deep(100_000)))
            }
        )
    for text, fragment in [
        (json.dumps(doc).replace('"steps": 2', '"steps": ' + "9" * 5000), "5000 digits"),
        (json.dumps(doc).replace('"steps": 2', '"steps": Infinity'), "Infinity"),
        (b"\xff\xfe" + json.dumps(doc).encode(), "UTF-8"),
    ]:
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        with pytest.raises(CheckpointError, match=fragment):
            Checkpoint.load(path)


def test_checkpoint_puzzlegym_version_is_checked(make_env, tmp_path):
    ckpt = played(make_env).unwrapped.checkpoint()
    for version, fragment in [
        ("99.0.0", "newer than this"),
        ("banana", "puzzlegym_version"),
        (7, "puzzlegym_version"),
    ]:
        doc = {**ckpt.to_json(), "puzzlegym_version": version}
        (tmp_path / "c.json").write_text(json.dumps(doc))
        with pytest.raises(CheckpointError, match=fragment):
            Checkpoint.load(tmp_path / "c.json")
    doc = {**ckpt.to_json(), "puzzlegym_version": "0.0.1"}  # an older version's file still loads
    (tmp_path / "c.json").write_text(json.dumps(doc))
    assert Checkpoint.load(tmp_path / "c.json").payload == ckpt.payload


# ------------------------------------------------------------------------------- item 12
@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"action_cost_s": float("inf")}, "action_cost_s"),
        ({"action_cost_s": float("nan")}, "action_cost_s"),
        ({"action_cost_s": True}, "action_cost_s"),
        ({"budget_s": float("inf")}, "budget_s"),
        ({"record_dir": 5}, "record_dir"),
        ({"record_dir": ""}, "record_dir"),
    ],
)
def test_bad_env_config_is_rejected_at_construction(kwargs, field):
    with pytest.raises(ConfigError, match=field):
        gym.make("LongPuzzle/MazePaint-Easy", **kwargs)


def _children() -> set[int]:
    """The pids of this process's children (from /proc)."""
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                out.add(int(entry.name))
    return out


def test_a_bad_keyword_is_refused_before_any_browser_starts():
    before = _children()
    with pytest.raises(ConfigError, match=r"^record_frames: 'all' is not allowed"):
        gym.make("LongPuzzle/MazePaint-Easy", backend="browser", record_frames="all")
    assert _children() <= before  # no Chromium (nor its driver) was launched for a refused env
    with pytest.raises(ConfigError, match=r"num_levels, start_level, record_dir"):
        gym.make("LongPuzzle/MazePaint-Easy", levels_count=3)


def test_unwritable_record_dir_is_rejected_at_construction(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(ConfigError, match="record_dir: cannot write records"):
        gym.make("LongPuzzle/MazePaint-Easy", record_dir=str(blocker / "records" / "ep"))
    with pytest.raises(ConfigError, match="record_dir: .* is not a directory"):
        gym.make("LongPuzzle/MazePaint-Easy", record_dir=str(blocker))


# ------------------------------------------------------------------------------- item 13
MALFORMED_ACTIONS = [
    ({"type": ["click"]}, "action.type"),
    ({"type": {"a": 1}}, "action.type"),
    ({"type": "press_key", "key": ["a"]}, "action(press_key).key"),
    ({"type": "scroll", "direction": ["up"]}, "action(scroll).direction"),
    ({"type": "click", "x": 1, "y": 2, 3: 4, "z": 5}, "unexpected field"),
    ({"type": "click", "x": deep(100_000), "y": 2}, "action(click).x"),
    (
        {"type": "batch", "actions": [{"type": "press_key", "key": {"k": 1}}]},
        "action(batch).actions[0](press_key).key",
    ),
    (PressKey(["a"]), "action.key"),
    (Scroll({"up": 1}), "action.direction"),
    (Click(deep(100_000), 1), "action.x"),
    (Batch("abc"), "action.actions"),
]


@pytest.mark.parametrize(
    "action,field", MALFORMED_ACTIONS, ids=[str(i) for i in range(len(MALFORMED_ACTIONS))]
)
def test_malformed_actions_raise_action_error_naming_the_field(action, field):
    with pytest.raises(ActionError, match=re.escape(field)):
        parse_action(action)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda ch: (
        st.lists(ch, max_size=3)
        | st.dictionaries(st.text(max_size=3) | st.integers(), ch, max_size=3)
    ),
    max_leaves=8,
)
_fields = st.sampled_from(
    ["type", "x", "y", "x0", "y0", "x1", "y1", "key", "text", "direction", "actions", 1]
)
_kinds = st.sampled_from(
    ["click", "double_click", "drag", "press_key", "type_text", "scroll", "wait", "answer", "batch"]
)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.one_of(
        st.dictionaries(_fields, _json, max_size=4),
        st.tuples(st.dictionaries(_fields, _json, max_size=4), _kinds | _json).map(
            lambda p: {**p[0], "type": p[1]}
        ),
        _json.map(PressKey),
        _json.map(Scroll),
        _json.map(TypeText),
        _json.map(Batch),
        _json.map(lambda v: Click(v, 1)),
    )
)
def test_any_action_value_is_accepted_or_an_action_error(action):
    try:
        parse_action(action)
    except ActionError:
        pass


def test_bad_level_files_raise_level_error_naming_the_file(tmp_path):
    game = get_game("MazePaint")
    good = game.load_catalogue("Easy")
    cat = Catalogue("MazePaint", game.level_from_json, tmp_path, game.tiers)
    doc = {"game": "MazePaint", "tier": "Easy", "levels": [game.level_to_json(lv) for lv in good]}
    path = cat.path("Easy")
    cases = [
        ("é".encode("latin-1") + json.dumps(doc).encode(), "not UTF-8"),
        (("[" * 100_000 + "]" * 100_000).encode(), "nested too deeply"),
        (json.dumps(doc).replace('"Easy"', "1" + "0" * 5000, 1).encode(), "5001 digits"),
        (
            json.dumps({**doc, "levels": [{**doc["levels"][0], "start": deep(50)}]}).encode(),
            r"levels\[0\]: start",
        ),
    ]
    for raw, fragment in cases:
        path.write_bytes(raw)
        cat._cache.clear()
        with pytest.raises(LevelError, match=fragment) as err:
            cat.load("Easy")
        assert str(path) in str(err.value)


def test_level_with_unhashable_screws_is_a_level_error():
    game = get_game("BoltUnscrew")
    doc = game.level_to_json(game.load_catalogue("Easy")[0])
    doc["screws"] = [[]]
    with pytest.raises(LevelError, match="screws"):
        game.level_from_json(doc)
