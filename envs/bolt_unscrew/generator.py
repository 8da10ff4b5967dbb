"""Seeded Bolt Unscrew level generator and the catalogue builder.

``generate(tier, seed)`` is deterministic for ``(tier, seed)`` (one ``random.Random`` seeded
from both). Candidates come in one of two styles (``TierSpec.style``):

* ``"layers"`` (Easy): boards layer by layer, bottom to top. Each board is a round pad or a
  bar (straight with 2-4 holes, diagonal, or a knight-move bar with 2 holes) at random
  lattice points, never overlapping a board of its own layer (exact shapes), and never with a
  hole over a point that a lower board covers without a hole (a screw there would pierce that
  board); holes over a lower board's hole share its screw. Every hole gets a screw (a few
  stay empty, blocked while covered); covered points without a hole become hidden anchors
  with a tier probability (they open when the boards over them fall).
* ``"traps"`` (Hard): boards built around capacity traps. A *sink* is a bar with 3-4 holes,
  every one screwed: it falls only after all its screws have moved, each holding a free
  anchor until then. A *source* is a bar over three lattice points with holes at its ends
  only: the covered middle point is a hidden anchor, so its fall gives back one more anchor
  than it took. The rest are pads (alone, or stacked on one point sharing one screw) on
  points no bar covers, which give back what they take. With 2-3 free anchors at the start,
  a sink touched before the sources have paid in strands its screws: once the free anchors
  left are fewer than every remaining board needs, the level is lost while holes are still
  free, and only the exhaustive certifier sees it (random play then fills the last holes
  and reaches the paper's visible certificate a few moves later).

The tier's number of free anchors is placed on uncovered points. A candidate is kept when it
validates, is solvable (exhaustive search), its shortest solution is in the tier's band, the
share of 100 random playouts from the start that end in a dead end is in the tier's band,
and among those dead-ending playouts the share whose first unsolvable board still had a free
anchor (the *hidden* share, ``playout_stats(...)["hidden_share"]``) is at least the tier's
``hidden_min`` (0 for Easy, 0.3 for Hard). ``benchmarks/bench_bolt_unscrew.py`` reports
these figures for the catalogue.

``python -m puzzlegym.envs.bolt_unscrew.generator --write`` rebuilds ``levels/{easy,hard}.json``
(``--check`` compares instead of writing).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from puzzlegym.base.errors import ConfigError, LevelError
from puzzlegym.base.fields import check_count
from puzzlegym.game.catalogue import generator_main

from . import geometry as G
from .catalogue import CATALOGUE
from .rules import TIERS, Board, Level

CATALOGUE_SIZE = 8
MAX_ATTEMPTS = 20_000


@dataclass(frozen=True)
class TierSpec:
    cols: tuple[int, int]
    rows: tuple[int, int]
    layers: tuple[int, int]
    boards: tuple[int, int]  # inclusive range of board counts
    free: tuple[int, int]  # free anchors at the start
    solution: tuple[int, int]  # shortest solution length band
    dead_rate: tuple[float, float]  # band of the random-playout dead-end share (margins kept)
    pad_prob: float
    hidden_prob: float  # covered non-hole lattice point becomes a (hidden) anchor
    empty_hole_prob: float
    hidden_min: float  # least share of dead-ending playouts lost while free anchors remained
    style: str = "layers"  # "layers" or "traps" (module docstring)
    sinks: tuple[int, int] = (0, 0)  # traps: bars with 3-4 screwed holes
    sources: tuple[int, int] = (0, 0)  # traps: bars over a hidden middle anchor
    pads: tuple[int, int] = (0, 0)  # traps: pads placed (stacks share one screw)
    stack_prob: float = 0.0  # traps: a pad goes onto another pad's point


TIER_SPECS: dict[str, TierSpec] = {
    "Easy": TierSpec(
        cols=(5, 6),
        rows=(4, 5),
        layers=(2, 3),
        boards=(4, 8),
        free=(3, 4),
        solution=(5, 12),
        dead_rate=(0.05, 0.25),
        pad_prob=0.3,
        hidden_prob=0.6,
        empty_hole_prob=0.0,
        hidden_min=0.0,
    ),
    "Hard": TierSpec(
        cols=(7, 9),
        rows=(5, 6),
        layers=(3, 3),
        boards=(14, 24),
        free=(2, 3),
        solution=(16, 30),
        dead_rate=(0.70, 0.95),
        pad_prob=0.0,
        hidden_prob=0.0,
        empty_hole_prob=0.0,
        hidden_min=0.3,
        style="traps",
        sinks=(1, 1),
        sources=(1, 2),
        pads=(17, 23),
        stack_prob=0.1,
    ),
}

_STRAIGHT = ((1, 0), (0, 1))
_DIAG = ((1, 1), (1, -1))
_KNIGHT = ((2, 1), (1, 2), (2, -1), (1, -2))


def _spec(tier: str) -> TierSpec:
    if tier not in TIER_SPECS:
        raise ConfigError(f"tier: expected one of {', '.join(TIERS)}, got {tier!r}")
    return TIER_SPECS[tier]


def _random_shape(rng: random.Random, spec: TierSpec, cols: int, rows: int):
    """(kind, hole points) of one random board inside the lattice, or None."""
    if rng.random() < spec.pad_prob:
        return "pad", [(rng.randrange(cols), rng.randrange(rows))]
    r = rng.random()
    if r < 0.6:
        d = rng.choice(_STRAIGHT)
        steps = rng.choice((1, 2, 2, 3))
    elif r < 0.85:
        d = rng.choice(_DIAG)
        steps = rng.choice((1, 2))
    else:
        d = rng.choice(_KNIGHT)
        steps = 1
    x0, y0 = rng.randrange(cols), rng.randrange(rows)
    pts = [(x0 + d[0] * k, y0 + d[1] * k) for k in range(steps + 1)]
    if not all(0 <= x < cols and 0 <= y < rows for x, y in pts):
        return None
    inner = pts[1:-1]
    keep = rng.randint(0, min(2, len(inner)))
    holes = [pts[0], *sorted(rng.sample(inner, keep), key=pts.index), pts[-1]]
    return "bar", holes


def _candidate(rng: random.Random, spec: TierSpec, tier: str) -> Level | None:
    """A candidate of the tier's style (module docstring), or None."""
    if spec.style == "traps":
        return _trap_candidate(rng, spec, tier)
    cols = rng.randint(*spec.cols)
    rows = rng.randint(*spec.rows)
    n_layers = rng.randint(*spec.layers)
    target = rng.randint(*spec.boards)
    per_layer = [target // n_layers + (i < target % n_layers) for i in range(n_layers)]
    rng.shuffle(per_layer)
    placed: list[tuple[str, int, list[tuple[int, int]]]] = []  # kind, layer, hole points
    for layer, count in enumerate(per_layer):
        done = 0
        for _try in range(count * 40):
            if done == count:
                break
            shape = _random_shape(rng, spec, cols, rows)
            if shape is None:
                continue
            kind, holes = shape
            if not _fits(placed, kind, layer, holes):
                continue
            placed.append((kind, layer, holes))
            done += 1
    if len(placed) < spec.boards[0]:
        return None
    points = [(x, y) for y in range(rows) for x in range(cols)]
    hole_pts = {p for _k, _l, h in placed for p in h}
    covered = {p for p in points for k, _l, h in placed if G.covers(*_seg(k, h), p)}
    hidden = {p for p in covered - hole_pts if rng.random() < spec.hidden_prob}

    def screws(rng: random.Random) -> set:
        """Every hole, except a few left empty (never a board's last one)."""
        screwed = set(hole_pts)
        for p in sorted(hole_pts, key=lambda p: (p[1], p[0])):
            if rng.random() < spec.empty_hole_prob:
                owners = [h for _k, _l, h in placed if p in h]
                if all(sum(q in screwed for q in h) > 1 for h in owners):
                    # an empty hole must not sit on top of a screw of a lower board
                    screwed.discard(p)
        return screwed

    return _assemble(rng, spec, tier, cols, rows, placed, hole_pts, hidden, covered, screws)


def _seg(kind: str, holes: Sequence[G.Point]) -> tuple[G.Segment, Fraction]:
    return (holes[0], holes[-1]), (G.PAD_R if kind == "pad" else G.BAR_HALF)


def _fits(placed, kind: str, layer: int, holes) -> bool:
    """Whether a board fits: no overlap within its layer, and no hole over a point that a
    board below covers without a hole there."""
    s, r = _seg(kind, holes)
    for k2, l2, h2 in placed:
        s2, r2 = _seg(k2, h2)
        if l2 == layer and G.shapes_intersect(s, r, s2, r2):
            return False
        if l2 < layer and any(p not in h2 and G.covers(s2, r2, p) for p in holes):
            return False
        if l2 > layer and any(p not in holes and G.covers(s, r, p) for p in h2):
            return False
    return True


def _line(rng: random.Random, cols: int, rows: int, steps: int, directions):
    d = rng.choice(directions)
    x0, y0 = rng.randrange(cols), rng.randrange(rows)
    pts = [(x0 + d[0] * k, y0 + d[1] * k) for k in range(steps + 1)]
    return pts if all(0 <= x < cols and 0 <= y < rows for x, y in pts) else None


def _trap_candidate(rng: random.Random, spec: TierSpec, tier: str) -> Level | None:
    """A ``"traps"`` candidate (module docstring): sinks, sources, pads, free anchors."""
    cols = rng.randint(*spec.cols)
    rows = rng.randint(*spec.rows)
    n_layers = rng.randint(*spec.layers)
    kinds = ["sink"] * rng.randint(*spec.sinks) + ["source"] * rng.randint(*spec.sources)
    rng.shuffle(kinds)
    placed: list[tuple[str, int, list[tuple[int, int]]]] = []
    middles = set()
    for kind in kinds:
        for _try in range(100):
            layer = rng.randrange(n_layers)
            if kind == "sink":
                holes = _line(rng, cols, rows, rng.choice((2, 3)), _STRAIGHT + _DIAG)
                middle = None
            else:
                pts = _line(rng, cols, rows, 2, _STRAIGHT + _DIAG)
                holes, middle = (None, None) if pts is None else ([pts[0], pts[-1]], pts[1])
            if holes is None or not _fits(placed, "bar", layer, holes):
                continue
            placed.append(("bar", layer, holes))
            if middle is not None:
                middles.add(middle)
            break
    bar_cover = {p for k, _l, h in placed for p in _covered_points(k, h, cols, rows)}
    lattice = [(x, y) for y in range(rows) for x in range(cols)]
    pad_pts: list[tuple[int, int]] = []
    for _pad in range(rng.randint(*spec.pads)):
        for _try in range(100):
            fresh = [q for q in lattice if q not in bar_cover and q not in pad_pts]
            if not fresh or (pad_pts and rng.random() < spec.stack_prob):
                p = rng.choice(pad_pts)  # on another pad: the stack shares its screw
            else:
                p = rng.choice(fresh)
            layer = rng.randrange(n_layers + 1)
            if _fits(placed, "pad", layer, [p]):
                placed.append(("pad", layer, [p]))
                pad_pts.append(p)
                break
    placed.sort(key=lambda t: t[1])
    hole_pts = {p for _k, _l, h in placed for p in h}
    covered = {p for k, _l, h in placed for p in _covered_points(k, h, cols, rows)}
    return _assemble(
        rng,
        spec,
        tier,
        cols,
        rows,
        placed,
        hole_pts,
        (covered - hole_pts) & middles,
        covered,
        lambda _rng: hole_pts,
    )


def _covered_points(kind: str, holes, cols: int, rows: int) -> set[tuple[int, int]]:
    seg, r = _seg(kind, holes)
    xs = range(max(0, min(p[0] for p in holes) - 1), min(cols, max(p[0] for p in holes) + 2))
    ys = range(max(0, min(p[1] for p in holes) - 1), min(rows, max(p[1] for p in holes) + 2))
    return {(x, y) for x in xs for y in ys if G.covers(seg, r, (x, y))}


def _assemble(
    rng, spec, tier, cols, rows, placed, hole_pts, hidden, covered, screws
) -> Level | None:
    """The level from placed boards: the hidden anchors, ``spec.free`` free anchors on
    uncovered points, then screws in the anchors ``screws(rng)`` returns; None when it does
    not validate."""
    points = [(x, y) for y in range(rows) for x in range(cols)]
    open_pts = [p for p in points if p not in covered]
    n_free = rng.randint(*spec.free)
    if len(open_pts) < n_free:
        return None
    free = set(rng.sample(open_pts, n_free))
    anchors = sorted(hole_pts | hidden | free, key=lambda p: (p[1], p[0]))
    index = {p: i for i, p in enumerate(anchors)}
    boards = tuple(Board(k, layer, tuple(index[p] for p in h)) for k, layer, h in placed)
    screwed = screws(rng)
    level = Level(
        "candidate",
        tier,
        (cols, rows),
        tuple(anchors),
        boards,
        tuple(sorted(index[p] for p in screwed)),
    )
    try:
        level.validate()
    except LevelError:
        return None
    return level


def _rng(tier: str, seed: int) -> random.Random:
    return random.Random(f"puzzlegym/BoltUnscrew/{tier}/{seed}")


def level_stats(level: Level, playouts: int = 100) -> dict:
    """Solution length, free anchors at the start, the random-playout dead-end share and the
    hidden share of those dead ends (``solver.playout_stats``)."""
    from .rules import free_anchors, initial_state
    from .solver import playout_stats, solve

    sol = solve(level)
    play = playout_stats(level, playouts)
    return {
        "boards": len(level.boards),
        "anchors": len(level.anchors),
        "screws": len(level.screws),
        "free": free_anchors(level, initial_state(level)),
        "solution_length": sol.length,
        "optimal": sol.optimal,
        "dead_rate": play["dead_rate"],
        "early_rate": play["early_rate"],
        "hidden_share": play["hidden_share"],
    }


def generate(tier: str, seed: int, *, with_stats: bool = False):
    """A solver-verified level of ``tier`` for ``seed`` (deterministic), id
    ``bolt-<tier>-seed<seed>``; with ``with_stats`` also its :func:`level_stats`."""
    from .rules import free_anchors, initial_state
    from .solver import SearchLimitReached, certify, model, playout_stats

    spec = _spec(tier)
    check_count(seed, "seed", None, None, ConfigError)
    rng = _rng(tier, seed)
    for _attempt in range(MAX_ATTEMPTS):
        level = _candidate(rng, spec, tier)
        if level is None:
            continue
        if not spec.boards[0] <= len(level.boards) <= spec.boards[1]:
            continue
        if not spec.free[0] <= free_anchors(level, initial_state(level)) <= spec.free[1]:
            continue
        if not spec.solution[0] <= len(level.screws) <= spec.solution[1]:
            continue
        level = Level(
            f"bolt-{tier.lower()}-seed{seed}",
            tier,
            level.size,
            level.anchors,
            level.boards,
            level.screws,
        )
        if certify(level, initial_state(level), max_states=20_000) != "solvable":
            model.cache_clear()
            continue
        try:
            stats = playout_stats(level, 100, max_states=50_000)
        except SearchLimitReached:
            model.cache_clear()
            continue
        if not spec.dead_rate[0] <= stats["dead_rate"] <= spec.dead_rate[1]:
            continue
        if (stats["hidden_share"] or 0.0) < spec.hidden_min:
            continue
        if with_stats:
            return level, level_stats(level)
        return level
    raise RuntimeError(f"no {tier} level found for seed {seed} in {MAX_ATTEMPTS} attempts")


def build_catalogue(tier: str, log=None) -> list[tuple[Level, tuple]]:
    """The canonical levels of ``tier`` with their reference (shortest) solutions, sorted
    by difficulty (solution length, then dead-end share)."""
    from .solver import solve

    found = []
    hidden = {}
    for seed in range(CATALOGUE_SIZE):
        level, stats = generate(tier, seed, with_stats=True)
        found.append((stats["solution_length"], stats["dead_rate"], seed, level))
        hidden[seed] = stats["hidden_share"] or 0.0
    found.sort(key=lambda t: (t[0], t[1], t[2]))
    out = []
    for i, (n, rate, seed, level) in enumerate(found):
        level = Level(
            f"bolt-{tier.lower()}-{i + 1:02d}",
            tier,
            level.size,
            level.anchors,
            level.boards,
            level.screws,
        )
        sol = solve(level)
        assert sol.length == n
        out.append((level, sol.moves))
        if log:
            log(
                f"  {level.id}: seed {seed}, {len(level.boards)} boards, "
                f"{len(level.anchors)} anchors, "
                f"{n} moves, dead-end rate {rate:.2f}, hidden share {hidden[seed]:.2f}"
            )
    return out


def catalogue_document(tier: str, entries) -> dict:
    return CATALOGUE.document(
        tier, ((level, {"solution": [list(m) for m in moves]}) for level, moves in entries)
    )


def main(argv: list[str] | None = None) -> int:
    return generator_main(
        argv,
        game_title="Bolt Unscrew",
        module="puzzlegym.envs.bolt_unscrew.generator",
        catalogue=CATALOGUE,
        generate=generate,
        build=build_catalogue,
        document=catalogue_document,
    )


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["TIER_SPECS", "build_catalogue", "catalogue_document", "generate", "level_stats"]
