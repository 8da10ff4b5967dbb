"""puzzlegym.jax.make and the gymnax env around a twin: arguments checked like the Python
env's, budgets counted as the Python env counts them, levels started by number, gymnax's
automatic reset, and the env running unchanged under gymnax's wrappers in a vmapped,
jitted PureJaxRL-style loop."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402
from gymnax.wrappers.purerl import FlattenObservationWrapper, LogWrapper  # noqa: E402

import puzzlegym.jax as pj  # noqa: E402
import puzzlegym.jax.factory as jax_make  # noqa: E402
from puzzlegym import solvers  # noqa: E402
from puzzlegym.base.errors import ConfigError  # noqa: E402
from puzzlegym.envs.maze_paint.rules import DIRECTIONS  # noqa: E402
from puzzlegym.game.registry import parse_env_id  # noqa: E402
from puzzlegym.training.protocol import Protocol  # noqa: E402

ID = "LongPuzzle/MazePaint-Easy"


@pytest.fixture(scope="module")
def easy():
    return pj.make(ID, levels="catalogue", level_bits=True)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"env_id": "LongPuzzle/Chess-Easy"}, "env id"),
        ({"levels": "procedural"}, "levels"),
        ({"levels": "catalogue", "num_levels": 5}, "num_levels"),  # no split
        ({"levels": "generated", "num_levels": 0}, "num_levels"),  # unbounded: not as arrays
        ({"levels": "generated", "num_levels": pj.MAX_LEVELS + 1}, "num_levels"),
        ({"levels": "generated", "num_levels": 2, "start_level": -1}, "start_level"),
        ({"levels": "generated", "num_levels": 2, "distinct": "yes"}, "distinct"),
        ({"levels": "catalogue", "distinct": True}, "distinct"),  # distinct already
        ({"progress": 1}, "progress"),
        ({"reward": "dense"}, "reward"),
        ({"budget_s": -1.0}, "budget_s"),
        ({"budget_s": float("nan")}, "budget_s"),
        ({"budget_s": True}, "budget_s"),
        ({"budget_s": 1e9}, "budget_s"),  # more actions than an episode may have
        ({"action_cost_s": 0}, "action_cost_s"),
        ({"budget_multiple": 0.5}, "budget_multiple"),
        ({"level_bits": "yes"}, "level_bits"),
    ],
)
def test_make_refuses_bad_arguments_naming_them(kwargs, field):
    kwargs = {"env_id": ID, **kwargs}
    with pytest.raises(ConfigError, match=f"^{field}: "):
        pj.make(**kwargs)


def test_the_defaults_are_what_training_uses():
    """``make(ID)`` plays the protocol's training levels (500 generated levels from seed 0,
    each board once, no level bits), never the catalogue, the test levels."""
    env, params = pj.make(ID, progress=False)
    proto = Protocol(ID)
    assert (env.spec.levels, env.spec.num_levels, env.spec.start_level) == (
        "generated",
        proto.num_levels,
        proto.start_level,
    )
    assert env.spec.level_bits == 0 and env.spec.row_of is not None  # distinct boards
    assert env.n_levels == len(set(env.spec.row_of)) <= proto.num_levels
    assert set(np.asarray(params.budget).tolist()) == {proto.train_budget_actions()}


def test_a_held_out_twin_plays_each_level_within_its_own_budget():
    from puzzlegym.training.heldout import generated_levels

    proto = Protocol(ID, num_levels=20)
    held = generated_levels(proto, 1_000_000, 4)
    budgets = [t.budget_actions for t in held.levels]
    env, params = pj.make_held_out(ID, held.held, budgets=budgets)
    assert np.asarray(params.budget).tolist() == budgets
    for bad, field in (
        ([1, 2], "budgets"),
        ([0, *budgets[1:]], r"budgets\[0\]"),
        ("12", "budgets"),
    ):
        with pytest.raises(ConfigError, match=f"^{field}: "):
            pj.make_held_out(ID, held.held, budgets=bad)


def test_a_game_without_a_twin_is_refused(monkeypatch):
    monkeypatch.setattr(jax_make, "find_twin", lambda game: None)
    with pytest.raises(ConfigError, match="^env id: MazePaint has no JAX twin"):
        pj.make(ID)


@pytest.mark.parametrize("budget_s, cost", [(2.0, 1.0), (0.3, 0.1), (7.25, 0.5), (1.0, 3.0)])
def test_budgets_count_actions_as_the_python_env_does(budget_s, cost):
    env = gym.make(ID, start="board", level=1, budget_s=budget_s, action_cost_s=cost)
    env.reset(seed=0)
    n, truncated = 0, False
    while not truncated:
        truncated = env.step({"type": "wait"})[3]
        n += 1
    assert pj.budget_actions(budget_s, cost) == n


def test_default_budgets_are_the_protocols(easy):
    _, params = easy
    protocol = Protocol(ID)
    assert params.budget.tolist() == [t.budget_actions for t in protocol.test_levels()]
    _, generated = pj.make(ID, levels="generated", num_levels=2, budget_multiple=3.0)
    assert (
        generated.budget.tolist() == [Protocol(ID, budget_multiple=3.0).train_budget_actions()] * 2
    )


def test_levels_start_by_number_and_bad_numbers_are_refused(easy):
    env, params = easy
    key = jax.random.key(0)
    game, tier = parse_env_id(ID)
    for k in (1, env.n_levels):
        _, state = env.reset_level(key, params, k)
        assert int(state.level) == k - 1
        level = game.load_catalogue(tier)[k - 1]
        assert env.twin.to_python(level, state.board) == (game.rules.initial_state(level), None)
    for bad in (0, env.n_levels + 1, True, 1.5):
        with pytest.raises(ConfigError, match="^level: "):
            env.reset_level(key, params, bad)
    generated, gparams = pj.make(ID, levels="generated", num_levels=2)
    assert int(generated.reset_level(key, gparams, 0)[1].level) == 0
    with pytest.raises(ConfigError, match="^level: "):
        generated.reset_level(key, gparams, 2)


def test_equal_envs_compare_equal_and_others_do_not(easy):
    env, _ = easy
    assert pj.make(ID, levels="catalogue", level_bits=True)[0] == env and hash(
        pj.make(ID, levels="catalogue", level_bits=True)[0]
    ) == hash(env)
    assert pj.make(ID, levels="catalogue", level_bits=True, reward="sparse")[0] != env
    assert (
        pj.make(ID, levels="catalogue", level_bits=True, budget_s=30.0)[0] != env
    )  # other level tables (budgets)


# Nut and Bolt Easy's training levels 1 and 12 of start_level=0 are one board (equal
# level_hash); levels 0 .. 13 hold 13 distinct boards
NB = "LongPuzzle/NutAndBolt-Easy"


def test_a_distinct_split_keeps_each_board_once_in_order_of_first_appearance():
    seeds, seed_params = pj.make(
        NB, levels="generated", num_levels=14, start_level=0, distinct=False
    )
    env, params = pj.make(NB, levels="generated", num_levels=14, start_level=0, distinct=True)
    assert (seeds.n_levels, env.n_levels) == (14, 13)
    assert [env.row(i) for i in range(14)] == [*range(12), 1, 12]
    assert [env.training_level(r) for r in (1, 11, 12)] == [1, 11, 13]
    assert [seeds.row(i) for i in (1, 12, 13)] == [1, 12, 13]  # every seed its own row
    # row 12 is training level 13's tables; rows 1 and 12 of the seeds' env one board
    for a, b in [(env.take(params, [12]), seeds.take(seed_params, [13]))]:
        for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
            assert np.array_equal(np.asarray(x), np.asarray(y))
    assert env != seeds and env.spec.fingerprint != seeds.spec.fingerprint
    for bad, field in ((14, "training_level"), (-1, "training_level")):
        with pytest.raises(ConfigError, match=f"^{field}: "):
            env.row(bad)
    with pytest.raises(ConfigError, match="^row: "):
        env.training_level(13)


def test_spaces_are_the_python_board_envs(easy):
    from puzzlegym.wrappers import make_sb3_env

    env, params = easy
    py = make_sb3_env(ID, actions="board", observation="board", start="board", buttons=("restart",))
    assert env.action_space(params).n == py.action_space.n
    assert env.observation_space(params).shape == py.observation_space.shape
    py.close()


def test_step_resets_by_itself_when_the_level_is_won(easy):
    env, params = easy
    game, tier = parse_env_id(ID)
    plan = [DIRECTIONS.index(m) for m in solvers.solve(game.load_catalogue(tier)[0]).moves]
    key = jax.random.key(3)
    _, state = env.reset_level(key, params, 1)
    step = jax.jit(env.step)
    total = 0.0
    for i, action in enumerate(plan):
        obs, state, reward, done, info = step(key, state, action, params)
        total += float(reward)
        assert bool(done) == (i == len(plan) - 1)
    assert bool(info["terminated"]) and not bool(info["truncated"])
    assert float(info["discount"]) == 0.0
    assert total == pytest.approx(1.0, abs=1e-6)  # the potential's whole range, once
    assert int(state.time) == 0 and not bool(state.won)  # a fresh level drawn
    assert obs.shape == env.obs_shape and np.array_equal(obs, env.get_obs(state, params))


def test_gymnax_wrappers_run_it_vmapped_in_a_jitted_loop(easy):
    """A PureJaxRL-style rollout: LogWrapper over FlattenObservationWrapper, 4 envs vmapped,
    masked random actions in lax.scan, all jitted once. The mask travels in the state, so the
    wrapped env's own ``action_mask`` reads it from the wrapper's state (it raised
    ``'LogEnvState' object has no attribute 'level'`` when the mask was computed from the
    level)."""
    env, params = easy
    wrapped = LogWrapper(FlattenObservationWrapper(env))
    n, steps = 4, 48

    @jax.jit
    def rollout(key):
        obs, state = jax.vmap(wrapped.reset, in_axes=(0, None))(jax.random.split(key, n), params)

        def body(carry, key):
            obs, state = carry
            mask = jax.vmap(wrapped.action_mask, in_axes=(0, None))(state, params)
            inner = state.env_state  # LogWrapper's state holds the env's, mask included
            same = jnp.all(mask == inner.legal_action_mask) & jnp.all(
                mask == jax.vmap(pj.legal_action_mask)(state)
            )
            keys = jax.random.split(key, 2 * n).reshape(2, n)
            action = jax.vmap(lambda k, m: jax.random.categorical(k, jnp.where(m, 0.0, -1e9)))(
                keys[0], mask
            )
            obs, state, reward, done, info = jax.vmap(wrapped.step, in_axes=(0, 0, 0, None))(
                keys[1], state, action, params
            )
            return (obs, state), (reward, done, info["returned_episode"], same)

        _, (rewards, dones, ended, same) = jax.lax.scan(
            body, (obs, state), jax.random.split(key, steps)
        )
        return obs, rewards, dones, ended, same

    obs, rewards, dones, ended, same = rollout(jax.random.key(0))
    assert bool(jnp.all(same))
    with pytest.raises(ConfigError, match="^state: a tuple holds no puzzlegym EnvState"):
        pj.legal_action_mask(())
    assert obs.shape == (n, int(np.prod(env.obs_shape)))
    assert rewards.shape == dones.shape == (steps, n)
    assert bool(jnp.all(dones == ended))  # the wrapper's episode ends are the env's
    assert int(dones.sum()) >= n  # budgets of 14..22 actions: every env ended an episode
