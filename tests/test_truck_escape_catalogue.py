"""The canonical Truck Escape catalogue and the seeded generator, checked by the solver: five
levels growing in trucks and depth, every reachable board solvable, files reproducible."""

from __future__ import annotations

import json
import random

import pytest

from puzzlegym.base.errors import ConfigError, LevelError
from puzzlegym.envs.truck_escape import rules as R
from puzzlegym.envs.truck_escape import solver
from puzzlegym.envs.truck_escape.catalogue import (
    CATALOGUE,
    catalogue_path,
    load_catalogue,
    longest_chains,
    parse_catalogue,
)
from puzzlegym.envs.truck_escape.generator import (
    TIER_SPECS,
    catalogue_document,
    generate,
    main,
)
from puzzlegym.game import Rejected
from puzzlegym.solvers.search import reachable_states

LEVELS = load_catalogue("Default")


def test_five_levels_growing_in_size_and_depth():
    assert [lv.id for lv in LEVELS] == [f"truck-default-{i:02d}" for i in range(1, 6)]
    trucks = [lv.n_trucks for lv in LEVELS]
    chains = [solver.longest_chain(lv) for lv in LEVELS]
    cells = [lv.rows * lv.cols for lv in LEVELS]
    assert trucks == sorted(set(trucks)) and 6 <= trucks[0] <= 10 and 36 <= trucks[-1] <= 44
    assert chains == sorted(set(chains)) and chains[-1] >= 6
    assert cells == sorted(set(cells))
    assert longest_chains("Default") == chains  # the stored metadata is the solver's
    for level in LEVELS:
        assert {t.facing for t in level.trucks} == set(R.DIRECTIONS)
        assert {t.length for t in level.trucks} <= {1, 2, 3}


@pytest.mark.parametrize("level", LEVELS, ids=lambda lv: lv.id)
def test_solver_clears_each_level_with_one_request_per_truck(level):
    sol = solver.solve(level)
    assert sol.optimal and sol.length == level.n_trucks
    assert sorted(sol.moves) == list(range(level.n_trucks))
    state = R.initial_state(level)
    for move in sol.moves:
        state = R.apply(level, state, move)
        assert not isinstance(state, Rejected)
    assert R.is_solved(level, state)


@pytest.mark.parametrize("level", LEVELS[:2], ids=lambda lv: lv.id)
def test_every_reachable_board_of_the_small_levels_is_solvable(level):
    """Exhaustively: every board play can reach is solvable in one request per truck left."""

    def successors(state):
        for move in R.legal_moves(level, state):
            yield move, R.apply(level, state, move)

    graph, complete = reachable_states(R.initial_state(level), successors)
    assert complete and len(graph) > level.n_trucks
    for state in graph:
        assert solver.certify(level, state) == "solvable"
        assert solver.solve(level, state).length == state.remaining.bit_count()
        assert R.is_solved(level, state) or graph[state]


@pytest.mark.parametrize("level", LEVELS, ids=lambda lv: lv.id)
def test_random_clicking_always_clears_the_lot(level):
    """Random requests (mostly blocked ones on the big lots) never strand the player: every
    board on the way is certified solvable and the lot always empties."""
    rng = random.Random(level.id)
    for _ in range(20):
        state = R.initial_state(level)
        for _ in range(100 * level.n_trucks):
            if R.is_solved(level, state):
                break
            result = R.apply(level, state, rng.randrange(level.n_trucks))
            if not isinstance(result, Rejected):
                state = result
                assert solver.certify(level, state) == "solvable"
        assert R.is_solved(level, state)


def test_catalogue_file_is_strict():
    doc = json.loads(catalogue_path("Default").read_text(encoding="utf-8"))
    assert doc["game"] == "TruckEscape" and doc["tier"] == "Default"
    assert [lv for lv, _ in parse_catalogue(doc, "Default")] == LEVELS
    with pytest.raises(LevelError, match="keys must be exactly"):
        parse_catalogue({**doc, "extra": 1}, "Default")
    bad = json.loads(json.dumps(doc))
    bad["levels"][2]["trucks"][0]["facing"] = "sideways"
    with pytest.raises(LevelError, match=r"levels\[2\]: trucks\[0\]\.facing"):
        parse_catalogue(bad, "Default")
    dup = json.loads(json.dumps(doc))
    dup["levels"][1]["id"] = dup["levels"][0]["id"]
    with pytest.raises(LevelError, match="duplicate id"):
        parse_catalogue(dup, "Default")


def test_catalogue_file_is_reproducible(capsys):
    """The committed JSON is exactly what the generator's --write produces (--check)."""
    assert main(["--check"]) == 0
    assert "out of date" not in capsys.readouterr().err
    # and the text form is the stable one: parse and dump back unchanged
    doc = json.loads(catalogue_path("Default").read_text(encoding="utf-8"))
    entries = [(lv, chain) for lv, chain in parse_catalogue(doc, "Default")]
    assert CATALOGUE.text(catalogue_document("Default", entries)) == catalogue_path(
        "Default"
    ).read_text(encoding="utf-8")


@pytest.mark.parametrize("seed", [3, 5000, 123456])
def test_generate_is_deterministic_valid_and_sized_by_slot(seed):
    level = generate("Default", seed)
    assert generate("Default", seed) == level
    assert R.Level.from_json(level.to_json()) == level  # strict validation, no cycle
    spec = TIER_SPECS["Default"][seed % 5]
    assert (level.rows, level.cols, level.n_trucks) == (spec.rows, spec.cols, spec.trucks)
    assert spec.chain[0] <= solver.longest_chain(level) <= spec.chain[1]
    assert level.id == f"truck-default-seed{seed}"


def test_generate_differs_across_seeds_and_rejects_bad_arguments():
    assert generate("Default", 10).trucks != generate("Default", 15).trucks
    with pytest.raises(ConfigError, match="tier"):
        generate("Hard", 0)
    with pytest.raises(ConfigError, match="seed"):
        generate("Default", "1")
    with pytest.raises(ConfigError, match="slot: expected an integer 0..4, got 5"):
        generate("Default", 1, slot=5)
    with pytest.raises(ConfigError, match="tier"):
        load_catalogue("Hard")
