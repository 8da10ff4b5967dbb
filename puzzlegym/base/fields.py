"""Strict checks of the values entry points take and of the JSON fields the games' level and
state documents share: bounded integers (:func:`check_count`, its predicate :func:`is_int`)
and numbers (:func:`check_number`), an object's exact keys, ``[row, col]`` pairs, cells
inside a grid. Every check of a count, an index, a seed or a limit goes through these, so
each refuses the same values (bools, NaN, the infinities) with the same message form,
``{name}: expected an integer lo..hi, got ...``.

Every check raises ``error`` (``LevelError`` for level files, ``ValueError`` for states and
ui states) with a message that starts with the field's name; client values in messages go
through :func:`puzzlegym.base.errors.shown`, so a hostile value (a 5,000-digit number, a deep
list) is named, not formatted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, overload

import numpy as np

from puzzlegym.base.errors import shown

MAX_SEED = 2**32 - 1  # the largest episode seed the entry points take (CLI, eval, serve)


def is_int(
    value: Any, lo: int | None = None, hi: int | None = None, *, numpy: bool = False
) -> bool:
    """An int that is not a bool (JSON's true/false are not numbers here), within ``lo..hi``
    where a bound is given; with ``numpy``, numpy integers count too (never numpy bools).

    The predicate behind :func:`check_count`, for a caller that words its own error about a
    whole value (a move, a list of indices).

    Examples:
        >>> is_int(3), is_int(True), is_int(3.0), is_int(7, 0, 6)
        (True, False, False, False)
        >>> import numpy as np
        >>> is_int(np.int64(2)), is_int(np.int64(2), numpy=True), is_int(np.True_, numpy=True)
        (False, True, False)
    """
    kinds = (int, np.integer) if numpy else int
    if not isinstance(value, kinds) or isinstance(value, (bool, np.bool_)):
        return False
    return bool((lo is None or lo <= value) and (hi is None or value <= hi))


def _bound(x: float) -> str:
    """A number bound as a message shows it: ``86400``, ``0.5``, ``1e-06``."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e16 else f"{x:g}"


def _expected(kind: str, lo: Any, hi: Any, lo_open: bool, optional: bool, what: str | None) -> str:
    if hi is None and kind == "a number":  # a number without an upper bound must be finite
        kind = "a finite number"
    if lo is None:
        bounds = "" if hi is None else f" <= {hi}"
    elif hi is None:
        bounds = f" {'>' if lo_open else '>='} {lo}"
    elif lo_open:
        bounds = f" > {lo} and <= {hi}"
    else:
        bounds = f" {lo}..{hi}"
    return (
        f"expected {kind}{bounds}"
        + (" or None" if optional else "")
        + (f" ({what})" if what else "")
    )


@overload
def check_count(
    value: Any,
    name: str,
    lo: int | None,
    hi: int | None,
    error: Callable[[str], Exception] = ...,
    *,
    what: str | None = ...,
    optional: Literal[False] = ...,
    numpy: bool = ...,
) -> int: ...
@overload
def check_count(
    value: Any,
    name: str,
    lo: int | None,
    hi: int | None,
    error: Callable[[str], Exception] = ...,
    *,
    what: str | None = ...,
    optional: Literal[True],
    numpy: bool = ...,
) -> int | None: ...
def check_count(
    value: Any,
    name: str,
    lo: int | None,
    hi: int | None,
    error: Callable[[str], Exception] = ValueError,
    *,
    what: str | None = None,
    optional: bool = False,
    numpy: bool = False,
) -> int | None:
    """``value`` as an int, an integer ``lo..hi`` (not a bool; a bound None: none that side):
    else ``error("{name}: expected an integer lo..hi, got ...")``.

    ``what`` says in the message what the field is; ``optional`` lets None through (returned
    as None); ``numpy`` takes numpy integers too, as entry points fed by arrays do (actions,
    indices), and returns them as an int. ``error`` is the exception type (or any callable
    making the exception from the message).

    Examples:
        >>> check_count(3, "workers", 1, 64)
        3
        >>> check_count(True, "workers", 1, 64)
        Traceback (most recent call last):
        ...
        ValueError: workers: expected an integer 1..64, got True
        >>> check_count(-1, "seed", 0, None, what="the level seed")
        Traceback (most recent call last):
        ...
        ValueError: seed: expected an integer >= 0 (the level seed), got -1
        >>> check_count("7", "seed", None, None)
        Traceback (most recent call last):
        ...
        ValueError: seed: expected an integer, got '7'
        >>> check_count(None, "level", 1, 10, optional=True) is None
        True
        >>> import numpy as np
        >>> type(check_count(np.int64(5), "action", 0, 9, numpy=True))
        <class 'int'>
    """
    if value is None and optional:
        return None
    if not is_int(value, lo, hi, numpy=numpy):
        expected = _expected("an integer", lo, hi, False, optional, what)
        raise error(f"{name}: {expected}, got {shown(value)}")
    return int(value)


@overload
def check_number(
    value: Any,
    name: str,
    lo: float,
    hi: float | None,
    error: Callable[[str], Exception] = ...,
    *,
    what: str | None = ...,
    optional: Literal[False] = ...,
    numpy: bool = ...,
    lo_open: bool = ...,
) -> float: ...
@overload
def check_number(
    value: Any,
    name: str,
    lo: float,
    hi: float | None,
    error: Callable[[str], Exception] = ...,
    *,
    what: str | None = ...,
    optional: Literal[True],
    numpy: bool = ...,
    lo_open: bool = ...,
) -> float | None: ...
def check_number(
    value: Any,
    name: str,
    lo: float,
    hi: float | None,
    error: Callable[[str], Exception] = ValueError,
    *,
    what: str | None = None,
    optional: bool = False,
    numpy: bool = False,
    lo_open: bool = False,
) -> float | None:
    """``value`` as a float, a finite number ``lo..hi`` (an int or a float, not a bool; ``hi``
    None: no upper bound; ``lo_open``: above ``lo``, not equal to it): else
    ``error("{name}: expected a number lo..hi, got ...")``.

    ``what``, ``optional``, ``numpy`` (numpy integers and floats) and ``error`` as for
    :func:`check_count`. NaN, the infinities and an int too large for a float are refused.

    Examples:
        >>> check_number(2, "temperature", 0, 2)
        2.0
        >>> check_number(0, "timeout_s", 0, 600, lo_open=True, what="seconds")
        Traceback (most recent call last):
        ...
        ValueError: timeout_s: expected a number > 0 and <= 600 (seconds), got 0
        >>> check_number(float("inf"), "budget_s", 0, None, lo_open=True)
        Traceback (most recent call last):
        ...
        ValueError: budget_s: expected a finite number > 0, got inf
    """
    if value is None and optional:
        return None
    kinds = (int, float, np.integer, np.floating) if numpy else (int, float)
    number = math.nan
    if isinstance(value, kinds) and not isinstance(value, (bool, np.bool_)):
        try:
            number = float(value)
        except OverflowError:  # an int beyond any float (10**400)
            pass
    if (
        not math.isfinite(number)
        or not (lo < number if lo_open else lo <= number)
        or (hi is not None and number > hi)
    ):
        shown_hi = None if hi is None or hi == math.inf else _bound(hi)
        expected = _expected("a number", _bound(lo), shown_hi, lo_open, optional, what)
        raise error(f"{name}: {expected}, got {shown(value)}")
    return number


def check_exact_keys(
    data: dict, keys: Sequence[str], name: str, error: type[Exception] = ValueError
) -> None:
    """``data`` (an object) has exactly ``keys``: else ``{name}: missing key(s) ...;
    unexpected key(s) ...; expected exactly ...``."""
    if set(data) == set(keys):
        return
    missing = [k for k in keys if k not in data]
    extra = sorted(str(k) for k in data if k not in keys)
    parts = ([f"missing key(s) {', '.join(missing)}"] if missing else []) + (
        [f"unexpected key(s) {', '.join(extra)}"] if extra else []
    )
    raise error(f"{name}: {'; '.join(parts)}; expected exactly {', '.join(keys)}")


def row_col(value: Any, name: str, error: type[Exception] = ValueError) -> tuple[int, int]:
    """``[row, col]`` as two integers (a JSON list; a tuple is accepted too)."""
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(is_int(v) for v in value):
        raise error(f"{name}: expected [row, col] as two integers, got {shown(value)}")
    return value[0], value[1]


def check_in_grid(
    row: int, col: int, height: int, width: int, name: str, error: type[Exception] = ValueError
) -> None:
    """Cell ``(row, col)`` lies inside a ``height`` x ``width`` grid."""
    if not (0 <= row < height and 0 <= col < width):
        raise error(f"{name}: [{shown(row)}, {shown(col)}] is outside the {height}x{width} grid")


def grid_cell(
    value: Any, name: str, height: int, width: int, error: type[Exception] = ValueError
) -> tuple[int, int]:
    """``[row, col]`` (:func:`row_col`) inside a ``height`` x ``width`` grid."""
    row, col = row_col(value, name, error)
    check_in_grid(row, col, height, width, name, error)
    return row, col


__all__ = [
    "MAX_SEED",
    "check_count",
    "check_exact_keys",
    "check_in_grid",
    "check_number",
    "grid_cell",
    "is_int",
    "row_col",
]
