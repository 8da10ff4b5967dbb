"""The infos of a worker's envs on their way to the main process: packed as columns (one key
list, one type code and one column per key, not a dict per env) so a reply pickles small and
fast, then rebuilt as Gymnasium's vector infos (arrays with ``_key`` masks, as
``VectorEnv._add_info`` builds them) for the whole batch."""

from __future__ import annotations

import numpy as np

__all__ = ["add_info", "batch_infos", "pack_infos"]


def add_info(infos: dict, info: dict, i: int, n: int) -> dict:
    """Gymnasium's ``VectorEnv._add_info`` for a batch of ``n``: ``info`` of env ``i`` into
    the dict of arrays ``infos`` (each key with its ``_key`` mask)."""
    for key, value in info.items():
        if key == "final_obs":
            array = infos.get(key)
            if array is None:
                array = np.full(n, None, dtype=object)
            array[i] = value
        elif isinstance(value, dict):
            array = add_info(infos.get(key, {}), value, i, n)
        else:
            array = infos.get(key)
            if array is None:
                if type(value) in (int, float, bool) or issubclass(type(value), np.number):
                    array = np.zeros(n, dtype=type(value))
                elif isinstance(value, np.ndarray):
                    array = np.zeros((n, *value.shape), dtype=value.dtype)
                else:
                    array = np.full(n, None, dtype=object)
            array[i] = value
        mask = infos.get(f"_{key}")
        if mask is None:
            mask = np.zeros(n, dtype=np.bool_)
        mask[i] = True
        infos[key], infos[f"_{key}"] = array, mask
    return infos


def _scalar(kind: type) -> bool:
    return kind in (int, float, bool) or issubclass(kind, np.number)


_CODES: dict[type, str] = {}  # kind -> column code (numbers and str only: a small, fixed set)
_DTYPES: dict[str, np.dtype] = {}  # column code of numbers -> its dtype


def _code(kind: type) -> str:
    """How a column of values of ``kind`` becomes an array: the dtype string of numbers (the
    dtype :func:`add_info` gives them), ``"str"`` for strings, ``"obj"`` for anything else
    (an object array filled element by element). A short string, unlike the type itself:
    unpickling a type looks it up by name, which cost more than the rest of a reply."""
    code = _CODES.get(kind)
    if code is None:
        if not (_scalar(kind) or kind is str):
            return "obj"
        code = _CODES[kind] = np.dtype(kind).str if _scalar(kind) else "str"
    return code


def _dtype(code: str):
    dtype = _DTYPES.get(code)
    if dtype is None:
        dtype = _DTYPES[code] = np.dtype(object) if code in ("str", "obj") else np.dtype(code)
    return dtype


def _pack_column(column: list, code: str) -> list | tuple:
    """A column as sent: ``(value,)`` when every env has the same number or string (sent
    once; equal floats that are zero, and complex numbers, only when they are one object, so
    that -0.0 is never sent as 0.0), else the list, with equal strings made one object (the
    pickle then holds each string once)."""
    if code == "obj":
        return column
    first = column[0]
    if column.count(first) == len(column):
        if not ((code[1] == "f" and first == 0) or code[1] == "c") or all(
            v is first for v in column
        ):
            return (first,)
    if code == "str":
        seen: dict = {}
        return [seen.setdefault(v, v) for v in column]
    return column


def pack_infos(entries: list[tuple[int, dict]], k: int) -> tuple:
    """What a worker sends for the infos of its ``k`` envs (``entries``: ``(env, info)`` in
    the order Gymnasium adds them). Columns ``("cols", keys, codes, columns)`` when every env
    gave one info with the same keys and, per key, values of one type (numbers, strings,
    lists: no dicts, no arrays): cheap to send and to rebuild (:func:`_pack_column`, codes
    of :func:`_code`), concatenated across workers. Otherwise ``("each", entries)``, and the
    main process adds them one by one (:func:`batch_infos`)."""
    if len(entries) == k and k:
        first = entries[0][1]
        keys = tuple(first)
        kinds = tuple(type(v) for v in first.values())
        if not any(issubclass(kind, (dict, np.ndarray)) for kind in kinds) and all(
            tuple(info) == keys and tuple(type(v) for v in info.values()) == kinds
            for _, info in entries
        ):
            codes = tuple(_code(kind) for kind in kinds)
            return (
                "cols",
                keys,
                codes,
                [
                    _pack_column([info[key] for _, info in entries], code)
                    for key, code in zip(keys, codes, strict=True)
                ],
            )
    return ("each", entries)


def _column(code: str, column: list | tuple, k: int) -> np.ndarray:
    """The array of ``k`` values of a column sent by :func:`_pack_column`."""
    if type(column) is tuple:  # one value for every env (numbers and strings: immutable)
        array = np.empty(k, dtype=_dtype(code))
        array.fill(column[0])
        return array
    if code == "obj":  # element by element: numpy would read lists as rows
        array = np.empty(k, dtype=object)
        for i, value in enumerate(column):
            array[i] = value
        return array
    return np.array(column, dtype=_dtype(code))


def _column_infos(keys: tuple, codes: tuple, parts: list) -> dict:
    """The batched infos of columns: ``parts`` the ``(k, columns)`` of consecutive slices of
    envs that have every key; the arrays :func:`add_info` would build."""
    n = sum(k for k, _ in parts)
    masks = np.empty((len(keys), n), dtype=np.bool_)  # one allocation; each key its own row
    masks.fill(True)
    out = {}
    for c, (key, code) in enumerate(zip(keys, codes, strict=True)):
        arrays = [_column(code, columns[c], k) for k, columns in parts]
        out[key] = arrays[0] if len(arrays) == 1 else np.concatenate(arrays)
        out[f"_{key}"] = masks[c]
    return out


def _entries(part: tuple, k: int) -> list[tuple[int, dict]]:
    """The ``(env, info)`` entries a worker's part for ``k`` envs (:func:`pack_infos`) was
    made of."""
    if part[0] == "each":
        return part[1]
    _, keys, _, columns = part
    return [
        (
            j,
            {
                key: column[0] if type(column) is tuple else column[j]
                for key, column in zip(keys, columns, strict=True)
            },
        )
        for j in range(k)
    ]


def batch_infos(slices: list[tuple[int, int]], parts: list, n: int) -> dict:
    """The Gymnasium infos of ``n`` envs from the workers' parts (:func:`pack_infos`;
    ``None`` for a worker not asked): the same as adding each env's info in env order with
    :func:`add_info`. Columns of every worker with the same keys and codes are rebuilt
    column by column; anything else (a worker not asked, keys or kinds that differ between
    envs) entry by entry, which is exact by construction."""
    if len(parts) == 1 and parts[0] is not None and parts[0][0] == "cols":  # one worker (``recv``)
        _, keys, codes, columns = parts[0]
        return _column_infos(keys, codes, [(n, columns)])
    given = [
        (lo, hi, part) for (lo, hi), part in zip(slices, parts, strict=True) if part is not None
    ]
    if len(given) == len(slices) and all(
        p[0] == "cols" and p[1:3] == given[0][2][1:3] for *_, p in given
    ):
        _, keys, codes, _ = given[0][2]
        return _column_infos(keys, codes, [(hi - lo, p[3]) for lo, hi, p in given])
    infos: dict = {}
    for lo, hi, part in given:
        for j, info in _entries(part, hi - lo):
            add_info(infos, info, lo + j, n)
    return infos
