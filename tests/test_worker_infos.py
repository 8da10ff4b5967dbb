"""How worker processes send the infos of their envs (puzzlegym.rl.infos.pack_infos) and
how the main process rebuilds them (batch_infos): whatever the envs return, and however the
envs are split over workers, the result is exactly what adding each env's info in env order
with Gymnasium's rule gives (add_info): same keys, masks, dtypes and values, bit for bit."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlegym.rl.infos import add_info, batch_infos, pack_infos
from puzzlegym.rl.workers import split

# values of one kind per strategy, chosen to hit the packing's special cases: equal values
# (sent once), zeros of both signs, NaN, equal strings, mutable lists, numpy scalars
FLOATS = st.sampled_from([0.0, -0.0, 1.5, math.nan, math.inf, 2.0])
KINDS = [
    st.integers(-3, 3),
    FLOATS,
    st.booleans(),
    st.sampled_from(["", "level", "menu"]),
    st.lists(st.integers(0, 2), max_size=2),
    st.builds(np.float32, FLOATS),
    st.builds(np.int16, st.integers(-3, 3)),
    st.builds(np.bool_, st.booleans()),
    st.none(),
    st.builds(complex, FLOATS, FLOATS),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 2), max_size=2),
    st.builds(lambda x: np.full(2, x), st.integers(0, 2)),
]
VALUES = st.one_of(KINDS)


@st.composite
def infos_of_envs(draw) -> list[dict]:
    """The infos of 1..7 envs: mostly one kind per key across envs (the column path), with
    values often repeated; sometimes mixed kinds or missing keys (the dict path)."""
    n = draw(st.integers(1, 7))
    keys = draw(
        st.lists(
            st.sampled_from(["step", "screen", "x", "pressed", "elapsed_s"]),
            min_size=0,
            max_size=4,
            unique=True,
        )
    )
    columns = {}
    for key in keys:
        if draw(st.booleans()):  # one kind, few distinct values: repeats and ties
            pool = draw(st.lists(draw(st.sampled_from(KINDS)), min_size=1, max_size=3))
            columns[key] = [draw(st.sampled_from(pool)) for _ in range(n)]
        else:
            columns[key] = [draw(VALUES) for _ in range(n)]
    infos = [{key: columns[key][i] for key in keys} for i in range(n)]
    if n > 1 and keys and draw(st.integers(0, 4)) == 0:
        del infos[draw(st.integers(0, n - 1))][keys[0]]
    return infos


def reference(infos: list[dict]) -> dict:
    out: dict = {}
    for i, info in enumerate(infos):
        add_info(out, info, i, len(infos))
    return out


def assert_same(got: dict, want: dict) -> None:
    assert set(got) == set(want)
    for key, array in want.items():
        value = got[key]
        if isinstance(array, dict):
            assert_same(value, array)
            continue
        if not isinstance(
            array, np.ndarray
        ):  # Gymnasium's rule fed a dict, then a number: it keeps what it built
            assert pickle.dumps(value) == pickle.dumps(array), key
            continue
        assert value.dtype == array.dtype and value.shape == array.shape, key
        if array.dtype == object:
            for x, y in zip(value, array, strict=True):
                assert type(x) is type(y), key
                if isinstance(y, np.ndarray):
                    assert np.array_equal(x, y)
                else:
                    assert pickle.dumps(x) == pickle.dumps(y), (
                        key
                    )  # -0.0, NaN, complex parts: exact
        else:
            assert value.tobytes() == array.tobytes(), key  # bit for bit: -0.0 stays -0.0


@settings(max_examples=300, deadline=None)
@given(infos=infos_of_envs(), workers=st.integers(1, 4), data=st.data())
def test_packed_infos_rebuild_exactly_what_add_info_builds(infos, workers, data):
    n = len(infos)
    slices = split(n, min(workers, n))
    # over a pipe, as the workers send them
    parts = [
        pickle.loads(
            pickle.dumps(pack_infos([(j, infos[lo + j]) for j in range(hi - lo)], hi - lo))
        )
        for lo, hi in slices
    ]
    check(lambda: batch_infos(slices, parts, n), lambda: reference(infos))
    # some workers not asked (a reset with a mask): their envs' masks stay False
    asked = data.draw(st.lists(st.booleans(), min_size=len(slices), max_size=len(slices)))
    check(
        lambda: batch_infos(
            slices, [p if a else None for p, a in zip(parts, asked, strict=True)], n
        ),
        lambda: reference(
            [info if asked[w] else {} for w, (lo, hi) in enumerate(slices) for info in infos[lo:hi]]
        ),
    )


def check(got, want) -> None:
    """``got()`` builds what ``want()`` builds; where Gymnasium's rule fails (a later env's
    value does not fit the array the first env's value made, e.g. a string after an int),
    it fails too, with the same error."""
    try:
        expected = want()
    except (TypeError, ValueError, OverflowError, AttributeError) as exc:
        with pytest.raises(type(exc)):
            got()
        return
    assert_same(got(), expected)


def test_rebuilt_arrays_are_independent_of_each_other_and_of_the_next_message():
    infos = [{"pressed": [], "screen": "level", "step": 3} for _ in range(4)]
    part = pack_infos(list(enumerate(infos)), 4)
    assert (
        part[0] == "cols" and part[3][1] == ("level",) and part[3][2] == (3,)
    )  # equal values sent once
    first = batch_infos(
        [(0, 4)], [pickle.loads(pickle.dumps(part))], 4
    )  # each message unpickled afresh
    second = batch_infos([(0, 4)], [pickle.loads(pickle.dumps(part))], 4)
    first["pressed"][0].append(1)  # each env's list is its own object, as with add_info
    first["_step"][1] = False
    first["step"][2] = 9
    assert first["pressed"][1] == [] and second["pressed"][0] == []
    assert first["_screen"].all() and second["_step"].all() and list(second["step"]) == [3, 3, 3, 3]


@pytest.mark.parametrize(
    "column",
    [
        [0.0, -0.0, 0.0],
        [-0.0, -0.0, -0.0],
        [np.float32(0.0), np.float32(-0.0), np.float32(0.0)],
        [complex(1, 0.0), complex(1, -0.0), complex(1, 0.0)],
        [np.complex128(1), np.complex128(complex(1, -0.0)), np.complex128(1)],
        [math.nan, math.nan, 1.0],
        ["a", "b", "a"],
        ["level", "level", "level"],
        [True, False, True],
        [7, 7, 8],
        [[], [], []],
    ],
)
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_columns_that_look_alike_but_are_not_are_rebuilt_exactly(column, workers):
    """Values equal under ``==`` but not the same value (zeros of both signs, complex parts)
    must not be sent once; different strings must keep their env's value."""
    infos = [{"x": value} for value in column]
    slices = split(len(infos), workers)
    parts = [
        pickle.loads(
            pickle.dumps(pack_infos([(j, infos[lo + j]) for j in range(hi - lo)], hi - lo))
        )
        for lo, hi in slices
    ]
    assert_same(batch_infos(slices, parts, len(infos)), reference(infos))
