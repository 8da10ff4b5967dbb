"""Backends turn GUI actions into input events and suite frames into observations.

* ``native``: in-process (synthetic events, the renderer's frame buffer).
* ``browser``: a real Chromium page driven by Playwright (real events, real screenshots).

A backend never holds game state: the env owns the suite; the backend moves events and
pixels.
"""

from __future__ import annotations

BACKENDS = ("native", "browser")


def make_backend(name: str, cache_bytes: int | None = None):
    """A backend by name; ``cache_bytes`` bounds its renderer's widget image cache (None: the
    renderer's default, ``puzzlegym.screen.render.DEFAULT_CACHE_BYTES``)."""
    if name == "native":
        from puzzlegym.backends.native import NativeBackend

        return NativeBackend(cache_bytes)
    if name == "browser":
        from puzzlegym.backends.browser import BrowserBackend

        return BrowserBackend(cache_bytes=cache_bytes)
    raise ValueError(f"backend: {name!r} is not available; allowed: {', '.join(BACKENDS)}")
