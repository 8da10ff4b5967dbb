"""Rush Hour solver: exact breadth-first search in vehicle moves, and exact distances.

The state clusters and their distance tables are the game's own
(:mod:`puzzlegym.envs.rush_hour.clusters`, which the potential reads too). :func:`solve` walks
down a memoised table when one covers the state, and otherwise runs a plain breadth-first
search that stops at the first solved state.

Dead ends: none in a cluster that holds a solved state; :func:`certify` says ``dead_end``
only for states whose whole cluster has no solved state (a level that could never be won).
"""

from __future__ import annotations

from puzzlegym.solvers.search import bfs_shortest
from puzzlegym.solvers.types import Solution, Unsolvable, Verdict

from .clusters import (
    MAX_CLUSTER_STATES,
    ClusterTable,
    Packed,
    SearchLimitReached,
    cached_table,
    clear_memo,
    cluster_table,
    distance,
    packer,
)
from .rules import Level, State, initial_state


def solve(
    level: Level, state: State | None = None, max_states: int | None = MAX_CLUSTER_STATES
) -> Solution:
    """A shortest move sequence from ``state`` (default: the start) to a solved state.

    Uses the memoised distance table when one covers ``state`` (a walk down the distances),
    else a breadth-first search that stops at the first solved state. Raises
    :class:`Unsolvable` when no solved state is reachable and :class:`SearchLimitReached`
    past ``max_states``.
    """
    if state is None:
        state = initial_state(level)
    packed = packer(level)
    table = cached_table(level, state)
    if table is not None:
        return _descend(packed, table, packed.encode(state))
    path, expanded, complete = bfs_shortest(
        packed.encode(state), packed.successors, packed.is_goal, max_states=max_states
    )
    if path is None:
        if not complete:
            raise SearchLimitReached(f"no solution found within {max_states} states")
        raise Unsolvable(
            f"level {level.id}: the target car can never reach the exit from this state"
        )
    return Solution(moves=tuple(path), optimal=True, expanded=expanded, meta={"solver": "bfs"})


def _descend(packed: Packed, table: ClusterTable, key: int) -> Solution:
    dist = table.distances
    d = dist[key]
    if d is None:
        raise Unsolvable(
            f"level {packed.level.id}: the target car can never reach the exit from this state"
        )
    moves = []
    while d:
        for move, nxt in packed.successors(key):
            if dist[nxt] == d - 1:
                moves.append(move)
                key, d = nxt, d - 1
                break
    return Solution(moves=tuple(moves), optimal=True, expanded=len(moves), meta={"solver": "table"})


def certify(level: Level, state: State) -> Verdict:
    """``"solvable"`` unless no solved state is reachable from ``state`` (``"dead_end"``);
    ``"unknown"`` past the cluster size limit."""
    try:
        return "solvable" if distance(level, state) is not None else "dead_end"
    except SearchLimitReached:
        return "unknown"


def reachable_count(level: Level, state: State | None = None) -> int:
    """The number of states in the cluster of ``state`` (default: the start)."""
    return cluster_table(level, state).n_states


__all__ = [
    "ClusterTable",
    "MAX_CLUSTER_STATES",
    "Packed",
    "SearchLimitReached",
    "certify",
    "clear_memo",
    "cluster_table",
    "distance",
    "packer",
    "reachable_count",
    "solve",
]
