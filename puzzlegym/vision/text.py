"""Text on the screen read by glyph templates of the shipped font.

Every string the suite shows is drawn with DejaVu Sans (``puzzlegym/screen/fonts``) in one
colour on a flat background. :func:`read_words` undoes the anti-aliasing (each pixel's
coverage between the background and the text colour), cuts the line into words at gaps
wider than a fraction of the font's space, and names each word by comparing it with the
same word rendered by Pillow in the same font (at four sub-pixel phases): the best of a
vocabulary, or None when nothing is close. Numbers are recognised as words too
(``"0"`` .. ``"199"``), so ``Level 3 / 10`` reads as ``["Level", "3", "/", "10"]``.

A piece whose colour carries meaning (a nut, a Color Connect dot) prints its colour's letter
(:mod:`puzzlegym.screen.palette`) in the bold font, in ``text_colour`` of its fill:
:func:`read_letter` names it the same way, from the palette's letters, at the font sizes
whose cap height fits the ink.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from PIL import Image, ImageDraw

from puzzlegym.screen.palette import PALETTE, text_colour
from puzzlegym.screen.render import font

__all__ = ["LETTERS", "Style", "Vocabulary", "coverage", "read_letter", "read_words", "text_rows"]

RGB = tuple[int, int, int]
INK = 0.2  # coverage above which a pixel counts as ink
BLEND_TOL = 4  # how far (per channel) a blend of text and background may be from exact
ACCEPT = 0.3  # a word is named when its template differs by at most this share of its ink
PHASES = (0.0, 0.25, 0.5, 0.75)  # sub-pixel x offsets a template is rendered at
NUMBERS = tuple(str(n) for n in range(200))
LETTERS = tuple(c.letter for c in PALETTE)
CAP_HEIGHT = 0.73  # DejaVu Sans Bold's cap height, of the font size


@dataclass(frozen=True)
class Style:
    """How a line of text is drawn: font size (px), weight, text and background colours."""

    size: int
    bold: bool
    fg: RGB
    bg: RGB


class Vocabulary:
    """The words a reader can name (numbers are always known), templates cached per style."""

    def __init__(self, words, numbers: bool = True) -> None:
        self.words = tuple(sorted(set(words) | (set(NUMBERS) if numbers else set())))

    def best(self, ink: np.ndarray, style: Style) -> str | None:
        """The word whose template matches ``ink`` (a word's coverage, cropped to its ink)
        best, or None when none is within :data:`ACCEPT`."""
        return self.match(ink, style)[0]

    def match(self, ink: np.ndarray, style: Style) -> tuple[str | None, float]:
        """:meth:`best` with its difference (:data:`ACCEPT` when no word is named)."""
        h, w = ink.shape
        best, best_score = None, ACCEPT
        widths = _widths(self.words, style.size, style.bold)
        for word, width in zip(self.words, widths, strict=True):
            if abs(width - w) > 0.5 * style.size + 4:
                continue  # far too wide or too narrow: no need to render it
            for tmpl in _templates(word, style.size, style.bold):
                th, tw = tmpl.shape
                if abs(th - h) > 2 or abs(tw - w) > 2:
                    continue
                score = _difference(ink, tmpl)
                if score < best_score:
                    best, best_score = word, score
        return best, best_score


_LETTER_VOCABULARY = Vocabulary(LETTERS, numbers=False)


def coverage(region: np.ndarray, style: Style) -> np.ndarray:
    """Each pixel's share of text colour (0 background .. 1 text), from its RGB; 0 for a
    pixel that is no blend of the two (another colour: a border, a badge, other text)."""
    fg = np.asarray(style.fg, dtype=np.float32)
    bg = np.asarray(style.bg, dtype=np.float32)
    d = fg - bg
    rel = region.astype(np.float32) - bg
    a = np.clip(rel @ d / float(d @ d), 0.0, 1.0)
    off = np.abs(rel - a[..., None] * d).max(axis=-1)
    a[off > BLEND_TOL] = 0.0
    return a


def text_rows(
    frame: np.ndarray, box: tuple[int, int, int, int], style: Style
) -> list[tuple[int, int]]:
    """The bands of rows (y0, y1) inside ``box`` that hold text of ``style``, top to bottom."""
    x0, y0, x1, y1 = box
    ink = (coverage(frame[y0:y1, x0:x1], style) > 0.5).any(axis=1)
    d = np.diff(np.concatenate(([0], ink.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    return [(y0 + int(a), y0 + int(b)) for a, b in zip(starts, ends, strict=True)]


def read_words(
    frame: np.ndarray, box: tuple[int, int, int, int], style: Style, vocabulary: Vocabulary
) -> list[str | None]:
    """The words of the one line of text inside ``box`` (x0, y0, x1, y1) of ``frame``,
    left to right, each named from ``vocabulary`` (None where no word matches)."""
    x0, y0, x1, y1 = box
    cov = coverage(frame[y0:y1, x0:x1], style)
    cols = np.flatnonzero((cov > INK).any(axis=0))
    if cols.size == 0:
        return []
    gap = max(3, round(font(style.size, style.bold).getlength(" ") * 0.9))
    words, start = [], cols[0]
    for a, b in zip(cols[:-1], cols[1:], strict=False):
        if b - a > gap:
            words.append((start, a + 1))
            start = b
    words.append((start, cols[-1] + 1))
    out = []
    for a, b in words:
        piece = cov[:, a:b]
        rows = np.flatnonzero((piece > INK).any(axis=1))
        out.append(vocabulary.best(piece[rows[0] : rows[-1] + 1], style))
    return out


def read_letter(
    frame: np.ndarray, box: tuple[int, int, int, int], fill: tuple[int, int, int]
) -> str | None:
    """The palette letter printed in ``box`` (x0, y0, x1, y1) of ``frame`` on a piece of
    colour ``fill``, or None when no letter matches."""
    x0, y0, x1, y1 = box
    style = Style(0, True, text_colour(fill), (int(fill[0]), int(fill[1]), int(fill[2])))
    cov = coverage(frame[y0:y1, x0:x1], style)
    ink = cov > INK
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if not rows.size:
        return None
    crop = cov[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    return _letter(crop.shape, np.round(crop * 32).astype(np.uint8).tobytes(), style)


@lru_cache(maxsize=1024)
def _letter(shape: tuple[int, int], quantised: bytes, style: Style) -> str | None:
    """The letter of one ink crop (coverage in 32nds), the best over the font sizes whose
    cap height is about the crop's height."""
    crop = np.frombuffer(quantised, np.uint8).reshape(shape).astype(np.float32) / 32
    guess = round(shape[0] / CAP_HEIGHT)
    best, best_score = None, ACCEPT
    for size in range(max(6, guess - 3), guess + 4):
        word, score = _LETTER_VOCABULARY.match(crop, Style(size, True, style.fg, style.bg))
        if score < best_score:
            best, best_score = word, score
    return best


def _difference(a: np.ndarray, t: np.ndarray) -> float:
    """How different two coverage crops are: the least, over shifts of a pixel or two, of
    the summed absolute difference over the summed ink of both. (Outside the template's
    place the difference is ``a``'s own ink, so each shift sums only the template's
    window.)"""
    h, w = max(a.shape[0], t.shape[0]) + 2, max(a.shape[1], t.shape[1]) + 2
    pa = np.zeros((h, w), np.float32)
    pa[1 : 1 + a.shape[0], 1 : 1 + a.shape[1]] = a
    ink = float(a.sum())
    total = ink + float(t.sum()) or 1.0
    windows = sliding_window_view(pa, t.shape)  # every shift at once
    diff = ink - windows.sum(axis=(2, 3)) + np.abs(windows - t).sum(axis=(2, 3))
    return min(2.0, float(diff.min()) / total)


@lru_cache(maxsize=64)
def _widths(words: tuple[str, ...], size: int, bold: bool) -> tuple[float, ...]:
    """Each word's advance width in the shipped font."""
    f = font(size, bold)
    return tuple(f.getlength(word) for word in words)


@lru_cache(maxsize=8192)
def _templates(word: str, size: int, bold: bool) -> tuple[np.ndarray, ...]:
    """``word`` rendered in the shipped font at each sub-pixel phase, cropped to its ink."""
    f = font(size, bold)
    width = int(f.getlength(word)) + 2 * size
    out = []
    for phase in PHASES:
        img = Image.new("L", (width, 2 * size + 8), 0)
        ImageDraw.Draw(img).text((size + phase, size + 4), word, font=f, fill=255, anchor="lm")
        a = np.asarray(img, dtype=np.float32) / 255.0
        ys, xs = np.nonzero(a > INK)
        if ys.size == 0:
            continue
        out.append(a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])
    return tuple(out)
