"""Pixel measurements every reader shares: the frame's check, exact colour masks (colours
packed as ``0xRRGGBB`` integers), runs, connected regions and their boxes, the board
panel, the pitch of a grid of cells drawn with lines between them, and the click action.

Every frame is the env's exact RGB (no compression), so a colour of the documented palette
(:mod:`puzzlegym.screen.palette`) or theme (:mod:`puzzlegym.screen.theme`) is found by exact
equality; antialiased edges are simply not that colour."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from puzzlegym.base.actions import Click, to_dict
from puzzlegym.screen import theme

__all__ = [
    "HEIGHT",
    "WIDTH",
    "Box",
    "Grid",
    "ReadError",
    "bbox",
    "boxes",
    "cell_groups",
    "check_frame",
    "click",
    "code",
    "grid_pitch",
    "is_colour",
    "measure_grid",
    "near",
    "pack",
    "panel_box",
    "pixel",
    "runs",
]

RGB = tuple[int, int, int]
WIDTH, HEIGHT = 1280, 900
HEADER_ROWS = 72  # boards lie below the level screen's header bar


class ReadError(ValueError):
    """The pixels are not a board the reader understands (the message names the game and
    says what is wrong)."""


def check_frame(frame: object, game: str) -> np.ndarray:
    """``frame`` as a (900, 1280, 3) uint8 array, or :class:`ReadError`."""
    if (
        not isinstance(frame, np.ndarray)
        or frame.dtype != np.uint8
        or frame.shape != (HEIGHT, WIDTH, 3)
    ):
        shape = getattr(frame, "shape", None)
        dtype = getattr(frame, "dtype", None)
        raise ReadError(
            f"{game}: frame: expected a uint8 array of shape (900, 1280, 3), got {shape} {dtype}"
        )
    return frame


def code(rgb: Iterable[int]) -> int:
    """The packed ``0xRRGGBB`` integer of one colour."""
    r, g, b = rgb
    return (int(r) << 16) | (int(g) << 8) | int(b)


def pack(pixels: np.ndarray) -> np.ndarray:
    """Packed ``0xRRGGBB`` integers of an (..., 3) uint8 array."""
    p = pixels.astype(np.int32)
    return (p[..., 0] << 16) | (p[..., 1] << 8) | p[..., 2]


def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """The runs of True in a 1-d boolean array, as half-open ``(start, stop)`` pairs."""
    m = np.concatenate(([False], np.asarray(mask, bool), [False]))
    edges = np.flatnonzero(m[1:] != m[:-1])
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def bbox(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    """``(x0, y0, x1, y1)`` (half-open) of the True pixels of a 2-d mask, None if none."""
    ys = np.flatnonzero(mask.any(axis=1))
    if not len(ys):
        return None
    xs = np.flatnonzero(mask.any(axis=0))
    return int(xs[0]), int(ys[0]), int(xs[-1]) + 1, int(ys[-1]) + 1


PANEL = code(theme.BOARD_PANEL)


def panel_box(codes: np.ndarray, game: str) -> tuple[int, int, int, int]:
    """The bounding box of the board panel (the one panel every board lies on) in a
    :func:`pack` ed frame."""
    box = bbox(codes == PANEL)
    if box is None:
        raise ReadError(f"{game}: no board panel on the screen (is it the level screen?)")
    return box


def click(x: float, y: float) -> dict:
    """The GUI action dict of a click at pixel ``(x, y)`` (rounded to whole pixels)."""
    return to_dict(Click(int(round(x)), int(round(y))))


@dataclass(frozen=True)
class Grid:
    """A board's square cells as measured: the top-left cell's corner, the cell size, the
    numbers of rows and columns."""

    x0: int
    y0: int
    cell: int
    rows: int
    cols: int

    def corner(self, row: int, col: int) -> tuple[int, int]:
        return self.x0 + col * self.cell, self.y0 + row * self.cell

    def center(self, row: int, col: int) -> tuple[int, int]:
        return (
            self.x0 + col * self.cell + self.cell // 2,
            self.y0 + row * self.cell + self.cell // 2,
        )

    def block_center(self, cells) -> tuple[int, int]:
        """The centre of the block of ``cells`` (``(row, col)`` pairs)."""
        rows = [r for r, _ in cells]
        cols = [c for _, c in cells]
        return (
            self.x0 + (min(cols) + max(cols) + 1) * self.cell // 2,
            self.y0 + (min(rows) + max(rows) + 1) * self.cell // 2,
        )


@dataclass(frozen=True)
class Box:
    """A connected region's bounding box (x0, y0 inclusive; x1, y1 exclusive) and size."""

    x0: int
    y0: int
    x1: int
    y1: int
    pixels: int

    @property
    def w(self) -> int:
        return self.x1 - self.x0

    @property
    def h(self) -> int:
        return self.y1 - self.y0

    @property
    def center(self) -> tuple[int, int]:
        return (self.x0 + self.x1) // 2, (self.y0 + self.y1) // 2

    def inside(self, other: Box) -> bool:
        return (
            other.x0 <= self.x0
            and other.y0 <= self.y0
            and self.x1 <= other.x1
            and self.y1 <= other.y1
        )


def is_colour(frame: np.ndarray, rgb: RGB) -> np.ndarray:
    """Where ``frame`` is exactly ``rgb``."""
    return pack(frame) == code(rgb)


def near(frame: np.ndarray, rgb: RGB, tol: int) -> np.ndarray:
    """Where every channel of ``frame`` is within ``tol`` of ``rgb``."""
    return np.asarray(
        (np.abs(frame.astype(np.int16) - np.asarray(rgb, np.int16)) <= tol).all(axis=-1)
    )


def pixel(frame: np.ndarray, x: int, y: int) -> RGB:
    r, g, b = (int(v) for v in frame[y, x])
    return r, g, b


def boxes(mask: np.ndarray, min_pixels: int = 1) -> list[Box]:
    """The 4-connected regions of ``mask`` with at least ``min_pixels`` pixels, as boxes,
    top to bottom then left to right (runs of each row joined by union-find)."""
    parent: list[int] = []

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    found: list[tuple[int, int, int]] = []  # (y, x0, x1)
    prev: list[int] = []
    m = np.asarray(mask, bool)
    for y in range(m.shape[0]):
        cur = []
        j = 0
        for a, b in runs(m[y]):
            k = len(found)
            found.append((y, a, b))
            parent.append(k)
            while j < len(prev) and found[prev[j]][2] <= a:
                j += 1
            t = j
            while t < len(prev) and found[prev[t]][1] < b:
                ra, rb = find(prev[t]), find(k)
                if ra != rb:
                    parent[rb] = ra
                t += 1
            cur.append(k)
        prev = cur
    acc: dict[int, list[int]] = {}
    for k, (y, a, b) in enumerate(found):
        r = find(k)
        box = acc.get(r)
        if box is None:
            acc[r] = [a, y, b, y + 1, b - a]
        else:
            box[0], box[1] = min(box[0], a), min(box[1], y)
            box[2], box[3] = max(box[2], b), max(box[3], y + 1)
            box[4] += b - a
    out = [Box(*v) for v in acc.values() if v[4] >= min_pixels]
    return sorted(out, key=lambda b: (b.y0, b.x0))


def grid_pitch(
    lines: np.ndarray, surface: np.ndarray, sizes: range, threshold: float = 0.5
) -> int | None:
    """The number of columns of a grid of square cells filling a box (its width and height
    whole multiples of the cell): ``lines`` marks the box's pixels of the lines between
    cells, ``surface`` those of the cells' insides (pieces on top are neither). The finest
    division into ``n`` columns (``n`` in ``sizes``) whose every inner boundary runs along
    lines wherever the grid shows, and whose cell also divides the height; None when no
    division fits."""
    seen = lines | surface
    share_x = lines.sum(axis=0) / np.maximum(1, seen.sum(axis=0))
    share_y = lines.sum(axis=1) / np.maximum(1, seen.sum(axis=1))
    w, h = lines.shape[1], lines.shape[0]
    best = None
    for n in sizes:
        if w % n:
            continue
        cell = w // n
        if h % cell:
            continue
        xs = [k * cell for k in range(1, n)]
        ys = [k * cell for k in range(1, h // cell)]
        scores = [share_x[max(0, x - 2) : x + 2].max() for x in xs]
        scores += [share_y[max(0, y - 2) : y + 2].max() for y in ys]
        if not scores or min(scores) >= threshold:
            best = n
    return best


def measure_grid(
    frame: np.ndarray, game: str, box_colours, inset: int, surface, line: RGB, sizes: range
) -> Grid:
    """The grid of a board below the header: its box is that of the pixels of
    ``box_colours`` grown by ``inset`` on each side, its cells those that the lines of colour
    ``line`` between the cells' ``surface`` colours divide it into (:func:`grid_pitch`)."""
    codes = pack(check_frame(frame, game))
    below = codes[HEADER_ROWS:]
    mask = np.isin(below, [code(rgb) for rgb in box_colours])
    found = bbox(mask)
    if found is None:
        raise ReadError(f"{game}: no board cell on the screen")
    x0, y0 = found[0] - inset, found[1] + HEADER_ROWS - inset
    x1, y1 = found[2] + inset, found[3] + HEADER_ROWS + inset
    box = codes[y0:y1, x0:x1]
    inside = np.isin(box, [code(rgb) for rgb in surface])
    cols = grid_pitch(box == code(line), inside, sizes)
    if cols is None:
        raise ReadError(f"{game}: the {x1 - x0}x{y1 - y0} px board has no regular cell lines")
    cell = (x1 - x0) // cols
    return Grid(x0, y0, cell, (y1 - y0) // cell, cols)


def cell_groups(cells, joined) -> list[list[tuple[int, int]]]:
    """``cells`` (``(row, col)`` pairs) split into the groups that side-by-side cells with
    ``joined(a, b)`` true connect; each group sorted, groups in the order of their first cell."""
    todo_cells = set(cells)
    out, seen = [], set()
    for start in sorted(todo_cells):
        if start in seen:
            continue
        group, todo = [], [start]
        seen.add(start)
        while todo:
            a = todo.pop()
            group.append(a)
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                b = (a[0] + dr, a[1] + dc)
                if b in todo_cells and b not in seen and joined(a, b):
                    seen.add(b)
                    todo.append(b)
        out.append(sorted(group))
    return out
