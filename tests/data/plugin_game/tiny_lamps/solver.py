"""Tiny Lamps' solver: breadth-first search over the lamps' bitmask (at most 2**7 states)."""

from __future__ import annotations

from collections import deque
from typing import Any

from puzzlegym.solvers.types import Solution, Unsolvable, Verdict

from .rules import Level, State, apply, initial_state, is_solved


def solve(level: Level, state: State | None = None) -> Solution:
    start = initial_state(level) if state is None else state
    parent: dict[int, tuple[int, int] | None] = {start.lit: None}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if is_solved(level, here):
            moves: list[int] = []
            key = here.lit
            while parent[key] is not None:
                key, move = parent[key]  # type: ignore[misc]
                moves.append(move)
            return Solution(moves=tuple(reversed(moves)), optimal=True, expanded=len(parent))
        for move in range(level.n):
            nxt: Any = apply(level, here, move)
            if nxt.lit not in parent:
                parent[nxt.lit] = (here.lit, move)
                queue.append(nxt)
    raise Unsolvable(f"level {level.id}: no switching lights every lamp")


def certify(level: Level, state: State) -> Verdict:
    try:
        solve(level, state)
    except Unsolvable:
        return "dead_end"
    return "solvable"
