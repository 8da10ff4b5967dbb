"""Issue 45, item 11: worker pools never fork a parent whose threads may hold locks. With JAX
loaded (its thread pool running) and a thread of the caller's holding a lock, every kind of
vector env and the level generator's pool start their workers (forkserver by default), play,
and no ``os.fork()`` happens in this process: JAX's own fork warning never fires."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from puzzlegym.base.processes import DEFAULT_START_METHOD, worker_context  # noqa: E402
from puzzlegym.levels.generate import warm_cache  # noqa: E402
from puzzlegym.rl.vector import make_vector_env  # noqa: E402

ENV = "LongPuzzle/MazePaint-Easy"


def test_pools_started_after_jax_is_loaded_never_fork_this_process(monkeypatch):
    jax.numpy.zeros(4).block_until_ready()  # JAX's runtime and its threads are up
    held = threading.Lock()
    held.acquire()  # a caller's thread in the middle of its work: a forked child inherits it
    forks: list[int] = []
    monkeypatch.setattr("os.fork", lambda: forks.append(1) or pytest.fail("os.fork was called"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for kind in ("batched", "sb3_batched", "async", "subproc"):
            extra = {"workers": 2} if "batched" in kind else {}
            venv = make_vector_env(ENV, n_envs=2, kind=kind, seed=0, **extra)
            try:
                if kind in ("batched", "async"):
                    venv.reset(seed=0)
                    obs = venv.step(np.zeros(2, dtype=np.int64))[0]
                else:
                    venv.reset()
                    venv.step_async(np.zeros(2, dtype=np.int64))
                    obs = venv.step_wait()[0]
                assert obs.shape[0] == 2
            finally:
                venv.close()
        counts = warm_cache("LongPuzzle/TruckEscape-Default", 4, workers=2)
    assert counts["levels"] == 4
    assert forks == [] and [str(w.message) for w in caught if "fork" in str(w.message)] == []
    assert DEFAULT_START_METHOD == "forkserver"  # Linux


def test_an_unknown_start_method_is_named():
    from puzzlegym.base.errors import ConfigError

    with pytest.raises(ConfigError, match="context: 'forked' is not a start method here"):
        worker_context("forked")
