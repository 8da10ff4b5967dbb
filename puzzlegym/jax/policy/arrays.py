"""Pytrees of arrays in one ``.npz`` file with a JSON header: written atomically, read
without pickle, checked against the tree they must fill.

Policy files (:mod:`puzzlegym.jax.policy.policy`) and training checkpoints
(:mod:`puzzlegym.jax.train`) are such files. :func:`save` writes the tree's leaves
(``leaf00000``, ``leaf00001``, ... in ``jax.tree_util`` order) and ``header``, the UTF-8
JSON of a document whose ``format`` names the kind of file; :func:`load` reads them back
(numbers only, never pickle; every size bounded from the archive's own headers before data is
read, and each leaf's dtype and shape checked against the tree it must fill, when the caller
gives it, before its data is read; the header is parsed by
:func:`puzzlegym.base.jsonio.loads`); and
:func:`restore` puts the leaves into a template tree, refusing a file whose leaves differ
from the template's in number, shape or dtype. Errors name the file.
"""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

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
    path: str | os.PathLike,
    kind: str,
    expect: Any = None,
    error: type[PuzzleGymError] = ConfigError,
) -> tuple[dict, list[np.ndarray]]:
    """``(header, leaves)`` of a file :func:`save` wrote with ``format == kind``; anything
    else raises ``error`` naming the file, and so does a file too large to hold in memory.

    Nothing is read before it is bounded: the file's size; the archive's directory (members
    stored uncompressed, as :func:`save` writes them, so no member inflates past the file's
    size; their names); each member's array header (numbers only, C order, the byte count it
    declares equal to the bytes the member holds). ``expect``, a tree or a function of the
    header that returns one (it raises ``error`` on a bad header), gives the dtype and shape
    every leaf must have: each member's declared dtype and shape are checked against it from
    the archive's headers before any of the data is read."""
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
        with zipfile.ZipFile(path) as archive:
            members = {info.filename: info for info in archive.infolist()[: MAX_LEAVES + 2]}
            names = [n.removesuffix(".npy") for n in members]
            if HEADER not in names:
                raise error(f"{path}: not a {kind} file (no header)")
            n = len(names) - 1
            expected = [HEADER, *map(_leaf_name, range(n))]
            if (
                len(archive.infolist()) != len(members)
                or n > MAX_LEAVES
                or sorted(members) != sorted(f"{name}.npy" for name in expected)
            ):
                raise error(f"{path}: not a {kind} file (unexpected arrays)")
            raw = _member(archive, members[f"{HEADER}.npy"], path, kind, error, MAX_HEADER_BYTES)
            if raw.dtype != np.uint8 or raw.ndim != 1:
                raise error(f"{path}: not a {kind} file (a bad header)")
            header = loads(raw.tobytes())
            if not isinstance(header, dict) or header.get("format") != kind:
                raise error(
                    f"{path}: not a {kind} file (format {str(header.get('format'))[:40]!r})"
                    if isinstance(header, dict)
                    else f"{path}: not a {kind} file"
                )
            wants = _wants(expect, header, n, path, error)
            leaves = [
                _member(archive, members[f"{_leaf_name(i)}.npy"], path, kind, error, size, want, i)
                for i, want in enumerate(wants)
            ]
    except PuzzleGymError:
        raise
    except JSONError as exc:
        raise error(f"{path}: its header is not valid JSON ({exc})") from None
    except MemoryError:
        raise error(f"{path}: too large to load into this process's memory") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError) as exc:
        raise error(f"{path}: not a readable {kind} file ({type(exc).__name__}: {exc})") from None
    return header, leaves


def _wants(
    expect: Any, header: dict, n: int, path: Path, error: type[PuzzleGymError]
) -> list[tuple[tuple[int, ...], np.dtype] | None]:
    """The (shape, dtype) each of the file's ``n`` leaves must have (None: any numbers)."""
    if expect is None:
        return [None] * n
    template = expect(header) if callable(expect) else expect
    own = jax.tree_util.tree_leaves(template)
    if len(own) != n:
        raise error(f"{path}: holds {n} arrays, the network and state here have {len(own)}")
    return [(tuple(int(d) for d in x.shape), np.dtype(x.dtype)) for x in own]


def _member(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    path: Path,
    kind: str,
    error: type[PuzzleGymError],
    limit: int,
    want: tuple[tuple[int, ...], np.dtype] | None = None,
    index: int | None = None,
) -> np.ndarray:
    """One member's array, its header checked (and against ``want``) before its data is read,
    at most ``limit`` bytes of data."""
    what = "its header" if index is None else f"array {index}"
    if info.compress_type != zipfile.ZIP_STORED:
        raise error(f"{path}: {what} is compressed (a {kind} file is written uncompressed)")
    with archive.open(info) as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        else:
            raise error(f"{path}: {what} has an array format {version} this puzzlegym cannot read")
        if dtype.hasobject or dtype.kind not in "biuf" or dtype.fields is not None:
            raise error(f"{path}: {what} holds {dtype}, not numbers")
        if fortran:
            raise error(f"{path}: {what} is in Fortran order (a {kind} file is in C order)")
        if want is not None and (tuple(shape), dtype) != want:
            raise error(
                f"{path}: {what} is {dtype}{list(shape)}, expected {want[1]}{list(want[0])}"
            )
        nbytes = dtype.itemsize
        for d in shape:
            nbytes *= int(d)
        held = info.file_size - fh.tell()
        if nbytes != held or nbytes > limit:
            raise error(
                f"{path}: {what} declares {dtype}{list(shape)} ({nbytes} bytes) but holds "
                f"{held} bytes" + (f" (at most {limit})" if nbytes > limit else "")
            )
        data = bytearray(nbytes)
        if cast(io.BufferedIOBase, fh).readinto(data) != nbytes:  # a ZipExtFile is one
            raise error(f"{path}: {what} is cut short")
    return np.frombuffer(data, dtype=dtype).reshape(shape)


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
