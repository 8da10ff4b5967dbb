"""Color Connect's JAX twin (envs/color_connect/twin.py) is the game, index for index: random
masked index sequences (the solver's solution first in half of them; Restart among the
indices) from catalogue levels of both tiers, generated levels of both tiers and
Hypothesis-chosen grids, played on the twin and on the rules + view and compared at every
step (tests/twin_checks_rush_color.py: mask, tried and computed; planes; potential; solved;
rules state and the path being drawn). One binding fits both tiers, so each check compiles once."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from puzzlegym.envs.color_connect import GAME  # noqa: E402
from puzzlegym.envs.color_connect.rules import BLOCKED, FREE, PAIR_LETTERS, Level  # noqa: E402
from puzzlegym.envs.color_connect.twin import TWIN  # noqa: E402
from puzzlegym.game.splits import tier_targets  # noqa: E402
from tests.twin_checks_rush_color import Rollouts, check_sequences, solution_indices  # noqa: E402

CATALOGUE = {"Easy": (1,), "Hard": (1, 10)}  # Hard 10: the tier's largest board, 12x12
GENERATED = {"Easy": (1,), "Hard": (5,)}  # seeds quick to generate
STEPS = 60
MAX_SIDE = 12  # the largest board of any tier
MAX_PAIRS = 14


def levels_played() -> list[Level]:
    levels = [
        GAME.load_catalogue(tier)[k - 1] for tier, numbers in CATALOGUE.items() for k in numbers
    ]
    return levels + [
        GAME.generate(tier, seed) for tier, seeds in GENERATED.items() for seed in seeds
    ]


@pytest.fixture(scope="module")
def played():
    catalogue = [level for tier in GAME.tiers for level in GAME.load_catalogue(tier)]
    sizes = TWIN.sizes_for(catalogue)
    assert sizes == {"height": MAX_SIDE, "width": MAX_SIDE, "pairs": MAX_PAIRS}
    assert max(tier_targets(GAME, tier) for tier in GAME.tiers) == MAX_SIDE * MAX_SIDE
    twin = TWIN.bind(sizes, MAX_SIDE * MAX_SIDE, STEPS)
    shape = GAME.planes.shape(catalogue)
    levels = levels_played()
    rows = [row for row in range(len(levels)) for _ in range(2)]
    check = Rollouts(twin, shape, len(levels), len(rows), STEPS)
    stacked = check.stack(levels)
    prefixes = [
        solution_indices(GAME, levels[row]) if i % 2 == 0 else [] for i, row in enumerate(rows)
    ]
    return check, levels, rows, check.run(stacked, rows, 0, prefixes)


def test_catalogue_and_generated_levels_play_the_same(played):
    check, levels, rows, out = played
    twin, shape = check.twin, check.shape
    assert check_sequences(GAME, twin, shape, levels, rows, out) == len(rows) * (STEPS + 1)
    assert out["solved"].any(axis=1)[::2].all()  # every solution played first wins
    assert (out["index"] == twin.n_targets).any()  # Restart was played
    # random play starts, extends, cuts back and cancels paths, and finishes some
    drawing = out["state"]["draw_pair"] >= 0
    assert drawing.any(axis=1).all() and (~drawing).any(axis=1).all()
    assert (out["state"]["draw_len"] > 3).any()
    assert out["state"]["connected"][1::2].any()


def test_a_wrong_record_is_caught(played):
    """The comparison can fail: a mask entry flipped, a plane's cell flipped, a path being
    drawn one cell short."""
    check, levels, rows, out = played
    twin, shape = check.twin, check.shape
    k = int(np.flatnonzero(out["state"]["draw_len"][1] >= 2)[0])  # sequence 1 draws a path
    for change in (
        lambda o: o["mask"].__setitem__((0, 2, 0), ~o["mask"][0, 2, 0]),
        lambda o: o["planes"].__setitem__((1, k, 3, 0, 0), 1 - o["planes"][1, k, 3, 0, 0]),
        lambda o: o["state"]["draw_order"][1, k].__setitem__(
            int(o["state"]["draw_head"][1, k]), -1
        ),
    ):
        wrong = {
            key: ({n: v.copy() for n, v in value.items()} if key == "state" else value.copy())
            for key, value in out.items()
        }
        change(wrong)
        with pytest.raises(AssertionError):
            check_sequences(GAME, twin, shape, levels, rows[:2], wrong)


def test_to_python_reads_paths_from_endpoint_a(played):
    """The twin's state reads back as the rules' (paths from endpoint ``a``, the drawing from
    the dot where it started), here on the solved board of a played solution."""
    check, levels, rows, out = played
    step = int(np.flatnonzero(out["solved"][0])[0])
    state = {key: value[0, step] for key, value in out["state"].items()}
    rules_state, ui = check.twin.to_python(levels[0], state)
    assert ui is None and all(path is not None for path in rules_state.paths)
    for (a, b), path in zip(levels[0].endpoints, rules_state.paths, strict=True):
        assert (path[0], path[-1]) == (a, b)


@st.composite
def grids(draw):
    """A grid of free and blocked cells and pairs of dots (any size up to the largest
    board, up to the most pairs), valid for the rules but not necessarily solvable."""
    height, width = draw(st.integers(2, MAX_SIDE)), draw(st.integers(2, MAX_SIDE))
    n = height * width
    pairs = draw(st.integers(1, min(MAX_PAIRS, n // 2)))
    cells = draw(st.permutations(range(n)))
    blocked = draw(st.integers(0, n - 2 * pairs))
    grid = [FREE] * n
    for j, cell in enumerate(cells[: 2 * pairs]):
        grid[cell] = PAIR_LETTERS[j // 2]
    for cell in cells[2 * pairs : 2 * pairs + blocked // 3]:
        grid[cell] = BLOCKED
    rows = tuple("".join(grid[r * width : (r + 1) * width]) for r in range(height))
    level = Level("hypothesis", "Hard", rows)
    level.validate()
    return level


@settings(max_examples=3, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(level=grids(), seed=st.integers(0, 2**16))
def test_hypothesis_chosen_levels_play_the_same(played, level, seed):
    check = played[0]  # its compiled rollout: the level padded to the module's table shape
    out = check.run(check.stack([level]), [0, 0, 0], seed)
    assert check_sequences(GAME, check.twin, check.shape, [level], [0, 0, 0], out) == 3 * (
        STEPS + 1
    )
