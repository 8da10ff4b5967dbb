"""Bolt Unscrew solver and exhaustive dead-end certifier.

Canonical states. Call a screw *live* when its anchor is covered by a remaining board. A
screw on an uncovered anchor attaches nothing and never will (boards only ever leave), and
every uncovered empty anchor is as good a target as any other. So a state is determined, up
to a relabelling that changes nothing, by the bitmask ``L`` of live screws: the remaining
boards are exactly those with a hole in ``L`` (a board falls when it loses its last screw, and
no screw can ever enter an anchor under a remaining board), and the number of available
anchors is ``uncovered(R) - (screws - |L|)``. ``L`` is the canonical key (remaining boards and
occupied anchors, screws interchangeable).

Each useful move removes one attached live screw from ``L`` (moving a dead screw only
relabels), so the canonical state graph is a DAG of depth at most the number of screws, and
every attached screw must move at least once in any solution. Hence any solution that never
moves a dead screw is a *shortest* one (its length is that lower bound) -- the solver's
solutions are provably optimal. Search is a depth-first search over the DAG with a memo
shared by every call on the same level (``solvable`` states remember a winning move, ``dead``
states are recorded when their sub-DAG is exhausted); `certify` is exhaustive.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, TypedDict

from puzzlegym.solvers.types import Solution, Unsolvable, Verdict

from .rules import (
    Level,
    State,
    apply,
    bits,
    free_anchors,
    initial_state,
    is_solved,
    legal_moves,
)


class SearchLimitReached(RuntimeError):
    """A search stopped at its ``max_states`` limit before it could answer."""


class PlayoutStats(TypedDict):
    """The figures of :func:`playout_stats` (its docstring says what each one means)."""

    dead_rate: float
    early_rate: float
    hidden_share: float | None
    mean_delay: float


class _Limit(Exception):
    """The search passed its state limit."""


class _Model:
    """The compiled level: bitmask tables and the shared memo."""

    def __init__(self, level: Level) -> None:
        self.level = level
        self.n_anchors = len(level.anchors)
        self.hole = level.hole_masks
        self.cover = level.cover_masks
        self.holed = level.holed_boards
        self.pin = level.pinners
        self.n_screws = len(level.screws)
        self._cov: dict[int, int] = {}
        self.win: dict[int, int] = {}  # live-screw key -> anchor to unscrew next (-1: solved)
        self.dead: set[int] = set()
        self.expanded = 0
        self.limit: int | None = None

    def cov(self, rem: int) -> int:
        c = self._cov.get(rem)
        if c is None:
            c = 0
            for b in bits(rem):
                c |= self.cover[b]
            self._cov[rem] = c
        return c

    def remaining_of(self, live: int) -> int:
        rem = 0
        for b, h in enumerate(self.hole):
            if h & live:
                rem |= 1 << b
        return rem

    def key(self, state: State) -> tuple[int, int]:
        return state.occupied & self.cov(state.remaining), state.remaining

    def free(self, live: int, rem: int) -> int:
        return self.n_anchors - self.cov(rem).bit_count() - (self.n_screws - live.bit_count())

    def children(self, live: int, rem: int) -> list[tuple[int, int, int, int]]:
        """(fallen count, anchor, next live, next remaining) for every useful move."""
        if self.free(live, rem) < 1:
            return []
        out = []
        hole, holed, pin = self.hole, self.holed, self.pin
        for a in bits(live):
            if pin[a] & rem:
                continue
            l1 = live & ~(1 << a)
            fall = 0
            for b in bits(holed[a] & rem):
                if not hole[b] & l1:
                    fall |= 1 << b
            if fall:
                r1 = rem & ~fall
                l1 &= self.cov(r1)
            else:
                r1 = rem
            out.append((fall.bit_count(), a, l1, r1))
        return out

    def solvable(self, live: int, rem: int) -> bool:
        if rem == 0:
            return True
        if live in self.win:
            return True
        if live in self.dead:
            return False
        self.expanded += 1
        if self.limit is not None and self.expanded > self.limit:
            raise _Limit
        kids = self.children(live, rem)
        # A move that costs no capacity (the boards it frees uncover at least one empty
        # anchor) is safe: taking it first keeps every solution feasible (see
        # ``safe_move``), so such a state has the same verdict as that one successor.
        free = self.free(live, rem)
        for kid in kids:
            if kid[0] and self.free(kid[2], kid[3]) >= free:
                kids = [kid]
                break
        # falls first, then screws of boards closest to falling, top layers first
        kids.sort(key=lambda k: (-k[0], self._need(k[1], live, rem), -k[1]))
        for _f, a, l1, r1 in kids:
            if self.solvable(l1, r1):
                self.win[live] = a
                return True
        self.dead.add(live)
        return False

    def _need(self, a: int, live: int, rem: int) -> int:
        best = 99
        for b in bits(self.holed[a] & rem):
            best = min(best, (self.hole[b] & live).bit_count())
        return best

    def attached_live(self, live: int, rem: int) -> int:
        """Live screws holding at least one remaining board (each must move once)."""
        return sum(1 for a in bits(live) if self.holed[a] & rem)


@lru_cache(maxsize=64)
def model(level: Level) -> _Model:
    """The compiled level with its shared memo (one per level)."""
    return _Model(level)


def certify(level: Level, state: State, max_states: int | None = None) -> Verdict:
    """``"solvable"`` or ``"dead_end"`` by exhaustive search of the canonical DAG."""
    m = model(level)
    live, rem = m.key(state)
    if max_states is None:
        return "solvable" if m.solvable(live, rem) else "dead_end"
    m.limit = m.expanded + max_states
    try:
        return "solvable" if m.solvable(live, rem) else "dead_end"
    except _Limit:
        return "unknown"
    finally:
        m.limit = None


def is_dead_end(level: Level, state: State) -> bool:
    return certify(level, state) == "dead_end"


def solve(level: Level, state: State | None = None) -> Solution:
    """A shortest move sequence from ``state`` (default: the initial state).

    Moves are ``(source, target)`` anchors; the target is the lowest available anchor. Raises
    :class:`Unsolvable` when the state is a dead end.
    """
    if state is None:
        state = initial_state(level)
    m = model(level)
    live, rem = m.key(state)
    before = m.expanded
    if not m.solvable(live, rem):
        raise Unsolvable(f"level {level.id}: no sequence of moves frees every board")
    lower = m.attached_live(live, rem)
    moves = []
    while not is_solved(level, state):
        live, _rem = m.key(state)
        a = m.win[live]
        avail = level.all_anchors & ~state.occupied & ~level.covered(state.remaining)
        dst = (avail & -avail).bit_length() - 1
        moves.append((a, dst))
        after = apply(level, state, (a, dst))
        assert isinstance(after, State)
        state = after
    assert len(moves) == lower, (len(moves), lower)
    return Solution(
        moves=tuple(moves),
        optimal=True,
        expanded=m.expanded - before,
        meta={"solver": "memo-dfs", "lower_bound": lower},
    )


def random_playout(
    level: Level, rng: random.Random, state: State | None = None, max_moves: int = 100_000
) -> tuple[bool, list[State]]:
    """Uniformly random legal moves (rules' ``legal_moves``) until none is left.

    Returns ``(solved, states)`` where ``states`` lists every settled state from the start.
    The play always ends (every useful move removes a live screw; at a dead end no anchor is
    available), either solved or at the paper's deadlock certificate.
    """
    if state is None:
        state = initial_state(level)
    states = [state]
    for _ in range(max_moves):
        if state.remaining == 0:
            break
        moves = legal_moves(level, state)
        if not moves:
            break
        after = apply(level, state, rng.choice(moves))
        assert isinstance(after, State), after  # a legal move is never rejected
        state = after
        states.append(state)
    return is_solved(level, state), states


def playout_stats(
    level: Level, n: int = 100, seed: int = 0, max_states: int | None = None
) -> PlayoutStats:
    """Random playouts from the start (seeded by the level id): the share ending in a dead
    end (``dead_rate``); the share whose board became unsolvable *before* the paper's
    certificate (no legal move) held (``early_rate``, of all playouts); among the playouts
    ending in a dead end, the share whose first unsolvable board still had a free anchor
    (``hidden_share``: the dead end hid behind free holes; None without dead ends); and the
    mean number of moves played on an unsolvable board (``mean_delay``).

    A settled unsolved board always has a selectable screw (the top remaining board's), so a
    legal move exists exactly when a free anchor does: ``hidden_share`` is ``early_rate /
    dead_rate``. With ``max_states``, a certification needing more raises
    :class:`SearchLimitReached`."""
    rng = random.Random(f"puzzlegym/BoltUnscrew/playout/{level.id}/{seed}")
    dead = early = hidden = delay = 0
    for _ in range(n):
        solved, states = random_playout(level, rng)
        if solved:
            continue
        dead += 1
        first = None
        for i, st in enumerate(states):
            verdict = certify(level, st, max_states)
            if verdict == "unknown":
                raise SearchLimitReached(
                    f"level {level.id}: certification needs over {max_states} states"
                )
            if verdict == "dead_end":
                first = i
                break
        assert first is not None
        early += first < len(states) - 1
        hidden += free_anchors(level, states[first]) > 0
        delay += len(states) - 1 - first
    return {
        "dead_rate": dead / n,
        "early_rate": early / n,
        "hidden_share": hidden / dead if dead else None,
        "mean_delay": delay / dead if dead else 0.0,
    }


def dead_end_rate(level: Level, n: int = 100, seed: int = 0) -> float:
    """Share of ``n`` random playouts from the start that end in a dead end."""
    return playout_stats(level, n, seed)["dead_rate"]


def reachable_count(level: Level, max_states: int = 2_000_000) -> tuple[int, int]:
    """(canonical states reachable from the start, of which dead ends) -- for reports."""
    m = model(level)
    live, rem = m.key(initial_state(level))
    seen = {live: rem}
    stack = [live]
    while stack and len(seen) < max_states:
        lv = stack.pop()
        for _f, _a, l1, r1 in m.children(lv, seen[lv]):
            if l1 not in seen:
                seen[l1] = r1
                stack.append(l1)
    dead = sum(1 for lv, r in seen.items() if not m.solvable(lv, r))
    return len(seen), dead


def canonical_key(level: Level, state: State) -> tuple[int, int]:
    """States with equal keys have the same futures: the screws still under a remaining
    board, and the remaining boards (loose screws and uncovered empty anchors are
    interchangeable). Used for state-space statistics."""
    return model(level).key(state)


def describe(level: Level) -> dict[str, Any]:
    sol = solve(level)
    return {"id": level.id, "boards": len(level.boards), "solution_length": sol.length}


__all__ = [
    "PlayoutStats",
    "SearchLimitReached",
    "canonical_key",
    "certify",
    "dead_end_rate",
    "playout_stats",
    "describe",
    "is_dead_end",
    "model",
    "random_playout",
    "reachable_count",
    "solve",
]
