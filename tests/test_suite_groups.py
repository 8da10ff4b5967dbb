"""The suite's worker groups reach pytest-xdist's scheduler (tests/conftest.py).

scripts/test.sh runs the suite with ``--dist loadgroup``: a worker takes a whole group, so a
module's fixtures (a Chromium, a JAX compile) are made once, and the Code Execution sandbox's
tests or Ray's never run on two workers at once. xdist carries a test's group to its scheduler
as a suffix of the test's node id (``...::test@group``); a pytest whose node ids no longer take
that suffix (pytest 9.2 with xdist 3.8) spreads a group over the workers, and nothing else
fails. These tests do."""

from __future__ import annotations

import pytest

from tests.conftest import worker_group


def _grouping(config: pytest.Config) -> bool:
    return bool(getattr(config.option, "loadgroup", False))


def test_this_test_carries_its_group_to_the_scheduler(request):
    if not _grouping(request.config):
        pytest.skip("not run under --dist loadgroup (scripts/test.sh runs it so)")
    group = worker_group(request.node.path.name, list(request.node.fixturenames))
    assert group == "test_suite_groups.py"
    assert request.node.nodeid.endswith(f"@{group}"), (
        f"{request.node.nodeid}: xdist's group suffix is missing, so --dist loadgroup spreads "
        "each group over the workers (see pyproject.toml's pytest range)"
    )


def test_the_groups_keep_the_sandbox_and_ray_each_on_one_worker():
    assert worker_group("test_sandbox_escapes.py", []) == "sandbox"
    assert worker_group("test_agents.py", ["tmp_path", "sandbox_available"]) == "sandbox"
    assert worker_group("test_rllib.py", []) == worker_group("test_distributed.py", []) == "ray"
    assert worker_group("test_cli.py", ["tmp_path"]) == "test_cli.py"
