"""The renderer: a retained scene of widgets composited into one 1280×900 RGB frame.

A screen is described as a list of :class:`Widget` s, back to front. Each widget is an
axis-aligned rectangle drawn by a ``painter(draw, image, key)`` with Pillow into an image of
the widget's size; ``key`` is the complete, hashable description of what it shows. The
:class:`Canvas` keeps

* a cache of painted widget images by ``(painter, size, key)`` (static layers such as the
  screen background and unchanged cells are painted once), and
* the previous scene, so :meth:`Canvas.render` recomposites only the regions whose widgets
  appeared, disappeared or changed key (dirty-region redraw).

Compositing is exact integer arithmetic, so an incremental frame equals a frame rendered
from scratch, byte for byte.

A canvas composites at a :class:`~puzzlegym.screen.resolution.Resolution`: the screen itself
(the default), or a reduced (optionally grayscale) one for training, where widget images
enter the cache already reduced and frames are composited at the reduced size with the same
dirty-region logic. The cache is bounded in bytes (:data:`DEFAULT_CACHE_BYTES`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from itertools import combinations
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from puzzlegym.base.actions import SCREEN_HEIGHT, SCREEN_WIDTH
from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count
from puzzlegym.screen.resolution import Resolution

Painter = Callable[[ImageDraw.ImageDraw, Image.Image, Any], None]


@dataclass(frozen=True, slots=True)
class Rect:
    x: int
    y: int
    w: int
    h: int

    @property
    def x1(self) -> int:
        return self.x + self.w

    @property
    def y1(self) -> int:
        return self.y + self.h

    @property
    def center(self) -> tuple[int, int]:
        return self.x + self.w // 2, self.y + self.h // 2

    def contains(self, px: int, py: int) -> bool:
        return self.x <= px < self.x + self.w and self.y <= py < self.y + self.h

    def intersection(self, other: Rect) -> Rect | None:
        x0, y0 = max(self.x, other.x), max(self.y, other.y)
        x1, y1 = min(self.x1, other.x1), min(self.y1, other.y1)
        if x1 <= x0 or y1 <= y0:
            return None
        return Rect(x0, y0, x1 - x0, y1 - y0)

    def inset(self, d: int) -> Rect:
        return Rect(self.x + d, self.y + d, max(0, self.w - 2 * d), max(0, self.h - 2 * d))


SCREEN = Rect(0, 0, SCREEN_WIDTH, SCREEN_HEIGHT)


@dataclass(frozen=True, slots=True)
class Widget:
    """A rectangle of the screen: ``painter`` draws ``key`` into an image of ``rect``'s size.

    ``opaque`` widgets must paint every pixel (RGB); others paint RGBA and are alpha-blended
    over what lies beneath. ``id`` names the widget within its scene.
    """

    id: str
    rect: Rect
    painter: Painter
    key: Hashable
    opaque: bool = True


# ----------------------------------------------------------------------------- fonts


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans at ``size`` px, shipped with the package (same glyphs on every machine)."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    path = resources.files("puzzlegym.screen") / "fonts" / name
    with resources.as_file(path) as real:
        return ImageFont.truetype(str(real), size)


def draw_text_centered(
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    text: str,
    size: int,
    fill: tuple[int, int, int],
    bold: bool = False,
) -> None:
    """Draw ``text`` centred in ``box`` (x0, y0, x1, y1)."""
    f = font(size, bold)
    cx = (box[0] + box[2]) / 2
    cy = (box[1] + box[3]) / 2
    draw.text((cx, cy), text, font=f, fill=fill, anchor="mm")


def wrap_text(text: str, width: int, size: int, bold: bool = False, sep: str = " ") -> list[str]:
    """``text`` split at ``sep`` into the fewest lines no wider than ``width`` px, balanced
    (of the splits with that many lines, the one whose widest line is narrowest). A single
    part wider than ``width`` stays on its own line."""
    f = font(size, bold)
    parts = text.split(sep)
    greedy: list[str] = []
    for part in parts:
        candidate = f"{greedy[-1]}{sep}{part}" if greedy else part
        if greedy and f.getlength(candidate) <= width:
            greedy[-1] = candidate
        else:
            greedy.append(part)
    if len(greedy) == 1 or len(parts) > 12:
        return greedy
    best, best_width = greedy, max(f.getlength(line) for line in greedy)
    for cuts in combinations(range(1, len(parts)), len(greedy) - 1):
        bounds = (0, *cuts, len(parts))
        lines = [sep.join(parts[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
        widest = max(f.getlength(line) for line in lines)
        if widest < best_width:
            best, best_width = lines, widest
    return best


def draw_lines_centered(
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    lines: list[str],
    size: int,
    fill: tuple[int, int, int],
    bold: bool = False,
    spacing: float = 1.3,
) -> None:
    """Draw ``lines`` as a block centred in ``box`` (x0, y0, x1, y1), one below the other."""
    f = font(size, bold)
    step = round(size * spacing)
    cx = (box[0] + box[2]) / 2
    top = (box[1] + box[3]) / 2 - step * (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        draw.text((cx, top + i * step), line, font=f, fill=fill, anchor="mm")


# ----------------------------------------------------------------------------- canvas

DEFAULT_CACHE_BYTES = 64 * 2**20  # the widget image cache of one canvas holds at most this


class Canvas:
    """The frame buffer plus the retained scene (see module docstring).

    ``resolution`` (default :meth:`Resolution.full`) is the size frames are composited at:
    a reduced resolution reduces every widget image once (Pillow's box filter, alpha
    premultiplied) as it enters the cache and composites the reduced images, so no full
    frame is ever built; ``grayscale`` converts them to luma once as well. ``cache_bytes``
    bounds the widget image cache (least recently used images go first; default
    :data:`DEFAULT_CACHE_BYTES`).
    """

    def __init__(
        self, resolution: Resolution | None = None, cache_bytes: int | None = None
    ) -> None:
        self.resolution = Resolution.full() if resolution is None else resolution
        if cache_bytes is None:
            cache_bytes = DEFAULT_CACHE_BYTES
        self.cache_bytes = check_count(cache_bytes, "cache_bytes", 0, None, ConfigError)
        res = self.resolution
        self.width, self.height = res.width, res.height
        self._identity = res.is_full
        self.frame = np.zeros(res.shape, dtype=np.uint8)
        self._order: list[Widget] = []  # the previous scene, back to front
        self._cache: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self.cached_bytes = 0  # bytes of the images in the cache
        self._boxes: dict[Rect, tuple[int, int, int, int]] = {}  # screen rect -> output box
        self.last_dirty: list[Rect] = [SCREEN]
        self.paints = 0  # widget images painted (cache misses), for benchmarks

    def invalidate(self) -> None:
        """Forget the previous scene: the next render composites the whole frame."""
        self._order = []

    def set_resolution(self, resolution: Resolution) -> None:
        """Composite at ``resolution`` from now on (the training view's window follows the
        board): the next render composites the whole frame. Cached widget images stay (an
        image depends on its output size and colour mode only, not on where it lands),
        unless the colour mode changes; the frame keeps its array when its shape does."""
        if resolution is self.resolution or resolution == self.resolution:
            return
        old = self.resolution
        self.resolution = resolution
        self.width, self.height = resolution.width, resolution.height
        self._identity = resolution.is_full
        if resolution.shape != old.shape:
            self.frame = np.zeros(resolution.shape, dtype=np.uint8)
        else:
            self.frame[...] = 0
        if resolution.grayscale != old.grayscale:
            self._cache.clear()
            self.cached_bytes = 0
        self._boxes.clear()
        self._order = []

    def release(self) -> None:
        """Drop the cached widget images and the retained scene (the env was closed): their
        memory goes back at once; a later render paints what it needs again."""
        self._order = []
        self._cache.clear()
        self.cached_bytes = 0
        self._boxes.clear()

    def _box(self, rect: Rect) -> tuple[int, int, int, int]:
        """The output box (x0, y0, x1, y1) of a screen rectangle."""
        if self._identity:
            return rect.x, rect.y, rect.x + rect.w, rect.y + rect.h
        box = self._boxes.get(rect)
        if box is None:
            if len(self._boxes) > 65536:
                self._boxes.clear()
            box = self._boxes[rect] = self.resolution.map_box(rect.x, rect.y, rect.x1, rect.y1)
        return box

    def _image(self, widget: Widget, size: tuple[int, int]) -> np.ndarray:
        """The widget's image at output ``size`` (w, h), from the cache or painted."""
        rect = widget.rect
        cache_key = (widget.painter, rect.w, rect.h, size, widget.opaque, widget.key)
        arr = self._cache.get(cache_key)
        if arr is not None:
            self._cache.move_to_end(cache_key)
            return arr
        mode = "RGB" if widget.opaque else "RGBA"
        img = Image.new(mode, (rect.w, rect.h), (0, 0, 0) if widget.opaque else (0, 0, 0, 0))
        widget.painter(ImageDraw.Draw(img), img, widget.key)
        if not self._identity:
            if img.size != size:
                img = img.resize(size, Image.Resampling.BOX)
            if self.resolution.grayscale:
                img = img.convert("L" if widget.opaque else "LA")
        arr = np.asarray(img)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        arr.setflags(write=False)
        self._cache[cache_key] = arr
        self.cached_bytes += arr.nbytes
        self.paints += 1
        cache = self._cache
        while self.cached_bytes > self.cache_bytes and len(cache) > 1:
            _, old = cache.popitem(last=False)
            self.cached_bytes -= old.nbytes
        return arr

    def render(self, widgets: list[Widget]) -> list[Rect]:
        """Composite ``widgets`` (back to front); returns the screen regions that changed
        (in screen coordinates, whatever the resolution)."""
        dirty = self._diff(widgets)
        dirty = _merge(dirty)
        frame = self.frame
        cx0, cy0, cx1, cy1 = self.resolution.content_box  # the window's part (bars aside)
        boxes = [self._box(w.rect) for w in widgets]
        for region in dirty:
            rx0, ry0, rx1, ry1 = self._box(region)
            rx0, ry0 = max(rx0, cx0), max(ry0, cy0)
            rx1, ry1 = min(rx1, cx1), min(ry1, cy1)
            if rx1 <= rx0 or ry1 <= ry0:
                continue
            for w, (wx0, wy0, wx1, wy1) in zip(widgets, boxes, strict=True):
                if wx0 >= rx1 or wx1 <= rx0 or wy0 >= ry1 or wy1 <= ry0 or wx1 <= wx0 or wy1 <= wy0:
                    continue
                x0 = wx0 if wx0 > rx0 else rx0
                y0 = wy0 if wy0 > ry0 else ry0
                x1 = wx1 if wx1 < rx1 else rx1
                y1 = wy1 if wy1 < ry1 else ry1
                src = self._image(w, (wx1 - wx0, wy1 - wy0))
                patch = src[y0 - wy0 : y1 - wy0, x0 - wx0 : x1 - wx0]
                dst = frame[y0:y1, x0:x1]
                if w.opaque:
                    dst[...] = patch
                else:
                    alpha = patch[..., -1:].astype(np.uint16)
                    blended = patch[..., :-1].astype(np.uint16) * alpha + dst.astype(np.uint16) * (
                        255 - alpha
                    )
                    dst[...] = ((blended + 127) // 255).astype(np.uint8)
        self._order = list(widgets)
        self.last_dirty = dirty
        return dirty

    def _diff(self, widgets: list[Widget]) -> list[Rect]:
        """The regions to recomposite: rects of widgets that appeared, disappeared, moved or
        changed key since the previous scene (everything when there is none)."""
        old_order = self._order
        if not old_order:
            if len({w.id for w in widgets}) != len(widgets):
                raise ValueError("widget ids must be unique within a scene")
            return [SCREEN]
        dirty: list[Rect] = []
        if len(old_order) == len(widgets):
            # fast path: the same widgets in the same order, most of them the same objects
            for old, w in zip(old_order, widgets, strict=True):
                if old is w:
                    continue
                if old.id != w.id:
                    break
                if old != w:
                    dirty.append(w.rect)
                    if old.rect != w.rect:
                        dirty.append(old.rect)
            else:
                return dirty
            dirty = []
        new_scene = {w.id: w for w in widgets}
        if len(new_scene) != len(widgets):
            raise ValueError("widget ids must be unique within a scene")
        old_scene = {w.id: w for w in old_order}
        for w in widgets:
            before = old_scene.get(w.id)
            if before is None:
                dirty.append(w.rect)
            elif before is not w and before != w:
                dirty.append(w.rect)
                if before.rect != w.rect:
                    dirty.append(before.rect)
        for wid, old in old_scene.items():
            if wid not in new_scene:
                dirty.append(old.rect)
        return dirty


def _merge(rects: list[Rect]) -> list[Rect]:
    """Drop rectangles contained in another; merge everything into one bounding box when
    that box is not much larger than the rectangles themselves (fewer, larger blits)."""
    if len(rects) <= 1:
        return rects
    kept: list[Rect] = []
    for r in sorted(rects, key=lambda r: -(r.w * r.h)):
        if any(k.x <= r.x and k.y <= r.y and r.x1 <= k.x1 and r.y1 <= k.y1 for k in kept):
            continue
        kept.append(r)
    x0 = min(r.x for r in kept)
    y0 = min(r.y for r in kept)
    x1 = max(r.x1 for r in kept)
    y1 = max(r.y1 for r in kept)
    box = Rect(x0, y0, x1 - x0, y1 - y0)
    area = sum(r.w * r.h for r in kept)
    if box.w * box.h <= 2 * area:
        return [box]
    return kept


def render_full(widgets: list[Widget], resolution: Resolution | None = None) -> np.ndarray:
    """A frame rendered from scratch (no previous scene): the reference for incremental
    rendering."""
    canvas = Canvas(resolution)
    canvas.render(widgets)
    return canvas.frame.copy()
