"""``puzzlegym eval --executor ray``: the episodes of an eval run as Ray tasks.

Each episode is one task (one CPU) running the same job function as the local executor, so
records and ``result.json`` files are written exactly as by a local run: on a cluster, the run
directory must be on a filesystem every node shares, and every node needs puzzlegym
installed (``pip install 'puzzlegym[distributed]'``).

Without ``address`` a private local Ray instance is started for the run
(:func:`start_local_ray`: bound to 127.0.0.1, no dashboard, ``workers`` CPUs) and stopped
after it; with ``address``
(``"auto"``, ``"ray://head:10001"``, ``"127.0.0.1:6379"``) the run joins that cluster. If
Ray is already initialised in this process, that instance is used as it is.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count

__all__ = ["LOOPBACK_ENV", "MAX_CPUS", "ray_results", "start_local_ray"]

# Ray reads this when it is imported: "0" makes it a single-machine instance whose processes
# listen on 127.0.0.1 only (the name is Ray's; with the default, Ray resolves 127.0.0.1 to the
# machine's outward address and its servers listen on every interface)
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
MAX_CPUS = 1024


def _ray():
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "executor: 'ray' needs Ray; install the distributed extra: "
            "pip install 'puzzlegym[distributed]'"
        ) from None
    return ray


def start_local_ray(num_cpus: int = 2, **init_kwargs: Any):
    """Start a local Ray instance for this process, listening on 127.0.0.1 only, with
    ``num_cpus`` CPUs and no dashboard (``init_kwargs`` go to ``ray.init``); returns the
    ``ray`` module. Stop it with ``ray.shutdown()``.

    Ray fixes its addresses when it is imported: call this before anything imports ``ray``,
    or set ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` in the environment first. A ``ray``
    imported without it is refused (:class:`~puzzlegym.base.errors.ConfigError`) rather than
    started on the machine's outward address."""
    check_count(num_cpus, "num_cpus", 1, MAX_CPUS, ConfigError)
    if "ray" in sys.modules and os.environ.get(LOOPBACK_ENV) != "0":
        raise ConfigError(
            f"Ray: imported before {LOOPBACK_ENV}=0 was set, so a local instance would listen "
            "on the machine's outward address; set it in the environment before Python starts "
            "(or before importing ray)"
        )
    os.environ[LOOPBACK_ENV] = "0"
    ray = _ray()
    if ray.is_initialized():
        raise ConfigError("Ray: already initialised in this process; call ray.shutdown() first")
    options = {"include_dashboard": False, "configure_logging": False, **init_kwargs}
    ray.init(address="local", num_cpus=num_cpus, _node_ip_address="127.0.0.1", **options)
    nodes = [node["NodeManagerAddress"] for node in ray.nodes()]
    if nodes != ["127.0.0.1"]:
        ray.shutdown()
        raise ConfigError(
            f"Ray: the local instance listened on {nodes}, not 127.0.0.1 (ray was imported "
            f"before {LOOPBACK_ENV}=0 was set); set it before Python starts"
        )
    return ray


def ray_results(
    run_job: Callable[[dict[str, Any]], dict],
    jobs: list[dict[str, Any]],
    workers: int = 2,
    address: str | None = None,
) -> Iterator[tuple[int, dict]]:
    """Run ``run_job`` on every job (``eval``'s job dicts) as a Ray task; yields ``(index,
    result)`` as the tasks finish."""
    ray = _ray()
    started = False
    if not ray.is_initialized():
        if address is None:
            start_local_ray(workers, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
        started = True
    try:
        task = ray.remote(num_cpus=1)(run_job)
        pending = {task.remote(job): i for i, job in enumerate(jobs)}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                yield pending.pop(ref), ray.get(ref)
    finally:
        if started:
            ray.shutdown()
