"""Nut and Bolt's JAX twin (``envs/nut_and_bolt/twin.py``) is the game of the rules and the
view, index for index: random masked index sequences (Restart and Undo among them) from the
catalogue levels of every tier, generated levels of every tier and Hypothesis-chosen
generated levels give, at every step, the Python side's state and selection, planes, mask,
potential and solved flag (``tests/twin_checks.py``); and the view's computed
``target_changes`` equals the mask found by trying every board target.

One twin is bound to the padding of every tier at once (its largest levels fill each axis),
so the sequence player compiles once for the file."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("jax")

from puzzlegym import solvers  # noqa: E402
from puzzlegym.game.registry import get_game  # noqa: E402
from puzzlegym.game.splits import Split, TrainingLevels  # noqa: E402
from tests.twin_checks import TwinCheck, generated_levels  # noqa: E402

GAME = get_game("NutAndBolt")
STEPS = 40
SOLVED_TIERS = ("Easy", "Medium")  # the solver is quick there: sequences that solve the level


@pytest.fixture(scope="module")
def levels():
    catalogue = [level for tier in GAME.tiers for level in GAME.load_catalogue(tier)]
    return catalogue + generated_levels(GAME)


@pytest.fixture(scope="module")
def check(levels):
    from puzzlegym.envs.nut_and_bolt.twin import TWIN

    return TwinCheck(GAME, TWIN, levels, STEPS, batch=32)


def test_the_twin_plays_every_tier_as_the_rules_and_the_view_do(check, levels):
    scripts = {}
    for i, level in enumerate(levels):
        if level.tier in SOLVED_TIERS:
            solution = check.solution(level, list(solvers.solve(level).moves))
            scripts[i] = [solution, solution[: len(solution) // 2]]
    sequences, played = check.play(levels, 4, seed=0, scripts=scripts)
    seen = check.compare(sequences, played)
    assert seen["steps"] == 4 * len(levels) * STEPS
    solving = sum(len(full) <= STEPS for full, _half in scripts.values())
    assert solving >= 6 and seen["won"] >= solving  # every full solution solved its level
    assert seen["undo"] > 50 and seen["restart"] > 20 and seen["unchanged"] > 50


def test_the_check_catches_a_wrong_mask(check, levels):
    """A twin's record that differs from the Python side in one mask entry fails."""
    sequences, played = check.play(levels[:1], 1, seed=1)
    played.mask = played.mask.copy()
    played.mask[0, 3, 0] = ~played.mask[0, 3, 0]
    with pytest.raises(AssertionError, match="step 3"):
        check.compare(sequences, played)


@settings(max_examples=8, deadline=None)
@given(
    tier=st.sampled_from(SOLVED_TIERS),
    seed=st.integers(0, 2**31 - 1),
    play=st.integers(0, 2**32 - 1),
)
def test_generated_levels_chosen_by_hypothesis(check, tier, seed, play):
    level = TrainingLevels(GAME, tier, Split(1, seed), cache=None).level(0)
    assert check.fits(level)  # the tiers' generated levels have their catalogue's sizes
    sequences, played = check.play([level], 3, seed=play)
    assert check.compare(sequences, played)["steps"] == 3 * STEPS


def test_a_partial_transfer_and_its_undo_give_the_exact_boards(check):
    """Three nuts of colour 1 onto a bolt with room for two: two move, Undo puts them back
    and clears the selection; Undo with nothing to undo keeps it; Restart clears it."""
    from puzzlegym.envs.nut_and_bolt.rules import Level, State

    level = Level.from_json(
        {"id": "t", "tier": "Easy", "capacity": 4, "bolts": [[0, 1, 1, 1], [0, 1], [0, 0]]}
    )
    k = check.twin.n_targets
    restart, undo = k, k + 1
    script = [0, 1, 2, undo, 1, undo, restart]  # pick 0, onto 1, pick 2, undo, pick 1, ...
    _, played = check.play([level], 1, seed=2, scripts={0: [script]})
    start, moved = State(level.bolts), State(((0, 1), (0, 1, 1, 1), (0, 0)))
    boards = [
        check.twin.to_python(level, {key: v[0, t] for key, v in played.states.items()})
        for t in range(len(script) + 1)
    ]
    picks = [None, 0, None, 2, None, 1, 1, None]
    assert boards == [(start if t not in (2, 3) else moved, ui) for t, ui in enumerate(picks)]
    assert played.mask[0, 1, :3].tolist() == [True, True, False]  # bolt 2's top is colour 0
    assert played.potential[0, 2] == 0.25  # bolt 2's two nuts of colour 0, of 4 x 2
    assert played.mask[0, 2, undo] and not played.mask[0, 4, undo]
    assert played.mask[0, 6, restart] and not played.mask[0, 7, restart]
