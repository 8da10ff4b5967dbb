"""The viewer's frames: a record replayed action by action (records are deterministic:
:func:`puzzlegym.evaluation.replay.rerun`) and its frames stored as PNG deltas.

A page cannot decode video on demand without a server, so the frames are stored the way the
renderer draws them: position 0 (after the reset) as a whole frame, and each later stored
position as the PNG patches of the screen regions that changed since the stored position
before it (rows of 20-pixel tiles that changed, each band cut to the columns that changed).
Every :data:`KEY_EVERY` patched positions, or when a change covers most of the screen, a
whole frame (a keyframe) is stored instead, so the page reaches any position from the nearest
keyframe in at most :data:`KEY_EVERY` draws. Identical images (a screen shown again, the same
patch at the same place) are stored once.

The page stays within ``max_bytes`` of images: when an episode's frames would exceed it, the
replay runs again keeping every ``stride``-th position only (and the last), the stride
estimated from the bytes per action so far. The page says which stride it shows.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from puzzlegym.base.actions import SCREEN_HEIGHT, SCREEN_WIDTH
from puzzlegym.base.errors import ConfigError
from puzzlegym.env.loop import Observer, Step

__all__ = [
    "DEFAULT_MAX_BYTES",
    "KEY_EVERY",
    "FrameStrip",
    "changed_regions",
    "record_frames",
]

TILE_W, TILE_H = 40, 20  # divide 1280 x 900 exactly
KEY_EVERY = 48  # patched positions between two keyframes
KEY_AREA = 0.6  # a change over this share of the screen is stored as a keyframe
MAX_BANDS = 6  # more changed bands in one frame: one region around them all
DEFAULT_MAX_BYTES = 24 * 2**20  # images of one page (base64 in the page adds a third)
MIN_MAX_BYTES, MAX_MAX_BYTES = 2**17, 512 * 2**20
MAX_PASSES = 4


class _OverBudget(Exception):
    def __init__(self, position: int) -> None:
        self.position = position


def changed_regions(before: np.ndarray, after: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The regions ``(x, y, w, h)`` of the screen that differ between two full frames: bands
    of changed 20-pixel tile rows, each cut to its changed 40-pixel tile columns ([] when the
    frames are equal). Every changed pixel lies in a region."""
    a = np.ascontiguousarray(before).reshape(SCREEN_HEIGHT, SCREEN_WIDTH * 3).view(np.uint64)
    b = np.ascontiguousarray(after).reshape(SCREEN_HEIGHT, SCREEN_WIDTH * 3).view(np.uint64)
    words = a != b  # 120 bytes per tile column: 15 words
    tile_rows = words.any(axis=1).reshape(SCREEN_HEIGHT // TILE_H, TILE_H).any(axis=1)
    rows = np.flatnonzero(tile_rows)
    if rows.size == 0:
        return []
    bands: list[tuple[int, int]] = []
    start = prev = int(rows[0])
    for r in rows[1:]:
        r = int(r)
        if r != prev + 1:
            bands.append((start, prev))
            start = r
        prev = r
    bands.append((start, prev))
    if len(bands) > MAX_BANDS:
        bands = [(bands[0][0], bands[-1][1])]
    out = []
    for r0, r1 in bands:
        band = words[r0 * TILE_H : (r1 + 1) * TILE_H].any(axis=0)
        cols = np.flatnonzero(band.reshape(SCREEN_WIDTH // TILE_W, 15).any(axis=1))
        c0, c1 = int(cols[0]), int(cols[-1])
        out.append((c0 * TILE_W, r0 * TILE_H, (c1 - c0 + 1) * TILE_W, (r1 - r0 + 1) * TILE_H))
    return out


def _png(pixels: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels)).save(buf, format="PNG", compress_level=6)
    return buf.getvalue()


@dataclass
class FrameStrip:
    """The stored frames of one episode: ``images`` (distinct PNGs), ``steps`` (``[position,
    keyframe, [[x, y, image], ...]]`` in order: what to draw over the frame of the stored
    position before to get this one; a keyframe's one patch is the whole screen), the
    ``stride`` between stored positions (1: every position) and the ``last`` position."""

    stride: int = 1
    images: list[bytes] = field(default_factory=list)
    steps: list[list[Any]] = field(default_factory=list)
    last: int = 0
    passes: int = 1

    @property
    def image_bytes(self) -> int:
        return sum(len(b) for b in self.images)

    @property
    def keyframes(self) -> int:
        return sum(1 for s in self.steps if s[1])

    def positions(self) -> list[int]:
        """The positions whose frame is stored (changed or not): multiples of the stride and
        the last."""
        out = list(range(0, self.last + 1, self.stride))
        if out[-1] != self.last:
            out.append(self.last)
        return out

    def shown_at(self, position: int) -> int:
        """The stored position whose frame the page shows at ``position``."""
        if position >= self.last:
            return self.last
        return position - position % self.stride


class _Recorder(Observer):
    """Builds a :class:`FrameStrip` from the frames of a per-action replay."""

    def __init__(self, stride: int, max_bytes: int, last: int) -> None:
        self.strip = FrameStrip(stride=stride, last=last)
        self.max_bytes = max_bytes
        self._index: dict[bytes, int] = {}
        self._bytes = 0
        self._prev: np.ndarray | None = None
        self._since_key = 0

    def _image(self, x: int, y: int, pixels: np.ndarray) -> int:
        h, w = pixels.shape[:2]
        key = hashlib.sha256(np.ascontiguousarray(pixels).tobytes()).digest()
        key += f"{x},{y},{w},{h}".encode()
        found = self._index.get(key)
        if found is None:
            png = _png(pixels)
            found = self._index[key] = len(self.strip.images)
            self.strip.images.append(png)
            self._bytes += len(png)
        return found

    def _store(self, position: int, frame: np.ndarray) -> None:
        prev = self._prev
        regions = None if prev is None else changed_regions(prev, frame)
        if regions == []:
            return
        area = 0 if regions is None else sum(w * h for _, _, w, h in regions)
        if (
            regions is None
            or self._since_key >= KEY_EVERY
            or area > KEY_AREA * SCREEN_WIDTH * SCREEN_HEIGHT
        ):
            self.strip.steps.append([position, 1, [[0, 0, self._image(0, 0, frame)]]])
            self._since_key = 0
        else:
            patches = [
                [x, y, self._image(x, y, frame[y : y + h, x : x + w])] for x, y, w, h in regions
            ]
            self.strip.steps.append([position, 0, patches])
            self._since_key += 1
        self._prev = frame
        if self._bytes > self.max_bytes:
            raise _OverBudget(position)

    def on_start(self, obs: Any, info: dict) -> None:
        self._store(0, obs)

    def on_step(self, step: Step) -> None:
        position = int(step.info["actions"])
        if position == self.strip.last or position % self.strip.stride == 0:
            self._store(position, step.obs)


def _check(max_bytes: Any, stride: Any) -> None:
    if (
        isinstance(max_bytes, bool)
        or not isinstance(max_bytes, int)
        or not MIN_MAX_BYTES <= max_bytes <= MAX_MAX_BYTES
    ):
        raise ConfigError(
            f"max_bytes: expected an integer {MIN_MAX_BYTES}..{MAX_MAX_BYTES}, got {max_bytes!r}"
        )
    if stride is not None and (
        isinstance(stride, bool) or not isinstance(stride, int) or not 1 <= stride <= 10**6
    ):
        raise ConfigError(f"stride: expected None or an integer 1..1000000, got {stride!r}")


def record_frames(
    record_dir: str | os.PathLike,
    n_actions: int,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    stride: int | None = None,
    observers: Iterable[Observer] = (),
) -> tuple[FrameStrip, dict[str, Any]]:
    """Replay the record action by action and keep its frames (module docstring); returns
    the strip and the replay's report (:func:`~puzzlegym.evaluation.replay.rerun`: ``ok``,
    ``mismatch``, the frame hashes checked). ``n_actions`` is the record's action count;
    ``stride`` fixes the stride (None: 1, or larger if the images would pass ``max_bytes``;
    a fixed stride whose images pass it fails); ``observers`` watch each replay."""
    from puzzlegym.evaluation.replay import rerun

    _check(max_bytes, stride)
    current = stride or 1
    for passes in range(1, MAX_PASSES + 1):
        recorder = _Recorder(current, max_bytes, n_actions)
        try:
            report = rerun(record_dir, [recorder, *observers], per_action=True)
        except _OverBudget as over:
            if stride is not None or passes == MAX_PASSES:
                raise ConfigError(
                    f"max_bytes: the frames of {record_dir} at stride {current} pass "
                    f"{max_bytes} bytes after {over.position} of {n_actions} actions; "
                    "allow more bytes or a larger stride"
                ) from None
            projected = recorder._bytes * max(n_actions, 1) / max(over.position, 1)
            current = max(2 * current, math.ceil(current * 1.3 * projected / max_bytes))
            continue
        recorder.strip.passes = passes
        return recorder.strip, report
    raise AssertionError("unreachable")  # pragma: no cover
