"""Color Connect as a SAT problem (needs the optional ``python-sat`` package: the ``sat``
extra, ``pip install 'puzzlegym[sat]'``).

Variables: ``x[c, k]`` (cell ``c`` lies on pair ``k``'s path) for every usable cell and
routed pair, and ``e[u, v]`` (the path steps between the neighbouring cells ``u`` and ``v``)
for every edge between usable cells. Clauses:

* a cell holds at most one pair; an endpoint holds its own pair;
* a used edge joins two cells of the same pair;
* an endpoint of a routed pair has exactly one used edge, any other cell on a path exactly
  two, and an empty cell none;
* paths are *induced*: two side-by-side cells of the same pair are joined by a used edge.
  (Any solution can be turned into one whose paths have no such shortcut by shortening
  them, which frees cells and hurts no other pair, so this keeps every solvable board
  solvable and prunes the search.)
* no *gap shortcut* either: two cells of one pair two apart in a row or column with a free,
  empty cell between them. (Stepping through that cell instead shortens the path, so by the
  same argument, shortening while either kind of shortcut exists, which ends because every
  step makes the paths shorter, some solution has neither.)
* no *lightening flip*: a path that turns at one corner of a 2x2 block (``u``, ``m``, ``v``
  consecutive on it, ``u`` and ``v`` the block's other diagonal) while the opposite corner
  ``m'`` comes earlier in reading order (a smaller cell index) and is free and empty.
  (Stepping through ``m'`` instead keeps the length and lowers the sum of the path's cell
  indices, so shortening or flipping while either is possible, which ends because each move
  lowers the total length or, at equal length, that sum, reaches a solution with no shortcut
  and no lightening flip. It pulls every path towards the top left and drops the many
  solutions that differ by such flips.)
* no *square loop*: a pair never holds all four cells of a 2x2 block. (A path cannot: with
  induced paths the four would close a cycle. It bans the smallest of the loops described
  below, which the solver would otherwise park on free cells to satisfy the gap and flip
  clauses at the cost of four cells; every larger induced loop encloses cells and costs at
  least eight. With the flip and square-loop clauses, the slowest refutation of the
  benchmark's 14x14 boards took 0.7 s in the SAT solver: 4.7 s with the flip clauses alone,
  9 s with neither. Finding a solution goes the other way, up to 25 times slower with them
  (1,579 conflicts without, 36,577 with, on one board), so :func:`route` runs both, side by
  side in two threads, and takes the first answer.)
* *sides* of *walls* (:mod:`.walls`): a chain of pairs' paths joined by
  static cells that touch at a side or corner (dots, blocked cells), from the border to the
  border or closed on itself, splits the board in two once those pairs are connected. For
  each such wall a variable per other cell says which side it is on: neighbouring cells off
  the wall are on the same side, a border cell off the wall is on the side of the border arc
  it lies on (outside, for a loop), the cells on the two sides of a corner-to-corner step of
  a simple wall, or of the turn where a pair's path leaves one of its walks, are on opposite
  sides, and the two dots of every other pair are on one side (its path runs off the wall).
  (Redundant, so exact; these planar facts are hard for the SAT solver to learn alone:
  without them the slowest generated 14x14 board of an earlier sweep took 35 s to refute,
  with them 0.06 s.)

These clauses allow, besides the real paths, closed loops of a pair's colour away from its
endpoints (a classic flaw of degree encodings). They do no harm here because the board need
not be filled: a pair's path is read by walking from its endpoint ``a`` along used edges.
Every cell on that walk has degree two except the two endpoints, so the walk is a simple path
that ends at ``b``; loops elsewhere are never read and their cells stay empty.

Each pair's endpoint, shortcut, flip and side clauses are guarded by an *assumption* literal (a
wall's by those of all its pairs), so when the board has no solution the solver names a set
of pairs that cannot all be connected (an UNSAT core), which :func:`route` shrinks until
every proper subset is connectable (a minimal core).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from .bounds import border_position
from .walls import Chain, chains, turn_sides

try:  # the optional dependency
    from pysat.solvers import Solver

    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised on installs without the sat extra
    Solver = None
    AVAILABLE = False

SOLVER_NAME = "minisat22"
MINIMISE_CONFLICTS = 5_000
# the two ways to run the square-loop clauses (see route): side by side in two threads, or
# in turn (the first run's conflict budget)
RACE = True
LOOSE_CONFLICTS = 2_000


@dataclass(frozen=True)
class SatResult:
    """``paths`` per routed pair (from endpoint ``a``), or None with ``core``: a set of pairs
    that cannot all be connected, ``minimal`` when dropping any one of them was shown to make
    the rest connectable. ``variables``/``clauses`` size the encoding; ``calls`` counts
    solver calls (core minimisation included)."""

    paths: dict[int, tuple[int, ...]] | None
    core: tuple[int, ...] | None
    variables: int
    clauses: int
    calls: int
    minimal: bool = False


class _Encoding:
    def __init__(self, level, pairs: Sequence[int], blocked: int) -> None:
        self.level = level
        self.pairs = list(pairs)
        self.blocked = blocked
        owner = level.owner
        routed = set(self.pairs)
        n = level.n_cells
        self.usable = [
            (owner[c] == -1 and not blocked >> c & 1) or owner[c] in routed for c in range(n)
        ]
        self.n_vars = 0
        self.clauses: list[list[int]] = []
        # per usable cell: pair -> variable, only for the pairs that can reach the cell (an
        # endpoint only has its own pair); a pair that cannot reach its partner is unroutable
        self.x: list[dict[int, int]] = [{} for _ in range(n)]
        self.unroutable: list[int] = []
        open_cells = [self.usable[c] and owner[c] == -1 for c in range(n)]
        for k in self.pairs:
            a, b = level.endpoints[k]
            region = _component(level, a, open_cells)
            if b not in region:
                self.unroutable.append(k)
            for c in sorted(region):
                if open_cells[c] or c == a or c == b:
                    self.x[c][k] = self._new()
        self.edge: dict[tuple[int, int], int] = {}
        self.incident: list[list[int]] = [[] for _ in range(n)]
        for u in range(n):
            if not self.usable[u]:
                continue
            for v in level.neighbours[u]:
                if v > u and self.usable[v]:
                    var = self._new()
                    self.edge[(u, v)] = var
                    self.incident[u].append(var)
                    self.incident[v].append(var)
        self.assume = {k: self._new() for k in self.pairs}
        self.strict = self._new()  # switches the square-loop clauses on (see route)
        self._encode()

    def _new(self) -> int:
        self.n_vars += 1
        return self.n_vars

    def _encode(self) -> None:
        level, add = self.level, self.clauses.append
        owner = level.owner
        ends = {c: k for k in self.pairs for c in level.endpoints[k]}
        for c, xs in enumerate(self.x):
            if not xs:
                continue
            lits = list(xs.values())
            if c in ends:
                add([xs[ends[c]]])
            for a, b in combinations(lits, 2):
                add([-a, -b])
        for (u, v), e in self.edge.items():
            xu, xv = self.x[u], self.x[v]
            add([-e, *xu.values()])  # a used edge starts on a path cell
            for k, p in xu.items():
                q = xv.get(k)
                if q is None:
                    add([-e, -p])
                else:
                    add([-e, -p, q])
                    add(
                        [-p, -q, e, -self.assume[k]]
                    )  # induced: same-pair neighbours are consecutive
            for k, q in xv.items():
                pu = xu.get(k)
                if pu is None:
                    add([-e, -q])
                else:
                    add([-e, -q, pu])
        for c, edges in enumerate(self.incident):
            if not self.usable[c]:
                continue
            for trio in combinations(edges, 3):
                add([-t for t in trio])
            if owner[c] >= 0:  # a routed pair's endpoint: exactly one edge, if assumed
                s = self.assume[owner[c]]
                for p, q in combinations(edges, 2):
                    add([-p, -q])
                add([-s, *edges])
                for e in edges:
                    add([s, -e])
            else:  # on a path: two edges; empty: none (a used edge needs a path cell)
                for p in self.x[c].values():
                    for e in edges:
                        add([-p, *[f for f in edges if f != e]])
        self._encode_gaps()
        self._encode_flips()
        self._encode_square_loops()
        self._encode_sides()

    def _encode_gaps(self) -> None:
        """No gap shortcut: two cells of one pair two apart in a row or column with a free,
        empty cell between them (a shorter path would step through it)."""
        level, add = self.level, self.clauses.append
        w, h = level.width, level.height
        for u in range(level.n_cells):
            r, c = divmod(u, w)
            gaps = []
            if c + 2 < w:
                gaps.append((u + 2, u + 1))
            if r + 2 < h:
                gaps.append((u + 2 * w, u + w))
            for v, m in gaps:
                if not self.usable[m] or level.owner[m] != -1:
                    continue
                used = list(self.x[m].values())
                for k in self.x[u].keys() & self.x[v].keys():
                    add([-self.x[u][k], -self.x[v][k], *used, -self.assume[k]])

    def _encode_flips(self) -> None:
        """No lightening flip: a path turning at the later corner ``m`` of a 2x2 block (from
        ``u`` to ``v``) whose earlier opposite corner ``m'`` is free and empty."""
        level, add = self.level, self.clauses.append
        w = level.width
        for r in range(level.height - 1):
            for c in range(w - 1):
                top, bottom = r * w + c, (r + 1) * w + c
                for diagonal, corners in (
                    ((top + 1, bottom), (top, bottom + 1)),
                    ((top, bottom + 1), (top + 1, bottom)),
                ):
                    light, heavy = corners  # the first corner of each pair has the smaller index
                    if not self.usable[light] or level.owner[light] != -1:
                        continue
                    used = list(self.x[light].values())
                    u, v = diagonal
                    for k in self.x[u].keys() & self.x[v].keys() & self.x[heavy].keys():
                        add(
                            [
                                -self.x[u][k],
                                -self.x[heavy][k],
                                -self.x[v][k],
                                *used,
                                -self.assume[k],
                            ]
                        )

    def _encode_square_loops(self) -> None:
        """No pair holds all four cells of a 2x2 block (while ``strict`` is assumed)."""
        level, add = self.level, self.clauses.append
        w = level.width
        for r in range(level.height - 1):
            for c in range(w - 1):
                block = (r * w + c, r * w + c + 1, (r + 1) * w + c, (r + 1) * w + c + 1)
                for k in set(self.x[block[0]]).intersection(*(self.x[q] for q in block[1:])):
                    add([-self.x[q][k] for q in block] + [-self.strict])

    def _encode_sides(self) -> None:
        """Per wall of :func:`.walls.chains` (a chain of pairs' paths and static
        cells, border to border or a loop): which side of it every other cell lies on (see the
        module docstring), so no other pair can join cells on both sides."""
        level, add = self.level, self.clauses.append
        for chain in chains(level, self.pairs, self.blocked):
            off = [-self.assume[k] for k in chain.pairs]
            side = {c: self._new() for c in range(level.n_cells) if c not in chain.static}
            on = {u: [self.x[u][k] for k in chain.pairs if k in self.x[u]] for u in side}
            span = None if chain.loop else _border_span(level, chain)
            for u, su in side.items():
                for v in level.neighbours[u]:
                    if v > u and v in side:
                        guard = on[u] + on[v]
                        add([*guard, -su, side[v], *off])
                        add([*guard, su, -side[v], *off])
                pos = border_position(level, u)
                if pos is not None:  # a loop leaves the whole border outside (side 0)
                    add([*on[u], su if span is not None and span[0] < pos < span[1] else -su, *off])
            for f, g in chain.flanks:  # the two cells beside a corner-to-corner step
                if f in side and g in side:
                    guard = on[f] + on[g]
                    add([*guard, side[f], side[g], *off])
                    add([*guard, -side[f], -side[g], *off])
            for dot, before in chain.junctions:  # a path leaves the wall's walk at its dot
                for after in level.neighbours[dot]:
                    e = self.edge.get((min(dot, after), max(dot, after)))
                    if e is None or after == before:
                        continue
                    one, two = turn_sides(level, chain, dot, before, after)
                    for f in one:
                        for g in two:
                            if f in side and g in side:
                                guard = [-e, *on[f], *on[g]]
                                add([*guard, side[f], side[g], *off])
                                add([*guard, -side[f], -side[g], *off])
            for j in self.pairs:  # a pair's path lies off the wall: its dots on one side
                a, b = level.endpoints[j]
                if j not in chain.pairs and a in side and b in side:
                    add([-side[a], side[b], *off, -self.assume[j]])
                    add([side[a], -side[b], *off, -self.assume[j]])

    def path(self, model: set[int], k: int) -> tuple[int, ...]:
        a, b = self.level.endpoints[k]
        out, prev, cur = [a], -1, a
        while cur != b:
            for v in self.level.neighbours[cur]:
                if v == prev:
                    continue
                e = self.edge.get((min(cur, v), max(cur, v)))
                if e is not None and e in model:
                    prev, cur = cur, v
                    out.append(cur)
                    break
            else:  # pragma: no cover - the clauses make this impossible
                raise AssertionError(
                    f"pair {k}: the path from its endpoint breaks off at cell {cur}"
                )
            if len(out) > self.level.n_cells:  # pragma: no cover
                raise AssertionError(f"pair {k}: the walk does not end")
        return tuple(out)


def _border_span(level, chain: Chain) -> tuple[int, int]:
    """The border positions of a cut's two ends, ascending."""
    assert chain.start is not None and chain.end is not None, "a cut has two ends"
    a, b = border_position(level, chain.start), border_position(level, chain.end)
    assert a is not None and b is not None, "a cut ends on border cells"
    return (a, b) if a <= b else (b, a)


def _component(level, start: int, open_cells: list[bool]) -> set[int]:
    """The cells reachable from ``start`` through open cells (plus the first closed cells met,
    so a partner endpoint next to the region is in it)."""
    seen = {start}
    stack = [start]
    while stack:
        x = stack.pop()
        for y in level.neighbours[x]:
            if y not in seen:
                seen.add(y)
                if open_cells[y]:
                    stack.append(y)
    return seen


def _conflicts(solver) -> int:
    return int((solver.accum_stats() or {}).get("conflicts", 0))


def _in_turn(solver, enc: _Encoding, assumptions: list[int]) -> tuple[bool, list[int], int]:
    """Without the square-loop clauses for :data:`LOOSE_CONFLICTS` conflicts (solutions
    come sooner when the solver may park loops), then with them (refutations come much
    sooner), keeping the clauses learned in the first run (they hold in the second);
    ``LOOSE_CONFLICTS = 0``: with them from the start. The answer, the assumptions it was
    found under and the number of solver calls."""
    if LOOSE_CONFLICTS > 0:
        solver.conf_budget(LOOSE_CONFLICTS)
        answer = solver.solve_limited(assumptions=assumptions)
        if answer is not None:
            return answer, assumptions, 1
    strict = [*assumptions, enc.strict]
    return solver.solve(assumptions=strict), strict, 1 + (LOOSE_CONFLICTS > 0)


def _race(enc: _Encoding, assumptions: list[int]):
    """Both ways at once, one solver each in its own thread (python-sat releases the GIL
    while it solves): without the square-loop clauses and with them. The first answer wins
    and interrupts the other. The winning solver (for the caller to close), its answer and
    the assumptions it was found under."""
    ways = [assumptions, [*assumptions, enc.strict]]
    solvers = [Solver(name=SOLVER_NAME, bootstrap_with=enc.clauses) for _ in ways]
    answers: list[bool | None] = [None, None]
    errors: list[BaseException] = []
    lock = threading.Lock()
    winner: list[int] = []

    def run(i: int) -> None:
        try:
            answer = solvers[i].solve_limited(assumptions=ways[i], expect_interrupt=True)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            answer = None
            errors.append(exc)
        with lock:
            answers[i] = answer
            if (answer is not None or errors) and not winner:
                winner.append(i)
                solvers[1 - i].interrupt()

    threads = [
        threading.Thread(target=run, args=(i,), name=f"color-connect-sat-{i}", daemon=True)
        for i in range(2)
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    except BaseException:
        for solver in solvers:
            solver.interrupt()
        for thread in threads:
            thread.join()
        for solver in solvers:
            solver.delete()
        raise
    if errors or not winner or answers[winner[0]] is None:
        for solver in solvers:
            solver.delete()
        if errors:
            raise errors[0]
        raise RuntimeError("color connect sat: neither solver answered")
    w = winner[0]
    solvers[1 - w].delete()
    solvers[w].clear_interrupt()
    return solvers[w], answers[w], ways[w]


def route(
    level,
    pairs: Sequence[int] | None = None,
    blocked: int = 0,
    *,
    minimise: bool = True,
    conflict_budget: int = MINIMISE_CONFLICTS,
) -> SatResult:
    """Route ``pairs`` (default: all) around the ``blocked`` cells and other endpoints with
    the SAT solver: without the square-loop clauses and with them, side by side in two
    threads (:data:`RACE`), else in turn (:func:`_in_turn`). When there is no solution, the
    core is shrunk by dropping pairs one at a time within ``conflict_budget`` conflicts in
    all. Raises RuntimeError when python-sat is not installed."""
    if not AVAILABLE:
        raise RuntimeError("the SAT engine needs python-sat: pip install 'puzzlegym[sat]'")
    if pairs is None:
        pairs = range(level.n_pairs)
    enc = _Encoding(level, pairs, blocked)
    if enc.unroutable:  # a pair that cannot reach its partner at all is a core by itself
        return SatResult(None, (enc.unroutable[0],), enc.n_vars, len(enc.clauses), 0, minimal=True)
    assumptions = [enc.assume[k] for k in enc.pairs]
    if RACE:
        solver, answer, assumptions = _race(enc, assumptions)
        calls = 2
    else:
        solver = Solver(name=SOLVER_NAME, bootstrap_with=enc.clauses)
        answer, assumptions, calls = _in_turn(solver, enc, assumptions)
    with solver:
        if answer:
            model = {lit for lit in solver.get_model() if lit > 0}
            paths = {k: enc.path(model, k) for k in enc.pairs}
            return SatResult(paths, None, enc.n_vars, len(enc.clauses), calls)
        by_lit = {v: k for k, v in enc.assume.items()}
        core = sorted(by_lit[lit] for lit in (solver.get_core() or assumptions) if lit in by_lit)
        minimal = False
        if minimise:
            # deletion: a pair whose removal makes the rest connectable is necessary (and
            # stays necessary in every smaller core); any other pair is dropped. All the
            # checks together may use conflict_budget conflicts; a pair whose check runs out
            # of budget is kept (the core is then not known to be minimal).
            necessary: list[int] = []
            rest = core
            minimal = True
            spent_before = _conflicts(solver)
            while rest:
                k, others = rest[0], rest[1:]
                trial = necessary + others
                answer = True
                left = conflict_budget - (_conflicts(solver) - spent_before)
                if trial and left > 0:
                    calls += 1
                    solver.conf_budget(left)
                    answer = solver.solve_limited(
                        assumptions=[enc.assume[j] for j in trial] + [enc.strict]
                    )
                elif trial:
                    answer = None
                if answer is False:
                    found = {
                        by_lit[lit]
                        for lit in (solver.get_core() or [enc.assume[j] for j in trial])
                        if lit in by_lit
                    }
                    rest = [j for j in others if j in found]
                else:
                    minimal = minimal and answer is True
                    necessary.append(k)
                    rest = others
            core = sorted(necessary)
        return SatResult(None, tuple(core), enc.n_vars, len(enc.clauses), calls, minimal)


__all__ = ["AVAILABLE", "SatResult", "route"]
