"""Canonical level hashes (puzzlegym.game.levelhash, the games' rules.canonical,
puzzlegym.base.symmetry): a level turned, mirrored, re-listed or re-coloured as each game
allows hashes like the original, so such a copy of a catalogue level is caught; different
puzzles hash apart.

The symmetric copies here are built by each game's own test data (``testdata.symmetric_copy``,
not by the code under test) and loaded through the games' strict loaders, so each is a valid
level that plays the same."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlegym.base.symmetry import SYMMETRIES, canonical_sequences, first_seen, relabelled_rows
from puzzlegym.game.levelhash import (
    canonical_document,
    catalogue_hashes,
    is_catalogue_level,
    level_hash,
)
from puzzlegym.game.registry import builtin_games, games, get_game
from puzzlegym.testing import game_test_data

CATALOGUE = [
    (g.name, t, i)
    for g in games().values()
    for t in g.tiers
    for i in range(len(g.load_catalogue(t)))
]


BENCHMARK_LEVELS = 114  # the six built-in games' catalogues (the benchmark's levels)


def test_every_catalogue_level_is_a_distinct_puzzle_and_the_benchmark_has_114():
    hashes = [
        level_hash(get_game(name), get_game(name).load_catalogue(t)[i]) for name, t, i in CATALOGUE
    ]
    assert len(set(hashes)) == len(hashes)
    assert sum(len(catalogue_hashes(g)) for g in games().values()) == len(hashes)
    builtin = [n for n, _, _ in CATALOGUE if n in builtin_games()]
    assert len(builtin) == BENCHMARK_LEVELS


@pytest.mark.parametrize(
    ("name", "tier", "index"), CATALOGUE, ids=[f"{n}-{t}-{i + 1}" for n, t, i in CATALOGUE]
)
def test_a_symmetric_copy_of_a_catalogue_level_is_caught(name, tier, index):
    game = get_game(name)
    level = game.load_catalogue(tier)[index]
    rng = random.Random(f"{name}/{tier}/{index}")
    for k in range(6):
        doc = game_test_data(game).symmetric_copy(game.level_to_json(level), rng)
        other_tier = game.tiers[(game.tiers.index(tier) + 1) % len(game.tiers)]
        copy = game.level_from_json({**doc, "id": f"copy-{k}", "tier": other_tier})  # a valid level
        assert level_hash(game, copy) == level_hash(game, level)
        assert is_catalogue_level(game, copy)


def test_names_are_not_part_of_the_puzzle_but_the_game_is():
    game = get_game("MazePaint")
    level = game.load_catalogue("Easy")[0]
    doc = canonical_document(game, level)
    assert doc["game"] == "MazePaint" and set(doc["level"]) == {"grid", "start"}
    renamed = game.level_from_json({**game.level_to_json(level), "id": "x", "tier": "Hard"})
    assert level_hash(game, renamed) == level_hash(game, level)


def test_real_generator_seeds_that_give_catalogue_levels_are_caught():
    """What the generators really produce: catalogue slots come from low seeds, and some
    seeds give a renamed or turned copy of a catalogue level that a literal comparison misses."""
    truck, nut, maze = get_game("TruckEscape"), get_game("NutAndBolt"), get_game("MazePaint")
    assert [s for s in range(8) if is_catalogue_level(truck, truck.generate("Default", s))] == [
        0,
        1,
        2,
        3,
        4,
    ]
    assert [s for s in range(12) if is_catalogue_level(maze, maze.generate("Easy", s))] == [0, 8, 9]
    copy = nut.generate("Easy", 135)  # nut-easy-01 with its colours renamed and bolts reordered
    original = nut.load_catalogue("Easy")[0]
    assert copy.bolts != original.bolts and sorted(copy.bolts) != sorted(original.bolts)
    assert level_hash(nut, copy) == level_hash(nut, original)
    turned = maze.generate("Easy", 2279)  # a catalogue level turned or mirrored
    assert all(turned.grid != c.grid for t in maze.tiers for c in maze.load_catalogue(t))
    assert is_catalogue_level(maze, turned)


def test_a_changed_puzzle_hashes_apart():
    game = get_game("TruckEscape")
    doc = game.level_to_json(game.load_catalogue("Default")[0])
    fewer = game.level_from_json({**doc, "trucks": doc["trucks"][:-1]})
    assert not is_catalogue_level(game, fewer)
    game = get_game("NutAndBolt")
    doc = game.level_to_json(game.load_catalogue("Easy")[0])  # bolts [1,1,0] [1,2,0] [2,0,2] [] []
    swapped = game.level_from_json({**doc, "bolts": [[1, 0, 1], [1, 2, 0], [2, 0, 2], [], []]})
    assert not is_catalogue_level(game, swapped)


# ------------------------------------------------------------------- puzzlegym.base.symmetry
def test_the_eight_symmetries_are_distinct_and_move_headings_with_cells():
    grid = ("abc", "def")
    images = {sym.rows(grid) for sym in SYMMETRIES}
    assert len(images) == 8
    assert SYMMETRIES[0].rows(grid) == grid
    for sym in SYMMETRIES:
        out = sym.rows(grid)
        for r, c in itertools.product(range(2), range(3)):
            nr, nc = sym.cell(r, c, 2, 3)
            assert out[nr][nc] == grid[r][c]
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):  # a step then the symmetry ...
                if 0 <= r + dr < 2 and 0 <= c + dc < 3:
                    er, ec = sym.direction(dr, dc)
                    assert sym.cell(r + dr, c + dc, 2, 3) == (
                        nr + er,
                        nc + ec,
                    )  # ... = the turned step


def test_relabelling_names_colours_by_first_appearance():
    assert first_seen("CAC", {}) == (0, 1, 0)
    assert relabelled_rows(("..D", "CA.", "#DC"), ".#", "ABCD") == ("..A", "BC.", "#AB")


def brute_force_equivalent(a, b) -> bool:
    labels = sorted({x for s in a for x in s})
    if sorted(map(len, a)) != sorted(map(len, b)) or len(labels) != len({x for s in b for x in s}):
        return False
    target = sorted(tuple(s) for s in b)
    other = sorted({x for s in b for x in s})
    for perm in itertools.permutations(other):
        m = dict(zip(labels, perm, strict=True))
        if sorted(tuple(m[x] for x in s) for s in a) == target:
            return True
    return False


BOLTS = st.lists(st.lists(st.integers(0, 3), max_size=3), min_size=1, max_size=5)


@settings(max_examples=300, deadline=None)
@given(BOLTS, BOLTS)
def test_canonical_sequences_are_equal_exactly_for_renamed_reordered_copies(a, b):
    assert (canonical_sequences(a) == canonical_sequences(b)) == brute_force_equivalent(a, b)


@settings(max_examples=200, deadline=None)
@given(BOLTS, st.randoms(use_true_random=False))
def test_canonical_sequences_ignore_order_and_names(a, rng):
    labels = sorted({x for s in a for x in s})
    renamed = dict(zip(labels, rng.sample(range(10, 20), len(labels)), strict=True))
    b = [[renamed[x] for x in s] for s in a]
    rng.shuffle(b)
    assert canonical_sequences(b) == canonical_sequences(a)
    assert canonical_sequences(canonical_sequences(a)) == canonical_sequences(a)
