"""Level statistics counted up to the solvers' symmetries agree with the raw state space."""

import pytest

from puzzlegym import solvers
from puzzlegym.evaluation import levels
from puzzlegym.registry import get_game
from puzzlegym.solvers.search import nodes_reaching, reachable_states


@pytest.mark.parametrize(
    "name, tier",
    [("BoltUnscrew", "Easy"), ("NutAndBolt", "Easy"), ("MazePaint", "Easy"), ("TruckEscape", "Default")],
)
def test_canonical_counts_match_the_raw_state_space(name, tier):
    game = get_game(name)
    level = game.load_catalogue(tier)[0]
    rules = game.rules

    def successors(state):
        for move in rules.legal_moves(level, state):
            yield move, rules.apply(level, state, move)

    graph, complete = reachable_states(rules.initial_state(level), successors)
    assert complete
    adj = {s: [t for _m, t in e] for s, e in graph.items()}
    alive = nodes_reaching(adj, [s for s in adj if rules.is_solved(level, s)])
    keys = {solvers.canonical_key(level, s) for s in graph}
    dead_keys = {solvers.canonical_key(level, s) for s in graph if s not in alive}
    alive_keys = {solvers.canonical_key(level, s) for s in alive}
    assert not dead_keys & alive_keys  # a key never mixes dead and solvable states

    row = levels.level_stats(game, level)
    assert row["states_complete"] and row["states"] == len(keys)
    assert row["dead_end_share"] == round(len(dead_keys) / len(keys), 4)
    assert row["n_step"] == solvers.solve(level).length
