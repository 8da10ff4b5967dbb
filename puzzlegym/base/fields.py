"""Strict checks of the JSON fields the games' level and state documents share: an object's
exact keys, integers, ``[row, col]`` pairs, cells inside a grid.

Every check raises ``error`` (``LevelError`` for level files, ``ValueError`` for states and
ui states) with a message that starts with the field's name; client values in messages go
through :func:`puzzlegym.base.errors.shown`, so a hostile value (a 5,000-digit number, a deep
list) is named, not formatted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from puzzlegym.base.errors import shown

MAX_SEED = 2**32 - 1  # the largest episode seed the entry points take (CLI, eval, serve)


def is_int(value: Any) -> bool:
    """An int that is not a bool (JSON's true/false are not numbers here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_count(
    value: Any, name: str, lo: int, hi: int, error: type[Exception] = ValueError
) -> int:
    """``value``, an integer ``lo..hi``: else ``{name}: expected an integer lo..hi, got ...``."""
    if not is_int(value) or not lo <= value <= hi:
        raise error(f"{name}: expected an integer {lo}..{hi}, got {shown(value)}")
    return value


def check_number(
    value: Any, name: str, lo: float, hi: float, error: type[Exception] = ValueError
) -> float:
    """``value``, a finite number ``lo..hi`` (as a float): else ``{name}: expected a number
    lo..hi, got ...``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not lo <= value <= hi
    ):
        raise error(f"{name}: expected a number {lo:g}..{hi:g}, got {shown(value)}")
    return float(value)


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


__all__ = ["check_exact_keys", "check_in_grid", "grid_cell", "is_int", "row_col"]
