"""Nut and Bolt solver and exact dead-end certifier.

Search states. A board is a tuple of bolts, each a ``bytes`` of colours bottom→top (fast to
slice, hash and compare). Its *canonical key* is ``(capacity, sorted multiset of the bolts
that are not complete)``: bolt order never matters, and a complete bolt (full, one colour)
can never take part in a useful transfer again (it cannot receive anything, and its nuts can
only move, all of them, onto an empty bolt, which gives the same multiset), so it is dropped.
Two boards with the same key are equally solvable, even across levels.

Moves that cannot matter are never generated: a complete bolt as source, a whole
monochromatic bolt onto an empty bolt (same key), and more than one empty destination per
source (all give the same key).

* :func:`certify` decides *solvable* / *dead end* exactly: a depth-first search over
  canonical keys (good moves first, so solvable boards finish fast) with Tarjan's
  strongly-connected-component bookkeeping. When a component is closed without reaching a
  solved board, every key in it is proved dead; when a solved board is found, every key on
  the search stack is proved solvable. Both go into a memo shared by all calls (all levels,
  all threads of play), so repeated and neighbouring boards are answered at once.
* :func:`solve` finds a solution: A* with the admissible, consistent heuristic
  ``runs − colours`` (a transfer joins at most two runs, and a solved board has one run per
  colour) proves a shortest solution within a node budget; beyond it, weighted A* gives a
  verified short solution (``optimal=False``); the DFS of :func:`certify` is the last resort.
  Solutions are cached by exact board.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

from puzzlegym.solvers.types import Solution, Unsolvable, Verdict

from .rules import Level, State, initial_state

OPTIMAL_BUDGET = 150_000  # A* expansions before giving up optimality
WEIGHTED_BUDGET = 400_000
WEIGHT = 3
MEMO_LIMIT = 4_000_000  # certify memo entries before it is cleared

Board = tuple[bytes, ...]

# canonical key -> True (solvable) / False (dead end); shared across calls and levels
_MEMO: dict[tuple, bool] = {}
_SOLUTIONS: dict[tuple, Solution] = {}
_RUNS: dict[bytes, int] = {}


class SearchLimitReached(RuntimeError):
    """The search stopped at ``max_states`` before it could answer."""


# ---------------------------------------------------------------------------- boards


def to_board(state: State) -> Board:
    return tuple(bytes(b) for b in state.bolts)


def from_board(board: Board) -> State:
    return State(tuple(tuple(b) for b in board))


def _complete(b: bytes, cap: int) -> bool:
    return len(b) == cap and b.count(b[0]) == cap


def canonical(board: Board, cap: int) -> tuple:
    """The canonical key of a board (see module docstring)."""
    return (cap, *sorted(b for b in board if not (len(b) == cap and b.count(b[0]) == cap)))


def canonical_key(level: Level, state: State) -> tuple:
    """States with equal keys have the same futures (for state-space statistics)."""
    return canonical(to_board(state), level.capacity)


def _runs(b: bytes) -> int:
    r = _RUNS.get(b)
    if r is None:
        r = sum(1 for i in range(len(b)) if i == 0 or b[i] != b[i - 1])
        if len(_RUNS) < 1_000_000:
            _RUNS[b] = r
    return r


def heuristic(board: Board) -> int:
    """A lower bound on the transfers left: total runs minus colours."""
    colours: set[int] = set()
    runs = 0
    for b in board:
        if b:
            runs += _runs(b)
            colours.update(b)
    return runs - len(colours)


def is_solved_board(board: Board, cap: int) -> bool:
    return all(not b or _complete(b, cap) for b in board)


def _top_run(b: bytes) -> int:
    n = len(b)
    top = b[-1]
    k = 1
    while k < n and b[n - 1 - k] == top:
        k += 1
    return k


def successors(board: Board, cap: int) -> Iterator[tuple[tuple[int, int], Board, int]]:
    """``(move, next_board, rank)`` for every transfer that can matter; lower rank = more
    promising (completes a bolt, merges a whole run, ..., onto an empty bolt last)."""
    n = len(board)
    for i in range(n):
        s = board[i]
        ls = len(s)
        if not ls:
            continue
        r = _top_run(s)
        if r == ls == cap:
            continue  # complete bolt
        top = s[-1]
        used_empty = False
        for j in range(n):
            if j == i:
                continue
            d = board[j]
            ld = len(d)
            if ld == 0:
                if r == ls or used_empty:
                    continue
                used_empty = True
                k = r
                rank = 6
            else:
                if ld >= cap or d[-1] != top:
                    continue
                room = cap - ld
                k = r if r < room else room
                d_mono = d.count(top) == ld
                if ld + k == cap and d_mono:
                    rank = 0  # completes a bolt
                elif k == r:
                    rank = 1 if d_mono else (2 if k == ls or s[ls - k - 1] != top else 3)
                    if k == ls:
                        rank = min(rank, 1)
                else:
                    rank = 4 if d_mono else 5  # partial transfer
            new = list(board)
            new[i] = s[: ls - k]
            new[j] = d + s[ls - k :]
            yield (i, j), tuple(new), rank


# ---------------------------------------------------------------------------- certify


def _dfs(board: Board, cap: int, max_states: int | None) -> tuple[bool | None, list]:
    """Tarjan-style DFS (see module docstring). Returns ``(verdict, path_moves)``; ``path``
    is a solution from ``board`` when it is solvable and found by this search."""
    memo = _MEMO
    root_key = canonical(board, cap)
    known = memo.get(root_key)
    if known is not None and not known:
        return False, []
    if is_solved_board(board, cap):
        memo[root_key] = True
        return True, []
    index: dict[tuple, int] = {}
    low: dict[tuple, int] = {}
    tstack: list[tuple] = []
    onstack: set[tuple] = set()

    def children(b: Board):
        lst = sorted(successors(b, cap), key=lambda t: t[2])
        return iter(lst)

    index[root_key] = low[root_key] = 0
    tstack.append(root_key)
    onstack.add(root_key)
    # frames: [key, board, child iterator, move that led here]
    work: list[list] = [[root_key, board, children(board), None]]
    counter = 1
    while work:
        frame = work[-1]
        key = frame[0]
        advanced = False
        for move, child, _rank in frame[2]:
            ck = canonical(child, cap)
            v = memo.get(ck)
            if v is False:
                continue
            if v is True or is_solved_board(child, cap):
                for f in work:
                    memo[f[0]] = True
                memo[ck] = True
                moves = [f[3] for f in work[1:]] + [move]
                return True, moves
            ci = index.get(ck)
            if ci is not None:
                if ck in onstack and ci < low[key]:
                    low[key] = ci
                continue
            index[ck] = low[ck] = counter
            counter += 1
            if max_states is not None and counter > max_states:
                return None, []
            tstack.append(ck)
            onstack.add(ck)
            work.append([ck, child, children(child), move])
            advanced = True
            break
        if advanced:
            continue
        work.pop()
        if work:
            pk = work[-1][0]
            if low[key] < low[pk]:
                low[pk] = low[key]
        if low[key] == index[key]:
            while True:
                m = tstack.pop()
                onstack.discard(m)
                memo[m] = False
                if m == key:
                    break
    if len(memo) > MEMO_LIMIT:
        memo.clear()
    return False, []


def certify(level: Level, state: State, max_states: int | None = None) -> Verdict:
    """``"solvable"`` or ``"dead_end"`` by exhaustive search (``"unknown"`` only when a
    ``max_states`` limit stops the search)."""
    cap = level.capacity
    board = to_board(state)
    key = canonical(board, cap)
    v = _MEMO.get(key)
    if v is None:
        v, _ = _dfs(board, cap, max_states)
    if v is None:
        return "unknown"
    return "solvable" if v else "dead_end"


def is_dead_end(level: Level, state: State) -> bool:
    return certify(level, state) == "dead_end"


def clear_memo() -> None:
    _MEMO.clear()
    _SOLUTIONS.clear()


def memo_size() -> int:
    return len(_MEMO)


# ---------------------------------------------------------------------------- solve


def _astar(board: Board, cap: int, weight: int, budget: int) -> tuple[list | None, int, bool]:
    """A* on canonical keys with ``f = g + weight·h``; ``(moves, expanded, complete)``."""
    start_key = canonical(board, cap)
    # key -> (g, parent key, move, board)
    best: dict[tuple, tuple[int, Any, Any, Board]] = {start_key: (0, None, None, board)}
    heap = [(weight * heuristic(board), 0, 0, start_key, 0)]
    counter = 1
    expanded = 0
    closed: set[tuple] = set()
    while heap:
        _f, _tb, _c, key, g = heapq.heappop(heap)
        if key in closed:
            continue
        entry = best[key]
        if entry[0] != g:
            continue
        b = entry[3]
        if is_solved_board(b, cap):
            moves = []
            while entry[1] is not None:
                moves.append(entry[2])
                entry = best[entry[1]]
            moves.reverse()
            return moves, expanded, True
        closed.add(key)
        expanded += 1
        if expanded > budget:
            return None, expanded, False
        g1 = g + 1
        for move, child, _rank in successors(b, cap):
            ck = canonical(child, cap)
            if ck in closed:
                continue
            old = best.get(ck)
            if old is not None and old[0] <= g1:
                continue
            if _MEMO.get(ck) is False:
                continue
            best[ck] = (g1, key, move, child)
            heapq.heappush(heap, (g1 + weight * heuristic(child), -g1, counter, ck, g1))
            counter += 1
    return None, expanded, True


def solve(
    level: Level, state: State | None = None, *, optimal_budget: int = OPTIMAL_BUDGET
) -> Solution:
    """A solution from ``state`` (default: the start): shortest if A* proves it within
    ``optimal_budget`` expansions, else a verified short one. Raises :class:`Unsolvable`
    for a dead end."""
    if state is None:
        state = initial_state(level)
    cap = level.capacity
    board = to_board(state)
    cache_key = (cap, board)
    hit = _SOLUTIONS.get(cache_key)
    if hit is not None:
        return hit
    if _MEMO.get(canonical(board, cap)) is False:
        raise Unsolvable(f"level {level.id}: the board is a dead end")
    moves, expanded, complete = _astar(board, cap, 1, optimal_budget)
    meta = {"solver": "astar"}
    optimal = moves is not None
    if moves is None and complete:
        raise Unsolvable(f"level {level.id}: the board is a dead end")
    if moves is None:
        moves, e2, complete = _astar(board, cap, WEIGHT, WEIGHTED_BUDGET)
        expanded += e2
        meta = {"solver": f"weighted-astar(w={WEIGHT})"}
    if moves is None:
        verdict, moves = _dfs(board, cap, None)
        meta = {"solver": "dfs"}
        if not verdict:
            raise Unsolvable(f"level {level.id}: the board is a dead end")
    # verify, and record every board on the way as solvable
    b = board
    for move in moves:
        _MEMO[canonical(b, cap)] = True
        b = _apply_board(b, cap, move)
    assert is_solved_board(b, cap), "solver produced a non-solution"
    sol = Solution(moves=tuple(moves), optimal=optimal, expanded=expanded, meta=meta)
    # every suffix of the solution is a solution from its board: cache them all
    b = board
    for i, move in enumerate(moves):
        _SOLUTIONS.setdefault((cap, b), Solution(tuple(moves[i:]), optimal, 0, meta))
        b = _apply_board(b, cap, move)
    return sol


def _apply_board(board: Board, cap: int, move: tuple[int, int]) -> Board:
    i, j = move
    s, d = board[i], board[j]
    k = min(_top_run(s), cap - len(d))
    new = list(board)
    new[i] = s[: len(s) - k]
    new[j] = d + s[len(s) - k :]
    return tuple(new)


def lower_bound(level: Level, state: State | None = None) -> int:
    """``runs − colours``: no solution is shorter."""
    return heuristic(to_board(state if state is not None else initial_state(level)))


__all__ = [
    "SearchLimitReached",
    "canonical",
    "canonical_key",
    "certify",
    "clear_memo",
    "heuristic",
    "is_dead_end",
    "lower_bound",
    "memo_size",
    "solve",
    "successors",
]
