"""JSON and files at the edges: strict parsing of untrusted JSON text, atomic file writes.

:func:`loads` parses JSON from a file or a request without letting hostile text reach the
interpreter's limits: nesting too deep for the parser, integers too long to convert, and the
non-standard constants ``NaN``/``Infinity`` (and floats that overflow to infinity) are
rejected with :class:`JSONError` naming the problem. With ``numbers="mark"`` the offending
numbers become :class:`Unrepresentable` markers instead, so the caller's own validation names
the field that held them (an HTTP body's ``"t": Infinity`` is then ``events[0].t``).

For text from outside (a model server's reply, a sandbox frame), ``max_values`` and
``max_depth`` bound what parsing may build, checked on the text before a single object is made:
the values (every array element, object member and top-level value; strings count one each,
however long) and the nesting depth of arrays and objects. A 31 MB body of nested empty lists
is then refused at once instead of becoming millions of Python lists.

:func:`read_bytes` and :func:`load_file` read a file someone handed over (a record, a
checkpoint, a run's configuration, a level file) without letting its size reach memory: only a
regular file is read (not a device such as ``/dev/zero``, nor a pipe), and never more than one
byte past its bound.

:func:`write_atomic` writes a file through a temporary file in the same directory and a
rename, so a reader sees the old file or the new one, never a torn one.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_INT_DIGITS",
    "JSONError",
    "Unrepresentable",
    "check_shape",
    "dumps_line",
    "load_file",
    "loads",
    "read_bytes",
    "representable",
    "write_atomic",
    "write_json",
]

MAX_INT_DIGITS = 30  # far beyond any count, index or seed puzzlegym takes (2**64 has 20 digits)
_INT_LIMIT = 10**MAX_INT_DIGITS  # the smallest integer with more digits
MAX_FILE_BYTES = 256 * 2**20  # the default bound of a file read back (read_bytes, load_file)


class JSONError(ValueError):
    """JSON text that is malformed or exceeds puzzlegym's limits."""


class Unrepresentable:
    """A number JSON text held that no puzzlegym field accepts (an integer of thousands of
    digits, ``Infinity``, ``NaN``, ``1e999``); its repr says what it was."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        if len(self.text) > 24:
            return f"<a number of {len(self.text)} digits>"
        return self.text


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # a JSON string (unrolled: no backtracking)
_BRACKET = re.compile(r"[\[\]{}]")


def check_shape(text: str, max_values: int | None, max_depth: int | None) -> None:
    """Raise :class:`JSONError` if ``text`` (JSON, maybe malformed) holds more than
    ``max_values`` values or nests arrays and objects deeper than ``max_depth``. The count is
    an upper bound (commas and opening brackets outside strings, plus one) made without
    copying the text; the work is bounded by ``max_values`` (every string but an object's key
    follows a comma or a bracket), so pass it with ``max_depth``."""
    opening = text.count("[") + text.count("{")  # strings' brackets and commas too: a bound
    if max_values is not None and opening + text.count(",") + 1 <= max_values:
        max_values = None
    if max_depth is not None and opening <= max_depth:
        max_depth = None
    if max_values is None and max_depth is None:
        return
    values, depth, pos = 1, 0, 0

    def segment(start: int, end: int) -> None:  # text between two strings
        nonlocal values, depth
        if max_values is not None:
            values += sum(text.count(c, start, end) for c in ",[{")
            if values > max_values:
                raise JSONError(f"too many values (more than {max_values})")
        if max_depth is not None:
            for m in _BRACKET.finditer(text, start, end):
                depth += 1 if m.group() in "[{" else -1
                if depth > max_depth:
                    raise JSONError("nested too deeply")

    for m in _STRING.finditer(text):
        segment(pos, m.start())
        pos = m.end()
    segment(pos, len(text))


def read_bytes(path: str | os.PathLike, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at ``path``, read no further than one byte past
    ``max_bytes``.

    Raises:
        OSError: the file cannot be opened or read.
        JSONError: it is not a regular file (a device, a pipe, a directory), or it holds more
            than ``max_bytes`` bytes.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO opens at once
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise JSONError("not a regular file")
        raw = fh.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise JSONError(f"larger than {max_bytes} bytes")
    return raw


def load_file(path: str | os.PathLike, max_bytes: int = MAX_FILE_BYTES, **kwargs: Any) -> Any:
    """The JSON document in the file at ``path``: :func:`read_bytes` bounded by ``max_bytes``,
    then :func:`loads` with ``kwargs``. Raises OSError or :class:`JSONError` (a document too
    large to parse in memory among them)."""
    raw = read_bytes(path, max_bytes)
    try:
        return loads(raw, **kwargs)
    except MemoryError:
        raise JSONError("too large to parse in this process's memory") from None


def loads(
    text: str | bytes,
    *,
    numbers: str = "reject",
    max_values: int | None = None,
    max_depth: int | None = None,
) -> Any:
    """Parse ``text`` strictly (see module docstring). ``numbers`` is ``"reject"`` (raise
    :class:`JSONError`) or ``"mark"`` (return :class:`Unrepresentable` markers);
    ``max_values`` and ``max_depth`` bound what it may build (:func:`check_shape`).

    Examples:
        >>> loads('{"a": [1, 2]}', max_values=4)  # the object, the list, 1 and 2
        {'a': [1, 2]}
        >>> loads("[[], [], [], []]", max_values=3)
        Traceback (most recent call last):
        ...
        puzzlegym.base.jsonio.JSONError: too many values (more than 3)
    """
    if isinstance(text, bytes | bytearray):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONError(f"not UTF-8 text (bad byte at offset {exc.start})") from None
    if max_values is not None or max_depth is not None:
        check_shape(text, max_values, max_depth)

    def odd(token: str) -> Any:
        if numbers == "mark":
            return Unrepresentable(token)
        shown = token if len(token) <= 24 else f"a number of {len(token)} digits"
        raise JSONError(f"{shown} is not a number puzzlegym accepts")

    def parse_int(token: str) -> Any:
        digits = len(token) - token.startswith("-")
        return int(token) if digits <= MAX_INT_DIGITS else odd(token)

    def parse_float(token: str) -> Any:
        value = float(token)
        return value if math.isfinite(value) else odd(token)

    try:
        return json.loads(text, parse_int=parse_int, parse_float=parse_float, parse_constant=odd)
    except RecursionError:
        raise JSONError("nested too deeply") from None
    except JSONError:
        raise
    except json.JSONDecodeError as exc:
        raise JSONError(f"not valid JSON: {exc}") from None


def representable(doc: Any) -> Any:
    """``doc`` with every value :func:`loads` would refuse written as a string instead (NaN,
    infinities, integers over :data:`MAX_INT_DIGITS` digits, markers), so a line written from
    it always reads back."""
    if isinstance(doc, float) and not math.isfinite(doc):
        return repr(doc)
    if isinstance(doc, int) and not isinstance(doc, bool) and abs(doc) >= _INT_LIMIT:
        return f"<an integer of more than {MAX_INT_DIGITS} digits>"
    if isinstance(doc, Unrepresentable):
        return repr(doc)
    if isinstance(doc, dict):
        return {k: representable(v) for k, v in doc.items()}
    if isinstance(doc, (list, tuple)):
        return [representable(v) for v in doc]
    return doc


def dumps_line(doc: Any) -> str:
    """One compact, key-sorted JSON line (records' log format); never writes NaN/Infinity."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _file_mode() -> int:
    """The mode ``open()`` gives a new file under this process's umask (read once, at import)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


FILE_MODE = _file_mode()


def write_atomic(path: str | os.PathLike, data: bytes | str | Callable[[Path], None]) -> Path:
    """Write ``path`` atomically: bytes, text (UTF-8), or a writer ``f(tmp_path)`` that
    creates the temporary file (for libraries that write files themselves, e.g. a GIF).
    The temporary file keeps ``path``'s suffix so such writers pick the same format; the
    file gets the mode a plain ``open()`` would give it (``FILE_MODE``), not the temporary
    file's private 0600."""
    path = Path(path)
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=f".tmp{path.suffix}", dir=path.parent
    )
    tmp = Path(tmp_name)
    try:
        if callable(data):
            os.close(fd)
            data(tmp)
        else:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_json(path: str | os.PathLike, doc: Any, *, indent: int | None = 2) -> Path:
    """``doc`` as JSON text (sorted keys as given, newline-terminated), written atomically."""
    return write_atomic(path, json.dumps(doc, indent=indent, allow_nan=False) + "\n")
