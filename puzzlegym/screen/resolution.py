"""The resolution a frame is rendered at: how the 1280×900 screen maps onto an output image.

A :class:`Resolution` is an output size plus an exact rational scale per axis and an offset
(the letterbox margin), optionally grayscale. The renderer (:mod:`puzzlegym.screen.render`)
uses it to composite frames directly at that size: every widget image is reduced once into
the widget cache, and each frame composites those reduced images into the reduced frame.

Screen pixel edges map to output pixel edges by exact integer rounding (half up), so two
widgets that share an edge on the screen share it in the output as well, and the mapping is
the same on every machine.

* :meth:`Resolution.full`: the screen itself (the identity; the default everywhere).
* :meth:`Resolution.scaled`: a uniform factor such as ``1/4`` (320×225) or ``1/8`` (160×113).
* :meth:`Resolution.fit`: the largest uniform scale that fits ``(height, width)``, centred,
  with black bars (a letterbox), e.g. ``fit(84, 84)``: the screen is 84×59 inside 84×84.
* :meth:`Resolution.stretch`: exactly ``(height, width)``, each axis scaled on its own.
* :meth:`Resolution.window_onto`: one rectangle of the screen (a window) mapped onto ``(height,
  width)``, stretched or letterboxed; what lies outside the window is not in the frame.

A :class:`TrainingView` is the training view's recipe (``LowResObservation(view="board")``):
an output size, grayscale or colour, stretched or letterboxed; the frame buffer asks the
suite's view which window each screen shows (the board's panel on a level screen) and
renders that window in the training style (:mod:`puzzlegym.screen.palette`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache

from puzzlegym.base.actions import SCREEN_HEIGHT, SCREEN_WIDTH
from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count

__all__ = ["FITS", "MIN_SIDE", "SCREEN_WINDOW", "Resolution", "TrainingView"]

MIN_SIDE = 8  # the smallest output side accepted (smaller frames show nothing usable)
FITS = ("letterbox", "stretch")  # how a window fills a frame: aspect kept between bars, or filled
SCREEN_WINDOW = (0, 0, SCREEN_WIDTH, SCREEN_HEIGHT)  # the whole screen as (x0, y0, x1, y1)


def _fraction(value, name: str) -> Fraction:
    if isinstance(value, bool):
        raise ConfigError(f"{name}: expected a number in (0, 1], got {value!r}")
    try:
        f = (
            Fraction(value)
            if not isinstance(value, float)
            else Fraction(value).limit_denominator(10_000)
        )
    except (TypeError, ValueError, ZeroDivisionError):
        raise ConfigError(
            f"{name}: expected a number in (0, 1] such as 0.25 or '1/4', got {value!r}"
        ) from None
    if not 0 < f <= 1:
        raise ConfigError(f"{name}: must be in (0, 1] (frames are never upscaled), got {value!r}")
    return f


def _side(value, name: str, limit: int) -> int:
    return check_count(value, name, MIN_SIDE, limit, ConfigError, numpy=True, what="pixels")


def _round(x: int, f: Fraction) -> int:
    """``x * f`` rounded half up, in exact integer arithmetic."""
    return (2 * x * f.numerator + f.denominator) // (2 * f.denominator)


class _Frame:
    """What every frame recipe answers from its ``height``, ``width`` and ``grayscale``."""

    height: int
    width: int
    grayscale: bool

    @property
    def channels(self) -> int:
        return 1 if self.grayscale else 3

    @property
    def shape(self) -> tuple[int, int, int]:
        """The frame's numpy shape ``(height, width, channels)``."""
        return (self.height, self.width, self.channels)


@dataclass(frozen=True)
class Resolution(_Frame):
    """An output ``height`` × ``width``; screen ``x`` maps to ``ox + round(x * sx)`` and
    ``y`` to ``oy + round(y * sy)``; ``grayscale`` frames have one channel (ITU-R 601 luma,
    as Pillow's ``"L"`` mode). ``window`` (x0, y0, x1, y1) is the part of the screen the
    frame shows (the whole screen unless :meth:`window_onto` chose one); output pixels outside
    its box stay black."""

    height: int
    width: int
    sx: Fraction
    sy: Fraction
    ox: int = 0
    oy: int = 0
    grayscale: bool = False
    window: tuple[int, int, int, int] = SCREEN_WINDOW

    # ------------------------------------------------------------------ constructors
    @classmethod
    def full(cls, grayscale: bool = False) -> Resolution:
        return cls(SCREEN_HEIGHT, SCREEN_WIDTH, Fraction(1), Fraction(1), 0, 0, bool(grayscale))

    @classmethod
    def scaled(cls, factor, grayscale: bool = False) -> Resolution:
        """The screen scaled by ``factor`` (a number in (0, 1] or a string such as
        ``"1/4"``); the output is ``round(900 f)`` × ``round(1280 f)``."""
        f = _fraction(factor, "scale")
        h, w = _round(SCREEN_HEIGHT, f), _round(SCREEN_WIDTH, f)
        if min(h, w) < MIN_SIDE:
            raise ConfigError(
                f"scale: {factor!r} gives a {h}x{w} frame; the smallest side allowed is {MIN_SIDE}"
            )
        return cls(h, w, f, f, 0, 0, bool(grayscale))

    @classmethod
    def fit(cls, height: int, width: int, grayscale: bool = False) -> Resolution:
        """A ``height`` × ``width`` frame holding the whole screen at the largest uniform
        scale, centred between black bars."""
        h = _side(height, "size[0] (height)", SCREEN_HEIGHT)
        w = _side(width, "size[1] (width)", SCREEN_WIDTH)
        f = min(Fraction(w, SCREEN_WIDTH), Fraction(h, SCREEN_HEIGHT))
        ch, cw = _round(SCREEN_HEIGHT, f), _round(SCREEN_WIDTH, f)
        return cls(h, w, f, f, (w - cw) // 2, (h - ch) // 2, bool(grayscale))

    @classmethod
    def stretch(cls, height: int, width: int, grayscale: bool = False) -> Resolution:
        """Exactly ``height`` × ``width``, each axis scaled on its own (the aspect ratio
        changes unless the size has the screen's 32:45 ratio)."""
        h = _side(height, "size[0] (height)", SCREEN_HEIGHT)
        w = _side(width, "size[1] (width)", SCREEN_WIDTH)
        return cls(
            h, w, Fraction(w, SCREEN_WIDTH), Fraction(h, SCREEN_HEIGHT), 0, 0, bool(grayscale)
        )

    @classmethod
    def window_onto(
        cls,
        window: tuple[int, int, int, int],
        height: int,
        width: int,
        grayscale: bool = False,
        fit: str = "stretch",
    ) -> Resolution:
        """The screen box ``window`` (x0, y0, x1, y1) mapped onto a ``height`` × ``width``
        frame: ``fit="stretch"`` fills it (each axis scaled on its own), ``"letterbox"``
        keeps the aspect ratio, centred between black bars. Its top-left corner maps to the
        frame's (or the bars') edge exactly; the scale may exceed 1 for a small window."""
        h = _side(height, "size[0] (height)", SCREEN_HEIGHT)
        w = _side(width, "size[1] (width)", SCREEN_WIDTH)
        if fit not in FITS:
            raise ConfigError(f"fit: {fit!r} is not allowed; allowed: {', '.join(FITS)}")
        x0, y0, x1, y1 = window
        if not 0 <= x0 < x1 <= SCREEN_WIDTH or not 0 <= y0 < y1 <= SCREEN_HEIGHT:
            raise ConfigError(f"window: {window!r} is not a box inside the 1280x900 screen")
        if fit == "stretch":
            sx, sy = Fraction(w, x1 - x0), Fraction(h, y1 - y0)
            bx = by = 0
        else:
            sx = sy = min(Fraction(w, x1 - x0), Fraction(h, y1 - y0))
            bx = (w - _round(x1 - x0, sx)) // 2
            by = (h - _round(y1 - y0, sy)) // 2
        # x0 maps to bx: ox + round(x0 * sx) == bx (and the same for y)
        ox, oy = bx - _round(x0, sx), by - _round(y0, sy)
        return cls(h, w, sx, sy, ox, oy, bool(grayscale), (x0, y0, x1, y1))

    # ------------------------------------------------------------------ queries
    @property
    def is_full(self) -> bool:
        """The identity: the screen itself, in colour."""
        return (
            self.sx == 1
            and self.sy == 1
            and self.ox == 0
            and self.oy == 0
            and not self.grayscale
            and (self.height, self.width) == (SCREEN_HEIGHT, SCREEN_WIDTH)
            and self.window == SCREEN_WINDOW
        )

    @cached_property
    def content_box(self) -> tuple[int, int, int, int]:
        """The output box (x0, y0, x1, y1) that shows the window (the rest is bars)."""
        x0, y0, x1, y1 = self.map_box(*self.window)
        return max(0, x0), max(0, y0), min(self.width, x1), min(self.height, y1)

    def map_box(self, x0: int, y0: int, x1: int, y1: int) -> tuple[int, int, int, int]:
        """The output box (x0, y0, x1, y1) of a screen box (exclusive ends)."""
        sx, sy, ox, oy = self.sx, self.sy, self.ox, self.oy
        return (ox + _round(x0, sx), oy + _round(y0, sy), ox + _round(x1, sx), oy + _round(y1, sy))

    def map_point(self, x: int, y: int) -> tuple[int, int]:
        """The output pixel that shows screen pixel ``(x, y)``."""
        return self.ox + int(x * self.sx), self.oy + int(y * self.sy)

    def describe(self) -> str:
        kind = "gray" if self.grayscale else "RGB"
        shown = "" if self.window == SCREEN_WINDOW else f", window {self.window}"
        scale = f"scale {self.sx}x{self.sy}, offset {self.ox},{self.oy}{shown}"
        return f"{self.height}x{self.width} {kind} ({scale})"


@dataclass(frozen=True)
class TrainingView(_Frame):
    """The training view (``LowResObservation(view="board")``): ``height`` × ``width``
    frames, grayscale or colour, each showing one window of the screen painted in the
    training style; ``fit`` says how a window fills the frame (``"stretch"``: filled, each
    axis scaled on its own; ``"letterbox"``: aspect kept, centred between black bars). The
    suite's view (:func:`puzzlegym.suite.view.training_scene`) picks the window of
    each screen: the panel of the board on a level screen, the whole screen elsewhere."""

    height: int
    width: int
    grayscale: bool = False
    fit: str = "stretch"

    def __post_init__(self) -> None:
        self.resolution(SCREEN_WINDOW)  # checks the size and the fit

    @property
    def is_full(self) -> bool:
        return False

    def resolution(self, window: tuple[int, int, int, int]) -> Resolution:
        """The :class:`Resolution` that shows the screen box ``window``."""
        return _window_resolution(window, self.height, self.width, self.grayscale, self.fit)

    def describe(self) -> str:
        kind = "gray" if self.grayscale else "RGB"
        return f"{self.height}x{self.width} {kind} training view (board framed, {self.fit})"


@lru_cache(maxsize=1024)
def _window_resolution(window, height, width, grayscale, fit) -> Resolution:
    return Resolution.window_onto(window, height, width, grayscale, fit)
