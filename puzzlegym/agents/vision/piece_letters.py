"""Reading the palette letter printed on a coloured piece (a nut, a Color Connect dot).

Pieces whose colour carries meaning print their colour's letter (:mod:`puzzlegym.screen.palette`)
in the shipped bold font (``puzzlegym/screen/fonts/DejaVuSans-Bold.ttf``), in
``palette.text_colour`` of the fill. :func:`read_letter` takes the pixels nearer the text
colour than the fill inside a box around the letter, crops them to their bounding box and
compares the shape with every palette letter rendered in that font at the sizes whose cap
height fits; the best match wins when it is close enough.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from puzzlegym.screen.palette import PALETTE, text_colour

__all__ = ["LETTERS", "read_letter"]

LETTERS = tuple(c.letter for c in PALETTE)
CAP_HEIGHT = 0.73  # DejaVu Sans Bold's cap height, of the font size
MAX_MISMATCH = 0.2  # of the union of the two shapes


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont:
    path = resources.files("puzzlegym.screen") / "fonts" / "DejaVuSans-Bold.ttf"
    with resources.as_file(path) as real:
        return ImageFont.truetype(str(real), size)


@lru_cache(maxsize=2048)
def _template(letter: str, size: int) -> np.ndarray:
    """``letter`` at ``size`` px as a boolean mask cropped to its ink."""
    f = _font(size)
    x0, y0, x1, y1 = f.getbbox(letter)
    img = Image.new("L", (x1 - x0 + 2, y1 - y0 + 2), 0)
    ImageDraw.Draw(img).text((1 - x0, 1 - y0), letter, font=f, fill=255)
    ink = np.asarray(img) > 127
    ys, xs = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    return ink[ys[0] : ys[-1] + 1, xs[0] : xs[-1] + 1]


def _mismatch(a: np.ndarray, b: np.ndarray) -> float:
    h, w = max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1])
    pa = np.zeros((h, w), bool)
    pb = np.zeros((h, w), bool)
    pa[: a.shape[0], : a.shape[1]] = a
    pb[: b.shape[0], : b.shape[1]] = b
    union = np.count_nonzero(pa | pb)
    return np.count_nonzero(pa ^ pb) / union if union else 1.0


@lru_cache(maxsize=1024)
def _classify(shape: tuple[int, int], bits: bytes) -> str | None:
    ink = (
        np.unpackbits(np.frombuffer(bits, np.uint8))[: shape[0] * shape[1]]
        .reshape(shape)
        .astype(bool)
    )
    h, w = shape
    guess = round(h / CAP_HEIGHT)
    best, best_score = None, MAX_MISMATCH
    for size in range(max(6, guess - 3), guess + 4):
        for letter in LETTERS:
            t = _template(letter, size)
            if abs(t.shape[0] - h) > 1 or abs(t.shape[1] - w) > 1:
                continue
            score = _mismatch(ink, t)
            if score < best_score:
                best, best_score = letter, score
    return best


def read_letter(
    frame: np.ndarray, box: tuple[int, int, int, int], fill: tuple[int, int, int]
) -> str | None:
    """The palette letter printed in ``box`` (x0, y0, x1, y1) of ``frame`` on a piece of
    colour ``fill``, or None when no letter matches."""
    x0, y0, x1, y1 = box
    region = frame[y0:y1, x0:x1].astype(np.int32)
    f = np.array(fill, np.int32)
    t = np.array(text_colour(fill), np.int32)
    d = t - f
    blend = ((region - f) @ d) / float(d @ d)  # 0 at the fill, 1 at the text colour
    ink = blend > 0.5
    ys, xs = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if not len(ys):
        return None
    ink = ink[ys[0] : ys[-1] + 1, xs[0] : xs[-1] + 1]
    return _classify(ink.shape, np.packbits(ink).tobytes())
