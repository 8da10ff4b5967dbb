import os

# Ray's local instances in the tests listen on 127.0.0.1 only: Ray reads this when it is
# imported (puzzlegym.evaluation.distributed.start_local_ray refuses a ray imported without it)
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"

# JAX keeps what it compiles in a directory of this test run (jax reads the variable when it
# is imported; subprocesses inherit it): a JAX test's subprocess (a training run killed for
# real, then resumed) loads what this process compiled instead of compiling it again
if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
    import atexit
    import shutil
    import tempfile

    _jax_cache = tempfile.mkdtemp(prefix="puzzlegym-jax-cache-")
    os.environ["JAX_COMPILATION_CACHE_DIR"] = _jax_cache
    atexit.register(shutil.rmtree, _jax_cache, True)

# the tests' XLA compiles without the CPU backend's costly optimisations (read when jax's
# backend starts; subprocesses inherit it): the same programs, about a third less compile
# time; the twins compute in integers, and each test compares runs compiled alike. Figures
# of speed come from benchmarks/, which run with XLA's defaults.
if "xla_backend_optimization_level" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "")
        + " --xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"
    ).strip()

import threading  # noqa: E402
from contextlib import contextmanager

import gymnasium as gym
import numpy as np
import pytest

import puzzlegym  # noqa: F401  (registers the ids)
from puzzlegym.game.registry import env_ids


@pytest.fixture(autouse=True, scope="session")
def _level_cache(tmp_path_factory):
    """Generated levels are cached in a directory of this test run (examples run as
    subprocesses inherit it), never in the user's cache."""
    old = os.environ.get("PUZZLEGYM_CACHE")
    os.environ["PUZZLEGYM_CACHE"] = str(tmp_path_factory.mktemp("level-cache"))
    yield
    if old is None:
        os.environ.pop("PUZZLEGYM_CACHE", None)
    else:
        os.environ["PUZZLEGYM_CACHE"] = old


@pytest.fixture
def make_env():
    envs = []

    def _make(env_id="LongPuzzle/MazePaint-Easy", **kwargs):
        env = gym.make(env_id, **kwargs)
        envs.append(env)
        return env

    yield _make
    for env in envs:
        env.close()


def frame_hash(frame: np.ndarray) -> str:
    import hashlib

    return hashlib.sha256(frame.tobytes()).hexdigest()


class LiveBoard:
    """The board ``env`` plays now, read at every attribute access. A board is immutable (each
    change makes a new one), so a test that keeps ``suite.board`` across steps keeps the board
    as it was; this handle follows the play."""

    def __init__(self, env) -> None:
        self._env = env

    def __getattr__(self, name: str):
        return getattr(self._env.unwrapped.suite.board, name)


ALL_IDS = env_ids()


@pytest.fixture
def sandbox_available():
    """Skip (with the reason) where bubblewrap cannot run the Code Execution sandbox; found by
    actually starting one (puzzlegym.sandbox.isolation.require)."""
    from puzzlegym.sandbox.isolation import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap cannot run the sandbox here: {exc}")


@contextmanager
def scripted(script: dict):
    """The scripted chat-completions server (puzzlegym.service.scripted_model) serving
    ``script`` in a thread: yields (its ScriptedModel, its base URL)."""
    from puzzlegym.service.scripted_model import make_scripted_server

    server = make_scripted_server(script)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.scripted, f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def view_records(tmp_path_factory):
    """The episode viewer's small records (tests/view_episodes.py), made once per session."""
    from tests.view_episodes import make_records

    return make_records(tmp_path_factory.mktemp("view-records"))


# ------------------------------------------------------------ running on several workers
# scripts/test.sh runs the suite on pytest-xdist workers (--dist loadgroup). A worker takes a
# whole group: a test module (its module-scoped fixtures, a Chromium, a JAX compile shared by
# its tests, are made once), except the two kinds of tests that must not run beside each other
# on two workers: those that start the Code Execution sandbox (the kernel's RLIMIT_NPROC counts
# the tasks of its unprivileged uid, which every sandbox shares, and the tests fill it on
# purpose) and those that start a local Ray instance.
SANDBOX_MODULES = frozenset({"test_sandbox_escapes.py"})
RAY_MODULES = frozenset({"test_distributed.py", "test_rllib.py"})


def worker_group(module: str, fixtures: list[str]) -> str:
    """The xdist group of a test of file ``module`` that uses ``fixtures``."""
    if module in SANDBOX_MODULES or "sandbox_available" in fixtures:
        return "sandbox"
    if module in RAY_MODULES:
        return "ray"
    return module


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups into node ids
def pytest_collection_modifyitems(config, items):
    for item in items:
        group = worker_group(item.path.name, list(getattr(item, "fixturenames", ())))
        item.add_marker(pytest.mark.xdist_group(group))
