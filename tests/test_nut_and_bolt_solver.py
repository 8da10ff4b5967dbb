"""Nut and Bolt: certification against brute force, the solver on the catalogue, the
catalogue's calibration, generator determinism, and a scripted dead end recorded by the
evaluator with the right fatal transfer and delay."""

from __future__ import annotations

import json
import random

import pytest

from puzzlegym.envs.nut_and_bolt import GAME
from puzzlegym.envs.nut_and_bolt import rules as R
from puzzlegym.envs.nut_and_bolt import solver as S
from puzzlegym.envs.nut_and_bolt.catalogue import (
    CATALOGUE,
    catalogue_path,
    load_catalogue,
    solution_lengths,
)
from puzzlegym.envs.nut_and_bolt.generator import (
    TIER_SPECS,
    build_catalogue,
    candidate,
    catalogue_document,
    dead_end_share,
    generate,
)
from puzzlegym.envs.nut_and_bolt.view import bolt_rects
from puzzlegym.screen.layout import BOARD_AREA
from puzzlegym.solvers.search import nodes_reaching, reachable_states

SIZES = {"Easy": 3, "Medium": 3, "Hard": 3, "Extreme": 3, "Nightmare": 1}


def brute_force(level):
    """Every reachable state (actual bolt order, every legal move) -> solvable?"""

    def succ(state):
        for m in R.legal_moves(level, state):
            yield m, R.apply(level, state, m)

    graph, complete = reachable_states(R.initial_state(level), succ)
    assert complete
    adj = {s: [t for _m, t in e] for s, e in graph.items()}
    alive = nodes_reaching(adj, [s for s in adj if R.is_solved(level, s)])
    return {s: s in alive for s in graph}


def small_level(colours, capacity, empty, seed):
    """A random full board with ``empty`` empty bolts (one empty bolt makes dead ends common)."""
    level = candidate(random.Random(seed), "Easy", colours, capacity)
    return R.Level(f"small-{seed}", "Easy", capacity, level.bolts[: colours + empty])


SMALL = [
    (3, 3, 1, 2),
    (4, 3, 1, 1),
    (4, 3, 1, 3),
    (3, 4, 1, 1),
    (3, 4, 1, 2),
    (4, 4, 2, 3),
    (4, 3, 2, 0),
]


@pytest.mark.parametrize("colours,capacity,empty,seed", SMALL)
def test_certify_matches_brute_force_on_small_boards(colours, capacity, empty, seed):
    level = small_level(colours, capacity, empty, seed)
    truth = brute_force(level)
    states = sorted(truth, key=lambda s: s.bolts)
    random.Random(seed).shuffle(states)
    for memo in ("cold", "warm"):
        if memo == "cold":
            S.clear_memo()
        for state in states:
            assert (S.certify(level, state) == "solvable") == truth[state], (memo, state)
    # canonical keys: any permutation of the bolts has the same key and verdict
    for state in states[:50]:
        perm = R.State(tuple(reversed(state.bolts)))
        assert S.canonical(S.to_board(perm), capacity) == S.canonical(S.to_board(state), capacity)


def test_small_board_dead_ends_exist_and_solutions_are_shortest():
    level = small_level(4, 3, 1, 1)
    truth = brute_force(level)
    assert sum(not v for v in truth.values()) == 17 and truth[R.initial_state(level)]

    # BFS over actual states gives the true shortest length
    from puzzlegym.solvers.search import bfs_shortest

    def succ(state):
        for m in R.legal_moves(level, state):
            yield m, R.apply(level, state, m)

    path, _, _ = bfs_shortest(R.initial_state(level), succ, lambda s: R.is_solved(level, s))
    sol = S.solve(level)
    assert sol.optimal and sol.length == len(path)


@pytest.mark.parametrize("tier", list(SIZES))
def test_catalogue_levels_are_well_formed_and_solved(tier):
    levels = load_catalogue(tier)
    assert len(levels) == SIZES[tier]
    assert [lv.id for lv in levels] == [
        f"nut-{tier.lower()}-{i:02d}" for i in range(1, len(levels) + 1)
    ]
    for (level, (stored, optimal)), (colours, capacity) in zip(
        zip(levels, solution_lengths(tier), strict=True), TIER_SPECS[tier].sizes, strict=True
    ):
        assert (level.n_colours, level.capacity) == (colours, capacity)
        assert level.n_bolts == colours + 2
        assert [len(b) for b in level.bolts] == [capacity] * colours + [0, 0]
        for c in level.colours:
            assert sum(b.count(c) for b in level.bolts) == capacity
        sol = S.solve(level)
        assert sol.length == stored and sol.optimal == optimal
        state = R.initial_state(level)
        for move in sol.moves:
            state = R.apply(level, state, move)
            assert isinstance(state, R.State)
        assert R.is_solved(level, state)
        assert S.certify(level, R.initial_state(level)) == "solvable"
    if tier == "Nightmare":
        assert levels[0].n_colours == 9 and levels[0].capacity == 8
        assert solution_lengths(tier)[0][0] >= 50
        assert S.lower_bound(levels[0]) >= 50  # no solution is shorter than 50


@pytest.mark.parametrize("tier", ["Medium", "Hard", "Extreme", "Nightmare"])
def test_random_playouts_reach_certified_dead_ends(tier):
    for level in load_catalogue(tier):
        share = dead_end_share(level, playouts=100)
        assert share >= (0.30 if tier != "Medium" else 0.01), (level.id, share)


def test_committed_catalogue_is_what_the_generator_writes():
    for tier in SIZES:
        text = CATALOGUE.text(catalogue_document(tier, build_catalogue(tier)))
        assert catalogue_path(tier).read_text(encoding="utf-8") == text
        json.loads(text)


def test_generator_is_deterministic_and_gives_new_levels():
    a = generate("Medium", 4)
    assert generate("Medium", 4) == a
    assert generate("Medium", 7) != a
    assert a not in load_catalogue("Medium")
    assert S.certify(a, R.initial_state(a)) == "solvable"


def _dead_path(level):
    """A shortest move sequence from the start to a dead-end board from which one more move
    keeps the board dead, and that move (BFS over actual states, certified boards)."""
    from collections import deque

    class Truth(dict):
        def __missing__(self, state):
            self[state] = v = S.certify(level, state) == "solvable"
            return v

    truth = Truth()

    start = R.initial_state(level)
    parent = {start: None}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        for m in R.legal_moves(level, s):
            t = R.apply(level, s, m)
            if t in parent:
                continue
            parent[t] = (s, m)
            if not truth[t] and any(
                not truth[R.apply(level, t, m2)] for m2 in R.legal_moves(level, t)
            ):
                moves = []
                node = t
                while parent[node] is not None:
                    node, mv = parent[node]
                    moves.append(mv)
                moves.reverse()
                extra = next(
                    m2 for m2 in R.legal_moves(level, t) if not truth[R.apply(level, t, m2)]
                )
                return moves, extra
            queue.append(t)
    raise AssertionError("no dead end reachable")


def test_scripted_dead_end_is_certified_at_the_fatal_transfer_and_undo_recorded(make_env):
    env = make_env("LongPuzzle/NutAndBolt-Medium", level=1, start="board")
    env.reset(seed=0)
    u = env.unwrapped
    level = u.suite.board.level
    moves, extra = _dead_path(level)
    assert len(moves) >= 2

    def play(move):
        b = u.suite.board
        info = None
        for a in GAME.view.actions_for_move(level, b.state, b.ui, move, BOARD_AREA):
            *_, info = env.step({"type": "click", "x": a.x, "y": a.y})
        return info

    for move in moves[:-1]:
        info = play(move)
        assert info["evaluator"]["dead_end"] is False
    info = play(moves[-1])  # the fatal transfer
    assert info["evaluator"]["dead_end"] is True
    fatal_actions = u.evaluator.snapshots[-1]["actions"]
    play(extra)  # still dead: delay 2
    x, y = u.suite.targets()["undo"].center
    *_, info = env.step({"type": "click", "x": x, "y": y})
    assert info["evaluator"]["dead_end"] is True
    *_, info = env.step({"type": "click", "x": x, "y": y})  # back on a solvable board
    assert info["evaluator"]["dead_end"] is False
    attempt = u.evaluator.attempt
    assert attempt["dead_end"] and attempt["undos"] == 2 and attempt["moves"] == len(moves) + 1
    run = attempt["runs"][0]
    assert run["fatal_actions"] == fatal_actions
    assert tuple(run["fatal_move"]) == tuple(moves[-1])
    assert run["delay"] == 2 and run["recovered_by"] == "undo"
    # the rest of the level can still be won from here
    rest = S.solve(level, u.suite.board.state)
    for move in rest.moves:
        play(move)
    assert u.evaluator.levels_won == [1]
    # the first board snapshots were certified solvable, with the exact snapshot order
    assert [s["dead_end"] for s in u.evaluator.snapshots[: len(moves)]] == [False] * len(moves)
    rects = bolt_rects(level, BOARD_AREA)
    assert len(rects) == level.n_bolts


def test_solver_agent_episode_is_deterministic(make_env):
    from tests.test_env import play

    a = play(make_env("LongPuzzle/NutAndBolt-Medium"))[0]
    S.clear_memo()
    b = play(make_env("LongPuzzle/NutAndBolt-Medium"))[0]
    assert a == b and len(set(a)) > 20
