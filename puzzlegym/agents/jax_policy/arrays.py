"""Pytrees of arrays in one ``.npz`` file with a JSON header: written atomically, read
without pickle, checked against the tree they must fill.

Policy files (:mod:`puzzlegym.agents.jax_policy.policy`) and training checkpoints
(:mod:`puzzlegym.jax.train`) are such files. :func:`save` writes the tree's leaves
(``leaf00000``, ``leaf00001``, ... in ``jax.tree_util`` order) and ``header``, the UTF-8
JSON of a document whose ``format`` names the kind of file; :func:`load` reads them back
(``numpy.load(allow_pickle=False)``, so a hostile file can hold only arrays; the file's size
and the header's are bounded; the header is parsed by :func:`puzzlegym.base.jsonio.loads`); and
:func:`restore` puts the leaves into a template tree, refusing a file whose leaves differ
from the template's in number, shape or dtype. Errors name the file.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jax
import numpy as np

from puzzlegym.base.errors import ConfigError, PuzzleGymError
from puzzlegym.base.jsonio import JSONError, loads, write_atomic

__all__ = ["MAX_FILE_BYTES", "load", "restore", "save"]

MAX_FILE_BYTES = 2 * 2**30  # a policy or a checkpoint of many seeds stays far below
MAX_HEADER_BYTES = 16 * 2**20
MAX_LEAVES = 100_000
HEADER = "header"


def _leaf_name(i: int) -> str:
    return f"leaf{i:05d}"


def save(path: str | os.PathLike, tree: Any, header: Mapping[str, Any]) -> Path:
    """Write ``tree``'s leaves and ``header`` (a JSON document with ``format``) to ``path``
    atomically; returns the path."""
    import json

    if "format" not in header:
        raise ValueError("header: needs a 'format'")
    leaves = [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(tree)]
    text = json.dumps(dict(header), allow_nan=False, sort_keys=True).encode("utf-8")
    arrays = {_leaf_name(i): leaf for i, leaf in enumerate(leaves)}
    arrays[HEADER] = np.frombuffer(text, dtype=np.uint8)

    savez: Any = np.savez  # its stub takes the arrays' names for its own keywords

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            savez(fh, **arrays)

    return write_atomic(path, write)


def load(
    path: str | os.PathLike, kind: str, error: type[PuzzleGymError] = ConfigError
) -> tuple[dict, list[np.ndarray]]:
    """``(header, leaves)`` of a file :func:`save` wrote with ``format == kind``; anything
    else raises ``error`` naming the file."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise error(f"{path}: cannot read it ({exc.strerror})") from None
    if not path.is_file():
        raise error(f"{path}: not a file")
    if size > MAX_FILE_BYTES:
        raise error(f"{path}: {size} bytes, more than the {MAX_FILE_BYTES} a {kind} file may have")
    try:
        with np.load(path, allow_pickle=False) as data:
            names = list(data.files)
            if HEADER not in names:
                raise error(f"{path}: not a {kind} file (no header)")
            n = len(names) - 1
            if n > MAX_LEAVES or sorted(names) != sorted([HEADER, *map(_leaf_name, range(n))]):
                raise error(f"{path}: not a {kind} file (unexpected arrays)")
            raw = data[HEADER]
            if raw.dtype != np.uint8 or raw.ndim != 1 or raw.size > MAX_HEADER_BYTES:
                raise error(f"{path}: not a {kind} file (a bad header)")
            header = loads(raw.tobytes())
            leaves = [data[_leaf_name(i)] for i in range(n)]
    except PuzzleGymError:
        raise
    except JSONError as exc:
        raise error(f"{path}: its header is not valid JSON ({exc})") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise error(f"{path}: not a readable {kind} file ({type(exc).__name__}: {exc})") from None
    if not isinstance(header, dict) or header.get("format") != kind:
        raise error(
            f"{path}: not a {kind} file (format {str(header.get('format'))[:40]!r})"
            if isinstance(header, dict)
            else f"{path}: not a {kind} file"
        )
    for i, leaf in enumerate(leaves):
        if leaf.dtype.kind not in "biuf":
            raise error(f"{path}: array {i} holds {leaf.dtype}, not numbers")
    return header, leaves


def restore(
    template: Any, leaves: list[np.ndarray], where: str, error: type[PuzzleGymError] = ConfigError
) -> Any:
    """``template``'s tree with ``leaves`` in place of its own, each of the same shape and
    dtype (else ``error`` naming ``where``)."""
    own, treedef = jax.tree_util.tree_flatten(template)
    if len(own) != len(leaves):
        raise error(
            f"{where}: holds {len(leaves)} arrays, the network and state here have {len(own)}"
        )
    for i, (mine, theirs) in enumerate(zip(own, leaves, strict=True)):
        shape, dtype = tuple(mine.shape), np.dtype(mine.dtype)  # arrays or ShapeDtypeStructs
        if shape != theirs.shape or dtype != theirs.dtype:
            raise error(
                f"{where}: array {i} is {theirs.dtype}{list(theirs.shape)}, expected "
                f"{dtype}{list(shape)}"
            )
    return jax.tree_util.tree_unflatten(treedef, [jax.numpy.asarray(x) for x in leaves])
