"""Human play (``puzzlegym play``).

``play`` serves the same page the browser backend uses to an ordinary browser; the page sends
its real pointer and keyboard events here, the gestures they make are played as GUI actions
(and recorded as an episode in the agents' format), and the changed screen regions go back
as PNG.
"""

from __future__ import annotations

import base64
import threading
from pathlib import Path
from typing import Any

import gymnasium as gym

from puzzlegym.backends.browser import page_file
from puzzlegym.errors import PuzzleGymError, shown
from puzzlegym.screen.input import Event, Gesture, GestureRecognizer
from puzzlegym.screen.render import SCREEN, Rect
from puzzlegym.service.http import HTTPServer, Reply, RequestError, make_server, png_bytes

__all__ = ["PlaySession", "gesture_action", "make_play_server", "parse_events", "play_page"]


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


MAX_EVENTS = 512
EVENT_KINDS = ("pointer_down", "pointer_move", "pointer_up", "key", "text", "wheel")
_EVENT_FIELDS = ("kind", "t", "x", "y", "value")


def parse_events(raw: Any) -> list[Event]:
    """The page's event batch, every field checked (kind, ``t`` a finite time in ms, ``x``/``y``
    integers, ``value`` a short string); raises a 400 naming the first bad field."""
    if not isinstance(raw, list) or len(raw) > MAX_EVENTS:
        raise RequestError(400, f"events: expected a list of at most {MAX_EVENTS} events")
    out = []
    for i, item in enumerate(raw):
        where = f"events[{i}]"
        if not isinstance(item, dict):
            raise RequestError(400, f"{where}: expected an object, got {shown(item)}")
        extra = sorted(set(item) - set(_EVENT_FIELDS), key=str)
        if extra:
            raise RequestError(400, f"{where}: unexpected field {shown(extra[0])}; allowed: {', '.join(_EVENT_FIELDS)}")
        kind = item.get("kind")
        if not isinstance(kind, str) or kind not in EVENT_KINDS:
            raise RequestError(400, f"{where}.kind: {shown(kind)} is not one of {', '.join(EVENT_KINDS)}")
        t = item.get("t")
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 1e12:
            raise RequestError(400, f"{where}.t: expected a finite time in ms (0..1e12), got {shown(t)}")
        xy = []
        for name in ("x", "y"):
            v = item.get(name, 0)
            if isinstance(v, bool) or not isinstance(v, int) or not -100_000 <= v <= 100_000:
                raise RequestError(400, f"{where}.{name}: expected an integer pixel, got {shown(v)}")
            xy.append(v)
        value = item.get("value", "")
        if not isinstance(value, str) or len(value) > 256:
            raise RequestError(400, f"{where}.value: expected a string of at most 256 characters, got {shown(value)}")
        out.append(Event(kind, int(t), xy[0], xy[1], value))
    return out


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
        """Play a batch of the page's events; the whole batch is validated first, so a
        malformed event anywhere rejects the batch with nothing applied or recorded."""
        batch = parse_events(raw)
        with self.lock:
            canvas = self.env.unwrapped.backend.canvas
            dirty: list[Rect] = []
            for event in batch:
                for g in self.recognizer.feed(event):
                    action = gesture_action(g)
                    if action is None or self.done:
                        continue
                    try:
                        before = self.env.unwrapped.probe().version
                        self.obs, _, term, trunc, _ = self.env.step(action)
                    except PuzzleGymError:
                        continue  # e.g. a key outside the allowed set: not a game input
                    if self.env.unwrapped.probe().version != before:
                        dirty.extend(canvas.last_dirty)
                    self.done = bool(term or trunc)
            rects = [SCREEN] if len(dirty) > 8 else dirty
            return [[r.x, r.y, base64.b64encode(png_bytes(self.obs, r)).decode("ascii")] for r in rects]

    def close(self) -> None:
        self.env.close()


def play_page() -> bytes:
    html = page_file("index.html").read_text(encoding="utf-8")
    return html.replace('<script src="page.js"></script>', '<script>window.PUZZLEGYM_REMOTE = true;</script>\n<script src="page.js"></script>').encode()


def make_play_server(host: str, port: int, play: PlaySession) -> HTTPServer:
    script = page_file("page.js").read_bytes()
    routes = {
        ("GET", "/"): lambda s, _: Reply(200, play_page(), "text/html; charset=utf-8"),
        ("GET", "/page.js"): lambda s, _: Reply(200, script, "text/javascript"),
        ("GET", "/play/frame"): lambda s, _: Reply.json(play.full_frame()),
        ("POST", "/play/events"): lambda s, body: Reply.json(play.events(body)),
    }
    return make_server(host, port, routes)
