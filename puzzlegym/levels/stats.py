"""Catalogue tools behind ``puzzlegym levels {list,validate,stats}``, game-agnostic: they use
only each game's rules model and the solver dispatch."""

from __future__ import annotations

import random
from collections import deque
from itertools import islice
from typing import Any

from puzzlegym import solvers
from puzzlegym.base.errors import LevelError
from puzzlegym.game.registry import games, get_game
from puzzlegym.solvers.search import nodes_reaching

STATS_MAX_STATES = 200_000
PLAYOUTS = 100  # random playouts per level for the dead-end and hidden-dead-end shares
PLAYOUT_MOVES_PER_STEP = 20  # a playout stops after this many moves per solver-optimal move
# a playout draws among at most this many of a state's legal moves (the first ones the rules
# yield): games whose moves are exponentially many (Color Connect's paths) are never listed
PLAYOUT_MAX_MOVES = 1_000


def _games(name: str | None):
    return [get_game(name)] if name else list(games().values())


def list_levels(game: str | None = None) -> list[dict]:
    return [
        {"game": g.name, "tier": tier, "index": i + 1, "id": level.id}
        for g in _games(game)
        for tier in g.tiers
        for i, level in enumerate(g.catalogue(tier))
    ]


def validate(game: str | None = None) -> list[str]:
    """Every catalogue level round-trips through JSON and the solver solves it."""
    problems = []
    for g in _games(game):
        for tier in g.tiers:
            for level in g.catalogue(tier):
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


def state_graph(
    game, level, max_states: int = STATS_MAX_STATES
) -> tuple[dict[Any, Any], dict[Any, list], bool]:
    """The level's reachable states up to the solver's symmetry, breadth first from its
    start: ``(rep, graph, complete)``, ``rep`` a representative state per canonical key
    (``solvers.canonical_key``: e.g. Nut and Bolt bolts as a multiset), ``graph`` the keys
    each key expanded in full leads to, ``complete`` False when the enumeration stopped at
    ``max_states`` keys (then the last key drawn from is not in ``graph``)."""
    rules = game.rules

    def key(state):
        return solvers.canonical_key(level, state)

    start = rules.initial_state(level)
    rep = {key(start): start}  # canonical key -> a representative state
    graph: dict[Any, list] = {}
    queue = deque([key(start)])
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
                    # legal_moves may be a long (lazy) generator: stop drawing from it; this
                    # state's moves were not all drawn, so it does not count towards B̄
                    return rep, graph, False
                rep[nk] = nxt
                queue.append(nk)
        graph[k] = edges
    return rep, graph, True


def dead_end_states(game, level, max_states: int = STATS_MAX_STATES) -> list[Any]:
    """A representative state of every reachable dead end of ``level`` up to the solver's
    symmetry (the states from which no sequence of moves wins; the certificate of
    ``solvers.certify``), from the whole state graph (:func:`state_graph`); ``LevelError``
    when the level has more than ``max_states`` states."""
    rep, graph, complete = state_graph(game, level, max_states)
    if not complete:
        raise LevelError(
            f"level {getattr(level, 'id', '?')}: more than {max_states} reachable states; its "
            "dead ends are not enumerated"
        )
    alive = nodes_reaching(graph, [k for k in graph if game.rules.is_solved(level, rep[k])])
    return [rep[k] for k in graph if k not in alive]


def level_stats(game, level, max_states: int = STATS_MAX_STATES) -> dict[str, Any]:
    """N_step (solver-optimal length), the number of reachable states (a lower bound when the
    enumeration hits ``max_states``), the mean branching factor over the states expanded in
    full (None when the cap stopped the very first expansion) and the share of
    them that are dead ends. States are counted up to the solver's symmetry
    (``solvers.canonical_key``: e.g. Nut and Bolt bolts as a multiset, Bolt Unscrew's loose
    screws interchangeable); one representative state per key is expanded
    (:func:`state_graph`)."""
    rules = game.rules
    sol = solvers.solve(level)
    rep, graph, complete = state_graph(game, level, max_states)
    n = len(graph)
    branching = round(sum(len(e) for e in graph.values()) / n, 3) if n else None
    row = {
        "n_step": sol.length,
        "optimal": sol.optimal,
        "states": n if complete else len(rep),
        "states_complete": complete,
        "branching": branching,
        "dead_end_share": None,
    }
    if complete:
        alive = nodes_reaching(graph, [k for k in graph if rules.is_solved(level, rep[k])])
        row["dead_end_share"] = round(sum(1 for k in graph if k not in alive) / n, 4)
    return row


def playout_dead_ends(
    game, level, playouts: int = PLAYOUTS, max_moves: int | None = None
) -> dict[str, Any]:
    """Random play from the start: each playout draws uniformly from the rules' legal moves
    (the first ``PLAYOUT_MAX_MOVES`` of them when a state has more; seeded by the game and
    level id) until the board is solved, the certifier proves it
    unsolvable, no move is left, or ``max_moves`` (default ``PLAYOUT_MOVES_PER_STEP`` x
    N_step) is reached. Returns ``playout_dead_rate`` (share of playouts that reached a
    certified dead end) and ``hidden_dead_end_share``: among those, the share whose first
    unsolvable board still had a legal move, so the game's visible sign of a lost board (no
    move left) was not there yet (None without dead ends). For Bolt Unscrew a legal move
    exists exactly when a free anchor does: the dead end arrived while free anchors
    remained."""
    rules = game.rules
    if max_moves is None:
        max_moves = PLAYOUT_MOVES_PER_STEP * max(1, solvers.solve(level).length)
    rng = random.Random(f"puzzlegym/levels/playout/{game.name}/{level.id}")
    dead = hidden = 0
    for _ in range(playouts):
        state = rules.initial_state(level)
        for _move in range(max_moves + 1):
            if rules.is_solved(level, state):
                break
            moves = list(islice(rules.legal_moves(level, state), PLAYOUT_MAX_MOVES))
            if solvers.certify(level, state) == "dead_end":
                dead += 1
                hidden += bool(moves)
                break
            if not moves:
                break
            state = rules.apply(level, state, moves[rng.randrange(len(moves))])
    return {
        "playout_dead_rate": round(dead / playouts, 4),
        "hidden_dead_end_share": round(hidden / dead, 4) if dead else None,
    }


def stats(
    game: str | None = None, max_states: int = STATS_MAX_STATES, playouts: int = PLAYOUTS
) -> list[dict]:
    rows = []
    for g in _games(game):
        for tier in g.tiers:
            for i, level in enumerate(g.catalogue(tier)):
                cap = min(max_states, g.stats_max_states or max_states)
                row = {
                    "game": g.name,
                    "tier": tier,
                    "index": i + 1,
                    "id": level.id,
                    **level_stats(g, level, cap),
                }
                row.update(playout_dead_ends(g, level, playouts))
                rows.append(row)
    return rows


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2%}"


def stats_table(rows: list[dict]) -> str:
    head = (
        "| game | tier | level | N_step | optimal | reachable states | B̄ | dead-end share "
        "| random-play dead ends | hidden dead ends |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        states = f"{r['states']}" if r["states_complete"] else f"≥{r['states']}"
        lines.append(
            f"| {r['game']} | {r['tier']} | {r['index']} | {r['n_step']} | "
            f"{'yes' if r['optimal'] else 'no'} "
            f"| {states} | {_num(r['branching'])} | {_pct(r['dead_end_share'])} "
            f"| {_pct(r.get('playout_dead_rate'))} | {_pct(r.get('hidden_dead_end_share'))} |"
        )
    return "\n".join(lines)


# ----------------------------------------------------------------------------- generated levels
