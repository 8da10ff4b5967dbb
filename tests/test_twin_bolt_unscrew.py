"""Bolt Unscrew's JAX twin (``envs/bolt_unscrew/twin.py``) is the game of the rules and the
view, index for index: random masked index sequences (Restart among them; the game has no
Undo) from the catalogue levels of both tiers, generated levels of both tiers and
Hypothesis-chosen generated levels give, at every step, the Python side's state and
selection, planes, mask, potential and solved flag (``tests/twin_checks.py``); and the view's
computed ``target_changes`` equals the mask found by trying every board target.

One twin is bound to the padding of both tiers at once (the Hard levels fill its axes), so
the sequence player compiles once for the file."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("jax")

from puzzlegym import solvers  # noqa: E402
from puzzlegym.game.registry import get_game  # noqa: E402
from puzzlegym.game.splits import Split, TrainingLevels  # noqa: E402
from tests.twin_checks import TwinCheck, generated_levels  # noqa: E402

GAME = get_game("BoltUnscrew")
STEPS = 48  # the Hard solutions' clicks (32..44) and a few random ones after


@pytest.fixture(scope="module")
def levels():
    catalogue = [level for tier in GAME.tiers for level in GAME.load_catalogue(tier)]
    return catalogue + generated_levels(GAME)


@pytest.fixture(scope="module")
def check(levels):
    from puzzlegym.envs.bolt_unscrew.twin import TWIN

    return TwinCheck(GAME, TWIN, levels, STEPS, batch=32)


def test_the_twin_plays_every_tier_as_the_rules_and_the_view_do(check, levels):
    scripts = {}
    for i, level in enumerate(levels):
        solution = check.solution(level, list(solvers.solve(level).moves))
        scripts[i] = [solution, solution[: len(solution) // 2]]
    sequences, played = check.play(levels, 3, seed=0, scripts=scripts)
    seen = check.compare(sequences, played)
    assert seen["steps"] == 3 * len(levels) * STEPS
    solving = sum(len(full) <= STEPS for full, _half in scripts.values())
    assert solving >= 16 and seen["won"] >= solving  # every full solution solved its level
    assert seen["restart"] > 20 and seen["unchanged"] > 50


def test_the_check_catches_a_wrong_plane(check, levels):
    """A twin's record that differs from the Python side in one plane cell fails."""
    sequences, played = check.play(levels[:1], 1, seed=1)
    played.planes = played.planes.copy()
    played.planes[0, 5, 0, 0, 0] ^= 1
    with pytest.raises(AssertionError, match="step 5"):
        check.compare(sequences, played)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), play=st.integers(0, 2**32 - 1))
def test_generated_levels_chosen_by_hypothesis(check, seed, play):
    level = TrainingLevels(GAME, "Easy", Split(1, seed), cache=None).level(0)
    assert check.fits(level)  # no generated level is larger than the Hard catalogue's
    sequences, played = check.play([level], 3, seed=play)
    assert check.compare(sequences, played)["steps"] == 3 * STEPS


def test_a_pinned_screw_a_fall_and_the_win_give_the_exact_boards(check):
    """A bar held by screws 0 and 1 under a pad held by screw 1 alone, which pins screw 0:
    clicking screw 0 does nothing; screw 1 to anchor 2 drops the pad (and frees screw 0);
    anchor 1 stays blocked under the bar; screw 0 to anchor 3 drops the bar and wins."""
    from puzzlegym.envs.bolt_unscrew.rules import Level, State

    level = Level.from_json(
        {
            "id": "t",
            "tier": "Easy",
            "size": [5, 1],
            "anchors": [[0, 0], [1, 0], [3, 0], [4, 0]],
            "boards": [
                {"kind": "bar", "layer": 0, "holes": [0, 1]},
                {"kind": "pad", "layer": 1, "holes": [1]},
            ],
            "screws": [0, 1],
        }
    )
    script = [0, 1, 2, 0, 1, 3]
    _, played = check.play([level], 1, seed=2, scripts={0: [script]})
    boards = [
        check.twin.to_python(level, {key: v[0, t] for key, v in played.states.items()})
        for t in range(len(script) + 1)
    ]
    start, dropped = State(0b11, 0b0011), State(0b01, 0b0101)
    assert boards == [
        (start, None),
        (start, None),
        (start, 1),
        (dropped, None),
        (dropped, 0),
        (dropped, 0),
        (start, None),  # won, and the level starts again
    ]
    assert played.mask[0, 0, :4].tolist() == [False, True, False, False]
    assert played.mask[0, 2, :4].tolist() == [False, True, True, True]
    assert played.mask[0, 4, :4].tolist() == [True, False, True, True]
    assert played.potential[0, 3] == 0.5 and played.won[0].tolist().index(True) == 5


def test_levels_beyond_one_lane_of_anchors_and_boards_play_the_same():
    """Three catalogue levels side by side (62 anchors, 36 boards): sets of two uint32 lanes
    each, bits beyond the first lane in play."""
    from puzzlegym.envs.bolt_unscrew.rules import Board, Level, apply, initial_state, is_solved
    from puzzlegym.envs.bolt_unscrew.twin import TWIN

    catalogue = {level.id: level for tier in GAME.tiers for level in GAME.load_catalogue(tier)}
    parts = [("bolt-hard-08", (0, 0)), ("bolt-easy-07", (0, 7)), ("bolt-easy-05", (7, 7))]
    anchors, boards, screws, moves = [], [], [], []
    for name, (dx, dy) in parts:
        level, base = catalogue[name], len(anchors)
        anchors += [(x + dx, y + dy) for x, y in level.anchors]
        boards += [Board(b.kind, b.layer, tuple(a + base for a in b.holes)) for b in level.boards]
        screws += [a + base for a in level.screws]
        moves += [(s + base, t + base) for s, t in solvers.solve(level).moves]
    size = (1 + max(x for x, _ in anchors), 1 + max(y for _, y in anchors))
    level = Level("three", "Hard", size, tuple(anchors), tuple(boards), tuple(screws))
    level.validate()
    state = initial_state(level)
    for move in moves:
        state = apply(level, state, move)
    assert is_solved(level, state)  # the three solutions, one after another, solve it
    check = TwinCheck(GAME, TWIN, [level], 2 * len(moves) + 8, batch=2)
    assert check.twin.sizes["anchors"] > 32 and check.twin.sizes["boards"] > 32
    solution = check.solution(level, moves)
    sequences, played = check.play([level], 2, seed=3, scripts={0: [solution]})
    assert check.compare(sequences, played)["won"] >= 1
