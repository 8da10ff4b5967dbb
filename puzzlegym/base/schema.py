"""Declared shapes of the JSON documents a user or a model can hand over (records, agent logs,
training books, viewer data), and one check of a parsed document against its shape.

A shape is built from a few parts: :class:`Int`, :class:`Num` (finite), :class:`Str`,
:class:`Bool`, :class:`Null`, :class:`Any_`, :class:`List`, :class:`Obj` (named keys, each
required or optional, others refused or allowed), :class:`Map` (any keys, one shape of value)
and :class:`OneOf`. :func:`check` walks a document against a shape and answers either the
document itself or one error, of the caller's class, whose message names the field by its
path (``book.curve[3].timesteps: expected an integer 0..10000000, got 'x'``). It never raises
anything else, however deep, long or odd the document: every list, string and map has a
bound.

Readers bound a file's size before they parse it (:func:`puzzlegym.base.jsonio.loads` bounds
its values and depth), then check its shape here before they use a field.

Examples:
    >>> shape = Obj({"updates": Int(0, 100), "rows": List(Num(), 100)})
    >>> check({"updates": 3, "rows": [0.5]}, shape, "book", ValueError)
    {'updates': 3, 'rows': [0.5]}
    >>> check({"updates": "x", "rows": []}, shape, "book", ValueError)
    Traceback (most recent call last):
    ...
    ValueError: book.updates: expected an integer 0..100, got 'x'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from puzzlegym.base.errors import shown

__all__ = [
    "Any_",
    "Bool",
    "Int",
    "List",
    "Map",
    "Null",
    "Num",
    "Obj",
    "OneOf",
    "Shape",
    "Str",
    "check",
    "conform",
    "optional",
]

MAX_ITEMS = 1_000_000  # the default bound of a list's or a map's length
MAX_CHARS = 1_000_000  # the default bound of a string's length


class Shape:
    """A declared shape; :meth:`problem` says what is wrong with ``value`` at ``path``, or
    None."""

    def problem(self, value: Any, path: str) -> tuple[str, str] | None:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Int(Shape):
    lo: int | None = None
    hi: int | None = None

    def problem(self, value: Any, path: str) -> tuple[str, str] | None:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if ok and (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi):
            return None
        return path, f"expected {self.describe()}, got {shown(value)}"

    def describe(self) -> str:
        if self.lo is not None and self.hi is not None:
            return f"an integer {self.lo}..{self.hi}"
        if self.lo is not None:
            return f"an integer >= {self.lo}"
        return "an integer" if self.hi is None else f"an integer <= {self.hi}"


@dataclass(frozen=True)
class Num(Shape):
    """A finite number (an int or a float, never a bool) within ``lo..hi``."""

    lo: float | None = None
    hi: float | None = None

    def problem(self, value: Any, path: str) -> tuple[str, str] | None:
        if (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and (isinstance(value, int) or math.isfinite(value))
            and (self.lo is None or value >= self.lo)
            and (self.hi is None or value <= self.hi)
        ):
            return None
        return path, f"expected {self.describe()}, got {shown(value)}"

    def describe(self) -> str:
        if self.lo is not None and self.hi is not None:
            return f"a number {self.lo:g}..{self.hi:g}"
        if self.lo is not None:
            return f"a finite number >= {self.lo:g}"
        return "a finite number"


@dataclass(frozen=True)
class Str(Shape):
    max_chars: int = MAX_CHARS

    def problem(self, value: Any, path: str) -> tuple[str, str] | None:
        if isinstance(value, str) and len(value) <= self.max_chars:
            return None
        return path, f"expected {self.describe()}, got {shown(value)}"

    def describe(self) -> str:
        return f"a string of at most {self.max_chars} characters"


@dataclass(frozen=True)
class Bool(Shape):
    def problem(self, value: Any, path: str) -> tuple[str, str] | None:
        return (
            None
            if isinstance(value, bool)
            else (path, f"expected true or false, got {shown(value)}")
        )

    def describe(self) -> str:
        return "true or false"


@dataclass(frozen=True)
class Null(Shape):
    def problem(self, value: Any, path: str) -> tuple[str, str] | None:
        return None if value is None else (path, f"expected null, got {shown(value)}")

    def describe(self) -> str:
        return "null"


@dataclass(frozen=True)
class Any_(Shape):
    """Any JSON value (already bounded by the parser)."""

    def problem(self, value: Any, path: str) -> tuple[str, str] | None:
        return None

    def describe(self) -> str:
        return "any value"


@dataclass(frozen=True)
class OneOf(Shape):
    options: tuple[Shape, ...]

    def problem(self, value: Any, path: str) -> tuple[str, str] | None:
        found = None
        for option in self.options:
            found = option.problem(value, path)
            if found is None:
                return None
            if found[0] != path:  # the value has this option's type: its inner fault counts
                return found
        return path, f"expected {self.describe()}, got {shown(value)}"

    def describe(self) -> str:
        return " or ".join(o.describe() for o in self.options)


def optional(shape: Shape) -> Shape:
    """``shape`` or null."""
    return OneOf((shape, Null()))


@dataclass(frozen=True)
class List(Shape):
    item: Shape
    max_items: int = MAX_ITEMS
    min_items: int = 0

    def problem(self, value: Any, path: str) -> tuple[str, str] | None:
        if not isinstance(value, list):
            return path, f"expected {self.describe()}, got {shown(value)}"
        if not self.min_items <= len(value) <= self.max_items:
            return path, f"expected {self.describe()}, got {len(value)} items"
        for i, item in enumerate(value):
            found = self.item.problem(item, f"{path}[{i}]")
            if found is not None:
                return found
        return None

    def describe(self) -> str:
        if self.min_items == self.max_items:
            return f"a list of {self.max_items} items"
        return f"a list of {self.min_items}..{self.max_items} items"


@dataclass(frozen=True)
class Map(Shape):
    """An object with any string keys, each value of one shape."""

    value: Shape
    max_items: int = MAX_ITEMS

    def problem(self, value: Any, path: str) -> tuple[str, str] | None:
        if not isinstance(value, dict):
            return path, f"expected {self.describe()}, got {shown(value)}"
        if len(value) > self.max_items:
            return path, f"expected {self.describe()}, got {len(value)} keys"
        for key, item in value.items():
            if not isinstance(key, str):
                return path, f"a key that is not a string: {shown(key)}"
            found = self.value.problem(item, f"{path}.{shown(key)}")
            if found is not None:
                return found
        return None

    def describe(self) -> str:
        return f"an object of at most {self.max_items} keys"


@dataclass(frozen=True)
class Obj(Shape):
    """An object with the ``required`` keys, any of the ``optional`` ones, and (unless
    ``extra``) no others."""

    required: Mapping[str, Shape]
    optional: Mapping[str, Shape] = field(default_factory=dict)
    extra: bool = False

    def problem(self, value: Any, path: str) -> tuple[str, str] | None:
        if not isinstance(value, dict):
            return path, f"expected an object, got {shown(value)}"
        missing = [k for k in self.required if k not in value]
        if missing:
            return path, f"missing key(s) {', '.join(missing)}"
        if not self.extra:
            unexpected = sorted(
                shown(k) for k in value if k not in self.required and k not in self.optional
            )
            if unexpected:
                return path, f"unexpected key(s) {', '.join(unexpected[:8])}"
        for key, item in value.items():
            shape = self.required.get(key) or self.optional.get(key)
            if shape is not None:
                found = shape.problem(item, f"{path}.{key}")
                if found is not None:
                    return found
        return None

    def describe(self) -> str:
        return "an object"


def conform(doc: dict, shape: Obj) -> dict:
    """A copy of ``doc`` in which each field that does not have its declared shape is null
    (where its shape takes null; else it is left out, unless required): for a writer whose
    values come from a hostile source (a model server's token counts), so that every line it
    writes reads back through :func:`check`."""
    out = dict(doc)
    for key, value in doc.items():
        field = shape.required.get(key) or shape.optional.get(key)
        if field is None or field.problem(value, key) is None:
            continue
        if field.problem(None, key) is None:
            out[key] = None
        elif key not in shape.required:
            del out[key]
    return out


def check(doc: Any, shape: Shape, where: str, error: type[Exception]) -> Any:
    """``doc`` when it has ``shape``; else ``error("{where}{.path}: what is wrong")``."""
    found = shape.problem(doc, where)
    if found is None:
        return doc
    path, message = found
    raise error(f"{path}: {message}")
