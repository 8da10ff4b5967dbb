"""Pixel measuring shared by the board readers: exact colour masks, runs, bounding boxes,
the board panel, and the click action dict.

Every frame is the env's exact RGB (no compression), so a colour of the documented palette
(:mod:`puzzlegym.screen.palette`) or theme (:mod:`puzzlegym.screen.theme`) is found by exact
equality; antialiased edges are simply not that colour. Colours are compared as packed
``0xRRGGBB`` integers (:func:`pack`).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from puzzlegym.screen import theme

__all__ = [
    "HEIGHT",
    "WIDTH",
    "ReadError",
    "bbox",
    "check_frame",
    "click",
    "code",
    "pack",
    "panel_box",
    "runs",
]

WIDTH, HEIGHT = 1280, 900


class ReadError(ValueError):
    """The frame does not show what the reader expects (names the game and what is wrong)."""


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
    """The bounding box of the board panel (the one panel every board lies on)."""
    box = bbox(codes == PANEL)
    if box is None:
        raise ReadError(f"{game}: no board panel on the screen (is it the level screen?)")
    return box


def click(x: float, y: float) -> dict:
    """The GUI action dict of a click at pixel ``(x, y)`` (rounded to whole pixels)."""
    return {"type": "click", "x": int(round(x)), "y": int(round(y))}
