"""Catalogue tools behind ``puzzlegym levels {list,validate,stats}``, game-agnostic: they use
only each game's rules model and the solver dispatch."""

from __future__ import annotations

from collections import deque
from typing import Any

from puzzlegym import solvers
from puzzlegym.registry import games, get_game
from puzzlegym.solvers.search import nodes_reaching

STATS_MAX_STATES = 200_000


def _games(name: str | None):
    return [get_game(name)] if name else list(games().values())


def list_levels(game: str | None = None) -> list[dict]:
    return [
        {"game": g.name, "tier": tier, "index": i + 1, "id": level.id}
        for g in _games(game)
        for tier in g.tiers
        for i, level in enumerate(g.load_catalogue(tier))
    ]


def validate(game: str | None = None) -> list[str]:
    """Every catalogue level round-trips through JSON and the solver solves it."""
    problems = []
    for g in _games(game):
        for tier in g.tiers:
            for level in g.load_catalogue(tier):
                where = f"{g.name}/{tier}/{level.id}"
                if g.level_from_json(g.level_to_json(level)) != level:
                    problems.append(f"{where}: does not round-trip through JSON")
                try:
                    sol = solvers.solve(level)
                except solvers.Unsolvable:
                    problems.append(f"{where}: unsolvable")
                    continue
                state = g.rules.initial_state(level)
                for move in sol.moves:
                    state = g.rules.apply(level, state, move)
                if not g.rules.is_solved(level, state):
                    problems.append(f"{where}: the solver's solution does not solve it")
    return problems


def level_stats(game, level, max_states: int = STATS_MAX_STATES) -> dict[str, Any]:
    """N_step (solver-optimal length), the number of reachable states (a lower bound when the
    enumeration hits ``max_states``), the mean branching factor over them and the share of
    them that are dead ends. States are counted up to the solver's symmetry
    (``solvers.canonical_key``: e.g. Nut and Bolt bolts as a multiset, Bolt Unscrew's loose
    screws interchangeable); one representative state per key is expanded."""
    rules = game.rules
    sol = solvers.solve(level)

    def key(state):
        return solvers.canonical_key(level, state)

    start = rules.initial_state(level)
    rep = {key(start): start}  # canonical key -> a representative state
    graph: dict[Any, list] = {}
    queue = deque([key(start)])
    complete = True
    while queue:
        k = queue.popleft()
        state = rep[k]
        edges = []
        for move in rules.legal_moves(level, state):
            nxt = rules.apply(level, state, move)
            nk = key(nxt)
            edges.append(nk)
            if nk not in rep:
                if len(rep) >= max_states:
                    complete = False
                    break  # legal_moves may be a long (lazy) generator: stop drawing from it
                rep[nk] = nxt
                queue.append(nk)
        graph[k] = edges
        if not complete:
            break
    n = len(graph)
    branching = sum(len(e) for e in graph.values()) / n if n else 0.0
    row = {
        "n_step": sol.length,
        "optimal": sol.optimal,
        "states": n if complete else len(rep),
        "states_complete": complete,
        "branching": round(branching, 3),
        "dead_end_share": None,
    }
    if complete:
        alive = nodes_reaching(graph, [k for k in graph if rules.is_solved(level, rep[k])])
        row["dead_end_share"] = round(sum(1 for k in graph if k not in alive) / n, 4)
    return row


def stats(game: str | None = None, max_states: int = STATS_MAX_STATES) -> list[dict]:
    rows = []
    for g in _games(game):
        for tier in g.tiers:
            for i, level in enumerate(g.load_catalogue(tier)):
                cap = min(max_states, g.stats_max_states or max_states)
                rows.append({"game": g.name, "tier": tier, "index": i + 1, "id": level.id, **level_stats(g, level, cap)})
    return rows


def stats_table(rows: list[dict]) -> str:
    head = "| game | tier | level | N_step | optimal | reachable states | B̄ | dead-end share |"
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        states = f"{r['states']}" if r["states_complete"] else f"≥{r['states']}"
        share = "n/a" if r["dead_end_share"] is None else f"{r['dead_end_share']:.2%}"
        lines.append(
            f"| {r['game']} | {r['tier']} | {r['index']} | {r['n_step']} | {'yes' if r['optimal'] else 'no'} "
            f"| {states} | {r['branching']:.2f} | {share} |"
        )
    return "\n".join(lines)
