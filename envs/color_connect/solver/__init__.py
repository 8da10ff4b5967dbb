"""Color Connect solver: complete, with two engines that must agree.

* ``"search"``: the pure-Python backtracking search of :mod:`.search`, run with
  a growing bound on every path's detour (each pair's path may be at most 0, 2, 4, 8, 16
  cells longer than its shortest route, then unbounded). Every stage is exhaustive for its
  bound and the last has none, so the engine finds a solution whenever one exists and proves
  there is none otherwise (the proof: the exhausted search and its node count).
* ``"sat"``: the SAT encoding of :mod:`.sat` (needs the optional python-sat
  package). Its proof of unsolvability is an UNSAT core: a set of pairs that cannot all be
  connected, shrunk until each of its pairs is needed (within a conflict budget).
* ``"auto"`` (the default), when python-sat is installed: the cheap necessary conditions of
  :mod:`.bounds` (each a complete proof when it fires), then the search up to
  :data:`PROBE_NODES` nodes, then the SAT engine decides. An unsolvable board is refuted by
  SAT (unsolvable boards were the slow case when the search went first); on a solvable one
  the search's solution is still used when the search finds one within :data:`AUTO_NODES`
  nodes (enough for every catalogue and generated level, so their solutions do not depend on
  the install), else SAT's. Without python-sat: the search engine without a limit.

``solve(level, state)`` keeps the paths already on the board when the other pairs can be
routed around them; otherwise its solution removes the paths that differ from a complete
solution first. Solutions are tidied: each path is re-routed, one at a time and with the
others fixed, to the route with the fewest turns (then the fewest cells), because every turn
costs a click.

No board of a solvable level is a dead end (a path can always be removed), so ``certify``
answers for the level: "solvable" on a solvable level, "dead_end" on an unsolvable one.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from puzzlegym.solvers.types import Solution, Unsolvable, Verdict

from ..rules import (
    PAIR_LETTERS,
    Connect,
    Level,
    Remove,
    State,
    initial_state,
)
from . import bounds, sat
from .search import search

ENGINES = ("auto", "search", "sat")
SLACK_SCHEDULE: tuple[int | None, ...] = (0, 2, 4, 8, 16, None)
AUTO_NODES = 4_000
PROBE_NODES = 300
MAX_TIDY_ROUNDS = 8


class SearchLimitReached(RuntimeError):
    """The search engine stopped at its node limit before it could answer."""


# ----------------------------------------------------------------------------- routing


def route_search(level: Level, pairs, blocked: int, max_nodes: int | None = None):
    """Route ``pairs`` around ``blocked`` with the search engine, detour bound by detour
    bound. Returns ``(paths or None, nodes)``; raises :class:`SearchLimitReached` past
    ``max_nodes`` nodes in all."""
    nodes = 0
    for slack in SLACK_SCHEDULE:
        left = None if max_nodes is None else max_nodes - nodes
        result = search(level, pairs, blocked, slack=slack, max_nodes=left)
        nodes += result.nodes
        if not result.complete:
            raise SearchLimitReached(f"no answer within {max_nodes} search nodes")
        if result.paths is not None:
            return result.paths, nodes
    return None, nodes


def _route(level: Level, pairs: list[int], blocked: int, engine: str) -> tuple[dict | None, dict]:
    """``(paths, info)``: paths for every pair in ``pairs`` (or None) and how they were found
    or refuted (``info`` is the proof when None)."""
    if not pairs:
        return {}, {"engine": "none"}
    if engine == "search" or (engine == "auto" and not sat.AVAILABLE):
        paths, nodes = route_search(level, pairs, blocked)
        return paths, {"engine": "search", "nodes": nodes, "pairs": _letters(pairs)}
    if engine == "sat":
        return _route_sat(level, pairs, blocked)
    # auto with python-sat: cheap necessary conditions, a short search, then SAT decides
    proof = bounds.refute(level, pairs, blocked)
    if proof is not None:
        return None, proof
    try:
        paths, nodes = route_search(level, pairs, blocked, max_nodes=PROBE_NODES)
    except SearchLimitReached:
        pass
    else:
        return paths, {"engine": "search", "nodes": nodes, "pairs": _letters(pairs)}
    sat_paths, info = _route_sat(level, pairs, blocked)
    if sat_paths is None:
        return None, info
    # solvable: the search's solution when it finds one within AUTO_NODES (the same answer
    # as the search alone, so catalogue solutions do not depend on the install), else SAT's
    try:
        paths, nodes = route_search(level, pairs, blocked, max_nodes=AUTO_NODES)
    except SearchLimitReached:
        return sat_paths, info
    if paths is None:  # pragma: no cover - both engines are complete
        raise AssertionError("the engines disagree")
    return paths, {"engine": "search", "nodes": nodes, "pairs": _letters(pairs)}


def _route_sat(level: Level, pairs: list[int], blocked: int) -> tuple[dict | None, dict]:
    if not sat.AVAILABLE:
        raise RuntimeError("engine 'sat' needs python-sat: pip install 'puzzlegym[sat]'")
    result = sat.route(level, pairs, blocked)
    info = {
        "engine": "sat",
        "variables": result.variables,
        "clauses": result.clauses,
        "calls": result.calls,
    }
    if result.paths is None:
        info.update(core=_letters(result.core), minimal=result.minimal)
    return result.paths, info


def _letters(pairs) -> list[str]:
    return [PAIR_LETTERS[k] for k in pairs]


# ----------------------------------------------------------------------------- tidying


def fewest_turns_path(level: Level, pair: int, open_mask: int) -> tuple[int, ...] | None:
    """A route of ``pair`` through ``open_mask`` cells with the fewest turns, then the fewest
    cells (deterministic: neighbours in up, down, left, right order), from endpoint ``a``."""
    a, b = level.endpoints[pair]
    w = level.width
    n = level.n_cells
    # states: cell * 4 + direction of arrival; 0-1 BFS on (turns, cells)
    inf = (1 << 30, 1 << 30)
    best: dict[int, tuple[int, int]] = {}
    parent: dict[int, int] = {}
    queue: deque[tuple[tuple[int, int], int]] = deque()
    deltas = (-w, w, -1, 1)
    for y in level.neighbours[a]:
        if y == b or open_mask >> y & 1:
            state = y * 4 + deltas.index(y - a)
            best[state] = (0, 1)
            parent[state] = -1
            queue.append(((0, 1), state))
    found = None
    while queue:
        cost, state = queue.popleft()
        if cost != best.get(state, inf):
            continue
        x, d = divmod(state, 4)
        if x == b:
            found = state
            break
        for y in level.neighbours[x]:
            if not (y == b or open_mask >> y & 1):
                continue
            nd = deltas.index(y - x)
            turn = int(nd != d)
            new = (cost[0] + turn, cost[1] + 1)
            ns = y * 4 + nd
            if new < best.get(ns, inf):
                best[ns] = new
                parent[ns] = state
                if turn:
                    queue.append((new, ns))
                else:
                    queue.appendleft((new, ns))
    if found is None:
        return None
    cells = []
    state = found
    while state != -1:
        cells.append(state // 4)
        state = parent[state]
    cells.append(a)
    cells.reverse()
    if len(set(cells)) != len(cells) or len(cells) > n:  # pragma: no cover - impossible
        return None
    return tuple(cells)


def turns(level: Level, cells: tuple[int, ...]) -> int:
    """The number of turns along a path."""
    return sum((y - x) != (z - y) for x, y, z in zip(cells, cells[1:], cells[2:], strict=False))


def tidy(
    level: Level, paths: dict[int, tuple[int, ...]], blocked: int
) -> dict[int, tuple[int, ...]]:
    """Re-route each path in turn (others fixed) to its fewest-turns route while that lowers
    (turns, cells); repeat up to :data:`MAX_TIDY_ROUNDS` rounds. Deterministic."""
    paths = dict(paths)
    base = level.free_mask & ~blocked
    for _ in range(MAX_TIDY_ROUNDS):
        changed = False
        for k in sorted(paths):
            used = 0
            for j, p in paths.items():
                if j != k:
                    for x in p:
                        used |= 1 << x
            better = fewest_turns_path(level, k, base & ~used)
            if better is None:  # pragma: no cover - the current path is always a route
                continue
            if (turns(level, better), len(better)) < (turns(level, paths[k]), len(paths[k])):
                paths[k] = better
                changed = True
        if not changed:
            break
    return paths


# ----------------------------------------------------------------------------- public API


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise ValueError(f"engine: expected one of {', '.join(ENGINES)}, got {engine!r}")


def solve(level: Level, state: State | None = None, *, engine: str = "auto") -> Solution:
    """Moves that connect every pair from ``state`` (default: the empty board).

    Keeps the paths on the board when the other pairs fit around them (then the solution is
    one :class:`Connect` per unconnected pair: shortest, ``optimal``); otherwise removes the
    paths that differ from a complete solution, then connects. Raises :class:`Unsolvable`
    (with ``proof``) when the level has no solution."""
    _check_engine(engine)
    if state is None:
        state = initial_state(level)
    open_pairs = [k for k, p in enumerate(state.paths) if p is None]
    paths, info = _route(level, open_pairs, state.occupied, engine)
    if paths is not None:
        paths = tidy(level, paths, state.occupied)
        moves = tuple(Connect(k, paths[k]) for k in open_pairs)
        return Solution(moves, optimal=True, expanded=info.get("nodes", 0), meta=info)
    everything = list(range(level.n_pairs))
    full, info_full = _route(level, everything, 0, engine) if any(state.paths) else (None, info)
    if full is None:
        raise Unsolvable(_proof_text(level, info_full), proof=info_full)
    full = tidy(level, full, 0)
    removes = [Remove(k) for k, p in enumerate(state.paths) if p is not None and p != full[k]]
    connects = [Connect(k, full[k]) for k, p in enumerate(state.paths) if p is None or p != full[k]]
    meta = {**info_full, "kept_paths_refuted": info}
    return Solution(
        tuple(removes + connects), optimal=False, expanded=info_full.get("nodes", 0), meta=meta
    )


def _proof_text(level: Level, info: dict) -> str:
    if info.get("engine") == "bounds":
        return bounds.proof_text(level, info)
    if info.get("engine") == "sat":
        which = "minimal " if info.get("minimal") else ""
        return (
            f"level {level.id}: pairs {', '.join(info['core'])} cannot all be connected "
            f"({which}UNSAT core of the SAT encoding)"
        )
    return (
        f"level {level.id}: no way to connect pairs {', '.join(info.get('pairs', []))} "
        f"(exhaustive search, {info.get('nodes', 0)} nodes)"
    )


@lru_cache(maxsize=256)
def level_solvable(level: Level) -> bool:
    """Whether the level has a solution (cached per level)."""
    try:
        solve(level)
    except Unsolvable:
        return False
    return True


def certify(level: Level, state: State) -> Verdict:
    """ "solvable" when the level has a solution (from any board: paths can be removed),
    "dead_end" when it has none."""
    return "solvable" if level_solvable(level) else "dead_end"


__all__ = [
    "AUTO_NODES",
    "ENGINES",
    "SearchLimitReached",
    "certify",
    "fewest_turns_path",
    "level_solvable",
    "route_search",
    "solve",
    "tidy",
    "turns",
]
