"""The batched vector envs (puzzlegym.rl.batched, puzzlegym.rl.sb3_batched): several envs per
worker process, one message per worker per step. They must behave exactly like the in-process
vector envs (Gymnasium SyncVectorEnv, SB3 DummyVecEnv) with the same seeds, across autoresets,
and fail loudly (never hang) when a worker dies, stalls or raises."""

from __future__ import annotations

import functools
import os
import signal
import time

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from puzzlegym.base.errors import ActionError, ConfigError, WorkerError
from puzzlegym.game.registry import env_ids
from puzzlegym.rl.batched import BatchedVectorEnv
from puzzlegym.rl.vector import make_vector_env
from puzzlegym.rl.workers import split
from puzzlegym.wrappers import BoardActions, make_sb3_env

EASY = "LongPuzzle/MazePaint-Easy"
# 6 actions per episode: every env truncates (or solves) and autoresets within the scripts below
KW = dict(
    actions="board", buttons=("restart",), scale="1/16", grayscale=True, start="board", budget_s=6
)


def fns(n: int, env_id: str = EASY, **kw) -> list:
    return [functools.partial(make_sb3_env, env_id, **{**KW, **kw})] * n


def assert_infos_equal(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], dict):
            assert_infos_equal(a[key], b[key])
        elif a[key].dtype == object:
            assert len(a[key]) == len(b[key])
            for x, y in zip(a[key], b[key], strict=True):
                assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y, key
        else:
            assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), key


def test_split_is_as_even_as_possible():
    assert split(8, 2) == [(0, 4), (4, 8)]
    assert split(5, 2) == [(0, 3), (3, 5)]
    assert split(3, 3) == [(0, 1), (1, 2), (2, 3)]


@pytest.mark.parametrize(
    "mode, spin_us",
    [
        (AutoresetMode.NEXT_STEP, None),
        (AutoresetMode.SAME_STEP, None),
        (AutoresetMode.NEXT_STEP, 0),
    ],
)
def test_same_as_sync_vector_env_across_autoresets(mode, spin_us):
    """5 envs in 2 workers (3 + 2) against SyncVectorEnv: spaces, then a scripted action
    sequence over several autoresets gives the same observations, rewards, terminations,
    truncations and infos (final_obs/final_info too in same-step mode); workers that poll
    before blocking (the default) or block at once."""
    spin = {} if spin_us is None else {"spin_us": spin_us}
    envs = BatchedVectorEnv(fns(5), workers=2, autoreset_mode=mode, **spin)
    ref = gym.vector.SyncVectorEnv(fns(5), autoreset_mode=mode)
    try:
        assert envs.workers == 2 and envs.num_envs == 5
        assert envs.single_observation_space == ref.single_observation_space
        assert envs.observation_space == ref.observation_space
        assert (
            envs.single_action_space == ref.single_action_space
            and envs.action_space == ref.action_space
        )
        assert envs.metadata["autoreset_mode"] == mode
        obs, infos = envs.reset(seed=7)
        obs_ref, infos_ref = ref.reset(seed=7)
        assert obs.shape == (5, 56, 80, 1) and np.array_equal(obs, obs_ref)
        assert_infos_equal(infos, infos_ref)
        rng = np.random.default_rng(3)
        ends = 0
        for _ in range(20):
            actions = rng.integers(envs.single_action_space.n, size=5)
            got, want = envs.step(actions), ref.step(actions)
            for x, y in zip(got[:4], want[:4], strict=True):
                assert x.dtype == y.dtype and np.array_equal(x, y)
            assert_infos_equal(got[4], want[4])
            ends += int(np.sum(got[2] | got[3]))
        assert ends >= 10  # every env ended at least twice: autoresets were exercised
        # reset of some envs only
        mask = np.array([False, True, False, False, True])
        obs, infos = envs.reset(seed=[None, 11, None, None, 12], options={"reset_mask": mask})
        obs_ref, infos_ref = ref.reset(
            seed=[None, 11, None, None, 12], options={"reset_mask": mask}
        )
        assert np.array_equal(obs, obs_ref)
        assert_infos_equal(infos, infos_ref)
        assert envs.call("action_masks")[1].dtype == np.bool_
        assert [m.tolist() for m in envs.call("action_masks")] == [
            m.tolist() for m in ref.call("action_masks")
        ]
        assert [s.id for s in envs.get_attr("spec")] == [EASY] * 5
    finally:
        envs.close()
        ref.close()


def test_idle_workers_block_after_polling_instead_of_spinning_on():
    """With the longest poll allowed (10 ms), a worker with no request still blocks: over a
    second of idleness the workers use a small fraction of a second of CPU (spinning on would
    use the whole second each). CPU seconds come from /proc (10 ms ticks)."""
    from puzzlegym.rl.workers import MAX_SPIN_US

    envs = BatchedVectorEnv(fns(2), workers=2, spin_us=MAX_SPIN_US)
    try:
        envs.reset(seed=0)
        envs.step(np.zeros(2, dtype=np.int64))
        before = envs._pool.cpu_seconds()
        time.sleep(1.0)
        used = [after - b for after, b in zip(envs._pool.cpu_seconds(), before, strict=True)]
        assert all(u < 0.2 for u in used), used
        envs.step(np.zeros(2, dtype=np.int64))  # and they still answer
    finally:
        envs.close()


def test_every_registered_id_steps_through_it():
    ids = env_ids()
    most = 0
    for env_id in ids:
        env = BoardActions(gym.make(env_id))
        most = max(most, env.n_targets)
        env.close()
    kw = dict(buttons=("restart", "next", "menu"), max_targets=most, budget_s=50)
    envs = BatchedVectorEnv([fns(1, i, **kw)[0] for i in ids], workers=2)
    try:
        obs, _ = envs.reset(seed=0)
        assert obs.shape == (len(ids), 56, 80, 1) and obs.dtype == np.uint8
        rng = np.random.default_rng(0)
        for _ in range(4):
            masks = envs.call("action_masks")
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, rewards, terminated, truncated, infos = envs.step(actions)
            assert (
                rewards.shape == (len(ids),) and "evaluator" not in infos and infos["_step"].all()
            )
        assert [spec.id for spec in envs.get_attr("spec")] == ids
        assert len({frame.tobytes() for frame in obs}) >= 6  # each game its own board
    finally:
        envs.close()


def test_dead_worker_is_an_error_not_a_hang():
    envs = BatchedVectorEnv(fns(4), workers=2, timeout=30)
    envs.reset(seed=0)
    os.kill(envs._pool.pids[1], signal.SIGKILL)
    with pytest.raises(WorkerError, match=r"worker 1 \(envs 2\.\.3, pid \d+\) died.*exit code -9"):
        envs.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(WorkerError, match="closed"):
        envs.step(np.zeros(4, dtype=np.int64))
    envs.close()
    envs.close()  # idempotent
    assert not any(p.is_alive() for p in envs._pool.procs)


class Flaky(gym.Env):
    """Steps fine, except action 1 raises, action 2 is rejected (ActionError), action 3
    stalls for 5 s."""

    observation_space = gym.spaces.Box(0, 255, (2,), np.uint8)
    action_space = gym.spaces.Discrete(4)
    module = os  # an attribute that cannot be pickled

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(2, np.uint8), {}

    def step(self, action):
        if action == 1:
            raise RuntimeError("the board caught fire")
        if action == 2:
            raise ActionError("action: 2 is not allowed here")
        if action == 3:
            time.sleep(5)
        return np.ones(2, np.uint8), 1.0, False, False, {}


def test_env_errors_are_reported_with_the_worker_traceback():
    envs = BatchedVectorEnv([Flaky] * 3, workers=2, timeout=1.0)
    try:
        envs.reset(seed=0)
        with pytest.raises(
            WorkerError,
            match=r"(?s)worker 1, env 2 raised RuntimeError: the board caught fire.*Traceback",
        ):
            envs.step(np.array([0, 0, 1]))
        with pytest.raises(ActionError, match="2 is not allowed"):
            envs.step(np.array([2, 0, 0]))
        obs, rewards, *_ = envs.step(np.array([0, 0, 0]))  # still serving
        assert rewards.tolist() == [1.0, 1.0, 1.0]
        with pytest.raises(WorkerError, match="cannot pickle 'module'"):
            envs.get_attr("module")  # a reply that cannot be sent
        with pytest.raises(Exception, match="pickle"):
            envs.call("step", lambda: 0)  # a request that cannot be sent: nothing is sent
        obs, rewards, *_ = envs.step(np.array([0, 0, 0]))  # the replies are still in turn
        assert rewards.tolist() == [1.0, 1.0, 1.0] and np.array_equal(
            obs, np.ones((3, 2), np.uint8)
        )
        with pytest.raises(ActionError, match=r"actions: expected shape \(3,\)"):
            envs.step(np.array([0, 0]))
        with pytest.raises(
            WorkerError, match=r"worker 0 \(envs 0\.\.1\) did not answer within 1 s"
        ):
            envs.step(np.array([3, 0, 0]))  # the stalled worker is terminated, not waited for
    finally:
        envs.close()
    assert not any(p.is_alive() for p in envs._pool.procs)


def test_a_failing_env_factory_is_reported():
    def broken():
        raise ConfigError("level: 99 is not in the catalogue")

    with pytest.raises(ConfigError, match="level: 99"):
        BatchedVectorEnv([Flaky, broken], workers=2)


def test_a_failing_env_factory_is_reported_while_another_worker_still_starts():
    """The failed worker reports and exits while the other is still building its env: its
    closed pipe is not a message nobody asked for, the factory's error is what is raised."""

    def slow():
        time.sleep(1.0)
        return Flaky()

    def broken():
        raise ConfigError("level: 99 is not in the catalogue")

    with pytest.raises(ConfigError, match="level: 99"):
        BatchedVectorEnv([slow, broken], workers=2)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(workers=0), "workers"),
        (dict(workers=3), "workers"),
        (dict(workers="2"), "workers"),
        (dict(workers=True), "workers"),
        (dict(timeout=0), "timeout"),
        (dict(timeout=float("nan")), "timeout"),
        (dict(start_timeout=-1), "start_timeout"),
        (dict(context="teleport"), "context"),
        (dict(autoreset_mode="whenever"), "autoreset_mode"),
        (dict(copy="yes"), "copy"),
        (dict(spin_us=-1), "spin_us"),
        (dict(spin_us=float("nan")), "spin_us"),
        (dict(spin_us=1e9), "spin_us"),
        (dict(spin_us=True), "spin_us"),
        (dict(spin_us="300"), "spin_us"),
    ],
)
def test_bad_arguments_name_the_field(kwargs, field):
    with pytest.raises(ConfigError, match=f"^{field}"):
        BatchedVectorEnv([Flaky] * 2, **kwargs)


def test_bad_env_fns_and_kinds_name_the_field():
    for bad in ([], "Flaky", [Flaky, 3], None):
        with pytest.raises(ConfigError, match=r"^env_fns"):
            BatchedVectorEnv(bad)
    with pytest.raises(ConfigError, match="^workers: applies to kind 'batched'"):
        make_vector_env(EASY, 2, kind="async", workers=2)
    with pytest.raises(ConfigError, match="^spin_us: applies to kind 'batched'"):
        make_vector_env(EASY, 2, kind="subproc", spin_us=0)
    with pytest.raises(
        ConfigError, match=r"^spin_us: expected a number 0..10000 \(microseconds\), got -5$"
    ):
        make_vector_env(EASY, 2, kind="sb3_batched", spin_us=-5, **KW)
    envs = make_vector_env(EASY, 3, kind="batched", workers=1, spin_us=0, **KW)
    try:
        assert isinstance(envs, BatchedVectorEnv) and envs.workers == 1
        assert envs.reset(seed=0)[0].shape == (3, 56, 80, 1)
    finally:
        envs.close()
    envs = BatchedVectorEnv([Flaky] * 2, workers=1)
    try:
        envs.reset()
        with pytest.raises(ConfigError, match=r"^seed"):
            envs.reset(seed="x")
        with pytest.raises(ConfigError, match=r"reset_mask"):
            envs.reset(options={"reset_mask": np.zeros(2, bool)})
        with pytest.raises(ConfigError, match=r"^values"):
            envs.set_attr("x", [1, 2, 3])
    finally:
        envs.close()


def test_sb3_batched_same_as_dummy_vec_env():
    venv = make_vector_env(EASY, 5, kind="sb3_batched", workers=2, seed=4, **KW)
    ref = make_vector_env(EASY, 5, kind="dummy", seed=4, **KW)
    try:
        assert venv.num_envs == 5 and venv.workers == 2
        assert (
            venv.observation_space == ref.observation_space
            and venv.action_space == ref.action_space
        )
        assert np.array_equal(venv.reset(), ref.reset()) and venv.reset_infos == ref.reset_infos
        rng = np.random.default_rng(5)
        ends = 0
        for _ in range(15):
            masks = np.stack(venv.env_method("action_masks"))
            assert np.array_equal(masks, np.stack(ref.env_method("action_masks")))
            actions = rng.integers(venv.action_space.n, size=5)
            got, want = venv.step(actions), ref.step(actions)
            for x, y in zip(got[:3], want[:3], strict=True):
                assert x.dtype == y.dtype and np.array_equal(x, y)
            for a, b in zip(got[3], want[3], strict=True):
                assert a.keys() == b.keys()
                if "terminal_observation" in a:
                    ends += 1
                    assert np.array_equal(
                        a.pop("terminal_observation"), b.pop("terminal_observation")
                    )
                assert a == b
            assert venv.reset_infos == ref.reset_infos
        assert ends >= 5
        assert venv.has_attr("action_masks") and not venv.has_attr("no_such_thing")
        assert [s.id for s in venv.get_attr("spec", indices=[4, 0])] == [EASY, EASY]
        venv.set_attr("probe", 3, indices=[1])
        assert venv.get_attr("probe", indices=[1]) == [3]
        with pytest.raises(ConfigError, match="^indices"):
            venv.get_attr("spec", indices=[7])
    finally:
        venv.close()
        ref.close()
    venv.close()  # idempotent


def test_ppo_and_maskable_ppo_run_through_it():
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    venv = make_vector_env(EASY, 4, kind="sb3_batched", workers=2, seed=0, **KW)
    try:
        for algo in (PPO, MaskablePPO):
            model = algo(
                "CnnPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, verbose=0
            )
            model.learn(total_timesteps=128)  # one rollout of 32 steps x 4 envs, one update
            assert model.num_timesteps == 128
    finally:
        venv.close()
