"""Screenshots for the model: the 1280×900 frame as a PNG or JPEG data URL, optionally
downscaled, and the mapping of the image's pixel coordinates back to screen pixels."""

from __future__ import annotations

import base64
import io
import math

import numpy as np
from PIL import Image

from puzzlegym.base.actions import SCREEN_HEIGHT, SCREEN_WIDTH
from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count

__all__ = ["FORMATS", "MIN_WIDTH", "ScreenEncoder"]

FORMATS = ("png", "jpeg")
MIN_WIDTH = 320


class ScreenEncoder:
    """Encodes frames at ``width`` pixels wide (height in proportion) and maps coordinates.

    A point (x, y) of the image the model sees is the screen pixel under the centre of that
    image pixel: ``floor((x + 0.5) · 1280 / width)`` (likewise for y), so at full size the
    mapping is the identity and at half size image pixel 0 is screen pixel 1, 639 is 1279.
    """

    def __init__(self, fmt: str = "png", width: int = SCREEN_WIDTH, quality: int = 85) -> None:
        if fmt not in FORMATS:
            raise ConfigError(
                f"image_format: {fmt!r} is not allowed; allowed: {', '.join(FORMATS)}"
            )
        check_count(width, "image_width", MIN_WIDTH, SCREEN_WIDTH, ConfigError)
        check_count(quality, "image_quality", 1, 100, ConfigError)
        self.format, self.quality = fmt, quality
        self.width = width
        self.height = max(1, round(SCREEN_HEIGHT * width / SCREEN_WIDTH))

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    @property
    def scaled(self) -> bool:
        return self.width != SCREEN_WIDTH

    def image(self, frame: np.ndarray) -> Image.Image:
        img = Image.fromarray(np.asarray(frame, dtype=np.uint8))
        if self.scaled:
            img = img.resize(self.size, Image.Resampling.LANCZOS)
        return img

    def encode(self, frame: np.ndarray) -> bytes:
        buf = io.BytesIO()
        if self.format == "png":
            self.image(frame).save(buf, format="PNG", compress_level=6)
        else:
            self.image(frame).save(buf, format="JPEG", quality=self.quality)
        return buf.getvalue()

    def data_url(self, frame: np.ndarray) -> str:
        return f"data:image/{self.format};base64," + base64.b64encode(self.encode(frame)).decode(
            "ascii"
        )

    def to_screen(self, x: int, y: int) -> tuple[int, int]:
        """Screen pixel of image pixel (x, y) (both already inside the image)."""
        sx = math.floor((x + 0.5) * SCREEN_WIDTH / self.width)
        sy = math.floor((y + 0.5) * SCREEN_HEIGHT / self.height)
        return min(SCREEN_WIDTH - 1, max(0, sx)), min(SCREEN_HEIGHT - 1, max(0, sy))

    def to_image(self, x: int, y: int) -> tuple[int, int]:
        """The image pixel that covers screen pixel (x, y) (for scripts written in screen
        coordinates; ``to_screen(to_image(p))`` lies within one image pixel of p)."""
        return (
            min(self.width - 1, x * self.width // SCREEN_WIDTH),
            min(self.height - 1, y * self.height // SCREEN_HEIGHT),
        )
