"""The shared helpers games and the lab use instead of their own copies: GridLayout (grid
views), fields / textgrid (level and state documents), the ui mixins, find_documents."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puzzlegym.base.errors import ConfigError, LevelError
from puzzlegym.base.fields import (
    check_count,
    check_exact_keys,
    check_in_grid,
    check_number,
    grid_cell,
    is_int,
    row_col,
)
from puzzlegym.base.textgrid import TextGrid, check_text_grid
from puzzlegym.game import StatelessUI
from puzzlegym.lab.documents import find_documents
from puzzlegym.screen.grid import GridLayout
from puzzlegym.screen.render import Rect


def test_fit_keeps_the_integer_arithmetic_of_the_views():
    area = Rect(40, 100, 1200, 700)
    g = GridLayout.fit(area, 6, 6, 96, 18 + 120, 18)  # Rush Hour's frame and exit room
    assert g.cell == min(96, (1200 - 2 * 138) // 6, (700 - 36) // 6) == 96
    assert (g.x0, g.y0) == (40 + (1200 - 576) // 2, 100 + (700 - 576) // 2)
    assert g.rect == Rect(g.x0, g.y0, 576, 576)
    assert g.cell_rect(2, 3) == Rect(g.x0 + 3 * 96, g.y0 + 2 * 96, 96, 96)
    assert g.cell_rect(1, 0, rows=3) == Rect(g.x0, g.y0 + 96, 96, 288)  # a vertical truck
    assert g.center(0, 0) == (g.x0 + 48, g.y0 + 48)
    assert GridLayout.fit(area, 6, 6, 96, 138, 18) is g  # cached


@given(
    st.integers(0, 300),
    st.integers(0, 300),
    st.integers(40, 1280),
    st.integers(40, 900),
    st.integers(1, 16),
    st.integers(1, 16),
    st.integers(-20, 1600),
    st.integers(-20, 1200),
)
def test_cell_at_inverts_cell_rect(x, y, w, h, rows, cols, px, py):
    g = GridLayout.fit(Rect(x, y, w, h), rows, cols, 88)
    hit = g.cell_at(px, py)
    if g.rect.contains(px, py):
        assert hit is not None and g.cell_rect(*hit).contains(px, py)
    else:
        assert hit is None


def test_field_checks_name_the_field_and_never_format_huge_numbers():
    assert row_col([2, 3], "start") == (2, 3)
    with pytest.raises(
        LevelError, match=r"start: expected \[row, col\] as two integers, got \[1, True\]"
    ):
        row_col([1, True], "start", LevelError)
    with pytest.raises(ValueError, match=r"ball: \[<int>, 0\] is outside the 5x6 grid"):
        check_in_grid(10**5000, 0, 5, 6, "ball")
    assert grid_cell([4, 5], "painted[0]", 5, 6) == (4, 5)
    with pytest.raises(ValueError, match=r"painted\[1\]: \[5, 0\] is outside the 5x6 grid"):
        grid_cell([5, 0], "painted[1]", 5, 6)
    check_exact_keys({"a": 1, "b": 2}, ("a", "b"), "state")
    with pytest.raises(
        ValueError,
        match=r"^state: missing key\(s\) b; unexpected key\(s\) c; expected exactly a, b$",
    ):
        check_exact_keys({"a": 1, "c": 2}, ("a", "b"), "state")


NOT_NUMBERS = [True, False, np.True_, None, "3", [3], 3j, float("nan"), math.inf, -math.inf]


@pytest.mark.parametrize("value", NOT_NUMBERS)
def test_bounded_checks_refuse_bools_and_non_numbers_naming_the_field(value):
    with pytest.raises(ConfigError, match=r"^workers: expected an integer 0..9, got "):
        check_count(value, "workers", 0, 9, ConfigError, numpy=True)
    with pytest.raises(ConfigError, match=r"^timeout_s: expected a number 0..9, got "):
        check_number(value if value is not None else "x", "timeout_s", 0, 9, ConfigError)
    assert not is_int(value, numpy=True)


@given(st.integers(-(2**70), 2**70), st.integers(-50, 50), st.integers(-50, 50))
def test_check_count_takes_exactly_the_integers_in_its_bounds(value, lo, span):
    hi = lo + span
    if lo <= value <= hi:
        assert check_count(value, "n", lo, hi) == value
    else:
        with pytest.raises(ValueError, match=rf"^n: expected an integer {lo}..{hi}, got "):
            check_count(value, "n", lo, hi)
    assert is_int(value, lo, None) == (value >= lo)
    assert (check_count(value, "n", lo, None) == value) if value >= lo else True


def test_bounded_checks_options_unbounded_optional_numpy_and_context():
    with pytest.raises(LevelError, match=r"^seed: expected an integer >= 0, got -1$"):
        check_count(-1, "seed", 0, None, LevelError)
    assert check_count(10**30, "seed", 0, None) == 10**30
    assert check_count(-(10**30), "seed", None, None) == -(10**30)
    with pytest.raises(ValueError, match=r"^seed: expected an integer, got 1.0$"):
        check_count(1.0, "seed", None, None)
    with pytest.raises(ValueError, match=r"^move: expected an integer <= 3, got 4$"):
        check_count(4, "move", None, 3)
    assert check_count(None, "level", 1, 5, optional=True) is None
    with pytest.raises(ValueError, match=r"^level: expected an integer 1..5 or None, got 0$"):
        check_count(0, "level", 1, 5, optional=True)
    with pytest.raises(ValueError, match=r"^level: expected an integer 1..5, got None$"):
        check_count(None, "level", 1, 5)
    with pytest.raises(ValueError, match=r"got np.int64\(3\)$"):  # numpy only where asked
        check_count(np.int64(3), "action", 0, 9)
    out = check_count(np.int64(3), "action", 0, 9, numpy=True)
    assert out == 3 and type(out) is int
    with pytest.raises(ValueError, match=r"^start_level: expected an integer 0..9 \(the first "):
        check_count(10, "start_level", 0, 9, what="the first level seed")
    assert check_number(np.float32(0.5), "f", 0, 1, numpy=True) == 0.5
    with pytest.raises(ValueError, match=r"^f: expected a number 0..1, got "):
        check_number(np.float32(0.5), "f", 0, 1)
    with pytest.raises(ValueError, match=r"^idle_s: expected a number > 0 and <= 10000000, got 0$"):
        check_number(0, "idle_s", 0, 10**7, lo_open=True)
    assert check_number(1e-9, "idle_s", 0, 10**7, lo_open=True) == 1e-9
    with pytest.raises(ValueError, match=r"^budget_s: expected a finite number > 0, got <int>$"):
        check_number(10**5000, "budget_s", 0, None, lo_open=True)  # too large for a float
    assert check_number(1e300, "budget_s", 0, math.inf) == 1e300
    assert check_number(None, "temperature", 0, 2, optional=True) is None

    def request_error(message):  # an error type that takes more than the message
        return ConfigError(f"400 {message}")

    with pytest.raises(ConfigError, match=r"^400 seed: expected an integer 0..9, got 10$"):
        check_count(10, "seed", 0, 9, request_error)


def test_text_grid_geometry_and_check():
    class Level(TextGrid):
        def __init__(self, grid):
            self.grid = grid

    lv = Level(("#..", "..#"))
    assert (lv.height, lv.width, lv.n_cells) == (2, 3, 6)
    assert lv.index(1, 2) == 5 and lv.cell(5) == (1, 2)
    assert check_text_grid(["#.", ".#"], 2, 4, "#.", "only # and .") == ("#.", ".#")
    for bad, msg in [
        ("#.", r"grid: expected a list of row strings, got str"),
        (["#."], r"grid: height must be 2\.\.4 rows, got 1"),
        (["#.", 7], r"grid: row 1 must be a string"),
        (["#.", "."], r"grid: not rectangular, row 1"),
        (["#.", ".x"], r"grid: row 1 contains 'x'; only # and \."),
    ]:
        with pytest.raises(LevelError, match=msg):
            check_text_grid(bad, 2, 4, "#.", "only # and .")


def test_stateless_ui_is_none_everywhere():
    ui = StatelessUI()
    assert ui.initial_ui(None, None) is None and ui.after_move(None, None, 3) is None
    assert ui.ui_to_json(None) is None and ui.ui_from_json(None) is None
    with pytest.raises(ValueError, match="ui state: this game has none, expected null, got 1"):
        ui.ui_from_json(1)


def test_find_documents_keeps_the_study_and_skips_the_rest(tmp_path):
    for name, text in {
        "a": json.dumps({"study": "rq2", "n": 1}),
        "b": json.dumps({"study": "rq4", "n": 2}),
        "c": "{not json",
        "d": json.dumps([1, 2]),
        "e": b"\xff\xfe".decode("latin-1"),
    }.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "outcome.json").write_text(
            text, encoding="latin-1" if name == "e" else "utf-8"
        )
    assert find_documents(tmp_path, "outcome.json", "rq2") == [{"study": "rq2", "n": 1}]
