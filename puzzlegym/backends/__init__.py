"""Backends turn GUI actions into input events and suite frames into observations.

* ``native``: in-process (synthetic events, the renderer's frame buffer).
* ``browser``: a real Chromium page driven by Playwright (real events, real screenshots).

A backend never holds game state: the env owns the suite; the backend moves events and
pixels.
"""

from __future__ import annotations

BACKENDS = ("native", "browser")


def make_backend(name: str):
    if name == "native":
        from puzzlegym.backends.native import NativeBackend

        return NativeBackend()
    if name == "browser":
        from puzzlegym.backends.browser import BrowserBackend

        return BrowserBackend()
    raise ValueError(f"backend: {name!r} is not available; allowed: {', '.join(BACKENDS)}")
