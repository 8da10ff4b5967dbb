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


def _planner_page():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "rl_planner.py"
    spec = importlib.util.spec_from_file_location("rl_planner_page", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_run(generated: float, network: float, alone: float, seed: int) -> dict:
    """A run's result with every figure rl_planner.py reads (8 levels, shares fixed)."""

    def levels(share: float) -> dict:
        return {"per_level": [share] * 8}

    dead = {"attempts": 10, "dead_end_attempts": 2, "runs": 2, "recovered": 1, "delays": [3]}
    return {
        "generated": {
            "set": {"levels": 8},
            "trained": levels(generated),
            "trained_network": levels(network),
            "search_untrained": levels(alone),
            "random_masked": levels(0.0),
        },
        "twin": {
            "trained": {"test": levels(generated), "train": levels(generated)},
            "trained_network": {"test": levels(network)},
        },
        "trained": {"test": {"dead_ends": dead}},
        "random_masked": {"test": {"per_level": [0.0] * 8, "dead_ends": dead}},
        "timesteps": 1000,
        "train_fps": 100.0 + seed,
        "train_s": 10.0,
        "config": {"planner": {"num_simulations": 16}},
    }


def test_the_planner_page_says_beats_only_when_both_intervals_lie_apart(monkeypatch):
    """benchmarks/rl_planner.py's verdict needs rliable's interval and the seeds' t-interval
    apart; its page's tables are tables (one row a line, as many cells as the header)."""
    pytest.importorskip("rliable")
    page = _planner_page()
    real = page.interval
    monkeypatch.setattr(page, "interval", lambda scores: real(scores, reps=200))
    planner = [_fake_run(0.6 + 0.01 * s, 0.3, 0.5, s) for s in range(3)]
    ppo = [_fake_run(0.2, 0.2, 0.2, s) for s in range(3)]
    dead = [{"dead_ends": planner[0]["trained"]["test"]["dead_ends"]}] * 3
    gui = {
        "levels": 8,
        "levels_won": [1],
        "lc": 0.125,
        "actions": 100,
        "max_actions": 100,
        "unsynced": 0,
        "wall_s": 1.0,
        "won_actions": [[1, 30, 24]],  # won past its own budget: the pooled GUI budget
        "twin_search_per_level": [0.0] * 8,
    }
    ahead = page.row("NutAndBolt-Easy", planner, ppo, dead, gui)
    assert ahead["planner_beats_ppo"] and ahead["generated"]["planner_search"]["success"] > 0.6
    assert ahead["dead_ends"]["planner_search"]["dead_end_share"] == 20.0
    # one lucky seed: rliable's interval (resampling within levels) can clear PPO's, the
    # seeds' t-interval does not
    lucky = [_fake_run(share, 0.3, 0.5, s) for s, share in enumerate((0.95, 0.1, 0.1))]
    tied = page.row("MazePaint-Easy", lucky, ppo, [])
    assert not tied["planner_beats_ppo"] and "dead_ends" not in tied
    meta = {
        "command": "c",
        "planner_steps": 1000,
        "ppo_steps": 10000,
        "simulations": 16,
        "dead_end_episodes": 3,
        "notes": [],
        "date": "2026-12-07",
    }
    text = page.render([ahead, tied], meta)
    tables: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("|"):
            tables[-1].append(line) if tables and tables[-1] else tables.append([line])
        elif tables and tables[-1]:
            tables.append([])
    tables = [t for t in tables if t]
    # generated, catalogue and train, the search's cost, the GUI, dead ends
    assert len(tables) == 5
    for table in tables:
        widths = {line.count("|") for line in table}
        assert len(widths) == 1 and set(table[1]) <= set("|-")
    assert "| MazePaint-Easy | 3 | 8 |" in text and "| no |" in text and "| yes |" in text
    assert "| 1 of 8 | 0.12 | 100 of 100 | 30 / 24 |" in text
