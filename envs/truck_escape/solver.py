"""Truck Escape solver: a departure order from the blocking graph.

Truck ``j`` blocks truck ``i`` when it stands on ``i``'s path to the edge (see
:mod:`puzzlegym.envs.truck_escape.rules`). A request either removes exactly one truck or is
rejected, so every solution needs at least one request per truck still on the board; a
topological order of the blocking graph (each truck after every truck that blocks it) needs
exactly that many, with no rejected request. :func:`solve` returns such an order, built in
**rounds**: round 1 is every truck that can leave at once, round 2 every truck freed by
round 1, and so on, each round in index order. It is optimal.

The **longest blocking chain** of a board is the largest number of trucks ``t1, ..., tk``
where each ``t(m)`` is blocked by ``t(m+1)``: ``t1`` cannot leave before all of the others.
It equals the number of rounds above (a truck's round is one more than the latest round among
its blockers), and :func:`longest_chain` computes it. It measures a level's depth.

Dead ends: a board is unsolvable exactly when its remaining trucks block one another in a
cycle. Valid levels have none and leaving only removes blockers, so every board reachable by
play is solvable (see the rules' docstring); :func:`certify` still decides from the board by
peeling free trucks, so it would report any cyclic board honestly.
"""

from __future__ import annotations

from typing import Any

from puzzlegym.solvers.types import Solution, Unsolvable, Verdict

from .rules import Level, State, bits, initial_state


def rounds(level: Level, state: State | None = None) -> tuple[list[list[int]], int]:
    """The departure rounds of the trucks remaining in ``state`` (default: the start), each
    in index order, and the bitmask of the trucks that can never leave (0 on valid boards)."""
    remaining = (state or initial_state(level)).remaining
    blockers = level.blockers
    out: list[list[int]] = []
    while remaining:
        free = [i for i in bits(remaining) if not blockers[i] & remaining]
        if not free:
            break
        out.append(free)
        for i in free:
            remaining &= ~(1 << i)
    return out, remaining


def solve(level: Level, state: State | None = None) -> Solution:
    """An optimal departure order from ``state`` (default: the initial state): one request
    per remaining truck, none rejected.

    Raises :class:`Unsolvable` when the remaining trucks block one another in a cycle.
    """
    layers, stuck = rounds(level, state)
    if stuck:
        names = ", ".join(str(i) for i in bits(stuck))
        raise Unsolvable(f"level {level.id}: trucks {names} block one another in a cycle")
    moves = tuple(i for layer in layers for i in layer)
    return Solution(
        moves=moves,
        optimal=True,
        expanded=len(moves),
        meta={"solver": "topological", "longest_chain": len(layers)},
    )


def certify(level: Level, state: State) -> Verdict:
    """``"solvable"`` or ``"dead_end"`` for ``state`` (exact; never ``"unknown"``)."""
    return "dead_end" if rounds(level, state)[1] else "solvable"


def longest_chain(level: Level, state: State | None = None) -> int:
    """The number of trucks in the longest blocking chain among the remaining ones (0 on an
    empty board); raises :class:`Unsolvable` on a board with a blocking cycle."""
    layers, stuck = rounds(level, state)
    if stuck:
        raise Unsolvable(f"level {level.id}: the remaining trucks block one another in a cycle")
    return len(layers)


def blocking_graph(level: Level) -> dict[int, list[int]]:
    """Truck -> the trucks standing on its path (its blockers), in index order."""
    return {i: list(bits(mask)) for i, mask in enumerate(level.blockers)}


def describe(level: Level) -> dict[str, Any]:
    """Solver facts about a level (for reports and the generator)."""
    layers, _ = rounds(level)
    return {
        "id": level.id,
        "trucks": level.n_trucks,
        "grid": [level.rows, level.cols],
        "requests": sum(len(layer) for layer in layers),
        "longest_chain": len(layers),
        "free_at_start": len(layers[0]) if layers else 0,
    }


__all__ = ["blocking_graph", "certify", "describe", "longest_chain", "rounds", "solve"]
