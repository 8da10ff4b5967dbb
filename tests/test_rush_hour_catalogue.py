"""The canonical Rush Hour catalogue: 30 generator-made levels, each the farthest-from-goal
state of its cluster, optimal move counts in the tier bands and rising, and the committed
files checked against the solver (a full regeneration, ``generator --check``, takes minutes
and is run by hand; here a few levels are regenerated from their seeds)."""

from __future__ import annotations

import json

import pytest

from puzzlegym.base.errors import ConfigError, LevelError
from puzzlegym.envs.rush_hour import generator as G
from puzzlegym.envs.rush_hour import rules as R
from puzzlegym.envs.rush_hour import solver
from puzzlegym.envs.rush_hour.catalogue import CATALOGUE, catalogue_path, load_catalogue, metadata

TIERS = ("Easy", "Medium", "Hard")
BANDS = {"Easy": (1, 8), "Medium": (9, 16), "Hard": (17, 99)}


def test_generator_constants_match_the_issue():
    assert G.TIER_SPECS["Easy"].band[1] == 8
    assert G.TIER_SPECS["Medium"].band == (9, 16)
    assert G.TIER_SPECS["Hard"].band[0] == 17
    for tier in TIERS:
        spec = G.TIER_SPECS[tier]
        assert len(spec.profile) == G.CATALOGUE_SIZE == 10
        assert all(spec.band[0] <= lo <= hi <= spec.band[1] for lo, hi in spec.profile)
    assert sum(lo >= 30 for lo, _ in G.TIER_SPECS["Hard"].profile) >= 3


@pytest.mark.parametrize("tier", TIERS)
def test_catalogue_levels_are_cluster_extremes_in_band(tier):
    levels, meta = load_catalogue(tier), metadata(tier)
    assert [lv.id for lv in levels] == [f"rush-{tier.lower()}-{i:02d}" for i in range(1, 11)]
    lo, hi = BANDS[tier]
    counts = []
    for level, m in zip(levels, meta, strict=True):
        assert (level.width, level.height, level.tier) == (6, 6, tier)
        table = solver.cluster_table(level)
        start = R.initial_state(level)
        n = solver.distance(level, start)
        assert n == m["optimal_moves"] and lo <= n <= hi, level.id
        assert table.n_states == m["cluster_states"], level.id
        # the level is its cluster's farthest state, picked the generator's way
        assert table.farthest()[0] == n
        again = G.farthest_level(level, level.id, tier)
        assert again is not None and again[0] == level and again[1:] == (n, table.n_states)
        sol = solver.solve(level)
        assert sol.optimal and sol.length == n
        state = start
        for move in sol.moves:
            state = R.apply(level, state, move)
        assert R.is_solved(level, state)
        counts.append(n)
    assert counts == sorted(counts)


def test_tiers_rise_and_hard_has_long_levels():
    counts = {t: [m["optimal_moves"] for m in metadata(t)] for t in TIERS}
    assert max(counts["Easy"]) <= 8 < min(counts["Medium"])
    assert max(counts["Medium"]) <= 16 < min(counts["Hard"])
    assert sum(n >= 30 for n in counts["Hard"]) >= 3


def test_catalogue_levels_are_distinct():
    boards = [(lv.vehicles, lv.walls) for t in TIERS for lv in load_catalogue(t)]
    assert len(set(boards)) == len(boards) == 30


@pytest.mark.parametrize("tier, index", [("Easy", 0), ("Easy", 1), ("Medium", 0)])
def test_levels_regenerate_from_their_seeds(tier, index):
    """The generator reproduces committed levels from the stored seed (slot = seed % 1000)."""
    level, m = load_catalogue(tier)[index], metadata(tier)[index]
    spec = G.TIER_SPECS[tier]
    made, n, states = G._search(tier, m["seed"], spec, *spec.profile[m["seed"] % 1000])
    assert (made.vehicles, made.walls, n, states) == (
        level.vehicles,
        level.walls,
        m["optimal_moves"],
        m["cluster_states"],
    )


@pytest.mark.parametrize("tier", TIERS)
def test_catalogue_text_is_what_the_generator_writes(tier):
    """The committed file is the generator's stable text for these entries."""
    entries = list(CATALOGUE.entries(tier))
    text = CATALOGUE.text(CATALOGUE.document(tier, entries))
    assert catalogue_path(tier).read_text(encoding="utf-8") == text


@pytest.mark.parametrize("tier", TIERS)
def test_catalogue_file_is_strict(tier):
    doc = json.loads(catalogue_path(tier).read_text(encoding="utf-8"))
    assert doc["game"] == "RushHour" and doc["tier"] == tier
    assert [lv for lv, _ in CATALOGUE.parse(doc, tier)] == load_catalogue(tier)
    bad = json.loads(json.dumps(doc))
    bad["levels"][3]["vehicles"][1]["axis"] = "diagonal"
    with pytest.raises(LevelError, match=r"levels\[3\]: vehicles\[1\].axis"):
        CATALOGUE.parse(bad, tier)
    dup = json.loads(json.dumps(doc))
    dup["levels"][1]["id"] = dup["levels"][0]["id"]
    with pytest.raises(LevelError, match="duplicate id"):
        CATALOGUE.parse(dup, tier)


def test_unknown_tier_and_bad_arguments():
    with pytest.raises(ConfigError, match="tier"):
        load_catalogue("Expert")
    with pytest.raises(ConfigError, match="tier"):
        G.generate("Expert", 0)
    with pytest.raises(ConfigError, match="seed"):
        G.generate("Easy", "1")
    with pytest.raises(ConfigError, match="moves"):
        G.generate("Easy", 1, moves=(7, 12))
    with pytest.raises(ConfigError, match="moves"):
        G.generate("Easy", 1, moves="3-5")


@pytest.mark.parametrize("tier, seed", [("Easy", 12345), ("Easy", 777), ("Medium", 3)])
def test_generate_is_deterministic_and_in_band(tier, seed):
    level = G.generate(tier, seed)
    assert G.generate(tier, seed) == level
    assert level.id == f"rush-{tier.lower()}-seed{seed}"
    assert R.Level.from_json(level.to_json()) == level  # passes strict validation
    lo, hi = G.TIER_SPECS[tier].band
    n = solver.solve(level).length
    assert lo <= n <= hi and solver.cluster_table(level).farthest()[0] == n


def test_generate_differs_across_seeds():
    assert G.generate("Easy", 1) != G.generate("Easy", 2)
