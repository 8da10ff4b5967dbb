"""Color Connect's JAX twin (envs/color_connect/twin.py) is the game, index for index: random
masked index sequences (the solver's solution first in half of them; Restart among the
indices) from catalogue levels of both tiers, generated levels of both tiers and
Hypothesis-chosen grids, played on the twin and on the rules + view through the suite and
compared at every step (tests/twin_checks.py: rules state and the path being drawn; planes;
mask, tried and computed; potential; solved; the win). One binding fits both tiers, so each
check compiles once."""

from __future__ import annotations

import copy

import numpy as np
import pytest

pytest.importorskip("jax")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from puzzlegym.envs.color_connect import GAME  # noqa: E402
from puzzlegym.envs.color_connect.rules import BLOCKED, FREE, PAIR_LETTERS, Level  # noqa: E402
from puzzlegym.envs.color_connect.twin import TWIN  # noqa: E402
from puzzlegym.game.splits import tier_targets  # noqa: E402
from tests.twin_checks import TwinCheck  # noqa: E402

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
def check():
    catalogue = [level for tier in GAME.tiers for level in GAME.load_catalogue(tier)]
    assert TWIN.sizes_for(catalogue) == {"height": MAX_SIDE, "width": MAX_SIDE, "pairs": MAX_PAIRS}
    assert max(tier_targets(GAME, tier) for tier in GAME.tiers) == MAX_SIDE * MAX_SIDE
    levels = levels_played()
    return TwinCheck(
        GAME,
        TWIN,
        catalogue,
        STEPS,
        batch=2 * len(levels),
        table=len(levels),
        targets=MAX_SIDE * MAX_SIDE,
    )


@pytest.fixture(scope="module")
def played(check):
    """Two sequences a level: the solver's solution first in the first, random play only
    in the second."""
    levels = levels_played()
    scripts = {i: [check.solution(level)] for i, level in enumerate(levels)}
    sequences, out = check.play(levels, 2, seed=0, scripts=scripts)
    return levels, sequences, out


def test_catalogue_and_generated_levels_play_the_same(check, played):
    _, sequences, out = played
    seen = check.compare(sequences, out)
    assert seen["steps"] == len(sequences) * STEPS
    assert out.won.any(axis=1)[::2].all()  # every solution played first wins
    assert seen["restart"] > 0
    # random play starts, extends, cuts back and cancels paths, and finishes some
    drawing = out.states["draw_pair"] >= 0
    assert drawing.any(axis=1).all() and (~drawing).any(axis=1).all()
    assert (out.states["draw_len"] > 3).any()
    assert out.states["connected"][1::2].any()


def test_a_wrong_record_is_caught(check, played):
    """The comparison can fail: a mask entry flipped, a plane's cell flipped, a path being
    drawn one cell short."""
    _, sequences, out = played
    k = int(np.flatnonzero(out.states["draw_len"][1] >= 2)[0])  # sequence 1 draws a path
    for change in (
        lambda o: o.mask.__setitem__((0, 2, 0), ~o.mask[0, 2, 0]),
        lambda o: o.planes.__setitem__((1, k, 3, 0, 0), 1 - o.planes[1, k, 3, 0, 0]),
        lambda o: o.states["draw_order"][1, k].__setitem__(int(o.states["draw_head"][1, k]), -1),
    ):
        wrong = copy.copy(out)
        wrong.mask, wrong.planes = out.mask.copy(), out.planes.copy()
        wrong.states = {n: v.copy() for n, v in out.states.items()}
        change(wrong)
        with pytest.raises(AssertionError):
            check.compare(sequences[:2], wrong)


def test_to_python_reads_paths_from_endpoint_a(check, played):
    """The twin's state reads back as the rules' (paths from endpoint ``a``, the drawing from
    the dot where it started), here on the board one click before a played solution wins:
    every pair connected but the one being drawn."""
    levels, _, out = played
    step = int(np.flatnonzero(out.won[0])[0])
    state = {key: value[0, step] for key, value in out.states.items()}
    rules_state, ui = check.twin.to_python(levels[0], state)
    assert ui is not None and rules_state.paths[ui.pair] is None
    assert sum(path is None for path in rules_state.paths) == 1
    for (a, b), path in zip(levels[0].endpoints, rules_state.paths, strict=True):
        assert path is None or (path[0], path[-1]) == (a, b)
    r, c = ui.cells[0]
    assert r * levels[0].width + c in levels[0].endpoints[ui.pair]  # drawn from a dot


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
def test_hypothesis_chosen_levels_play_the_same(check, level, seed):
    # the module's compiled player: the level padded to its table's shape
    sequences, out = check.play([level], 3, seed)
    assert check.compare(sequences, out)["steps"] == 3 * STEPS
