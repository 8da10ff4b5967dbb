"""Maze Paint solver: exact breadth-first search over (ball cell, painted set).

Search states are packed into one int, ``painted << 8 | ball`` (a level has at most 16x16 =
256 cells, so the ball index fits in 8 bits); the moves come from the level's precomputed
slide table. BFS over this space yields a provably shortest slide sequence.

Dead ends. A state is a *dead end* when no sequence of slides from it paints every floor cell.
:func:`slide_graph_strongly_connected` checks two things for a level:

1. the *ball graph* -- nodes are the cells the ball can occupy (the start and every slide
   destination reachable from it), with an edge for each slide -- is strongly connected: from
   any such cell the ball can roll to any other, including back to the start; and
2. exhaustively, every (ball, painted) state reachable from the initial state can still reach
   a solved state (zero dead ends).

(1) implies (2) for a valid level (from any state the ball can go anywhere and perform every
slide, and every floor cell is on some slide), so (2) is a redundant, brute-force confirmation.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from puzzlegym.solvers.search import (
    bfs_shortest,
    nodes_reaching,
    reachable_states,
    strongly_connected,
)
from puzzlegym.solvers.types import Solution, Unsolvable, Verdict

from .rules import DIRECTIONS, Level, State, initial_state

_BALL_BITS = 8
_BALL_MASK = (1 << _BALL_BITS) - 1


class SearchLimitReached(RuntimeError):
    """The search stopped at ``max_states`` before it could answer."""


def _encode(state: State) -> int:
    return state.painted << _BALL_BITS | state.ball


def _decode(key: int) -> State:
    return State(key & _BALL_MASK, key >> _BALL_BITS)


def _successor_fn(level: Level):
    """``successors(key) -> [(move, next_key), ...]`` on packed states."""
    table = level.slide_table
    per_cell: dict[int, list[tuple[str, int, int]]] = {}
    for cell in range(level.height * level.width):
        moves = []
        for d, name in enumerate(DIRECTIONS):
            entry = table[cell * 4 + d]
            if entry is not None:
                dest, mask = entry
                moves.append((name, dest, mask << _BALL_BITS))
        per_cell[cell] = moves
    keep = ~_BALL_MASK

    def successors(key: int) -> list[tuple[str, int]]:
        return [
            (name, (key | shifted) & keep | dest)
            for name, dest, shifted in per_cell[key & _BALL_MASK]
        ]

    return successors


def _goal_fn(level: Level):
    full = level.full_mask

    def is_goal(key: int) -> bool:
        return (key >> _BALL_BITS) & full == full

    return is_goal


def solve(level: Level, state: State | None = None, max_states: int | None = None) -> Solution:
    """A shortest slide sequence from ``state`` (default: the initial state).

    Raises :class:`Unsolvable` when no sequence solves the level from ``state`` and
    :class:`SearchLimitReached` if more than ``max_states`` states were needed.
    """
    if state is None:
        state = initial_state(level)
    path, expanded, complete = bfs_shortest(
        _encode(state), _successor_fn(level), _goal_fn(level), max_states=max_states
    )
    if path is None:
        if not complete:
            raise SearchLimitReached(f"no solution found within {max_states} states")
        raise Unsolvable(f"level {level.id}: no slide sequence paints every floor cell")
    return Solution(moves=tuple(path), optimal=True, expanded=expanded, meta={"solver": "bfs"})


def certify(level: Level, state: State, max_states: int | None = None) -> Verdict:
    """``"solvable"`` or ``"dead_end"`` for ``state`` (``"unknown"`` only past ``max_states``).

    Shortcut (a proof, not a heuristic): on a level whose ball graph is strongly connected, a
    state whose ball is on a reachable cell is solvable. Otherwise the answer comes from an
    exhaustive search.
    """
    if state.ball in level.ball_cells and ball_graph_strongly_connected(level):
        return "solvable"
    path, _expanded, complete = bfs_shortest(
        _encode(state), _successor_fn(level), _goal_fn(level), max_states=max_states
    )
    if path is not None:
        return "solvable"
    return "dead_end" if complete else "unknown"


def ball_graph(level: Level) -> dict[int, list[int]]:
    """Cell -> destination cells of its slides, over the cells the ball can occupy."""
    table = level.slide_table
    return {
        cell: [slide[0] for slide in table[cell * 4 : cell * 4 + 4] if slide is not None]
        for cell in sorted(level.ball_cells)
    }


@lru_cache(maxsize=1024)
def ball_graph_strongly_connected(level: Level) -> bool:
    """Whether the ball can roll from every reachable cell to every other (and back to start)."""
    return strongly_connected(ball_graph(level))


@dataclass(frozen=True)
class ReachableStats:
    """Summary of the full (ball, painted) state graph reachable from the initial state."""

    n_states: int
    mean_branching: float  # mean number of legal moves over reachable states
    n_dead_ends: int  # reachable states from which no solved state is reachable
    n_solved: int  # reachable solved states
    complete: bool  # False when max_states cut the enumeration short


def reachable_stats(level: Level, max_states: int | None = None) -> ReachableStats:
    """Enumerate every state reachable from the initial state and count dead ends."""
    graph, complete = reachable_states(
        _encode(initial_state(level)), _successor_fn(level), max_states=max_states
    )
    is_goal = _goal_fn(level)
    adj = {key: [nxt for _m, nxt in edges] for key, edges in graph.items()}
    solved = [key for key in adj if is_goal(key)]
    alive = nodes_reaching(adj, solved)
    n = len(graph)
    branching = sum(len(edges) for edges in graph.values()) / n if n else 0.0
    return ReachableStats(
        n_states=n,
        mean_branching=branching,
        n_dead_ends=sum(1 for key in graph if key not in alive),
        n_solved=len(solved),
        complete=complete,
    )


def slide_graph_strongly_connected(level: Level, exhaustive: bool = True) -> bool:
    """Whether ``level`` is free of dead ends, as described in the module docstring.

    Checks (1) the ball graph is strongly connected and, if ``exhaustive``, (2) every reachable
    (ball, painted) state can still reach a solved state.
    """
    if not ball_graph_strongly_connected(level):
        return False
    if not exhaustive:
        return True
    stats = reachable_stats(level)
    return stats.complete and stats.n_dead_ends == 0 and stats.n_solved > 0


def describe(level: Level) -> dict[str, Any]:
    """Solver facts about a level (for reports and the generator)."""
    sol = solve(level)
    stats = reachable_stats(level)
    return {
        "id": level.id,
        "optimal_slides": sol.length,
        "expanded": sol.expanded,
        "reachable_states": stats.n_states,
        "mean_branching": round(stats.mean_branching, 3),
        "dead_ends": stats.n_dead_ends,
    }


__all__ = [
    "ReachableStats",
    "SearchLimitReached",
    "ball_graph",
    "ball_graph_strongly_connected",
    "certify",
    "describe",
    "reachable_stats",
    "slide_graph_strongly_connected",
    "solve",
]
