"""Human play (``puzzlegym play``).

``play`` serves the same page the browser backend uses to an ordinary browser; the page sends
its real pointer and keyboard events here, the gestures they make are played as GUI actions
(and recorded as an episode in the agents' format), and the changed screen regions go back
as PNG.
"""

from __future__ import annotations

import base64
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import gymnasium as gym

from puzzlegym.backends.browser import page_file
from puzzlegym.errors import PuzzleGymError
from puzzlegym.screen.input import Event, Gesture, GestureRecognizer
from puzzlegym.screen.render import SCREEN, Rect
from puzzlegym.service.http import RequestError, make_server, png_bytes

__all__ = ["PlaySession", "gesture_action", "make_play_server", "play_page"]


def gesture_action(g: Gesture) -> dict | None:
    """The GUI action a human gesture amounts to (recorded like an agent's action)."""
    if g.kind == "click":
        return {"type": "click", "x": g.x, "y": g.y}
    if g.kind == "drag":
        return {"type": "drag", "x0": g.x0, "y0": g.y0, "x1": g.x, "y1": g.y}
    if g.kind == "key":
        return {"type": "press_key", "key": g.value}
    if g.kind == "text":
        return {"type": "type_text", "text": g.value}
    if g.kind == "scroll":
        return {"type": "scroll", "direction": g.value}
    return None  # a double click: its two clicks were already played


class PlaySession:
    """A human playing one objective in an ordinary browser, recorded as an episode."""

    def __init__(self, env_id: str, record_dir: str | Path, **env_kwargs: Any) -> None:
        self.env = gym.make(env_id, clock="wall", record_dir=str(record_dir), agent="human", **env_kwargs)
        self.obs, _ = self.env.reset(seed=0)
        self.recognizer = GestureRecognizer()
        self.lock = threading.Lock()
        self.done = False

    def full_frame(self) -> list:
        with self.lock:
            return [[0, 0, base64.b64encode(png_bytes(self.obs)).decode("ascii")]]

    def events(self, raw: Any) -> list:
        if not isinstance(raw, list) or len(raw) > 512:
            raise RequestError(400, "events: expected a list of at most 512 events")
        with self.lock:
            canvas = self.env.unwrapped.backend.canvas
            dirty: list[Rect] = []
            for item in raw:
                try:
                    event = Event(str(item["kind"]), int(item["t"]), int(item.get("x", 0)), int(item.get("y", 0)), str(item.get("value", "")))
                    gestures = self.recognizer.feed(event)
                except (KeyError, TypeError, ValueError) as exc:
                    raise RequestError(400, f"events: malformed event {item!r}: {exc}") from None
                for g in gestures:
                    action = gesture_action(g)
                    if action is None or self.done:
                        continue
                    try:
                        before = self.env.unwrapped.suite.version
                        self.obs, _, term, trunc, _ = self.env.step(action)
                    except PuzzleGymError:
                        continue  # e.g. a key outside the allowed set: not a game input
                    if self.env.unwrapped.suite.version != before:
                        dirty.extend(canvas.last_dirty)
                    self.done = bool(term or trunc)
            rects = [SCREEN] if len(dirty) > 8 else dirty
            return [[r.x, r.y, base64.b64encode(png_bytes(self.obs, r)).decode("ascii")] for r in rects]

    def close(self) -> None:
        self.env.close()


def play_page() -> bytes:
    html = page_file("index.html").read_text(encoding="utf-8")
    return html.replace('<script src="page.js"></script>', '<script>window.PUZZLEGYM_REMOTE = true;</script>\n<script src="page.js"></script>').encode()


def make_play_server(host: str, port: int, play: PlaySession) -> ThreadingHTTPServer:
    script = page_file("page.js").read_bytes()
    routes = {
        ("GET", "/"): lambda h, s: h._send(200, play_page(), "text/html; charset=utf-8"),
        ("GET", "/page.js"): lambda h, s: h._send(200, script, "text/javascript"),
        ("GET", "/play/frame"): lambda h, s: h._json(200, play.full_frame()),
        ("POST", "/play/events"): lambda h, s: h._json(200, play.events(h._body())),
    }
    return make_server(host, port, routes)
