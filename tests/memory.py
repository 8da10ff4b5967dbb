"""Peak memory of a block, for the tests that attack a reader with a size bomb: what the
reader allocated while it refused (or read) the file, traced by ``tracemalloc``."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class Peak:
    """The most bytes Python held at once inside the block (set when the block ends)."""

    bytes: int = 0


@contextmanager
def peak_memory() -> Iterator[Peak]:
    """Trace Python's allocations inside the ``with`` block; the yielded :class:`Peak` holds
    their peak once the block ends, however it ends."""
    peak = Peak()
    tracemalloc.start()
    try:
        yield peak
    finally:
        peak.bytes = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
