"""Bolt Unscrew solver and certifier: exhaustive certification against brute force, the
early dead end only search sees, optimal solutions, the catalogue and the generator."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import deque

import pytest

from puzzlegym.envs.bolt_unscrew import generator as gen
from puzzlegym.envs.bolt_unscrew import rules as R
from puzzlegym.envs.bolt_unscrew import solver as S
from puzzlegym.envs.bolt_unscrew.catalogue import (
    CATALOGUE,
    catalogue_path,
    load_catalogue,
    reference_solutions,
)
from puzzlegym.solvers import certify, solve
from puzzlegym.solvers.search import adjacency, nodes_reaching, reachable_states, reverse
from puzzlegym.solvers.types import Unsolvable

# A 3-hole bar A (anchors 0,1,2), a 2-hole bar B (3,5) over a hidden anchor 4, free anchors 6, 7.
TRAP = {
    "id": "trap",
    "tier": "Easy",
    "size": [5, 3],
    "anchors": [[0, 0], [1, 0], [2, 0], [0, 2], [1, 2], [2, 2], [4, 0], [4, 2]],
    "boards": [
        {"kind": "bar", "layer": 0, "holes": [0, 1, 2]},
        {"kind": "bar", "layer": 0, "holes": [3, 5]},
    ],
    "screws": [0, 1, 2, 3, 5],
}


def brute_alive(level):
    """Every reachable state (raw rules, no reductions) and those that can still win."""
    graph, complete = reachable_states(
        R.initial_state(level),
        lambda s: [(m, R.apply(level, s, m)) for m in R.legal_moves(level, s)],
        max_states=3000,
    )
    if not complete:
        return None, None
    adj = adjacency(graph)
    return adj, nodes_reaching(adj, [s for s in adj if R.is_solved(level, s)])


def test_trap_level_early_dead_end_and_certificate():
    level = R.Level.from_json(TRAP)
    s0 = R.initial_state(level)
    assert R.free_anchors(level, s0) == 2
    sol = solve(level, s0)
    assert sol.optimal and sol.length == 5  # B first: its fall opens three anchors
    assert [m[0] for m in sol.moves[:2]] in ([3, 5], [5, 3])
    # unscrewing A first spends a free anchor that never comes back: already lost, although
    # moves remain (only exhaustive search sees it) ...
    s1 = R.apply(level, s0, (0, 6))
    assert certify(level, s1) == "dead_end"
    assert R.legal_moves(level, s1) and not R.deadlock_certificate(level, s1)
    with pytest.raises(Unsolvable):
        solve(level, s1)
    # ... and filling the last free anchor gives the paper's certificate
    s2 = R.apply(level, s1, (3, 7))
    assert R.free_anchors(level, s2) == 0 and R.deadlock_certificate(level, s2)
    assert certify(level, s2) == "dead_end"


def test_certifier_agrees_with_brute_force_on_small_levels():
    """On small random levels, every reachable raw state: the certifier's verdict equals
    brute-force reachability of a solved state, and the solver's length equals the exact
    distance to the nearest solved state (reverse BFS over the raw state graph)."""
    spec = dataclasses.replace(gen.TIER_SPECS["Easy"], free=(1, 3), hidden_prob=0.2, pad_prob=0.2)
    rng = random.Random(3)
    checked = dead = early = 0
    for _ in range(400):
        if checked >= 20:
            break
        level = gen._candidate(rng, spec, "Easy")
        if level is None or len(level.screws) > 7:
            continue
        adj, alive = brute_alive(level)
        if adj is None:
            continue
        dist = {s: 0 for s in adj if R.is_solved(level, s)}
        rev = reverse(adj)
        queue = deque(dist)
        while queue:
            t = queue.popleft()
            for p in rev[t]:
                if p not in dist:
                    dist[p] = dist[t] + 1
                    queue.append(p)
        S.model.cache_clear()  # fresh memo per level
        for s in adj:
            verdict = certify(level, s)
            assert (verdict == "solvable") == (s in alive), (level, s)
            if verdict == "dead_end":
                dead += 1
                early += bool(R.legal_moves(level, s))
            else:
                assert solve(level, s).length == dist[s], (level, s)
        checked += 1
    assert checked >= 20 and dead > 50 and early > 10


@pytest.mark.parametrize("tier", ["Easy", "Hard"])
def test_catalogue_calibration(tier):
    levels = load_catalogue(tier)
    refs = reference_solutions(tier)
    assert len(levels) == 8
    assert [lv.id for lv in levels] == [f"bolt-{tier.lower()}-{i:02d}" for i in range(1, 9)]
    for level, ref in zip(levels, refs, strict=True):
        s0 = R.initial_state(level)
        free = R.free_anchors(level, s0)
        sol = solve(level)
        assert sol.optimal and sol.length == len(ref) == sol.meta["lower_bound"]
        state = s0
        for move in ref:  # the committed reference solution replays
            state = R.apply(level, state, tuple(move))
            assert isinstance(state, R.State), (level.id, move)
        assert R.is_solved(level, state)
        stats = S.playout_stats(level, 100)
        if tier == "Hard":
            assert len(level.boards) <= 24 and 2 <= free <= 4
            assert 10 <= sol.length <= 30
            assert stats["dead_rate"] >= 0.6, level.id
            # dead ends that hide: in random play at least a quarter of them arrive while free
            # anchors remain (the generator keeps levels at >= 30% on its own playouts)
            assert stats["hidden_share"] >= 0.25, level.id
        else:
            assert len(level.boards) <= 8 and free >= 3
            assert stats["dead_rate"] <= 0.3, level.id
            assert stats["hidden_share"] in (None, 0.0), level.id  # Easy dead ends are all visible


def test_catalogue_files_are_what_the_generator_writes():
    for tier in R.TIERS:
        doc = gen.catalogue_document(tier, gen.build_catalogue(tier))
        assert catalogue_path(tier).read_text(encoding="utf-8") == CATALOGUE.text(doc)
        assert json.loads(CATALOGUE.text(doc)) == doc


def test_a_settled_unsolved_board_has_a_legal_move_exactly_when_it_has_a_free_anchor():
    """So "hidden" (a dead end with free anchors left) is the same as "before the paper's
    certificate" (a dead end with moves left): ``hidden_share == early_rate / dead_rate``."""
    rng = random.Random(7)
    for level in load_catalogue("Hard"):
        for _ in range(5):
            _solved, states = S.random_playout(level, rng)
            for st in states:
                if st.remaining:
                    assert bool(R.legal_moves(level, st)) == (R.free_anchors(level, st) > 0)
        stats = S.playout_stats(level, 50)
        assert stats["hidden_share"] == pytest.approx(stats["early_rate"] / stats["dead_rate"])


def test_generate_is_deterministic_and_verified():
    a = gen.generate("Hard", 11)
    b = gen.generate("Hard", 11)
    assert a == b and a.id == "bolt-hard-seed11"
    assert certify(a, R.initial_state(a)) == "solvable"
    assert gen.generate("Easy", 11) != gen.generate("Easy", 12)


def test_certify_states_from_random_play_match_playout_ends():
    level = load_catalogue("Hard")[0]
    rng = random.Random(0)
    for _ in range(20):
        solved, states = S.random_playout(level, rng)
        assert solved == (certify(level, states[-1]) == "solvable")
        verdicts = [certify(level, s) for s in states]
        # dead ends are absorbing: once lost, every later board is lost
        if "dead_end" in verdicts:
            k = verdicts.index("dead_end")
            assert set(verdicts[k:]) == {"dead_end"}
