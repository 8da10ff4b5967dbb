"""Backends turn GUI actions into input events and suite frames into observations.

``native``: in-process (synthetic events, the renderer's frame buffer). A backend never
holds game state: the env owns the suite; the backend only moves events and pixels.
"""

from __future__ import annotations

from puzzlegym.backends.native import NativeBackend

BACKENDS = ("native",)


def make_backend(name: str):
    if name == "native":
        return NativeBackend()
    raise ValueError(f"backend: {name!r} is not available; allowed: {', '.join(BACKENDS)}")
