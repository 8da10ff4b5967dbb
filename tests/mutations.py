"""Mutations of valid JSON documents for the property tests of every reader of handed-over
files and requests (issue 45): the key paths of a document, a copy with one value replaced, and
the odd values a hostile writer would put there."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

# types, nulls, huge and tiny numbers, strings where lists go, a placeholder of the viewer
ODD_VALUES = [None, "x", "", -1, 2**70, 1e308, 0.5, True, [], {}, ["x"], {"a": None}, "{{DATA}}"]


def key_paths(doc: Any, prefix: tuple = (), items: int | None = None) -> Iterator[tuple]:
    """Every key path of ``doc`` (into objects, and into the first ``items`` of each list)."""
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from key_paths(v, (*prefix, k), items)
    elif isinstance(doc, list):
        for i, v in enumerate(doc if items is None else doc[:items]):
            yield from key_paths(v, (*prefix, i), items)


def replaced(doc: Any, path: tuple, value: Any) -> Any:
    """A copy of ``doc`` with the value at ``path`` replaced by ``value``."""
    if not path:
        return value
    out = json.loads(json.dumps(doc))
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out
