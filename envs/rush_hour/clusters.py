"""Rush Hour's state clusters and exact distances, the potential's source and the solver's
table.

Compact states. A state is packed into one ``int``: vehicle ``i``'s position along its axis
in bits ``4i .. 4i+3`` (a grid is at most 10 cells wide, so a position fits in 4 bits). The
target car is vehicle 0, so a state is solved when its low 4 bits equal the exit position.
Successors are generated from one occupancy bitmask per state and, per vehicle and position,
the precomputed cells a slide enters one step at a time (:class:`Packed`).

Moves are reversible, so the states reachable from a start form a *cluster* in which every
state reaches every other. :func:`cluster_table` enumerates a whole cluster, then runs one
multi-source breadth-first search from its solved states: that gives the exact distance to
the goal of every state of the cluster at once. The tables are memoised per level (a few
clusters per level, a bounded number of levels), so the potential ``1 − d(s)/d(s₀)``
(``rules.potential``) costs a dictionary look-up per settled board.

This module reads a level's geometry (``n_vehicles``, ``exit_position``, ``wall_mask``,
``cell_masks``, the vehicles' start positions) and a state's ``positions`` only, so the rules
import it without a cycle; ``puzzlegym.envs.rush_hour.solver`` solves and certifies with it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, NamedTuple

from puzzlegym.solvers.types import Unsolvable

__all__ = [
    "BITS",
    "FIELD",
    "MAX_CLUSTER_STATES",
    "ClusterTable",
    "Packed",
    "SearchLimitReached",
    "cached_table",
    "clear_memo",
    "cluster_table",
    "distance",
    "packer",
]


class _Start(NamedTuple):
    """A level's start as the positions :meth:`Packed.encode` reads."""

    positions: tuple[int, ...]


BITS = 4
FIELD = (1 << BITS) - 1
MAX_CLUSTER_STATES = 1_000_000
"""A cluster larger than this is not tabulated (:class:`SearchLimitReached`); 6×6 clusters
stay far below it (the largest known has about half a million states)."""
MEMO_LEVELS = 1024
MEMO_STATES = 1_000_000
"""The memo keeps the tables of at most :data:`MEMO_LEVELS` levels holding at most
:data:`MEMO_STATES` states together (least recently used levels first out; a training run
revisits hundreds of generated levels, each tabulated once)."""
MEMO_CLUSTERS_PER_LEVEL = 4


class SearchLimitReached(RuntimeError):
    """A search stopped at its state limit before it could answer."""


class Packed:
    """The successor function of one level on packed states.

    ``steps[i][p]`` lists, for vehicle ``i`` at position ``p``, its slides in both directions
    one cell further at a time: ``(entered cell bit, key delta, occupancy delta, move)``. A
    direction ends at the first entered cell that is taken. Searches carry each state's
    occupancy bitmask along (a slide changes it by the occupancy delta), so expanding a state
    is one pass over the vehicles.
    """

    def __init__(self, level: Any) -> None:
        self.level = level
        self.n = level.n_vehicles
        self.exit = level.exit_position
        self.walls = level.wall_mask
        self.masks = level.cell_masks
        steps = []
        for i in range(self.n):
            masks = self.masks[i]
            shift = BITS * i
            per_pos = []
            for p in range(len(masks)):
                runs = []
                for qs in (range(p - 1, -1, -1), range(p + 1, len(masks))):
                    run, prev = [], masks[p]
                    for q in qs:
                        entered = masks[q] & ~prev
                        run.append((entered, (q - p) << shift, masks[p] ^ masks[q], (i, q)))
                        prev = masks[q]
                    runs.append(tuple(run))
                per_pos.append(tuple(runs))
            steps.append(tuple(per_pos))
        self.steps = tuple(steps)

    def encode(self, state: Any) -> int:
        """The key of a rules ``State`` (its vehicle positions)."""
        key = 0
        for i, p in enumerate(state.positions):
            key |= p << (BITS * i)
        return key

    def decode(self, key: int) -> tuple[int, ...]:
        """The vehicle positions of ``key`` (the rules' ``State(positions)``)."""
        return tuple((key >> (BITS * i)) & FIELD for i in range(self.n))

    def is_goal(self, key: int) -> bool:
        return key & FIELD == self.exit

    def occupancy(self, key: int) -> int:
        """The bitmask of the cells taken by walls and vehicles in state ``key``."""
        occ = self.walls
        k = key
        for masks in self.masks:
            occ |= masks[k & FIELD]
            k >>= BITS
        return occ

    def neighbours(self, key: int, occ: int) -> list[tuple[int, int]]:
        """Every ``(next key, next occupancy)`` one slide away from ``key`` (occupancy ``occ``)."""
        out = []
        k = key
        for per_pos in self.steps:
            back, fwd = per_pos[k & FIELD]
            k >>= BITS
            for bit, dk, docc, _m in back:
                if occ & bit:
                    break
                out.append((key + dk, occ ^ docc))
            for bit, dk, docc, _m in fwd:
                if occ & bit:
                    break
                out.append((key + dk, occ ^ docc))
        return out

    def successors(self, key: int) -> list[tuple[tuple[int, int], int]]:
        """Every ``((vehicle, position), next key)`` one slide away."""
        occ = self.occupancy(key)
        out = []
        k = key
        for per_pos in self.steps:
            back, fwd = per_pos[k & FIELD]
            k >>= BITS
            for bit, dk, _docc, move in back:
                if occ & bit:
                    break
                out.append((move, key + dk))
            for bit, dk, _docc, move in fwd:
                if occ & bit:
                    break
                out.append((move, key + dk))
        return out


@dataclass(frozen=True)
class ClusterTable:
    """Every state of one cluster with its exact distance to the nearest solved state
    (``None`` for every state when the cluster holds no solved state)."""

    distances: dict[int, int | None]
    n_goals: int
    expanded: int  # states expanded to build it (both passes)

    @property
    def n_states(self) -> int:
        return len(self.distances)

    @property
    def solvable(self) -> bool:
        return self.n_goals > 0

    def farthest_distance(self) -> int:
        """The distance of the farthest state from the goal."""
        if not self.solvable:
            raise Unsolvable("the cluster holds no solved state")
        return max(d for d in self.distances.values() if d is not None)

    def farthest(self) -> tuple[int, int]:
        """``(distance, key)`` of the farthest state from the goal (smallest key on ties)."""
        best = self.farthest_distance()
        return best, min(k for k, d in self.distances.items() if d == best)


KEEP_EDGES_UP_TO = 200_000
"""Clusters up to this size keep the first pass's edges for the second (faster, more memory);
larger ones generate them again."""


def _tabulate(packed: Packed, start: int, max_states: int) -> ClusterTable:
    """Enumerate the cluster of ``start``, then one multi-source BFS from its solved states."""
    neighbours = packed.neighbours
    seen = {start: packed.occupancy(start)}  # key -> occupancy
    edges: dict[int, list[tuple[int, int]]] | None = {}
    frontier = list(seen.items())
    expanded = 0
    while frontier:
        nxt = []
        for key, occ in frontier:
            out = neighbours(key, occ)
            if edges is not None:
                edges[key] = out
            for k2, o2 in out:
                if k2 not in seen:
                    seen[k2] = o2
                    nxt.append((k2, o2))
        expanded += len(frontier)
        if len(seen) > max_states:
            raise SearchLimitReached(f"the cluster has more than {max_states} states")
        if edges is not None and len(seen) > KEEP_EDGES_UP_TO:
            edges = None
        frontier = nxt
    exit_ = packed.exit
    goals = [k for k in seen if k & FIELD == exit_]
    if not goals:
        return ClusterTable(dict.fromkeys(seen), 0, expanded)
    dist: dict[int, int | None] = dict.fromkeys(goals, 0)
    layer, d = goals, 0
    while layer:
        d += 1
        next_layer: list[int] = []
        for key in layer:
            for k2, _o2 in edges[key] if edges is not None else neighbours(key, seen[key]):
                if k2 not in dist:
                    dist[k2] = d
                    next_layer.append(k2)
        expanded += len(layer)
        layer = next_layer
    return ClusterTable(dist, len(goals), expanded)


class _Memo:
    """Per level (least recently used first out): its packer and the cluster tables built.
    A lock keeps it consistent when several threads (HTTP sessions) use it."""

    def __init__(self) -> None:
        self._levels: OrderedDict[Any, tuple[Packed, list[ClusterTable]]] = OrderedDict()
        self.lock = threading.Lock()

    def entry(self, level: Any) -> tuple[Packed, list[ClusterTable]]:
        with self.lock:
            hit = self._levels.get(level)
            if hit is None:
                hit = (Packed(level), [])
                self._levels[level] = hit
                self._trim()
            else:
                self._levels.move_to_end(level)
            return hit

    def _trim(self) -> None:
        """Drop the least recently used levels past :data:`MEMO_LEVELS` or
        :data:`MEMO_STATES` (the most recent level always stays)."""
        states = sum(len(t.distances) for _, tables in self._levels.values() for t in tables)
        while len(self._levels) > 1 and (len(self._levels) > MEMO_LEVELS or states > MEMO_STATES):
            _, (_, tables) = self._levels.popitem(last=False)
            states -= sum(len(t.distances) for t in tables)

    def add(self, tables: list[ClusterTable], table: ClusterTable) -> None:
        with self.lock:
            tables.append(table)
            if len(tables) > MEMO_CLUSTERS_PER_LEVEL:
                tables.pop(0)
            self._trim()

    def clear(self) -> None:
        with self.lock:
            self._levels.clear()


_MEMO = _Memo()


def packer(level: Any) -> Packed:
    """The (memoised) packed successor function of ``level``."""
    return _MEMO.entry(level)[0]


def clear_memo() -> None:
    """Forget every memoised table (benchmarks time cold solves with this)."""
    _MEMO.clear()


def cached_table(level: Any, state: Any) -> ClusterTable | None:
    """The memoised table of the cluster holding ``state``, or None when none was built."""
    packed, tables = _MEMO.entry(level)
    key = packed.encode(state)
    with _MEMO.lock:
        tables = list(tables)
    for table in tables:
        if key in table.distances:
            return table
    return None


def cluster_table(
    level: Any, state: Any = None, max_states: int = MAX_CLUSTER_STATES
) -> ClusterTable:
    """The distance table of the cluster holding ``state`` (default: the start), memoised."""
    if state is None:
        state = _Start(tuple(v.position for v in level.vehicles))
    table = cached_table(level, state)
    if table is not None:
        return table
    packed, tables = _MEMO.entry(level)
    table = _tabulate(packed, packed.encode(state), max_states)
    _MEMO.add(tables, table)
    return table


def distance(level: Any, state: Any) -> int | None:
    """The exact number of moves from ``state`` to the nearest solved state (None when no
    solved state is reachable). Memoised per level and cluster."""
    table = cluster_table(level, state)
    return table.distances[packer(level).encode(state)]
