"""The training core (puzzlegym.training): the config fields every trainer shares, the run
directory, and both held-out sets under one budget rule (twice each level's own solver
solution), with the generated set playable in the Python env level for level."""

from __future__ import annotations

import json

import pytest

from puzzlegym.base.errors import ConfigError
from puzzlegym.game.levelhash import level_hash
from puzzlegym.training.config import RunConfig
from puzzlegym.training.heldout import generated_levels
from puzzlegym.training.protocol import Protocol, solution_actions
from puzzlegym.training.rundir import check_resumable, open_run, write_config

MAZE = "LongPuzzle/MazePaint-Easy"


@pytest.fixture(scope="module")
def protocol():
    return Protocol(MAZE, num_levels=20, train_levels=2, wrappers={"observation": "board"})


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"timesteps": 0}, "timesteps"),
        ({"seed": -1}, "seed"),
        ({"episodes": True}, "episodes"),
        ({"curve_every": "10"}, "curve_every"),
        ({"checkpoint_every": 0}, "checkpoint_every"),
        ({"heldout_generated": -1}, "heldout_generated"),
        ({"heldout_generated": 5, "heldout_generated_start": 3}, "heldout_generated_start"),
        ({"progress": "yes"}, "progress"),
    ],
)
def test_every_shared_field_is_checked_naming_it(protocol, kwargs, field):
    with pytest.raises(ConfigError, match=f"^{field}: "):
        RunConfig(protocol=protocol, **kwargs)
    with pytest.raises(ConfigError, match="^protocol: expected a puzzlegym.training"):
        RunConfig(protocol={"env_id": MAZE})  # type: ignore[arg-type]


def test_the_generated_set_gets_the_catalogues_budget_rule_and_plays_in_the_python_env(protocol):
    """Every generated held-out level is played within twice its own solver solution (before,
    every one got the training budget: twice the tier's longest catalogue solution), and the
    Python env the protocol makes for it plays that very level."""
    held = generated_levels(protocol, 1_000_000, 6)
    assert [t.kind for t in held.levels] == ["heldout"] * 6
    assert [t.index for t in held.levels] == held.held.seeds
    for t, level in zip(held.levels, held.held.levels, strict=True):
        n = solution_actions(protocol.game, level)
        assert (t.solution_actions, t.budget_actions) == (n, protocol.budget_actions(n))
    budgets = {t.budget_actions for t in held.levels}
    assert len(budgets) > 1 and max(budgets) < protocol.train_budget_actions()
    assert held.to_dict()["budget_actions"] == [t.budget_actions for t in held.levels]
    for t, level in list(zip(held.levels, held.held.levels, strict=True))[:2]:
        env = protocol.make_level_env(t)
        try:
            env.reset(seed=0)
            board = env.unwrapped.probe().board
            assert level_hash(protocol.game, board.level) == level_hash(protocol.game, level)
        finally:
            env.close()


def test_a_run_directory_is_never_reused_and_resumes_only_its_own_configuration(tmp_path):
    out = tmp_path / "run"
    config = {"algo": "x", "seed": 1}
    with open_run(out, config, resume=False):
        write_config(out, config)
    with pytest.raises(ConfigError, match="^out_dir: .* holds an unfinished run's files"):
        with open_run(out, config, resume=False):
            pass
    with open_run(out, config, resume=True):  # the same configuration resumes
        pass
    with pytest.raises(ConfigError, match=r"configured differently \(seed\)"):
        check_resumable(out, {"algo": "x", "seed": 2})
    (out / "config.json").write_text('{"seed": NaN}')
    with pytest.raises(ConfigError, match="^resume: .*config.json is unreadable"):
        check_resumable(out, config)
    (out / "config.json").write_text(json.dumps(config))
    (out / "result.json").write_text("{}")
    with pytest.raises(ConfigError, match="^resume: .* holds a finished run"):
        check_resumable(out, config)
    with pytest.raises(ConfigError, match="^out_dir: .* holds a finished run"):
        with open_run(out, config, resume=False):
            pass
    with pytest.raises(ConfigError, match="^resume: .* holds no run to resume"):
        check_resumable(tmp_path / "none", config)
