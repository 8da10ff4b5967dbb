"""The eight symmetries of a rectangular grid (quarter turns and reflections: the dihedral
group), for the games' canonical level forms (``rules.canonical``, hashed by
:mod:`puzzlegym.game.levelhash`): a board turned or mirrored is the same puzzle."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class GridSymmetry:
    """One symmetry: transpose (``(row, col) -> (col, row)``) if ``transpose``, then mirror
    the rows (top to bottom) if ``flip_rows`` and the columns (left to right) if
    ``flip_cols``. Together the eight combinations are every quarter turn and reflection."""

    transpose: bool
    flip_rows: bool
    flip_cols: bool

    def shape(self, height: int, width: int) -> tuple[int, int]:
        """The (height, width) of a ``height`` x ``width`` grid after the symmetry."""
        return (width, height) if self.transpose else (height, width)

    def cell(self, row: int, col: int, height: int, width: int) -> tuple[int, int]:
        """Where cell ``(row, col)`` of a ``height`` x ``width`` grid goes."""
        if self.transpose:
            row, col, height, width = col, row, width, height
        if self.flip_rows:
            row = height - 1 - row
        if self.flip_cols:
            col = width - 1 - col
        return row, col

    def direction(self, d_row: int, d_col: int) -> tuple[int, int]:
        """Where the step ``(d_row, d_col)`` (a heading) goes."""
        if self.transpose:
            d_row, d_col = d_col, d_row
        return (-d_row if self.flip_rows else d_row), (-d_col if self.flip_cols else d_col)

    def rows(self, grid: Sequence[str]) -> tuple[str, ...]:
        """A grid of row strings after the symmetry."""
        height, width = len(grid), len(grid[0]) if grid else 0
        new_h, new_w = self.shape(height, width)
        out = [[""] * new_w for _ in range(new_h)]
        for r, line in enumerate(grid):
            for c, ch in enumerate(line):
                nr, nc = self.cell(r, c, height, width)
                out[nr][nc] = ch
        return tuple("".join(line) for line in out)


SYMMETRIES: tuple[GridSymmetry, ...] = tuple(
    GridSymmetry(t, r, c) for t in (False, True) for r in (False, True) for c in (False, True)
)
IDENTITY = SYMMETRIES[0]


def first_seen(items: Sequence, names: dict) -> tuple[int, ...]:
    """``items`` with each label replaced by its number in order of first appearance
    (``names`` holds the numbers given so far and is extended): ``"CAC" -> (0, 1, 0)``."""
    out = []
    for item in items:
        if item not in names:
            names[item] = len(names)
        out.append(names[item])
    return tuple(out)


def relabelled_rows(grid: Sequence[str], keep: str, alphabet: str) -> tuple[str, ...]:
    """A grid of row strings with every character not in ``keep`` renamed to ``alphabet``'s
    letters in order of first appearance (row by row): colours named canonically."""
    names: dict[str, int] = {}
    return tuple(
        "".join(ch if ch in keep else alphabet[first_seen(ch, names)[0]] for ch in row)
        for row in grid
    )


MAX_TIED_ORDERINGS = 4096


def canonical_sequences(
    seqs: Sequence[Sequence], cap: int = MAX_TIED_ORDERINGS
) -> tuple[tuple[int, ...], ...]:
    """A multiset of label sequences whose order does not matter and whose labels may be
    renamed at will (Nut and Bolt's bolts and colours), in a canonical form: over every
    ordering of the sequences, the least (chunk by chunk) list of the sequences in that
    order with labels numbered by first appearance. The orderings are grown greedily, one
    sequence at a time, keeping every ordering that ties for least; so the form is the same
    for every renaming and reordering of the input, provided no step ties more than ``cap``
    partial orderings (beyond that the first ``cap`` are kept: still deterministic, but two
    such symmetric copies may come apart)."""
    # a partial ordering: (label numbers so far, the sequences not yet placed)
    frontier: list[tuple[dict, tuple]] = [({}, tuple(sorted(tuple(s) for s in seqs)))]
    out: list[tuple[int, ...]] = []
    for _ in range(len(seqs)):
        best: tuple[int, ...] | None = None
        grown: dict[tuple, tuple[dict, tuple]] = {}
        for names, left in frontier:
            for i, seq in enumerate(left):
                if i and seq == left[i - 1]:
                    continue  # the same sequence again: the same extension
                mine = dict(names)
                chunk = first_seen(seq, mine)
                if best is not None and chunk > best:
                    continue
                if best is None or chunk < best:
                    best, grown = chunk, {}
                rest = left[:i] + left[i + 1 :]
                grown.setdefault((tuple(sorted(mine.items())), rest), (mine, rest))
        assert best is not None  # every step places one of the sequences left
        out.append(best)
        frontier = [grown[k] for k in sorted(grown)[:cap]]
    return tuple(out)
