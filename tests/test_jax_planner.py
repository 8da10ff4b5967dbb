"""The JAX planning learner (puzzlegym.jax.planner: Gumbel MuZero by mctx, the twin as its
model) on Maze Paint Easy: the config names what is wrong and round-trips; the mask is
respected by every searched action and every policy target; search with an untrained
network wins catalogue levels that the same network without search does not; training
makes the network learn the search's policy and the returns; and two updates in one call
equal one and one across two calls (what a resumed run relies on)."""

from __future__ import annotations

import json

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("mctx")

import jax.numpy as jnp  # noqa: E402

import puzzlegym.jax  # noqa: E402
from puzzlegym.base.errors import ConfigError  # noqa: E402
from puzzlegym.jax.planner import (  # noqa: E402
    METRICS,
    Planner,
    PlannerConfig,
    SearchEvaluator,
    search_policy,
)
from puzzlegym.jax.policy.network import NetworkSpec  # noqa: E402
from puzzlegym.jax.ppo import PPOConfig  # noqa: E402

ENV_ID = "LongPuzzle/MazePaint-Easy"
SPEC = NetworkSpec(kind="mlp", channels=(), features=32)
CONFIG = PlannerConfig(
    num_envs=16,
    num_steps=8,
    num_simulations=8,
    max_num_considered_actions=5,
    num_minibatches=2,
    learning_rate=3e-3,
    network=SPEC,
)
UPDATES = 20
SEEDS = 2


@pytest.fixture(scope="module")
def planner():
    """A tiny planner on four generated training levels (one compiled update loop shared by
    the tests)."""
    env, params = puzzlegym.jax.make(
        ENV_ID,
        levels="generated",
        num_levels=4,
        start_level=0,
        level_bits=False,
        distinct=True,
        progress=False,
    )
    return Planner(env, params, CONFIG, chunk=UPDATES)


@pytest.fixture(scope="module")
def start(planner):
    return planner.init(jax.random.split(jax.random.PRNGKey(0), SEEDS))


@pytest.fixture(scope="module")
def trained(planner, start):
    end, rows = planner.run(start, UPDATES)
    return end, np.asarray(rows)


def column(rows, name):
    return rows[..., METRICS.index(name)]


# ------------------------------------------------------------------------------- a) config
@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"num_simulations": 0}, "num_simulations"),
        ({"learning_rate": -1e-3}, "learning_rate"),
        ({"max_num_considered_actions": 0}, "max_num_considered_actions"),
        ({"gumbel_scale": float("nan")}, "gumbel_scale"),
        ({"td_lambda": 1.5}, "td_lambda"),
        ({"num_envs": True}, "num_envs"),
        ({"num_minibatches": 3}, "num_minibatches"),  # 16 * 8 steps do not split in 3
        ({"network": {"kind": "mlp"}}, "network"),
        ({"search_value": "no"}, "search_value"),
    ],
)
def test_a_bad_field_is_refused_by_name(changes, field):
    with pytest.raises(ConfigError, match=f"^{field}: "):
        PlannerConfig(**{**CONFIG.to_dict(), "network": SPEC, **changes})


def test_the_config_round_trips_and_refuses_unknown_keys():
    doc = json.loads(json.dumps(CONFIG.to_dict()))
    assert PlannerConfig.from_dict(doc) == CONFIG
    assert PlannerConfig.from_dict({}) == PlannerConfig()
    assert CONFIG.steps_per_update == 16 * 8
    with pytest.raises(ConfigError, match="^simulations: unknown key; allowed: num_envs, "):
        PlannerConfig.from_dict({**doc, "simulations": 4})
    with pytest.raises(ConfigError, match="^network.depth: unknown key"):
        PlannerConfig.from_dict({**doc, "network": {**SPEC.to_dict(), "depth": 2}})
    with pytest.raises(ConfigError, match="^planner: expected a mapping"):
        PlannerConfig.from_dict([1])
    with pytest.raises(ConfigError, match="^num_simulations: "):
        PlannerConfig.from_dict({**doc, "num_simulations": 0})
    env, params = puzzlegym.jax.make(ENV_ID, levels="catalogue", level_bits=False, progress=False)
    with pytest.raises(ConfigError, match="^config: expected a PlannerConfig"):
        Planner(env, params, PPOConfig())
    with pytest.raises(ConfigError, match="^chunk: "):
        Planner(env, params, CONFIG, chunk=0)
    network = SPEC.build(env.num_actions)
    with pytest.raises(ConfigError, match="^num_simulations: "):
        search_policy(env, network, -1)
    with pytest.raises(ConfigError, match="^max_num_considered_actions: "):
        search_policy(env, network, 4, max_num_considered_actions=0)


# ------------------------------------------------------------------------------- b) masks
def test_searched_actions_and_policy_targets_respect_the_mask(planner, start):
    """Three rollouts (24 steps of 16 envs of 2 seeds, past the 22-action budget, so episodes
    end and restart): each recorded mask is the env's mask of the pre-step state, the action
    is allowed by it and the policy target puts no mass outside it."""
    env, params = planner.env, planner.env_params
    state, masked = start, 0
    mask_of = jax.jit(jax.vmap(jax.vmap(jax.vmap(lambda s: env.action_mask(s, params)))))
    for _ in range(3):
        state, record = planner.rollout(state)
        mask = np.asarray(record.mask)
        action = np.asarray(record.action)
        weights = np.asarray(record.weights)
        assert mask.shape == (SEEDS, CONFIG.num_steps, CONFIG.num_envs, planner.n_actions)
        np.testing.assert_array_equal(mask, np.asarray(mask_of(record.state)))
        assert np.take_along_axis(mask, action[..., None], axis=-1).all()
        assert (weights[~mask] == 0.0).all()
        np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-5)
        masked += int((~mask).sum())
    assert masked > 0  # the mask forbade actions: the check above was not vacuous
    assert int(np.asarray(state.update).max()) == 0  # a rollout trains nothing

    # the same through search_policy, on the states the rollouts reached, with and without
    # search, greedy and not
    states = jax.tree.map(lambda x: x[0], state.env_state)
    mask = np.asarray(jax.vmap(lambda s: env.action_mask(s, params))(states))
    net_params = jax.tree.map(lambda x: x[0], state.params)
    for sims in (0, 4):
        act = search_policy(env, planner.network, sims, 5, CONFIG.gamma)
        for greedy in (False, True):
            action, weights = act(net_params, params, states, jax.random.PRNGKey(1), greedy)
            assert np.take_along_axis(mask, np.asarray(action)[:, None], axis=-1).all()
            assert (np.asarray(weights)[~mask] == 0.0).all()


# ------------------------------------------------------------------- c) search beats none
def test_search_wins_levels_an_untrained_network_alone_does_not():
    """With every weight zero (a uniform prior, a value of 0), the greedy masked policy wins
    no catalogue level of Maze Paint Easy within its budget; the same network with 16
    simulations of search (greedy: no Gumbel noise) wins most of them."""
    env, params = puzzlegym.jax.make(ENV_ID, levels="catalogue", level_bits=False, progress=False)
    network = SPEC.build(env.num_actions)
    zero = jax.tree.map(
        jnp.zeros_like, network.init(jax.random.PRNGKey(0), jnp.zeros((1, *env.obs_shape)))
    )
    rows, budgets = np.arange(env.n_levels), np.asarray(params.budget)
    shares = {}
    for sims in (0, 16):
        evaluator = SearchEvaluator(env, params, network, sims, max_num_considered_actions=5)
        won = evaluator.success(zero, rows, budgets, 1, jax.random.PRNGKey(0), greedy=True)
        assert won.shape == (env.n_levels,)
        shares[sims] = float(won.mean())
    assert shares[16] > shares[0]
    assert shares[16] >= 0.5


# -------------------------------------------------------------------------- d) it learns
def test_training_fits_the_search_policy_and_the_returns(trained):
    """Over UPDATES updates of every seed: the network's argmax agrees with the searched
    action far more often than at the start (it learns the improved policy), the policy's
    cross-entropy to the search's targets and the value's error fall, and episodes end,
    some solved."""
    _, rows = trained
    assert rows.shape == (SEEDS, UPDATES, len(METRICS))
    first, last = rows[:, 0], rows[:, -5:].mean(axis=1)
    pick = METRICS.index
    assert (last[:, pick("agreement")] > first[:, pick("agreement")] + 0.1).all()
    assert (last[:, pick("policy_loss")] < first[:, pick("policy_loss")]).all()
    assert (last[:, pick("value_loss")] < first[:, pick("value_loss")] / 2).all()
    assert (column(rows, "episodes").sum(axis=1) > 0).all()
    assert (column(rows, "terminated_share").max(axis=1) > 0).all()
    assert np.isfinite(rows).all()


# -------------------------------------------------------------------- e) resume is exact
def test_two_updates_in_one_call_equal_one_and_one(planner, start, trained):
    both, rows = planner.run(start, 2)
    once, first = planner.run(start, 1)
    twice, second = planner.run(once, 1)
    for a, b in zip(jax.tree.leaves(both), jax.tree.leaves(twice), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    rows, first, second = np.asarray(rows), np.asarray(first), np.asarray(second)
    np.testing.assert_array_equal(rows[:, 0], first[:, 0])
    np.testing.assert_array_equal(rows[:, 1], second[:, 0])
    assert (rows[:, 2:] == 0).all()  # rows past n are zero
    np.testing.assert_array_equal(np.asarray(both.update), [2] * SEEDS)
    # and the first two updates of the UPDATES-update run are these
    np.testing.assert_array_equal(rows[:, :2], trained[1][:, :2])
