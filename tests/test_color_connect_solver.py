"""The Color Connect solver is complete: both engines against brute force on small boards
(solvable and unsolvable), the two engines against each other, UNSAT cores checked by the
search, solutions that are simple paths, solving from boards with paths on them, and the
auto engine staying complete without python-sat."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlegym import solvers
from puzzlegym.envs.color_connect import GAME
from puzzlegym.envs.color_connect import rules as R
from puzzlegym.envs.color_connect import solver as S
from puzzlegym.envs.color_connect.rules import Connect, Remove
from puzzlegym.envs.color_connect.solver import sat as color_connect_sat
from puzzlegym.envs.color_connect.solver.search import search

from .test_color_connect_rules import A_PATH, LEVEL

SAT = pytest.mark.skipif(not color_connect_sat.AVAILABLE, reason="python-sat is not installed")


def brute_force(level: R.Level) -> bool:
    """Try every combination of every pair's paths (the rules' own path enumeration)."""

    def rec(state, k):
        if k == level.n_pairs:
            return True
        return any(
            rec(R.apply(level, state, Connect(k, p)), k + 1) for p in R.pair_paths(level, state, k)
        )

    return rec(R.initial_state(level), 0)


def random_level(rng: random.Random, h: int, w: int, pairs: int, blocked: int) -> R.Level:
    cells = rng.sample(range(h * w), 2 * pairs + blocked)
    grid = [["."] * w for _ in range(h)]
    for i, c in enumerate(cells):
        grid[c // w][c % w] = R.PAIR_LETTERS[i // 2] if i < 2 * pairs else "#"
    return R.Level("rand", "Easy", tuple("".join(row) for row in grid))


@st.composite
def small_levels(draw):
    h, w = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    pairs = draw(st.integers(1, min(4, h * w // 2)))
    blocked = draw(st.integers(0, h * w - 2 * pairs))
    return random_level(random.Random(draw(st.integers(0, 2**32))), h, w, pairs, blocked)


def check_solution(level, sol, state=None):
    state = state or R.initial_state(level)
    for move in sol.moves:
        state = R.apply(level, state, move)
        assert isinstance(state, R.State), move
    assert R.is_solved(level, state)
    for k, path in enumerate(state.paths):  # simple paths from dot to dot
        assert (path[0], path[-1]) == level.endpoints[k] and len(set(path)) == len(path)
    return state


@settings(max_examples=150, deadline=None)
@given(small_levels())
def test_search_engine_agrees_with_brute_force(level):
    truth = brute_force(level)
    if truth:
        check_solution(level, S.solve(level, engine="search"))
    else:
        with pytest.raises(solvers.Unsolvable) as info:
            S.solve(level, engine="search")
        assert info.value.proof["engine"] == "search" and info.value.proof["nodes"] >= 0


@SAT
@pytest.mark.parametrize(
    ("race", "loose_conflicts"),
    [(True, 0), (False, color_connect_sat.LOOSE_CONFLICTS), (False, 0)],
    ids=["race", "in-turn", "strict-only"],
)
@settings(max_examples=150, deadline=None)
@given(level=small_levels())
def test_sat_engine_agrees_with_brute_force(level, race, loose_conflicts):
    # race: the two solvers side by side (the default); in-turn: the first run without the
    # square-loop clauses settles every small board; strict-only: every board is settled
    # with them on
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(color_connect_sat, "RACE", race)
        patch.setattr(color_connect_sat, "LOOSE_CONFLICTS", loose_conflicts)
        if brute_force(level):
            check_solution(level, S.solve(level, engine="sat"))
        else:
            with pytest.raises(solvers.Unsolvable) as info:
                S.solve(level, engine="sat")
            assert info.value.proof["engine"] == "sat" and info.value.proof["core"]


def test_brute_force_sees_both_answers():
    """The random small boards above really include solvable and unsolvable ones."""
    rng = random.Random(0)
    answers = {brute_force(random_level(rng, 4, 4, 3, 2)) for _ in range(40)}
    assert answers == {True, False}


@SAT
def test_engines_agree_and_cores_are_minimal_on_larger_boards():
    rng = random.Random(11)
    seen = {True: 0, False: 0}
    for _ in range(40):
        level = random_level(rng, 7, 7, rng.randint(4, 8), rng.randint(0, 6))
        by_search = search(level)
        by_sat = color_connect_sat.route(level)
        assert (by_search.paths is None) == (by_sat.paths is None), level.grid
        seen[by_sat.paths is not None] += 1
        if by_sat.paths is None:
            core = list(by_sat.core)
            assert search(level, core).paths is None  # the core alone cannot be connected
            if by_sat.minimal:  # and it needs every one of its pairs
                for k in core:
                    assert search(level, [j for j in core if j != k]).paths is not None
        else:
            state = R.initial_state(level)
            for k, path in by_sat.paths.items():
                state = R.apply(level, state, Connect(k, path))
            assert R.is_solved(level, state)
    assert seen[True] and seen[False]


def flips_and_gaps(level: R.Level, paths: dict, taken: set | None = None) -> list:
    """The moves that would shorten a path or lighten it (see :mod:`color_connect_sat`): a
    gap shortcut, or a turn at the later corner of a 2x2 block whose earlier opposite corner
    is free and not in ``taken`` (default: the paths' cells)."""
    w = level.width
    if taken is None:
        taken = {c for path in paths.values() for c in path}
    free = [level.owner[c] == -1 and c not in taken for c in range(level.n_cells)]
    found = []
    for k, path in paths.items():
        where = {c: i for i, c in enumerate(path)}
        for i in range(1, len(path) - 1):
            u, m, v = path[i - 1], path[i], path[i + 1]
            if (
                abs(u // w - v // w) == 1 and abs(u % w - v % w) == 1
            ):  # a turn: the block's fourth corner
                other = u + v - m
                if free[other] and other < m:
                    found.append(("flip", k, m))
        for u in path:
            for step in (1, w):
                v, mid = u + 2 * step, u + step
                if v in where and (step == w or v // w == u // w) and free[mid]:
                    found.append(("gap", k, mid))
    return found


@SAT
def test_sat_models_have_no_shortcut_and_no_lightening_flip():
    """The normal form the SAT clauses ask for, on open boards where most paths could be
    flipped towards the top left: none of a model's paths can be, the cells the model puts
    on any pair counted as taken (a model may also hold closed loops of a colour away from
    its dots, which the paths read from it never include), and no model holds a square
    loop."""
    from pysat.solvers import Solver

    rng = random.Random(3)
    solved = 0
    for _ in range(30):
        level = random_level(rng, 7, 7, rng.randint(2, 5), rng.randint(0, 4))
        enc = color_connect_sat._Encoding(level, range(level.n_pairs), 0)
        with Solver(name=color_connect_sat.SOLVER_NAME, bootstrap_with=enc.clauses) as solver:
            if not solver.solve(assumptions=[*enc.assume.values(), enc.strict]):
                continue
            model = {lit for lit in solver.get_model() if lit > 0}
        solved += 1
        paths = {k: enc.path(model, k) for k in enc.pairs}
        taken = {c for c, xs in enumerate(enc.x) if any(v in model for v in xs.values())}
        assert flips_and_gaps(level, paths, taken) == [], level.grid
        w = level.width
        for c in range(level.n_cells - w):  # no pair holds a whole 2x2 block (a square loop)
            if c % w < w - 1:
                block = (c, c + 1, c + w, c + w + 1)
                held = [{k for k, v in enc.x[q].items() if v in model} for q in block]
                assert not set.intersection(*held), (level.grid, block)
    assert solved >= 20
    # the checker sees both moves: a path round the bottom left of an open 3x3
    level = R.Level("f", "Easy", ("A..", "...", "..A"))
    assert flips_and_gaps(level, {0: (0, 3, 6, 7, 8)}) == [("flip", 0, 6)]
    assert flips_and_gaps(level, {0: (0, 1, 4, 7, 8)}) == [("flip", 0, 7)]  # not at 1: 3 is later
    assert flips_and_gaps(R.Level("g", "Easy", ("A..", "...", "A..")), {0: (0, 1, 4, 7, 6)}) == [
        ("flip", 0, 7),
        ("gap", 0, 3),
    ]


@SAT
def test_race_agrees_with_in_turn_and_leaves_no_thread(monkeypatch):
    """The two solvers side by side give the same answers as one after the other, and both
    threads are gone when route returns (the losing solver is interrupted)."""
    import threading

    rng = random.Random(7)
    before = threading.active_count()
    answers = set()
    for _ in range(12):
        level = random_level(rng, 8, 8, rng.randint(4, 9), rng.randint(0, 6))
        raced = color_connect_sat.route(level)
        monkeypatch.setattr(color_connect_sat, "RACE", False)
        in_turn = color_connect_sat.route(level)
        monkeypatch.setattr(color_connect_sat, "RACE", True)
        assert (raced.paths is None) == (in_turn.paths is None), level.grid
        if raced.paths is not None:
            state = R.initial_state(level)
            for k, path in raced.paths.items():
                state = R.apply(level, state, Connect(k, path))
            assert R.is_solved(level, state)
        answers.add(raced.paths is not None)
        assert threading.active_count() == before
    assert answers == {True, False}


def test_bounded_search_is_exact_for_its_bound():
    # Easy 1 (forced detour 4): A must go round D, so with every path held to its shortest
    # route there is no solution, and with 4 cells of slack there is one within the bound
    level = GAME.load_catalogue("Easy")[0]
    assert search(level, slack=0).paths is None and search(level, slack=0).complete
    found = search(level, slack=4)
    assert found.paths is not None
    for k, path in found.paths.items():
        shortest = search(level, [k], slack=0).paths[k]
        assert len(path) <= len(shortest) + 4
    limited = search(level, max_nodes=1)
    assert not limited.complete and limited.paths is None


def test_solve_keeps_paths_that_fit_and_replaces_those_that_do_not():
    #   A . . B .
    #   . # . . B
    #   . C . . A
    #   . . . C .
    level = R.Level("s", "Easy", ("A..B.", ".#..B", ".C..A", "...C."))
    state = R.apply(level, R.initial_state(level), Connect(1, (3, 4, 9)))
    kept = S.solve(level, state)
    assert kept.optimal and kept.moves == (
        Connect(0, (0, 1, 2, 7, 12, 13, 14)),
        Connect(2, (11, 16, 17, 18)),
    )
    check_solution(level, kept, state)
    # A down the left and along the bottom walls C's dot (11) in: A's path must change
    state = R.apply(level, R.initial_state(level), Connect(0, (0, 5, 10, 15, 16, 17, 12, 13, 14)))
    redo = S.solve(level, state)
    assert not redo.optimal and redo.moves[0] == Remove(0) and len(redo.moves) == 4
    # the cheap necessary conditions name the walled-in pair
    assert redo.meta["kept_paths_refuted"] == {
        "engine": "bounds",
        "rule": "separated",
        "pairs": ["C"],
        "cells": [],
    }
    check_solution(level, redo, state)
    # the rules' test board itself has no solution: B's dots lie on both sides of any A path
    with pytest.raises(solvers.Unsolvable):
        S.solve(LEVEL, R.apply(LEVEL, R.initial_state(LEVEL), Connect(0, A_PATH)))


def test_unsolvable_level_carries_its_proof_and_is_a_dead_end_everywhere():
    crossed = R.Level("x", "Easy", ("A.B", "...", "B.A"))
    with pytest.raises(solvers.Unsolvable, match="A, B") as info:
        S.solve(crossed, engine="search")
    assert info.value.proof["pairs"] == ["A", "B"]
    assert solvers.certify(crossed, R.initial_state(crossed)) == "dead_end"
    level = GAME.load_catalogue("Easy")[0]
    assert solvers.certify(level, R.initial_state(level)) == "solvable"
    assert not solvers.is_dead_end(level, R.initial_state(level))


def test_auto_engine_stays_complete_without_python_sat(monkeypatch):
    monkeypatch.setattr(color_connect_sat, "AVAILABLE", False)
    rng = random.Random(5)
    for _ in range(15):
        level = random_level(rng, 5, 5, 4, 2)
        truth = search(level).paths is not None
        try:
            S.solve(level, engine="auto")
            assert truth
        except solvers.Unsolvable as exc:
            assert not truth and exc.proof["engine"] == "search"
    with pytest.raises(RuntimeError, match="python-sat"):
        S.solve(LEVEL, engine="sat")
    with pytest.raises(ValueError, match="engine"):
        S.solve(LEVEL, engine="magic")


def test_tidy_paths_have_no_more_turns_than_the_search_found():
    level = GAME.load_catalogue("Hard")[-1]
    raw, _ = S.route_search(level, range(level.n_pairs), 0)
    tidy = S.tidy(level, raw, 0)
    assert sum(S.turns(level, p) for p in tidy.values()) <= sum(
        S.turns(level, p) for p in raw.values()
    )
    state = R.initial_state(level)
    for k, path in tidy.items():
        state = R.apply(level, state, Connect(k, path))
    assert R.is_solved(level, state)
    # on an open board the fewest-turns route bends once at most
    open_board = R.Level("o", "Easy", ("A....", ".....", "....A"))
    assert S.turns(open_board, S.fewest_turns_path(open_board, 0, open_board.free_mask)) == 1
