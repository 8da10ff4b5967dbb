"""Issue 43, item 8: the GUI step without its frame copy. An observation is an array nobody else
holds: the pool reuses one only when its holder dropped it, patched region by region. Played
through real steps (solver moves, random clicks, restarts, resets), every observation equals
the screen, and no observation a caller kept ever changes afterwards."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest

from puzzlegym.agents import SolverAgent
from puzzlegym.backends.framepool import DirtyLog, FramePool
from puzzlegym.env import puzzle_env
from puzzlegym.screen.render import Rect
from puzzlegym.solvers import Unsolvable


@pytest.mark.parametrize("env_id", ["LongPuzzle/MazePaint-Easy", "LongPuzzle/RushHour-Easy"])
def test_observations_equal_the_screen_and_kept_ones_never_change(env_id):
    env = gym.make(env_id)
    base = puzzle_env(env, "test")
    rng = np.random.default_rng(0)
    kept: list[tuple[np.ndarray, np.ndarray]] = []  # (the array handed out, a copy of it then)
    try:
        obs, _ = env.reset(seed=0)
        solver = SolverAgent(base)
        for i in range(240):
            if i % 3 == 0:
                action = {
                    "type": "click",
                    "x": int(rng.integers(1280)),
                    "y": int(rng.integers(900)),
                }
            else:
                try:
                    action = solver()
                except Unsolvable:
                    action = {"type": "click", "x": 20, "y": 20}
            if i == 120:
                obs, _ = env.reset(seed=1)
                solver = SolverAgent(base)
                continue
            obs, _, term, trunc, _ = env.step(action)
            assert np.array_equal(obs, base.screenshot())  # what the screen shows now
            if i % 4 == 0:
                kept.append((obs, obs.copy()))  # a caller that keeps some observations
            if term or trunc:
                obs, _ = env.reset(seed=0)
                solver = SolverAgent(base)
        ids = [id(a) for a, _ in kept]
        assert len(set(ids)) == len(ids)  # a kept array is never handed out again
        assert all(np.array_equal(a, then) for a, then in kept)
        pool = base.backend.pool
        assert pool.patched > 100 and pool.copied < 120  # dropped arrays were reused, patched
    finally:
        env.close()


def test_an_array_held_anywhere_is_never_written():
    """The pool's own rule, directly: an array held by a caller (or through a view of it) is
    not reused; once dropped it is, with only the changed regions copied."""
    pool, log = FramePool(size=2), DirtyLog()
    frame = np.zeros((4, 6, 3), np.uint8)
    log.add([Rect(0, 0, 6, 4)])
    a = pool.take(frame, log)
    view = a[1:]
    frame[0, 0] = 9
    log.add([Rect(0, 0, 1, 1)])
    b = pool.take(frame, log)
    assert b is not a and a[0, 0, 0] == 0 and b[0, 0, 0] == 9
    del a  # the view still holds it
    frame[2, 3] = 7
    log.add([Rect(3, 2, 1, 1)])
    del b
    c = pool.take(frame, log)  # b is free: patched, not copied
    assert np.array_equal(c, frame) and view[0, 0, 0] == 0 and pool.patched == 1
    log.reset()  # a frame drawn some other way: nothing to patch from
    del c
    d = pool.take(frame, log)
    assert np.array_equal(d, frame) and pool.copied == 3


def test_a_copied_env_gets_a_pool_of_its_own():
    env = gym.make("LongPuzzle/MazePaint-Easy", start="board", level=1)
    try:
        obs, _ = env.reset(seed=0)
        twin = copy.deepcopy(env)
        a = puzzle_env(env, "t").backend.pool
        b = puzzle_env(twin, "t").backend.pool
        assert a is not b
        for mine in b._entries:  # the copy's own arrays (its first frame), none of the original's
            assert not np.shares_memory(mine[0], obs)
            assert all(not np.shares_memory(mine[0], theirs[0]) for theirs in a._entries)
        obs2, *_ = twin.step({"type": "press_key", "key": "ArrowDown"})
        assert not np.shares_memory(obs2, obs)
    finally:
        env.close()
