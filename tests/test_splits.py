"""Procgen-style level splits (puzzlegym.game.splits): levels="generated" with num_levels and
start_level, for every tier of every game; the keywords checked; which levels an episode
plays (seeded as Gymnasium seeds: once, later resets continue); generated levels never a
catalogue level and never larger than the tier's; checkpoints, records and replays of
generated episodes exact; the same keywords through make_sb3_env, the CLI and Hydra."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

from puzzlegym.base.errors import CheckpointError, ConfigError
from puzzlegym.cli import main
from puzzlegym.env.checkpoint import Checkpoint
from puzzlegym.evaluation.replay import replay
from puzzlegym.game.levelhash import is_catalogue_level
from puzzlegym.game.registry import env_ids, get_game, parse_env_id
from puzzlegym.game.splits import (
    SEED_LIMIT,
    Split,
    TrainingLevels,
    check_split,
    level_targets,
    tier_targets,
)
from puzzlegym.testing import game_test_data
from puzzlegym.wrappers import make_sb3_env

from .conftest import frame_hash

MAZE_EASY = "LongPuzzle/MazePaint-Easy"


def board(env):
    return env.unwrapped.suite.board


def draws(seed: int, n: int, size: int) -> list[int]:
    """The first training levels of n episodes after reset(seed=seed): one generator, seeded
    once."""
    rng, _ = gym.utils.seeding.np_random(seed)
    return [int(rng.integers(0, size)) for _ in range(n)]


# ----------------------------------------------------------------------------- keywords
BAD = [
    ({"levels": "catalogue", "num_levels": 5}, "num_levels: only with levels='generated'"),
    ({"levels": "catalogue", "start_level": 0}, "start_level: only with levels='generated'"),
    ({"levels": "procgen"}, "levels: 'procgen' is not allowed"),
    ({"levels": ["generated"]}, "levels: "),
    (
        {"levels": "generated", "num_levels": -1},
        r"num_levels: expected an integer >= 0 \(0: unbounded\), got -1",
    ),
    ({"levels": "generated", "num_levels": True}, "num_levels: expected"),
    ({"levels": "generated", "num_levels": 2.0}, "num_levels: expected"),
    ({"levels": "generated", "num_levels": "5"}, "num_levels: expected"),
    (
        {"levels": "generated", "num_levels": 10**40},
        "num_levels: start_level \\+ num_levels must be at most 2\\*\\*31",
    ),
    ({"levels": "generated", "start_level": -1}, "start_level: expected an integer 0..2147483647"),
    (
        {"levels": "generated", "start_level": 2**31},
        "start_level: expected an integer 0..2147483647",
    ),
    ({"levels": "generated", "start_level": 1.5}, "start_level: expected"),
    (
        {"levels": "generated", "start_level": 2**31 - 10, "num_levels": 11},
        "start_level \\+ num_levels",
    ),
]


@pytest.mark.parametrize(("kwargs", "message"), BAD, ids=[str(k) for k, _ in BAD])
def test_bad_split_keywords_are_refused_naming_the_keyword(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        gym.make(MAZE_EASY, **kwargs)


def test_split_defaults_bounds_and_level_seeds():
    assert check_split("catalogue") is None and check_split("catalogue", None, None) is None
    assert check_split("generated") == Split(0, 0)
    assert check_split("generated", np.int64(7), np.int32(3)) == Split(7, 3)
    assert check_split("generated", 1, SEED_LIMIT - 1) == Split(
        1, SEED_LIMIT - 1
    )  # the very last seed
    split = Split(num_levels=5, start_level=10)
    assert split.size == 5 and [split.level_seed(i) for i in (0, 4, 5, 13)] == [10, 14, 10, 13]
    unbounded = Split(num_levels=0, start_level=10)
    assert unbounded.size == SEED_LIMIT - 10
    assert unbounded.level_seed(0) == 10 and unbounded.level_seed(SEED_LIMIT - 11) == SEED_LIMIT - 1
    assert unbounded.level_seed(SEED_LIMIT - 10) == 10  # wraps: every level seed stays < 2**31


def test_config_carries_the_split_and_catalogue_configs_are_unchanged(make_env):
    gen = make_env(MAZE_EASY, levels="generated", num_levels=20, start_level=1000)
    assert gen.unwrapped.config["levels"] == "generated"
    assert (gen.unwrapped.config["num_levels"], gen.unwrapped.config["start_level"]) == (20, 1000)
    default = make_env(MAZE_EASY, levels="generated")
    assert (default.unwrapped.config["num_levels"], default.unwrapped.config["start_level"]) == (
        0,
        0,
    )
    cat = make_env(MAZE_EASY)
    assert "num_levels" not in cat.unwrapped.config and "start_level" not in cat.unwrapped.config


@pytest.mark.parametrize("cache", ["/tmp/levels", "ENV", 3, {"root": "/tmp"}])
def test_training_levels_rejects_a_cache_that_is_none_of_its_kinds(cache):
    # a path string (or any other value) once passed through and failed at the first level
    # generated, as AttributeError: 'str' object has no attribute 'get'
    with pytest.raises(
        ConfigError, match=r"^cache: expected a puzzlegym LevelCache, 'env' or None, got "
    ):
        TrainingLevels(get_game("MazePaint"), "Easy", Split(50, 5000), cache=cache)


# -------------------------------------------------------------------- which levels an episode plays
def test_each_reset_draws_its_levels_with_the_seeded_generator(make_env):
    env = make_env(
        MAZE_EASY, levels="generated", num_levels=50, start_level=5000, level=1, start="board"
    )
    training = TrainingLevels(get_game("MazePaint"), "Easy", Split(50, 5000), cache=None)
    env.reset(seed=7)
    played = [board(env).level]
    for _ in range(5):
        env.reset()  # no seed: the generator continues
        played.append(board(env).level)
    expected = [training.level(j) for j in draws(7, 6, 50)]
    assert played == expected
    assert [lvl.id for lvl in played] == [f"maze-easy-seed{5000 + j}" for j in draws(7, 6, 50)]
    env.reset(seed=7)  # seeding again starts the same sequence
    assert board(env).level == expected[0]
    env.reset(seed=8)
    assert board(env).level == training.level(draws(8, 1, 50)[0])


def test_an_objective_plays_consecutive_training_levels(make_env):
    env = make_env(MAZE_EASY, levels="generated", num_levels=12, start_level=300, start="board")
    training = TrainingLevels(get_game("MazePaint"), "Easy", Split(12, 300), cache=None)
    env.reset(seed=1)
    first = env.unwrapped._first_level
    assert first == draws(1, 1, 12)[0]
    level_set = env.unwrapped.suite.levels("MazePaint", "Easy")
    assert len(level_set) == 10  # the tier's objective: its catalogue size
    assert [level_set[k] for k in range(10)] == [
        training.level((first + k) % 12) for k in range(10)
    ]
    assert board(env).level == training.level(first)  # the board opens at level 1
    # every other tier keeps its catalogue
    assert (
        env.unwrapped.suite.levels("MazePaint", "Hard")[0]
        == get_game("MazePaint").load_catalogue("Hard")[0]
    )


def test_num_levels_bounds_the_distribution(make_env):
    env = make_env(
        MAZE_EASY, levels="generated", num_levels=3, start_level=40, level=1, start="board"
    )
    env.reset(seed=0)
    seen = {board(env).level.id}
    for _ in range(29):
        env.reset()
        seen.add(board(env).level.id)
    assert seen == {"maze-easy-seed40", "maze-easy-seed41", "maze-easy-seed42"}
    one = make_env(
        MAZE_EASY, levels="generated", num_levels=1, start_level=41, level=1, start="board"
    )
    for seed in (0, 1, 2):
        one.reset(seed=seed)
        assert board(one).level.id == "maze-easy-seed41"


def test_first_level_option_fixes_the_episode_and_is_checked(make_env):
    env = make_env(
        MAZE_EASY, levels="generated", num_levels=10, start_level=60, level=1, start="board"
    )
    env.reset(seed=0, options={"first_level": 4})
    assert board(env).level.id == "maze-easy-seed64" and env.unwrapped._first_level == 4
    obs, _ = env.reset(options={"first_level": np.int64(9)})
    state = board(env).state
    for bad in (10, -1, True, 2.0, "3"):
        with pytest.raises(
            ConfigError, match=r"reset options\['first_level'\]: expected an integer 0..9"
        ):
            env.reset(options={"first_level": bad})
    with pytest.raises(ConfigError, match="'first_level' and 'checkpoint'"):
        env.reset(options={"first_level": 1, "checkpoint": env.unwrapped.checkpoint()})
    # the refused resets changed nothing: the same episode goes on
    assert board(env).level.id == "maze-easy-seed69" and board(env).state == state
    assert np.array_equal(env.step({"type": "wait"})[0], obs)
    cat = make_env(MAZE_EASY)
    with pytest.raises(ConfigError, match="only with levels='generated'"):
        cat.reset(options={"first_level": 0})


# ----------------------------------------------------------------------------- clean test set
# training levels checked per tier: as many as the tier generates in a few seconds (each
# game's testdata.SPLIT_SAMPLES)


@pytest.mark.parametrize("env_id", env_ids())
def test_training_levels_are_never_catalogue_levels_nor_larger_than_the_tier(env_id):
    game, tier = parse_env_id(env_id)
    n = game_test_data(game).SPLIT_SAMPLES[tier]
    training = TrainingLevels(
        game, tier, Split(0, 0)
    )  # from seed 0: where catalogue slots came from
    most = tier_targets(game, tier)
    for i in range(n):
        source, level = training.entry(i)
        assert not is_catalogue_level(game, level)
        assert level_targets(game, level) <= most and level.tier == tier
        # level seed i was kept exactly when the generator's level for it was acceptable (a
        # refused one is read back from the run's level cache, not generated again)
        candidate = (
            level if source == i else (training.cache.get(game, tier, i) or game.generate(tier, i))
        )
        assert (source == i) == (
            not is_catalogue_level(game, candidate) and level_targets(game, candidate) <= most
        )
        assert source % SEED_LIMIT == i


def test_known_catalogue_seeds_and_oversized_levels_are_redrawn():
    truck = TrainingLevels(get_game("TruckEscape"), "Default", Split(8, 0), cache=None)
    assert [truck.entry(i)[0] for i in range(8)] == [SEED_LIMIT + i for i in range(5)] + [5, 6, 7]
    nut = TrainingLevels(get_game("NutAndBolt"), "Easy", Split(1, 135), cache=None)
    assert nut.entry(0)[0] == 135 + SEED_LIMIT  # seed 135 is nut-easy-01 renamed and reordered
    bolt_game = get_game("BoltUnscrew")
    assert (
        tier_targets(bolt_game, "Easy") == 19
        and level_targets(bolt_game, bolt_game.generate("Easy", 8)) > 19
    )
    bolt = TrainingLevels(bolt_game, "Easy", Split(1, 8), cache=None)
    source, level = bolt.entry(0)
    assert source != 8 and source % SEED_LIMIT == 8 and level_targets(bolt_game, level) <= 19


# -------------------------------------------------------------------- checkpoints, records, replays
def test_a_generated_episode_restores_exactly_in_a_fresh_env(make_env, tmp_path):
    kwargs = dict(levels="generated", num_levels=40, start_level=9000, start="board")
    env = make_env("LongPuzzle/NutAndBolt-Medium", **kwargs)
    env.reset(seed=3)
    env.reset()  # an unseeded episode: only the checkpoint knows its levels
    for action in ({"type": "click", "x": 400, "y": 500}, {"type": "click", "x": 700, "y": 500}):
        obs, *_ = env.step(action)
    ckpt = env.unwrapped.checkpoint()
    assert ckpt.config["num_levels"] == 40 and ckpt.config["start_level"] == 9000
    assert ckpt.payload["first_level"] == env.unwrapped._first_level == draws(3, 2, 40)[1]
    path = ckpt.save(tmp_path / "gen.ckpt.json")
    fresh = make_env("LongPuzzle/NutAndBolt-Medium", **kwargs)
    fresh.reset(seed=99)
    obs2, _ = fresh.reset(options={"checkpoint": Checkpoint.load(path)})
    assert np.array_equal(obs, obs2)
    assert board(fresh).level == board(env).level and board(fresh).state == board(env).state
    assert fresh.unwrapped.checkpoint().payload == ckpt.payload


def tampered(ckpt, **payload):
    return Checkpoint(ckpt.config, {**ckpt.payload, **payload}, ckpt.catalogue, ckpt.version)


def test_checkpoints_of_another_split_or_a_bad_first_level_are_refused(make_env):
    env = make_env(MAZE_EASY, levels="generated", num_levels=40, start_level=9000, start="board")
    env.reset(seed=0)
    ckpt = env.unwrapped.checkpoint()
    other = make_env(MAZE_EASY, levels="generated", num_levels=41, start_level=9000, start="board")
    other.reset(seed=0)
    with pytest.raises(CheckpointError, match="num_levels is 40 there, 41 here"):
        other.reset(options={"checkpoint": ckpt})
    cat = make_env(MAZE_EASY, start="board")
    cat.reset(seed=0)
    with pytest.raises(CheckpointError, match="levels is 'generated' there, 'catalogue' here"):
        cat.reset(options={"checkpoint": ckpt})
    for bad, message in (
        (40, "expected an integer 0..39"),
        (None, "needs its first training level"),
        (-1, "payload.first_level"),
        (2**31, "payload.first_level"),
        ("3", "payload.first_level"),
    ):
        with pytest.raises(CheckpointError, match=message):
            env.reset(options={"checkpoint": tampered(ckpt, first_level=bad)})
    cat_ckpt = cat.unwrapped.checkpoint()
    assert "first_level" not in cat_ckpt.payload
    with pytest.raises(CheckpointError, match="a catalogue episode has none"):
        cat.reset(options={"checkpoint": tampered(cat_ckpt, first_level=0)})
    assert env.unwrapped._first_level == ckpt.payload["first_level"]  # nothing changed


def test_records_carry_the_split_and_an_unseeded_episode_replays(tmp_path):
    rec = tmp_path / "rec"
    env = gym.make(
        MAZE_EASY,
        levels="generated",
        num_levels=30,
        start_level=700,
        level=1,
        start="board",
        record_dir=str(rec),
        record_frames="hash",
    )
    from puzzlegym.agents import SolverAgent

    for seed in (5, None):
        env.reset(seed=seed)
        agent = SolverAgent(env.unwrapped)
        for _ in range(5):
            env.step(agent())
    env.close()
    second = tmp_path / "rec-2"
    manifest = json.loads((second / "manifest.json").read_text())
    assert manifest["config"]["levels"] == "generated"
    assert (manifest["config"]["num_levels"], manifest["config"]["start_level"]) == (30, 700)
    assert manifest["seed"] is None and manifest["first_level"] == draws(5, 2, 30)[1]
    report = replay(second)
    assert report["ok"], report["mismatch"]
    assert report["frames"] == 6


# ------------------------------------------------------------------------- make_sb3_env, CLI, Hydra
@pytest.mark.parametrize("env_id", env_ids())
def test_make_sb3_env_trains_on_generated_levels_of_every_tier(env_id):
    game, tier = parse_env_id(env_id)
    # level seeds 0 and 1: catalogue slots of several games, redrawn (and cached by the test above)
    env = make_sb3_env(
        env_id,
        actions="board",
        levels="generated",
        num_levels=2,
        start_level=0,
        start="board",
        level=1,
        max_episode_steps=4,
    )
    try:
        assert env.action_space.n == tier_targets(game, tier) + len(env.buttons)
        obs, _ = env.reset(seed=0)
        assert obs.shape == (84, 84, 3)
        hashes = set()
        for _ in range(3):
            mask = env.action_masks()
            obs, *_ = env.step(int(np.flatnonzero(mask)[0]))
            hashes.add(frame_hash(obs))
            obs, _ = env.reset()
        base = env.unwrapped
        assert base.config["num_levels"] == 2 and re.fullmatch(
            rf"[a-z]+-{tier.lower()}-seed\d+", base.probe().board.level.id
        )
        assert not is_catalogue_level(game, base.probe().board.level)
    finally:
        env.close()


def test_cli_run_takes_validated_split_flags(tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(
        [
            "run",
            MAZE_EASY,
            "--levels",
            "generated",
            "--num-levels",
            "4",
            "--start-level",
            "123",
            "--level",
            "1",
            "--start",
            "board",
            "--json",
            "--no-gif",
            "--out",
            str(out),
        ]
    )
    assert rc == 0 and json.loads(capsys.readouterr().out.splitlines()[-1])["success"] is True
    manifest = json.loads((out / "record" / "manifest.json").read_text())
    assert (manifest["config"]["num_levels"], manifest["config"]["start_level"]) == (4, 123)
    assert manifest["first_level"] == draws(0, 1, 4)[0]
    for argv, message in (
        (["--num-levels", "4"], "--num-levels: only with --levels generated"),
        (["--start-level", "0"], "--start-level: only with --levels generated"),
        (
            ["--levels", "generated", "--start-level", str(2**31 - 1), "--num-levels", "2"],
            "--num-levels: --start-level \\+ --num-levels must be at most 2\\*\\*31",
        ),
    ):
        assert main(["run", MAZE_EASY, *argv, "--out", str(tmp_path / "x")]) == 2
        assert message.replace("\\", "") in capsys.readouterr().err
    for argv, flag in (
        (["--num-levels", "-1"], "--num-levels"),
        (["--num-levels", "x"], "--num-levels"),
        (["--start-level", str(2**31)], "--start-level"),
        (["--levels", "other"], "--levels"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(["run", MAZE_EASY, "--levels", "generated", *argv])
        assert exc.value.code == 2 and f"argument {flag}" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()  # nothing ran


def test_hydra_env_configs_take_the_split(tmp_path):
    overrides = [
        "+experiment=generated_levels",
        "env=nut_and_bolt_easy",
        "env.kwargs.level=1",
        "env.kwargs.num_levels=6",
        "env.kwargs.start_level=50",
        "seed=2",
        "gif=false",
        f"hydra.run.dir={tmp_path / 'hydra'}",
        f"out_dir={tmp_path / 'episode'}",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlegym.run", *overrides],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "episode" / "record" / "manifest.json").read_text())
    assert manifest["config"]["levels"] == "generated" and manifest["seed"] == 2
    assert (manifest["config"]["num_levels"], manifest["config"]["start_level"]) == (6, 50)
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "puzzlegym.run",
            "env.kwargs.num_levels=6",
            f"hydra.run.dir={tmp_path / 'h2'}",
            "out_dir=null",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 2 and "num_levels: only with levels='generated'" in bad.stderr


def test_levels_generate_fills_the_cache_once(tmp_path, monkeypatch, capsys):
    from puzzlegym.game.levelcache import LevelCache

    monkeypatch.setenv("PUZZLEGYM_CACHE", str(tmp_path / "cache"))
    argv = [
        "levels",
        "generate",
        "--env-id",
        "LongPuzzle/MazePaint-Medium",
        "--num-levels",
        "6",
        "--start-level",
        "321",
        "--json",
    ]
    assert main([*argv, "--workers", "2"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (first["levels"], first["generated"], first["read"]) == (6, 6, 0)
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (again["levels"], again["generated"], again["read"]) == (6, 0, 6)
    maze = get_game("MazePaint")
    cache = LevelCache(tmp_path / "cache")
    assert [cache.get(maze, "Medium", 321 + i) for i in range(6)] == [
        maze.generate("Medium", 321 + i) for i in range(6)
    ]
    for extra, message in (
        (["--num-levels", "2"], "--env-id: generate needs"),
        (["--env-id", MAZE_EASY], "--num-levels: generate needs"),
        (["--env-id", "LongPuzzle/Nope-Easy", "--num-levels", "2"], "Nope"),
    ):
        assert main(["levels", "generate", *extra]) == 2
        assert message in capsys.readouterr().err
    monkeypatch.setenv("PUZZLEGYM_CACHE", "off")
    assert main(["levels", "generate", "--env-id", MAZE_EASY, "--num-levels", "2"]) == 2
    assert "PUZZLEGYM_CACHE is off" in capsys.readouterr().err
    monkeypatch.setenv("PUZZLEGYM_CACHE", str(tmp_path / "small"))
    monkeypatch.setenv("PUZZLEGYM_CACHE_MAX_MB", "1")
    assert main(["levels", "generate", "--env-id", MAZE_EASY, "--num-levels", "1000"]) == 2
    assert "raise PUZZLEGYM_CACHE_MAX_MB" in capsys.readouterr().err
    assert not (tmp_path / "small").exists()  # refused before anything was written


def test_a_seed_the_generator_finds_no_level_for_is_redrawn():
    """The generators give up on a seed after their attempts (RuntimeError): such a seed is
    redrawn like a catalogue level, and only when every candidate fails is it an error."""
    import dataclasses

    maze = get_game("MazePaint")
    failing = {31, 31 + SEED_LIMIT}

    def generate(tier, seed):
        if seed in failing:
            raise RuntimeError(f"no {tier} level found for seed {seed} in 400 attempts")
        return maze.generate(tier, seed)

    game = dataclasses.replace(maze, generate=generate)
    training = TrainingLevels(game, "Easy", Split(3, 30), cache=None)
    assert [training.entry(i)[0] for i in range(3)] == [30, 31 + 2 * SEED_LIMIT, 32]
    assert training.level(1) == maze.generate("Easy", 31 + 2 * SEED_LIMIT)
    hopeless = dataclasses.replace(maze, generate=lambda tier, seed: generate(tier, 31))
    from puzzlegym.base.errors import LevelError

    with pytest.raises(LevelError, match="level seed 31 has no training level"):
        TrainingLevels(hopeless, "Easy", Split(3, 30), cache=None).level(1)


def test_a_reset_whose_level_cannot_be_generated_changes_nothing(make_env):
    import dataclasses

    from puzzlegym.base.errors import LevelError

    def hopeless(tier, seed):
        raise RuntimeError(f"no {tier} level found for seed {seed} in 400 attempts")

    env = make_env(
        MAZE_EASY, levels="generated", num_levels=5, start_level=70, level=1, start="board"
    )
    obs, _ = env.reset(seed=0)
    level, episode = board(env).level, env.unwrapped.probe().episode
    base = env.unwrapped
    base.training_levels = TrainingLevels(
        dataclasses.replace(base.game, generate=hopeless), "Easy", base.split, cache=None
    )
    with pytest.raises(LevelError, match="has no training level"):
        env.reset()
    assert board(env).level == level and base.probe().episode == episode
    assert np.array_equal(env.step({"type": "wait"})[0], obs)
