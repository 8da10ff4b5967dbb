"""``puzzlegym eval --executor ray``: the episodes of an eval run as Ray tasks.

Each episode is one task (one CPU) running the same job function as the local executor, so
records and ``result.json`` files are written exactly as by a local run: on a cluster, the run
directory must be on a filesystem every node shares, and every node needs puzzlegym
installed (``pip install 'puzzlegym[distributed]'``).

Without ``address`` a private local Ray instance is started for the run (bound to
127.0.0.1, no dashboard, ``workers`` CPUs) and stopped after it; with ``address``
(``"auto"``, ``"ray://head:10001"``, ``"127.0.0.1:6379"``) the run joins that cluster. If
Ray is already initialised in this process, that instance is used as it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from puzzlegym.errors import ConfigError

__all__ = ["ray_results"]


def _ray():
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "executor: 'ray' needs Ray; install the distributed extra: pip install 'puzzlegym[distributed]'"
        ) from None
    return ray


def ray_results(jobs: list[dict[str, Any]], workers: int = 2, address: str | None = None) -> Iterator[tuple[int, dict]]:
    """Run every job (``eval``'s job dicts) as a Ray task; yields ``(index, result)`` as the
    tasks finish."""
    from puzzlegym.evaluation.eval import _run_job

    ray = _ray()
    started = False
    if not ray.is_initialized():
        if address is None:
            ray.init(num_cpus=workers, include_dashboard=False, _node_ip_address="127.0.0.1",
                     log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
        started = True
    try:
        task = ray.remote(num_cpus=1)(_run_job)
        pending = {task.remote(job): i for i, job in enumerate(jobs)}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                yield pending.pop(ref), ray.get(ref)
    finally:
        if started:
            ray.shutdown()
