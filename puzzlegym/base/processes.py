"""The start method of puzzlegym's worker processes (vector envs' workers, level generation,
evaluation workers).

A process forked while another of its parent's threads holds a lock (JAX's and torch's thread
pools, an HTTP server's threads, a logging handler's) can deadlock in the child, so worker
pools never fork the caller: by default they start with ``forkserver`` (one server process,
started once from a fresh interpreter with :data:`PRELOAD` imported, forks each worker; the
server has no thread of the caller's) where the platform has it, else ``spawn``. A caller may
still name a start method (``fork`` included) where an API takes ``context``.
"""

from __future__ import annotations

import multiprocessing as mp
from multiprocessing.context import BaseContext

from puzzlegym.base.errors import ConfigError

__all__ = ["DEFAULT_START_METHOD", "PRELOAD", "worker_context"]

DEFAULT_START_METHOD = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
# what the fork server imports once, so each worker it forks starts without importing them:
# the env and the vector workers (numpy, Gymnasium, Pillow; no thread-pool library)
PRELOAD = ("puzzlegym.rl.workers", "puzzlegym.wrappers.sb3")


def worker_context(method: str | None = None) -> BaseContext:
    """The multiprocessing context of start method ``method`` (None: the safe default,
    :data:`DEFAULT_START_METHOD`); a ConfigError naming ``context`` for an unknown one."""
    name = DEFAULT_START_METHOD if method is None else method
    try:
        ctx = mp.get_context(name)
    except ValueError:
        raise ConfigError(
            f"context: {name!r} is not a start method here; allowed: "
            f"{', '.join(mp.get_all_start_methods())}"
        ) from None
    if name == "forkserver":
        ctx.set_forkserver_preload(list(PRELOAD))
    return ctx
