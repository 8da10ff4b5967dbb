"""Level statistics counted up to the solvers' symmetries agree with the raw state space."""

import pytest

from puzzlegym import solvers
from puzzlegym.game.registry import get_game
from puzzlegym.levels import stats as levels
from puzzlegym.solvers.search import nodes_reaching, reachable_states


@pytest.mark.parametrize(
    "name, tier",
    [
        ("BoltUnscrew", "Easy"),
        ("NutAndBolt", "Easy"),
        ("MazePaint", "Easy"),
        ("TruckEscape", "Default"),
    ],
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


def test_levels_doc_states_the_hidden_dead_end_share_of_every_bolt_unscrew_hard_level():
    """docs/levels.md (puzzlegym levels stats --write) gives, per Bolt Unscrew Hard level, the
    random-play dead-end share and the share of those dead ends that arrived while free anchors
    remained; the figures are what the code computes, and every Hard level's dead ends hide."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "levels.md").read_text(encoding="utf-8")
    rows = [
        line
        for line in text.splitlines()
        if line.startswith("| BoltUnscrew | Hard |") and line.count("|") == 11
    ]
    game = get_game("BoltUnscrew")
    hard = game.load_catalogue("Hard")
    assert len(rows) == len(hard) == 8
    for line, level in zip(rows, hard, strict=True):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        got = levels.playout_dead_ends(game, level)
        assert cells[-2:] == [
            f"{got['playout_dead_rate']:.2%}",
            f"{got['hidden_dead_end_share']:.2%}",
        ], level.id
        assert got["hidden_dead_end_share"] >= 0.25, level.id


def test_playouts_draw_among_a_bounded_number_of_moves(monkeypatch):
    """A Color Connect Hard board has tens of thousands of legal moves (every path of every
    pair): a playout draws among the first ``PLAYOUT_MAX_MOVES`` of them instead of listing
    them all, so `levels stats` ends on every game."""
    game = get_game("ColorConnect")
    level = game.load_catalogue("Hard")[2]
    real = game.rules.legal_moves
    drawn: list[int] = []

    def counting(lv, state):
        drawn.append(0)
        for move in real(lv, state):
            drawn[-1] += 1
            yield move

    assert (
        sum(1 for _ in real(level, game.rules.initial_state(level))) > 10 * levels.PLAYOUT_MAX_MOVES
    )
    monkeypatch.setattr(game.rules, "legal_moves", counting)
    got = levels.playout_dead_ends(game, level, playouts=2, max_moves=3)
    assert drawn and max(drawn) == levels.PLAYOUT_MAX_MOVES
    assert got == {
        "playout_dead_rate": 0.0,
        "hidden_dead_end_share": None,
    }  # paths can always be removed


def test_branching_counts_only_states_expanded_in_full():
    """When the cap stops the enumeration inside a state's moves, that state's partial move
    count is not averaged in: a board whose first state alone has more successors than the cap
    has no B̄ (n/a in docs/levels.md) rather than the cap itself."""
    game = get_game("ColorConnect")
    level = game.load_catalogue("Hard")[2]
    row = levels.level_stats(game, level, max_states=50)
    assert row["states_complete"] is False and row["states"] == 50
    assert row["branching"] is None
    assert "| n/a | n/a |" in levels.stats_table(
        [
            {
                **row,
                "game": "ColorConnect",
                "tier": "Hard",
                "index": 3,
                "id": level.id,
                "playout_dead_rate": 0.0,
                "hidden_dead_end_share": None,
            }
        ]
    )
    small = game.load_catalogue("Easy")[0]
    full = levels.level_stats(game, small)
    assert full["states_complete"] and full["branching"] > 0
