"""Start ``puzzlegym serve`` (or ``play``) as a child process and learn its URL, within a
bounded wait: what benchmarks, scripts and tests that talk to a real service process share."""

from __future__ import annotations

import re
import selectors
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["start_service"]

# the line the service prints once it listens
_URL = re.compile(r"http://([\d.]+):(\d+)/")


def start_service(
    args: Sequence[str], *, timeout_s: float = 60.0, cwd: str | Path | None = None
) -> tuple[subprocess.Popen, str]:
    """``python -m puzzlegym <args> --port 0`` as a child process, and its base URL
    (``http://127.0.0.1:PORT``) once it listens. Raises RuntimeError, with the child killed,
    when it has not printed its URL within ``timeout_s`` seconds or printed something else.
    The child's stderr is this process's."""
    if not args or args[0] not in ("serve", "play"):
        raise ValueError(f"args: expected ['serve', ...] or ['play', ...], got {list(args)!r}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "puzzlegym", *args, "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )
    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        ready = sel.select(timeout_s)
    line = proc.stdout.readline() if ready else ""
    match = _URL.search(line)
    if match is None:
        proc.kill()
        proc.wait(timeout=30)
        said = f"printed {line[:200]!r}" if ready else f"printed nothing in {timeout_s:g} s"
        raise RuntimeError(f"puzzlegym {args[0]} did not start: it {said}")
    return proc, f"http://{match.group(1)}:{match.group(2)}"
