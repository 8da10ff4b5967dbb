"""The canonical Maze Paint catalogue and the seeded generator, checked by the solver."""

from __future__ import annotations

import json

import pytest

from puzzlegym.base.errors import ConfigError, LevelError
from puzzlegym.envs.maze_paint import rules as R
from puzzlegym.envs.maze_paint import solver
from puzzlegym.envs.maze_paint.catalogue import (
    CATALOGUE,
    catalogue_path,
    load_catalogue,
    optimal_slides,
    parse_catalogue,
)
from puzzlegym.envs.maze_paint.generator import (
    TARGET_TOTALS,
    TIER_SPECS,
    build_catalogue,
    catalogue_document,
    generate,
)

BANDS = {"Easy": (7, 12), "Medium": (13, 16), "Hard": (18, 25)}
TOTALS = {"Easy": 88, "Medium": 140, "Hard": 217}
TIERS = ("Easy", "Medium", "Hard")


def test_generator_constants_match_the_spec():
    assert TARGET_TOTALS == TOTALS
    for tier in TIERS:
        spec = TIER_SPECS[tier]
        assert spec.band == BANDS[tier]
        assert sum(spec.profile) == TOTALS[tier] and len(spec.profile) == 10


@pytest.mark.parametrize("tier", TIERS)
def test_catalogue_levels_in_band_and_free_of_dead_ends(tier):
    levels = load_catalogue(tier)
    stored = optimal_slides(tier)
    assert len(levels) == 10
    assert [lv.id for lv in levels] == [f"maze-{tier.lower()}-{i:02d}" for i in range(1, 11)]
    lo, hi = BANDS[tier]
    lengths = []
    for level, n_stored in zip(levels, stored, strict=True):
        assert level.tier == tier
        assert max(level.height, level.width) <= 16
        sol = solver.solve(level)
        assert sol.optimal
        assert lo <= sol.length <= hi, (level.id, sol.length)
        assert sol.length == n_stored, level.id
        # replaying the solution paints everything
        state = R.initial_state(level)
        for move in sol.moves:
            state = R.apply(level, state, move)
        assert R.is_solved(level, state)
        # no dead ends: ball graph strongly connected, and exhaustively every reachable state
        # can still be solved
        assert solver.slide_graph_strongly_connected(level), level.id
        lengths.append(sol.length)
    assert lengths == sorted(lengths)
    total = sum(lengths)
    assert abs(total - TOTALS[tier]) <= 0.10 * TOTALS[tier], (tier, total)


def test_catalogue_levels_are_distinct():
    grids = [lv.grid for tier in TIERS for lv in load_catalogue(tier)]
    assert len(set(grids)) == len(grids)


@pytest.mark.parametrize("tier", TIERS)
def test_catalogue_file_is_strict(tier):
    doc = json.loads(catalogue_path(tier).read_text(encoding="utf-8"))
    assert doc["game"] == "MazePaint" and doc["tier"] == tier
    assert [lv for lv, _ in parse_catalogue(doc, tier)] == load_catalogue(tier)
    with pytest.raises(LevelError, match="tier: expected"):
        parse_catalogue(doc, "Easy" if tier != "Easy" else "Hard")
    with pytest.raises(LevelError, match="keys must be exactly"):
        parse_catalogue({**doc, "extra": 1}, tier)
    bad = json.loads(json.dumps(doc))
    bad["levels"][3]["grid"][0] = "x" + bad["levels"][3]["grid"][0][1:]
    with pytest.raises(LevelError, match=r"levels\[3\]: grid: row 0"):
        parse_catalogue(bad, tier)
    dup = json.loads(json.dumps(doc))
    dup["levels"][1]["id"] = dup["levels"][0]["id"]
    with pytest.raises(LevelError, match="duplicate id"):
        parse_catalogue(dup, tier)


@pytest.mark.parametrize("tier", TIERS)
def test_catalogue_file_is_reproducible(tier):
    """The committed JSON is exactly what the generator's --write produces."""
    text = CATALOGUE.text(catalogue_document(tier, build_catalogue(tier)))
    assert catalogue_path(tier).read_text(encoding="utf-8") == text


def test_unknown_tier():
    with pytest.raises(ConfigError, match="tier"):
        load_catalogue("Expert")
    with pytest.raises(ConfigError, match="tier"):
        generate("Expert", 0)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("seed", [12345, 777])
def test_generate_is_deterministic_and_in_band(tier, seed):
    level = generate(tier, seed)
    assert generate(tier, seed) == level
    assert level.tier == tier
    assert R.Level.from_json(level.to_json()) == level  # passes strict validation
    lo, hi = BANDS[tier]
    assert lo <= solver.solve(level).length <= hi
    assert solver.slide_graph_strongly_connected(level)


def test_generate_differs_across_seeds():
    assert generate("Easy", 1).grid != generate("Easy", 2).grid


def test_reachable_stats_and_certify_on_catalogue_level():
    level = load_catalogue("Easy")[0]
    stats = solver.reachable_stats(level)
    assert stats.complete and stats.n_dead_ends == 0 and stats.n_solved > 0
    assert stats.n_states > 1 and 1.0 <= stats.mean_branching <= 4.0
    assert solver.certify(level, R.initial_state(level)) == "solvable"
