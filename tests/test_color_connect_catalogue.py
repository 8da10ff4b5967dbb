"""The canonical Color Connect catalogue and the seeded generator: sizes and colours by tier,
forced detours, the stored click counts equal the solver agent's, the files are what the
generator writes, generated levels are deterministic and verified, and ``levels stats``
stays bounded on a state space too large to enumerate."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from puzzlegym import solvers
from puzzlegym.base.errors import ConfigError, LevelError
from puzzlegym.envs.color_connect import GAME
from puzzlegym.envs.color_connect import rules as R
from puzzlegym.envs.color_connect.catalogue import CATALOGUE, catalogue_path, load_catalogue
from puzzlegym.envs.color_connect.generator import (
    TIER_SPECS,
    build_catalogue,
    forced_detour,
    generate,
    hamiltonian_path,
)
from puzzlegym.envs.color_connect.view import path_clicks
from puzzlegym.levels import stats as levels


@pytest.mark.parametrize("tier", R.TIERS)
def test_catalogue_sizes_colours_and_detours(tier):
    spec = TIER_SPECS[tier]
    entries = CATALOGUE.entries(tier)
    assert len(entries) == 10
    for (level, meta), (side, pairs) in zip(entries, spec.slots, strict=True):
        assert (level.height, level.width, level.n_pairs) == (side, side, pairs)
        assert spec.sizes[0] <= side <= spec.sizes[1]
        assert meta["detour"] >= spec.min_detour
        sol = solvers.solve(level)
        assert sol.optimal and sol.length == level.n_pairs
        assert meta["clicks"] == sum(len(path_clicks(m.cells)) for m in sol.moves)
        assert meta["path_cells"] == sum(len(m.cells) for m in sol.moves)
    easy, hard = (max(lv.n_pairs for lv in load_catalogue(t)) for t in R.TIERS)
    assert hard > easy  # Hard has more colours


def test_forced_detour_is_real_on_a_catalogue_level():
    """No solution keeps every path within (detour - 2) cells of its shortest route."""
    from puzzlegym.envs.color_connect.solver.search import search

    level, meta = CATALOGUE.entries("Hard")[1]
    assert meta["detour"] >= 4
    below = search(level, slack=meta["detour"] - 2)
    assert below.complete and below.paths is None
    assert search(level, slack=meta["detour"]).paths is not None
    assert forced_detour(level)[0] == meta["detour"]


@pytest.mark.parametrize("tier", R.TIERS)
def test_catalogue_file_is_reproducible(tier):
    """The committed JSON is exactly what the generator's --write produces."""
    assert catalogue_path(tier).read_text(encoding="utf-8") == CATALOGUE.text(
        CATALOGUE.document(tier, build_catalogue(tier))
    )


def test_catalogue_file_is_strict():
    doc = json.loads(catalogue_path("Easy").read_text(encoding="utf-8"))
    bad = json.loads(json.dumps(doc))
    bad["levels"][2]["grid"][0] = "AAA"
    with pytest.raises(LevelError, match=r"levels\[2\]: grid"):
        CATALOGUE.parse(bad, "Easy")
    bad = json.loads(json.dumps(doc))
    bad["levels"][0]["clicks"] = "many"
    with pytest.raises(LevelError, match="clicks"):
        CATALOGUE.parse(bad, "Easy")


def test_generate_is_deterministic_verified_and_seeded():
    level = generate("Easy", 4242)
    assert generate("Easy", 4242) == level and level.id == "color-easy-seed4242"
    assert R.Level.from_json(level.to_json()) == level
    assert forced_detour(level)[0] >= TIER_SPECS["Easy"].min_detour
    assert generate("Easy", 4243).grid != level.grid
    with pytest.raises(ConfigError, match="tier"):
        generate("Expert", 0)
    with pytest.raises(ConfigError, match="seed"):
        generate("Easy", "0")
    path = hamiltonian_path(__import__("random").Random(1), 6)
    assert sorted(path) == list(range(36))
    assert all(
        abs(a - b) in (1, 6) and (a // 6 == b // 6 or a % 6 == b % 6)
        for a, b in zip(path, path[1:], strict=False)
    )


def test_generated_levels_play_through_the_env(make_env):
    from puzzlegym.agents import SolverAgent

    env = make_env("LongPuzzle/ColorConnect-Easy", levels="generated", start="board", level=1)
    env.reset(seed=3)
    # the episode's training level is drawn with the env's generator seeded by reset(seed=3);
    # num_levels=0, start_level=0: its level seed is the draw itself
    rng, _ = gym.utils.seeding.np_random(3)
    assert env.unwrapped.suite.board.level == generate("Easy", int(rng.integers(0, 2**31)))
    agent = SolverAgent(env.unwrapped)
    for _ in range(200):
        _, _, term, _, info = env.step(agent())
        if term:
            break
    assert info["evaluator"]["success"]


def test_levels_stats_is_capped_and_honest():
    level = load_catalogue("Hard")[-1]
    row = levels.level_stats(GAME, level, max_states=300)
    assert row["n_step"] == level.n_pairs and row["optimal"]
    assert not row["states_complete"] and row["states"] == 300 and row["dead_end_share"] is None
