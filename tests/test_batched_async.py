"""The asynchronous mode of the batched vector env (BatchedVectorEnv.async_reset/send/recv,
WorkerPool.submit/collect_any): each env's trajectory is exactly the one SyncVectorEnv gives
with the same actions, whatever order the workers finish in; bad requests are rejected before
anything is sent; lockstep and asynchronous requests never mix; dead, silent or failing
workers are errors, never hangs."""

from __future__ import annotations

import functools
import os
import signal
import threading
import time

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from puzzlegym.base.errors import ActionError, ConfigError, WorkerError
from puzzlegym.rl.batched import BatchedVectorEnv
from puzzlegym.wrappers import make_sb3_env

EASY = "LongPuzzle/MazePaint-Easy"
# 6 actions per episode: every env truncates (or solves) and autoresets within the plans below
KW = dict(
    actions="board", buttons=("restart",), scale="1/16", grayscale=True, start="board", budget_s=6
)


def fns(n: int) -> list:
    return [functools.partial(make_sb3_env, EASY, **KW)] * n


def env_info(infos: dict, j: int) -> dict:
    """The info of env ``j`` out of batched infos (the keys whose ``_key`` mask is set)."""
    out = {}
    for key, value in infos.items():
        if key.startswith("_") or key == "env_id" or not infos[f"_{key}"][j]:
            continue
        out[key] = env_info(value, j) if isinstance(value, dict) else value[j]
    return out


def assert_same(a, b) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    else:
        assert type(a) is type(b) and a == b


@pytest.mark.parametrize(
    "mode, workers", [(AutoresetMode.NEXT_STEP, 2), (AutoresetMode.SAME_STEP, 3)]
)
def test_async_loop_gives_the_sync_trajectories(mode, workers):
    """5 envs in 2 (3 + 2) or 3 (2 + 2 + 1) workers, driven by the recv/send loop with a
    per-env action plan, against SyncVectorEnv stepping the same plan: per env, the same
    observations, rewards, terminations, truncations and info values at every step, over
    several autoresets (final_obs/final_info too in same-step mode)."""
    n, steps = 5, 20
    envs = BatchedVectorEnv(fns(n), workers=workers, autoreset_mode=mode)
    ref = gym.vector.SyncVectorEnv(fns(n), autoreset_mode=mode)
    try:
        plan = np.random.default_rng(3).integers(envs.single_action_space.n, size=(steps, n))
        want: list[list] = [[] for _ in range(n)]
        obs, infos = ref.reset(seed=7)
        for i in range(n):
            want[i].append((obs[i], 0.0, False, False, env_info(infos, i)))
        for actions in plan:
            obs, rewards, terms, truncs, infos = ref.step(actions)
            for i in range(n):
                want[i].append(
                    (obs[i], float(rewards[i]), bool(terms[i]), bool(truncs[i]), env_info(infos, i))
                )

        got: list[list] = [[] for _ in range(n)]
        sent = [0] * workers  # steps sent to each worker
        order = []
        envs.async_reset(seed=7)
        for _ in range(workers * (steps + 1)):  # the reset, then every step, of every worker
            obs, rewards, terms, truncs, infos = envs.recv()
            ids = infos["env_id"]
            assert ids.dtype.kind == "i" and infos["_env_id"].all()
            assert obs.shape == (len(ids), 56, 80, 1) and rewards.dtype == np.float64
            assert terms.dtype == truncs.dtype == np.bool_
            w = next(w for w, (lo, _) in enumerate(envs._pool.slices) if lo == ids[0])
            order.append(w)
            for j, i in enumerate(ids):
                got[i].append(
                    (obs[j], float(rewards[j]), bool(terms[j]), bool(truncs[j]), env_info(infos, j))
                )
            if sent[w] < steps:
                envs.send(plan[sent[w], ids], ids)
                sent[w] += 1
        assert not envs._pool.outstanding and sorted(order) == sorted(
            list(range(workers)) * (steps + 1)
        )
        ends = 0
        for i in range(n):
            assert len(got[i]) == len(want[i]) == steps + 1
            for t, (a, b) in enumerate(zip(got[i], want[i], strict=True)):
                assert np.array_equal(a[0], b[0]), (i, t)
                assert a[1:4] == b[1:4], (i, t)
                assert_same(a[4], b[4])
            ends += sum(term or trunc for _, _, term, trunc, _ in got[i])
        assert ends >= 10  # every env ended at least twice: autoresets were exercised
        # nothing outstanding: the lockstep calls work again on the same envs
        assert envs.step(plan[0])[0].shape == (n, 56, 80, 1)
    finally:
        envs.close()
        ref.close()


class Tick(gym.Env):
    """Counts its steps (observation ``[steps, last action]``); action 1 raises, action 2
    takes 0.3 s, action 3 stalls for 5 s."""

    observation_space = gym.spaces.Box(0, 255, (2,), np.uint8)
    action_space = gym.spaces.Discrete(4)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.steps = 0
        return np.zeros(2, np.uint8), {"seed": -1 if seed is None else seed}

    def step(self, action):
        if action == 1:
            raise RuntimeError("the board caught fire")
        if action in (2, 3):
            time.sleep(0.3 if action == 2 else 5)
        self.steps += 1
        return np.array([self.steps, action], np.uint8), 1.0, False, False, {}


def ticks(n: int = 5, workers: int = 2, **kw) -> BatchedVectorEnv:
    return BatchedVectorEnv([Tick] * n, workers=workers, **kw)


def drain(envs) -> dict:
    """recv until nothing is outstanding: {first env id: obs}."""
    out = {}
    while envs._pool.outstanding:
        obs, *_, infos = envs.recv()
        out[int(infos["env_id"][0])] = obs
    return out


def test_async_reset_seeds_each_env_and_obs_are_copies_or_views():
    for copy in (True, False):
        envs = ticks(copy=copy)
        try:
            envs.async_reset(seed=[5, None, 6, 7, 8])
            seen = {}
            while envs._pool.outstanding:
                obs, rewards, terms, truncs, infos = envs.recv()
                assert rewards.tolist() == [0.0] * len(obs) and not terms.any() and not truncs.any()
                assert np.shares_memory(obs, envs._observations) is not copy
                for j, i in enumerate(infos["env_id"]):
                    seen[int(i)] = int(infos["seed"][j])
            assert seen == {0: 5, 1: -1, 2: 6, 3: 7, 4: 8}
        finally:
            envs.close()


def test_bad_env_ids_and_actions_are_rejected_before_anything_is_sent():
    envs = ticks()  # worker 0: envs 0..2, worker 1: envs 3..4
    try:
        envs.async_reset(seed=0)
        drain(envs)
        zeros = np.zeros(3, dtype=np.int64)
        for bad, message in [
            (
                [0, 1],
                r"^env_ids: expected exactly the envs of one worker \(0\.\.2, 3\.\.4\), "
                r"got \[0, 1\]",
            ),
            ([2, 3], r"^env_ids: expected exactly the envs of one worker"),
            ([1, 0, 2], r"^env_ids: expected exactly the envs of one worker"),
            ([3, 4, 5], r"^env_ids: expected ids in 0\.\.4, got \[3, 4, 5\]"),
            (np.array([-1, 0, 1]), r"^env_ids: expected ids in 0\.\.4"),
            ([], r"^env_ids: expected a non-empty 1-D int array"),
            (np.array([[0, 1, 2]]), r"^env_ids: expected a non-empty 1-D int array"),
            ([True, True, False], r"^env_ids: expected a non-empty 1-D int array"),
            ([0.0, 1.0, 2.0], r"^env_ids: expected a non-empty 1-D int array"),
            ("012", r"^env_ids: expected a non-empty 1-D int array"),
            (3, r"^env_ids: expected a non-empty 1-D int array"),
        ]:
            with pytest.raises(ConfigError, match=message):
                envs.send(zeros, bad)
        with pytest.raises(
            ActionError, match=r"^actions: expected shape \(3,\) \(one action per env\), got \(2,\)"
        ):
            envs.send(np.zeros(2, dtype=np.int64), [0, 1, 2])
        with pytest.raises(ActionError, match=r"^actions: expected shape \(2,\)"):
            envs.send(zeros, np.array([3, 4]))
        with pytest.raises(ActionError, match=r"^actions: expected integers, got dtype float64"):
            envs.send(np.zeros(3), [0, 1, 2])
        with pytest.raises(ActionError, match=r"^actions: expected integers, got dtype <U1"):
            envs.send(["a", "b", "c"], [0, 1, 2])
        assert not envs._pool.outstanding
        assert not any(conn.poll(0.2) for conn in envs._pool.conns)  # no worker got a request
        envs.send(zeros, np.array([0, 1, 2]))
        with pytest.raises(
            ConfigError, match=r"^env_ids: envs 0\.\.2 \(worker 0\) are busy with 'step'"
        ):
            envs.send(zeros, [0, 1, 2])
        envs.send([0, 0], (3, 4))
        got = drain(envs)
        # every env stepped exactly once: none of the rejected requests reached a worker
        assert got[0].tolist() == [[1, 0]] * 3 and got[3].tolist() == [[1, 0]] * 2
        with pytest.raises(
            ConfigError, match=r"^recv: no asynchronous request is outstanding; send\(\) first"
        ):
            envs.recv()
    finally:
        envs.close()


def test_lockstep_and_async_requests_never_mix():
    envs = ticks()
    try:
        envs.async_reset(seed=0)
        refused = (
            r"refused while asynchronous requests are outstanding "
            r"\(worker 0 \(envs 0\.\.2\): reset, "
            r"worker 1 \(envs 3\.\.4\): reset\); recv\(\) their results first, or close"
        )
        for name, call in [
            ("step", lambda: envs.step(np.zeros(5, dtype=np.int64))),
            ("reset", lambda: envs.reset()),
            ("call", lambda: envs.call("reset")),
            ("get_attr", lambda: envs.get_attr("steps")),
            ("set_attr", lambda: envs.set_attr("steps", 0)),
            ("call", envs.render),
            ("async_reset", lambda: envs.async_reset()),
        ]:
            with pytest.raises(ConfigError, match=f"^{name}: {refused}"):
                call()
        envs.recv()
        with pytest.raises(
            ConfigError, match=r"^step: refused while .*\(worker \d \(envs \d\.\.\d\): reset\)"
        ):
            envs.step(np.zeros(5, dtype=np.int64))
        envs.recv()
        assert envs.get_attr("steps") == (0,) * 5  # nothing outstanding: lockstep again
        # and the other way round: no send while a lockstep request runs (here in a thread)
        stepping = threading.Thread(target=envs.step, args=(np.array([2, 0, 0, 0, 0]),))
        stepping.start()
        deadline = time.monotonic() + 10
        while envs._pool._in_request is None and time.monotonic() < deadline:
            time.sleep(0.001)
        with pytest.raises(
            ConfigError, match=r"^step: refused while the lockstep request 'step' runs"
        ):
            envs.send(np.zeros(2, dtype=np.int64), [3, 4])
        stepping.join()
        assert not envs._pool.outstanding and envs.get_attr("steps") == (1,) * 5
    finally:
        envs.close()


def test_env_error_during_async_step_is_raised_by_recv_and_the_worker_serves_on():
    envs = ticks()
    try:
        envs.async_reset()
        drain(envs)
        envs.send(np.array([0, 0, 1]), [0, 1, 2])
        with pytest.raises(
            WorkerError,
            match=(
                r"(?s)^recv: worker 0, env 2 raised RuntimeError: the board caught fire"
                r".*Traceback"
            ),
        ):
            envs.recv()
        assert not envs._pool.outstanding  # worker 0 is idle again
        envs.send(np.array([0, 0, 0]), [0, 1, 2])
        obs, rewards, *_ = envs.recv()
        assert rewards.tolist() == [1.0] * 3 and obs[:, 0].tolist() == [
            2,
            2,
            1,
        ]  # envs 0, 1 stepped before env 2 raised
    finally:
        envs.close()


def test_killed_worker_mid_async_is_an_error_not_a_hang():
    envs = ticks(timeout=30)
    envs.async_reset(seed=0)
    drain(envs)
    envs.send(np.zeros(3, dtype=np.int64), [0, 1, 2])
    envs.send(np.array([3, 3]), [3, 4])  # stalls: killed while stepping, before it can answer
    os.kill(envs._pool.pids[1], signal.SIGKILL)
    with pytest.raises(
        WorkerError, match=r"^recv: worker 1 \(envs 3\.\.4, pid \d+\) died.*exit code -9"
    ):
        while True:  # worker 0's reply may be read first
            envs.recv()
    for call in (
        envs.recv,
        lambda: envs.send(np.zeros(3, dtype=np.int64), [0, 1, 2]),
        envs.async_reset,
    ):
        with pytest.raises(WorkerError, match="closed"):
            call()
    envs.close()
    assert not any(p.is_alive() for p in envs._pool.procs)


def test_silent_worker_times_out_and_bad_timeouts_name_the_field():
    envs = ticks(timeout=30)
    try:
        envs.async_reset()
        drain(envs)
        envs.send(np.array([3, 0, 0]), [0, 1, 2])
        with pytest.raises(
            ConfigError, match=r"^timeout: expected a number > 0 and <= 3600 \(seconds\), got 0$"
        ):
            envs.recv(timeout=0)
        assert envs._pool.outstanding == {0: "step"}
        with pytest.raises(
            WorkerError,
            match=(
                r"^recv: worker 0 \(envs 0\.\.2\) did not answer within 1 s; "
                r"the vector env is closed"
            ),
        ):
            envs.recv(timeout=1)
    finally:
        envs.close()
    assert not any(p.is_alive() for p in envs._pool.procs)


def test_close_with_requests_outstanding():
    envs = ticks()
    envs.async_reset()
    envs.close()
    assert envs.closed and not any(p.is_alive() for p in envs._pool.procs)
    envs.close()  # idempotent
    envs = ticks()
    envs.async_reset()
    drain(envs)
    envs.send(np.array([2, 2, 2]), [0, 1, 2])  # still stepping (0.9 s) when close is called
    envs.send(np.array([0, 0]), [3, 4])
    envs.close()
    assert not any(p.is_alive() for p in envs._pool.procs) and not envs._pool.outstanding


def test_of_workers_ready_at_once_the_one_asked_longest_ago_answers_first():
    """No starvation: a worker that is always ready again by the next recv cannot keep
    answering ahead of one that has been waiting."""
    envs = ticks(6, workers=3)  # envs 0..1, 2..3, 4..5
    try:
        envs.async_reset()
        drain(envs)
        for ids in ([4, 5], [2, 3], [0, 1]):
            envs.send(np.zeros(2, dtype=np.int64), ids)
        deadline = time.monotonic() + 30
        while not all(conn.poll(0) for conn in envs._pool.conns) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [int(envs.recv()[4]["env_id"][0]) for _ in range(2)] == [4, 2]
        envs.send(np.zeros(2, dtype=np.int64), [4, 5])
        while not envs._pool.conns[2].poll(0) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [int(envs.recv()[4]["env_id"][0]) for _ in range(2)] == [0, 4]
    finally:
        envs.close()
