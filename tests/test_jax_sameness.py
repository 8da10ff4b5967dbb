"""Every twin is its game, index for index: the sameness harness (puzzlegym.jax.sameness)
over catalogue levels of every tier, generated levels and Hypothesis-chosen generated
levels of every game that has a twin (games join with no edit here), a check that the
harness catches a twin that is wrong, and the pair as a user builds it from docs/rl-jax.md
(the twin's defaults; the Python env's but for the buttons and the budget) played alike."""

from __future__ import annotations

import copy

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import puzzlegym.jax as pj  # noqa: E402
from puzzlegym.game.registry import games  # noqa: E402
from puzzlegym.game.splits import SEED_LIMIT  # noqa: E402
from puzzlegym.game.twin import has_twin  # noqa: E402
from puzzlegym.jax.sameness import (  # noqa: E402
    REWARD_TOLERANCE,
    close_pool,
    compare,
    replay,
    solution_actions,
)
from puzzlegym.wrappers import make_sb3_env  # noqa: E402

TIERS = {g.env_id(t): (g, t) for g in games().values() if has_twin(g) for t in g.tiers}
TWIN_IDS = list(TIERS)
FIRST_TIERS = [g.env_id(g.tiers[0]) for g in games().values() if has_twin(g)]
BUDGET_S = 60.0  # room for random play to win now and then
SLACK = 4  # actions beyond the longest catalogue solution of a tier


def clean(report) -> None:
    assert report.disagreements == 0, report.examples
    assert report.transitions > 0


SOLUTIONS: dict = {}  # the solver's solutions as GUI actions, shared by the tests' pools


def budget_s(env_id: str) -> float:
    """60 actions, or more where a tier's catalogue solutions are longer (Nut and Bolt's
    from Hard on): room for the longest and :data:`SLACK` more. One budget per id for the
    catalogue and the generated levels, so both replay with one compiled function."""
    game, tier = TIERS[env_id]
    longest = max(len(solution_actions(game, lv, SOLUTIONS)) for lv in game.load_catalogue(tier))
    return max(BUDGET_S, float(longest + SLACK))


def compared(env, params, **kwargs):
    pool: dict = {"solutions": SOLUTIONS}
    try:
        return compare(env, params, pool=pool, **kwargs)
    finally:
        close_pool(pool)


@pytest.mark.parametrize("env_id", TWIN_IDS)
def test_catalogue_levels_play_the_same(env_id):
    """Every catalogue level once, within a budget that holds its solution, so the episodes
    that play the whole solution first (0, 3, 6, ...) win in both envs, and the win, its
    reward and its termination are compared too."""
    env, params = pj.make(env_id, levels="catalogue", level_bits=True, budget_s=budget_s(env_id))
    report = compared(env, params, episodes=env.n_levels, seed=1)
    clean(report)
    assert report.episodes == env.n_levels  # every level once
    assert report.terminated >= -(-env.n_levels // 3)  # each whole solution played won


@pytest.mark.parametrize("env_id", TWIN_IDS)
def test_generated_levels_play_the_same(env_id):
    """Generated levels 8 and 9 (two rows: each row is the Python split's level of the
    same seed), each played with the whole solution first once and otherwise."""
    env, params = pj.make(
        env_id,
        levels="generated",
        num_levels=2,
        start_level=8,
        distinct=False,
        budget_s=budget_s(env_id),
    )
    report = compared(env, params, episodes=4, seed=2)
    clean(report)
    assert report.episodes == 4


def test_a_distinct_splits_rows_play_their_first_training_levels():
    """Nut and Bolt Easy's training levels 1 and 12 are one board: with distinct=True row 12
    is training level 13, which the Python env plays with first_level=13."""
    env_id = "LongPuzzle/NutAndBolt-Easy"
    env, params = pj.make(
        env_id,
        levels="generated",
        num_levels=14,
        start_level=0,
        distinct=True,
        budget_s=budget_s(env_id),
    )
    assert env.training_level(12) == 13
    report = compared(env, params, rows=[1, 12], episodes=2, seed=3)
    clean(report)
    assert report.episodes == 2


@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    env_id=st.sampled_from(TWIN_IDS),
    start_level=st.integers(0, SEED_LIMIT - 2),
    reward=st.sampled_from(["potential", "sparse"]),
    seed=st.integers(0, 2**16),
)
def test_hypothesis_chosen_levels_play_the_same(env_id, start_level, reward, seed):
    env, params = pj.make(
        env_id,
        levels="generated",
        num_levels=1,
        start_level=start_level,
        reward=reward,
        budget_s=BUDGET_S,
    )
    clean(compare(env, params, episodes=1, seed=seed))


def test_the_harness_catches_a_wrong_twin():
    """The check can fail: a twin whose potential is half the rules' and whose mask leaves
    out the first target disagrees on rewards and masks."""
    env, params = pj.make(
        "LongPuzzle/MazePaint-Easy", levels="catalogue", level_bits=True, budget_s=BUDGET_S
    )

    class Wrong(type(env.twin)):
        def potential(self, lv, state):
            return super().potential(lv, state) / 2

        def target_mask(self, lv, state):
            return super().target_mask(lv, state).at[0].set(False)

    wrong = copy.copy(env.twin)
    wrong.__class__ = Wrong
    report = compare(pj.PuzzleJaxEnv(wrong, env.spec, params), params, episodes=2, seed=1)
    assert report.fields["reward"] > 0 and report.fields["mask"] > 0
    assert report.disagreements > 0 and report.examples


@pytest.mark.parametrize("env_id", FIRST_TIERS)
def test_the_documented_pair_plays_the_same(env_id):
    """The twin built with make's defaults and the Python env built as the docs say (one
    compiled replay a game: every level row shares it), on catalogue levels 1-5 of every
    game's first tier (Nut and Bolt Easy has 3), four episodes a level, with the same
    masked random indices (episode 0 plays the solver's whole solution first, so it is won,
    episode 1 a random part of it): the spaces, and at every step the observation, the
    mask, the reward, ``terminated`` and ``truncated``, are equal."""
    env, params = pj.make(env_id, levels="catalogue", level_bits=True)
    game, tier = TIERS[env_id]
    levels = game.load_catalogue(tier)
    steps = wins = 0
    for k in range(1, min(5, len(levels)) + 1):
        # as docs/rl-jax.md builds it: the defaults but for buttons and the budget (no
        # max_targets: every level of a tier has the twin's layout by default)
        py = make_sb3_env(
            env_id,
            actions="board",
            observation="board",
            start="board",
            level=k,
            buttons=env.buttons,
            budget_s=int(params.budget[k - 1]) - 0.5,
        )
        try:
            assert py.action_space.n == env.num_actions
            assert py.get_wrapper_attr("n_targets") == env.n_targets
            assert py.observation_space.shape == env.obs_shape
            masks_of, targets_of = (py.get_wrapper_attr(a) for a in ("action_masks", "targets"))
            for episode in range(4):
                rng = np.random.default_rng([k, episode])
                plan = solution_actions(game, levels[k - 1], SOLUTIONS) if episode < 2 else []
                plan = plan[: rng.integers(len(plan) + 1)] if episode == 1 else plan
                obs, _ = py.reset(seed=episode)
                observations, masks, rewards, terms, truncs, actions = [obs], [], [], [], [], []
                done = False
                while not done:
                    masks.append(masks_of())
                    t = len(actions)
                    if t < len(plan) and plan[t] in targets_of():
                        action = targets_of().index(plan[t])
                    else:
                        plan = []
                        action = int(rng.choice(np.flatnonzero(masks[-1])))
                    obs, reward, terminated, truncated, _ = py.step(action)
                    for seq, x in zip(
                        (actions, observations, rewards, terms, truncs),
                        (action, obs, reward, terminated, truncated),
                        strict=True,
                    ):
                        seq.append(x)
                    done = terminated or truncated
                masks.append(masks_of())
                n = len(actions)
                assert n <= int(params.budget[k - 1])
                padded = np.zeros(params.max_steps_in_episode, dtype=np.int32)
                padded[:n] = actions
                t_obs, t_masks, t_rewards, t_terms, t_truncs, _ = jax.device_get(
                    replay(env, params, k - 1, jnp.asarray(padded))
                )
                where = f"level {k}, episode {episode}, actions {actions}"
                for t in range(n + 1):
                    assert np.array_equal(t_obs[t], observations[t]), f"obs {t}: {where}"
                    assert t_masks[t].tolist() == masks[t].tolist(), f"mask {t}: {where}"
                for t in range(n):
                    assert abs(float(t_rewards[t]) - rewards[t]) <= REWARD_TOLERANCE, where
                    assert (bool(t_terms[t]), bool(t_truncs[t])) == (terms[t], truncs[t]), (
                        f"done {t}: {where}"
                    )
                steps += n
                wins += terms[-1]
                assert terms[-1] or episode > 0  # the whole solution wins within the budget
        finally:
            py.close()
    assert steps > 0 and wins >= 1
