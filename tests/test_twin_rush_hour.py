"""Rush Hour's JAX twin (envs/rush_hour/twin.py) is the game, index for index: random masked
index sequences (the solver's solution first in half of them; Restart among the indices)
from catalogue levels of every tier, generated levels of every tier, a level that can never
be won and Hypothesis-chosen generated levels, played on the twin and on the rules + view
and compared at every step through the suite (tests/twin_checks.py: state and selection;
planes; mask, tried and computed; potential; solved; the win). One binding fits every tier,
so each check compiles once."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

pytest.importorskip("jax")

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from puzzlegym.base.errors import LevelError  # noqa: E402
from puzzlegym.envs.rush_hour import GAME  # noqa: E402
from puzzlegym.envs.rush_hour.generator import farthest_level  # noqa: E402
from puzzlegym.envs.rush_hour.rules import Level, Vehicle  # noqa: E402
from puzzlegym.envs.rush_hour.solver import cluster_table  # noqa: E402
from puzzlegym.envs.rush_hour.twin import TWIN, key_layout  # noqa: E402
from puzzlegym.game.splits import tier_targets  # noqa: E402
from tests.twin_checks import TwinCheck  # noqa: E402

# per tier, catalogue levels (1-based) with small clusters (the solver's search of a cluster
# is most of the cost); Hard 8 needs two key words
CATALOGUE = {"Easy": (2,), "Medium": (8,), "Hard": (8,)}
GENERATED = {"Easy": (3,), "Medium": (6,), "Hard": (11,)}  # seeds quick to generate
STEPS = 40
MAX_VEHICLES = 14  # the most any tier places
MAX_TARGETS = MAX_VEHICLES * 5  # on a 6x6 board every vehicle has at most 5 positions
HYPOTHESIS_STATES = 3000

# the target car can never pass the truck that fills the last column
NEVER_WON = Level("never-won", "Easy", 4, 3, (Vehicle(1, 0, 2, True), Vehicle(0, 3, 3, False)), ())


def levels_played() -> list[Level]:
    levels = [
        GAME.load_catalogue(tier)[k - 1] for tier, numbers in CATALOGUE.items() for k in numbers
    ]
    levels += [GAME.generate(tier, seed) for tier, seeds in GENERATED.items() for seed in seeds]
    return [*levels, NEVER_WON]


@pytest.fixture(scope="module")
def check():
    catalogue = [level for tier in GAME.tiers for level in GAME.load_catalogue(tier)]
    assert max(tier_targets(GAME, tier) for tier in GAME.tiers) <= MAX_TARGETS
    levels = levels_played()
    check = TwinCheck(
        GAME,
        TWIN,
        catalogue + levels,
        STEPS,
        batch=2 * len(levels),
        table=len(levels),
        targets=MAX_TARGETS,
    )
    assert check.shape == (8, 6, 6)
    return check


@pytest.fixture(scope="module")
def played(check):
    """Two sequences a level: the solver's solution first in the first (none for the
    level that can never be won), random play only in the second."""
    levels = levels_played()
    scripts = {i: [check.solution(level)] for i, level in enumerate(levels[:-1])}
    sequences, out = check.play(levels, 2, seed=0, scripts=scripts)
    return levels, sequences, out


def test_catalogue_and_generated_levels_play_the_same(check, played):
    _, sequences, out = played
    seen = check.compare(sequences, out)
    assert seen["steps"] == len(sequences) * STEPS
    assert out.won.any(axis=1)[::2][:-1].all()  # every solution played first wins
    assert seen["restart"] > 0 and seen["unchanged"] > 0
    assert not out.solved[-2:].any() and (out.potential[-2:] == 0).all()  # never won


def test_a_wrong_record_is_caught(check, played):
    """The comparison can fail: one mask entry flipped, one potential off by a float32 step."""
    _, sequences, out = played
    for field, change in (
        ("mask", lambda a: a.__setitem__((0, 3, 0), ~a[0, 3, 0])),
        ("potential", lambda a: a.__setitem__((1, 5), np.nextafter(a[1, 5], np.float32(2)))),
    ):
        wrong = copy.copy(out)
        setattr(wrong, field, getattr(out, field).copy())
        change(getattr(wrong, field))
        with pytest.raises(AssertionError):
            check.compare(sequences[:2], wrong)


def test_the_cluster_tables_are_ragged_and_exact(check, played):
    """Each level's range of the concatenated tables holds exactly its cluster (the solver's
    states, keys sorted and distinct); take() cuts levels out with their own tables."""
    levels = played[0]
    twin, stacked = check.twin, check.stack(levels)
    starts, sizes = stacked["table_start"], stacked["table_size"]
    assert len(stacked["keys"]) >= sizes.sum() and len(stacked["keys"]) % (1 << 16) == 0
    for i, level in enumerate(levels):
        table = cluster_table(level)
        assert sizes[i] == table.n_states
        keys = stacked["keys"][starts[i] : starts[i] + sizes[i]]
        rows = [tuple(k) for k in keys.tolist()]
        assert rows == sorted(set(rows))
        assert sorted(stacked["dist"][starts[i] : starts[i] + sizes[i]].tolist()) == sorted(
            255 if d is None else d for d in table.distances.values()
        )
    assert key_layout(levels[2])[0][-1] == 1  # Hard 8: two words
    one = twin.take(stacked, [2])
    assert one["table_start"].tolist() == [0] and one["table_size"].tolist() == [sizes[2]]
    assert np.array_equal(
        one["keys"][: sizes[2]], stacked["keys"][starts[2] : starts[2] + sizes[2]]
    )
    assert np.array_equal(one["v_start"][0], stacked["v_start"][2])


def placed(height: int, width: int, n_vehicles: int, n_walls: int, seed: int) -> Level:
    """The generator's kind of placement on a ``height`` x ``width`` board: the target car
    in a random row, then walls and vehicles at random free places (a few tries each; one
    that would make the level invalid is left out)."""
    rng = random.Random(seed)
    row = rng.randrange(height)
    vehicles = [Vehicle(row, rng.randrange(width - 2), 2, True)]
    walls: list[tuple[int, int]] = []

    def valid(vehicles: list, walls: list) -> bool:
        level = Level("placed", "Hard", width, height, tuple(vehicles), tuple(sorted(walls)))
        try:
            level.validate()
        except LevelError:
            return False
        return True

    for _ in range(n_walls):
        for _try in range(20):
            cell = (rng.randrange(height), rng.randrange(width))
            if cell not in walls and valid(vehicles, [*walls, cell]):
                walls.append(cell)
                break
    for _ in range(n_vehicles - 1):
        for _try in range(20):
            length, horizontal = rng.choice((2, 2, 3)), rng.random() < 0.5
            r = rng.randrange(height - (0 if horizontal else length - 1))
            c = rng.randrange(width - (length - 1 if horizontal else 0))
            if valid([*vehicles, Vehicle(r, c, length, horizontal)], walls):
                vehicles.append(Vehicle(r, c, length, horizontal))
                break
    return Level("placed", "Hard", width, height, tuple(vehicles), tuple(sorted(walls)))


@st.composite
def placements(draw):
    """A level the generator's way: a placement (:func:`placed`) made its cluster's
    farthest-from-goal state, among clusters of at most HYPOTHESIS_STATES states."""
    level = placed(
        draw(st.integers(4, 6)),
        draw(st.integers(4, 6)),
        draw(st.integers(3, MAX_VEHICLES)),
        draw(st.integers(0, 2)),
        draw(st.integers(0, 2**32)),
    )
    found = farthest_level(level, "hypothesis", "Hard", max_states=HYPOTHESIS_STATES)
    assume(found is not None)
    return found[0]


@settings(max_examples=3, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(level=placements(), seed=st.integers(0, 2**16))
def test_hypothesis_chosen_levels_play_the_same(check, level, seed):
    # the module's compiled player: the level padded to its table's shape
    solution = check.solution(level)
    sequences, out = check.play([level], 2, seed, scripts={0: [solution]})
    assert check.compare(sequences, out)["steps"] == 2 * STEPS
    assert out.won[0].any() or len(solution) > STEPS  # the solution played first wins
