"""Issue 21, item 2: a ``serve`` session's episodes are released when they end. Each reset
used to leave the old env (frame buffers, a canvas with up to 64 MiB of cached widget images)
in a reference cycle that only a full garbage collection freed, so RSS grew with reset churn
(``benchmarks/bench_http.py resets`` measures it). Checked here with the cyclic collector off:
what refcounting alone frees."""

import gc
import weakref

import gymnasium as gym
import pytest

from puzzlegym.service.serve import Service

RESET = {"objective": "MazePaint-Easy", "level": 1, "start": "board"}
SWIPE = {"type": "drag", "x0": 640, "y0": 450, "x1": 640, "y1": 250}


@pytest.fixture
def no_gc():
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def parts(env):
    u = env.unwrapped
    return {
        name: weakref.ref(obj)
        for name, obj in [
            ("env", u),
            ("suite", u.suite),
            ("evaluator", u.evaluator),
            ("canvas", u.backend.canvas),
        ]
    }


def test_a_closed_env_is_freed_by_refcounting_alone(tmp_path, no_gc):
    env = gym.make(
        "LongPuzzle/MazePaint-Easy", record_dir=str(tmp_path / "rec"), level=1, start="board"
    )
    env.reset(seed=0)
    env.step(SWIPE)
    canvas = env.unwrapped.backend.canvas
    assert canvas.cached_bytes > 0
    env.close()
    assert canvas.cached_bytes == 0 and len(canvas._cache) == 0  # the images went at close
    refs = parts(env)
    del env, canvas
    assert {name: ref() is None for name, ref in refs.items()} == dict.fromkeys(refs, True)


def test_serve_releases_each_episode_when_the_next_reset_or_delete_ends_it(tmp_path, no_gc):
    service = Service(clock="sim", record_dir=tmp_path / "records")
    try:
        service.reset("s", RESET)
        service.act("s", SWIPE)
        first = parts(service.session("s").env)
        service.reset("s", RESET)  # ends the first episode
        service.act("s", SWIPE)
        assert {name: ref() is None for name, ref in first.items()} == dict.fromkeys(first, True)
        second = parts(service.session("s").env)
        service.delete("s")
        assert {name: ref() is None for name, ref in second.items()} == dict.fromkeys(second, True)
    finally:
        service.close()
