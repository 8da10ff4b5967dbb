"""Color Connect from the pixels: the grid, blocked cells, the dots of every pair, the
finished paths and the path being drawn.

What the frame shows (``docs/gallery.md``, Color Connect): a grid of square cells ``#faf8f3``,
each with its own 1 px border ``#cec8bc`` (so two neighbours show a 2 px line), inside a
frame ``#968e80``; blocked cells ``#4a5062`` hatched ``#62697c``; a dot is a disc of its
pair's palette colour (pair ``k`` is palette colour ``k``) with the colour's letter; a path
runs through the middle of its cells as a line of its colour leaving each cell by the sides
it takes; a finished path's line is wide (0.4 cell), the path being drawn a narrow one (0.24
cell), with a ring ``#212529`` on its start (a dot) and on its head.

The reader finds the frame, the grid inside it and the cell size (the smallest whole
divisor of the grid's width and height whose every cell border is a line), then reads every cell
at a few fixed points: blocked or not, a dot's colour (checked against its letter), a ring,
and for each side whether a line leaves there, in which colour and how wide. Paths are traced
from their dots side by side; every line must belong to exactly one traced path.

Nothing on this board is hidden: :meth:`public` is the whole board (grid and paths).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlegym.base.errors import LevelError
from puzzlegym.game import Rejected
from puzzlegym.screen.palette import EDGE as PIECE_EDGE
from puzzlegym.screen.palette import PIECES
from puzzlegym.vision.pixels import ReadError, bbox, check_frame, click, code, pack
from puzzlegym.vision.reader import Reading
from puzzlegym.vision.text import read_letter

from . import rules
from .rules import PAIR_LETTERS, Connect, Remove

__all__ = ["READER", "ColorConnectReader", "Drawing", "GridGeometry"]

GAME = "ColorConnect"
CELL = code((250, 248, 243))
GRID_LINE = code((206, 200, 188))
FRAME = code((150, 142, 128))
BLOCKED = (code((74, 80, 98)), code((98, 105, 124)))
RING = code((33, 37, 41))
EDGE = code(PIECE_EDGE)  # the outline of dots and lines
COLOUR_OF = {code(c.rgb): k for k, c in enumerate(PIECES)}
MIN_CELL = 12  # px
# the share of every border between two columns (rows) of cells that must show grid line
# (paths crossing it and blocked cells beside it cover the rest: catalogue boards keep at
# least 45%; a line through the middle of cells shows at most 3%)
LINE_EVIDENCE = 0.2
WIDE = 0.32  # a line at least this wide (of a cell) is a finished path's
UP, DOWN, LEFT, RIGHT = (-1, 0), (1, 0), (0, -1), (0, 1)
SIDES = (UP, DOWN, LEFT, RIGHT)


@dataclass(frozen=True)
class Drawing:
    """The path being drawn, as read: its pair and its cells ``(row, col)`` from its start."""

    pair: int
    cells: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class GridGeometry:
    """What the reader measured: the grid's top-left pixel, the cell size in pixels, the
    grid's rows and columns, and the path being drawn (None when none is)."""

    x0: int
    y0: int
    cell: int
    rows: int
    cols: int
    drawing: Drawing | None

    def centre(self, r: int, c: int) -> tuple[int, int]:
        half = (self.cell - 1) // 2
        return self.x0 + c * self.cell + half, self.y0 + r * self.cell + half


@dataclass(frozen=True)
class _Cell:
    blocked: bool
    dot: int  # the dot's colour, -1 for none
    ring: bool
    sides: dict  # side -> (colour, wide)


class ColorConnectReader:
    """The Color Connect reader (see the module docstring)."""

    game = GAME

    def read(self, frame: np.ndarray, tier: str) -> Reading:
        frame = check_frame(frame, GAME)
        codes = pack(frame)
        x0, y0, x1, y1 = self._grid_box(codes)
        s, rows, cols = self._cell_size(codes, x0, y0, x1, y1)
        cells = [
            [self._cell(frame, codes, x0 + c * s, y0 + r * s, s) for c in range(cols)]
            for r in range(rows)
        ]
        grid, paths, drawing = self._board(cells, rows, cols)
        level = rules.Level("read", tier, tuple(grid))
        try:
            level.validate()
        except LevelError as exc:
            raise ReadError(f"{GAME}: the board read is not a level: {exc}") from None
        state = rules.initial_state(level)
        for k, path in sorted(paths.items()):
            cells_ = tuple(r * cols + c for r, c in path)
            result = rules.apply(level, state, Connect(k, cells_))
            if isinstance(result, Rejected):
                raise ReadError(
                    f"{GAME}: the {PIECES[k].name} path read is not a path: {result.reason}"
                )
            state = result
        return Reading(level, state, GridGeometry(x0, y0, s, rows, cols, drawing))

    # -- measuring ------------------------------------------------------------------------
    def _grid_box(self, codes: np.ndarray) -> tuple[int, int, int, int]:
        box = bbox(codes == FRAME)
        if box is None:
            raise ReadError(f"{GAME}: no grid frame on the screen (is it the level screen?)")
        fx0, fy0, fx1, fy1 = box
        my, mx = (fy0 + fy1) // 2, (fx0 + fx1) // 2
        row, col = codes[my, fx0:fx1] != FRAME, codes[fy0:fy1, mx] != FRAME
        inside_x, inside_y = np.flatnonzero(row), np.flatnonzero(col)
        if not len(inside_x) or not len(inside_y):
            raise ReadError(f"{GAME}: the grid frame at {box} is empty")
        return (
            fx0 + int(inside_x[0]),
            fy0 + int(inside_y[0]),
            fx0 + int(inside_x[-1]) + 1,
            fy0 + int(inside_y[-1]) + 1,
        )

    def _cell_size(self, codes, x0, y0, x1, y1) -> tuple[int, int, int]:
        line = codes[y0:y1, x0:x1] == GRID_LINE
        down, across = line.mean(axis=0), line.mean(axis=1)  # per column, per row
        w, h = x1 - x0, y1 - y0
        g = math.gcd(w, h)
        for s in range(MIN_CELL, g + 1):
            if g % s:
                continue
            cols, rows = w // s, h // s
            if cols < rules.MIN_SIZE or rows < rules.MIN_SIZE:
                break
            borders = [max(down[c * s - 1], down[c * s]) for c in range(1, cols)]
            borders += [max(across[r * s - 1], across[r * s]) for r in range(1, rows)]
            if min(borders) >= LINE_EVIDENCE:
                if cols > rules.MAX_SIZE or rows > rules.MAX_SIZE:
                    break
                return s, rows, cols
        raise ReadError(f"{GAME}: the grid at ({x0}, {y0})-({x1}, {y1}) shows no square cells")

    def _cell(self, frame, codes, x0: int, y0: int, s: int) -> _Cell:
        c = (s - 1) / 2
        cx, cy = x0 + c, y0 + c

        def at(dx: float, dy: float) -> int:
            return int(codes[int(round(cy + dy)), int(round(cx + dx))])

        diag = [(sx, sy) for sx in (-1, 1) for sy in (-1, 1)]
        inner = [at(sx * 0.2 * s, sy * 0.2 * s) for sx, sy in diag]
        if all(v in BLOCKED for v in inner):
            return _Cell(True, -1, False, {})
        # a dot's outline (drawn over any line) crosses the four axes at 0.36 cell; inside
        # it, its colour; a path's line never has an outline there
        dot = -1
        axes = [(1, 0), (-1, 0), (0, 1), (0, -1)]
        rim = 0.36 * s
        outlined = sum(
            any(at(ax * (rim - e), ay * (rim - e)) == EDGE for e in (0.5, 1, 1.5))
            for ax, ay in axes
        )
        colours = [COLOUR_OF.get(at(ax * (rim - 4), ay * (rim - 4)), -1) for ax, ay in axes]
        if outlined == 4 and colours[0] >= 0 and colours.count(colours[0]) >= 3:
            dot = colours[0]
            r, bx, by = int(0.21 * s), int(round(cx)), int(round(cy)) + 1  # the letter's centre
            box = (bx - r, by - r, bx + r + 1, by + r + 1)
            letter = read_letter(frame, box, PIECES[dot].rgb)
            if letter != PIECES[dot].letter:
                raise ReadError(
                    f"{GAME}: the {PIECES[dot].name} dot at ({cx:.0f}, {cy:.0f}) shows the letter "
                    f"{letter!r}, not {PIECES[dot].letter!r}"
                )
        width = max(3, s // 16)
        ring_r = (0.46 * s - width / 2) / math.sqrt(2)
        ring = sum(at(sx * ring_r, sy * ring_r) == RING for sx, sy in diag) >= 3
        sides = {}
        for dr, dc in SIDES:
            # a line leaving by a side covers the cell's own border pixel in the middle of
            # that side and the pixel between a dot's edge and the border (where a ring, drawn
            # over the line, may cross it)
            if dr:
                y = y0 if dr < 0 else y0 + s - 1
                strip = codes[y, x0 : x0 + s]
            else:
                x = x0 if dc < 0 else x0 + s - 1
                strip = codes[y0 : y0 + s, x]
            k = COLOUR_OF.get(int(strip[s // 2]), -1)
            if k < 0 or COLOUR_OF.get(int(strip[(s - 1) // 2]), -1) != k:
                continue
            mid = at(dc * (0.43 * s + 1), dr * (0.43 * s + 1))
            if mid != PIECES_CODE[k] and mid != RING:
                continue
            run = np.flatnonzero(strip == PIECES_CODE[k])
            sides[(dr, dc)] = (k, len(run) >= WIDE * s)
        if dot < 0 and sides and {COLOUR_OF.get(at(0, 0), -1)} != {k for k, _ in sides.values()}:
            raise ReadError(
                f"{GAME}: the lines in the cell at ({cx:.0f}, {cy:.0f}) do not meet in its middle"
            )
        return _Cell(False, dot, ring, sides)

    def _board(self, cells, rows: int, cols: int):
        grid = []
        dots: dict[int, list[tuple[int, int]]] = {}
        for r in range(rows):
            line = []
            for c in range(cols):
                cell = cells[r][c]
                if cell.blocked:
                    line.append(rules.BLOCKED)
                elif cell.dot >= 0:
                    if cell.dot >= len(PAIR_LETTERS):
                        raise ReadError(
                            f"{GAME}: a {PIECES[cell.dot].name} dot: no pair has that color"
                        )
                    line.append(PAIR_LETTERS[cell.dot])
                    dots.setdefault(cell.dot, []).append((r, c))
                else:
                    line.append(rules.FREE)
            grid.append("".join(line))
        used: set[tuple[int, int]] = set()

        def trace(start: tuple[int, int], k: int, wide: bool) -> list[tuple[int, int]]:
            path, prev = [start], None
            while True:
                r, c = path[-1]
                out = [d for d, (kk, ww) in cells[r][c].sides.items() if (kk, ww) == (k, wide)]
                nxt = [(r + dr, c + dc) for dr, dc in out if (r + dr, c + dc) != prev]
                if len(path) > 1 and cells[r][c].dot >= 0:
                    return path  # reached a dot
                if len(nxt) != 1:
                    if len(path) > 1 and not nxt and not wide:
                        return path  # the head of the path being drawn
                    raise ReadError(
                        f"{GAME}: the {PIECES[k].name} line at cell ({r}, {c}) "
                        "does not continue as one path"
                    )
                prev = path[-1]
                nr, nc = nxt[0]
                if not (0 <= nr < rows and 0 <= nc < cols) or (nr, nc) in path:
                    raise ReadError(
                        f"{GAME}: the {PIECES[k].name} line at cell ({r}, {c}) "
                        "leaves the grid or loops"
                    )
                back = (r - nr, c - nc)
                if cells[nr][nc].sides.get(back) != (k, wide):
                    raise ReadError(
                        f"{GAME}: the {PIECES[k].name} line from cell ({r}, {c}) "
                        f"stops at cell ({nr}, {nc})"
                    )
                path.append((nr, nc))

        paths: dict[int, list[tuple[int, int]]] = {}
        drawing = None
        for k, ends in sorted(dots.items()):
            if len(ends) != 2:
                continue  # the level check names the pair
            a = min(ends)
            if any(w for kk, w in cells[a[0]][a[1]].sides.values() if kk == k):
                path = trace(a, k, True)
                if path[-1] != max(ends):
                    raise ReadError(
                        f"{GAME}: the {PIECES[k].name} path from {a} ends at {path[-1]}, "
                        "not at its dot"
                    )
                paths[k] = path
                used.update(path)
        starts = [
            (r, c)
            for r in range(rows)
            for c in range(cols)
            if cells[r][c].ring and cells[r][c].dot >= 0
        ]
        if len(starts) > 1:
            raise ReadError(
                f"{GAME}: rings on {len(starts)} dots {starts}: more than one path being drawn"
            )
        if starts:
            (r, c), k = starts[0], cells[starts[0][0]][starts[0][1]].dot
            if k in paths:
                raise ReadError(f"{GAME}: a ring on the dot at ({r}, {c}) of a connected pair")
            path = trace((r, c), k, False) if cells[r][c].sides else [(r, c)]
            head = path[-1]
            if len(path) > 1 and not cells[head[0]][head[1]].ring:
                raise ReadError(
                    f"{GAME}: the path being drawn from ({r}, {c}) has no ring on its head {head}"
                )
            drawing = Drawing(k, tuple(path))
            used.update(path)
        for r in range(rows):
            for c in range(cols):
                if cells[r][c].sides and (r, c) not in used:
                    raise ReadError(f"{GAME}: a line in cell ({r}, {c}) belongs to no path")
        return grid, paths, drawing

    # -- acting ---------------------------------------------------------------------------
    def actions(self, reading: Reading, move: Any) -> list[dict]:
        """Clicks performing ``move``: cancel the path being drawn (a click on its start),
        then the dot of a pair to remove, or the start, every turn and the end of a path to
        connect."""
        geo: GridGeometry = reading.geometry
        level = reading.level
        n = level.n_cells
        cells: list[int] = []
        if (
            isinstance(move, Remove)
            and isinstance(move.pair, int)
            and 0 <= move.pair < level.n_pairs
        ):
            ends = [level.endpoints[move.pair][0]]
        elif (
            isinstance(move, Connect)
            and isinstance(move.pair, int)
            and 0 <= move.pair < level.n_pairs
            and isinstance(move.cells, tuple)
            and len(move.cells) >= 2
            and all(
                isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n for x in move.cells
            )
        ):
            path = move.cells
            turns = [y for x, y, z in zip(path, path[1:], path[2:], strict=False) if y - x != z - y]
            ends = [path[0], *turns, path[-1]]
        else:
            raise ValueError(
                f"move: expected Connect(pair, cells) or Remove(pair) of this board, got {move!r}"
            )
        if geo.drawing is not None:
            r, c = geo.drawing.cells[0]
            cells.append(r * geo.cols + c)
        cells.extend(ends)
        return [click(*geo.centre(*divmod(x, geo.cols))) for x in cells]

    def public(self, level: Any, state: Any) -> Any:
        """The whole board: ``(grid rows, paths)`` (nothing is hidden)."""
        return (tuple(level.grid), tuple(state.paths))


PIECES_CODE = tuple(code(c.rgb) for c in PIECES)
READER = ColorConnectReader()
