"""HTTP front ends: the observation service (``puzzlegym serve``) and human play
(``puzzlegym play``).

``serve`` lets an agent in another process or container play through pixels only:

* ``POST /reset``   ``{"objective": "LongPuzzle/MazePaint-Easy", "level": 2?, "start": "home"?,
  "seed": 0?}`` starts an episode;
* ``GET /screenshot`` the current screen as PNG;
* ``POST /action``  one GUI action as JSON (or ``{"type": "batch", "actions": [...]}``);
* ``POST /answer``  ``{"text": "..."}``, the agent's terminal declaration;
* ``GET /status``   public counters only.

``/reset``, ``/action`` and ``/answer`` answer ``{"png": <base64 PNG>, "step", "actions",
"elapsed_s", "accepted", "done"}``: pixels and public counters, nothing of the evaluator.
Sessions are named by the ``X-Session`` header (default ``default``); requests to one session
are serialised. Every episode is recorded on disk (``--record-dir``), where the operator reads
the results. Bad requests get a 4xx JSON ``{"error": ...}`` naming the problem and change
nothing.

``play`` serves the same page the browser backend uses to an ordinary browser; the page sends
its real pointer and keyboard events here, the gestures they make are played as GUI actions
(and recorded as an episode in the agents' format), and the changed screen regions go back
as PNG.
"""

from __future__ import annotations

import base64
import io
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from PIL import Image

from puzzlegym.actions import Answer, parse_action
from puzzlegym.errors import PuzzleGymError
from puzzlegym.input import Event, Gesture, GestureRecognizer
from puzzlegym.registry import ID_PREFIX, parse_env_id
from puzzlegym.render import SCREEN, Rect

MAX_BODY_BYTES = 64 * 1024
SESSION_HEADER = "X-Session"


class RequestError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def png_bytes(frame: np.ndarray, rect: Rect = SCREEN) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(frame[rect.y : rect.y1, rect.x : rect.x1]).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


# --------------------------------------------------------------------------- sessions


@dataclass
class Session:
    """One episode at a time for one client; its lock serialises the client's requests."""

    name: str
    lock: threading.Lock = field(default_factory=threading.Lock)
    env: Any = None
    obs: np.ndarray | None = None
    done: bool = False
    accepted: bool = False
    episodes: int = 0

    _png: tuple[tuple[int, int], str] | None = None  # ((episode, suite version), base64 PNG)

    def png_b64(self) -> str:
        """The screen as base64 PNG, encoded once per change of the screen (the suite's
        version), not once per request."""
        key = (self.episodes, self.env.unwrapped.suite.version)
        if self._png is None or self._png[0] != key:
            self._png = (key, base64.b64encode(png_bytes(self.obs)).decode("ascii"))
        return self._png[1]

    def public(self, with_png: bool = True) -> dict:
        u = self.env.unwrapped
        out = {
            "step": u.steps,
            "actions": u.actions,
            "elapsed_s": round(u.clock.elapsed_s, 3),
            "accepted": self.accepted,
            "done": self.done,
        }
        if with_png:
            out["png"] = self.png_b64()
        return out


class Service:
    """The sessions of one ``serve`` process."""

    def __init__(self, backend: str = "native", clock: str = "wall", record_dir: str | Path = "runs/serve") -> None:
        self.backend, self.clock = backend, clock
        self.record_dir = Path(record_dir)
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def session(self, name: str) -> Session:
        with self._lock:
            return self._sessions.setdefault(name, Session(name))

    def reset(self, name: str, body: Any) -> dict:
        if not isinstance(body, dict):
            raise RequestError(400, "reset: expected a JSON object with 'objective'")
        unknown = sorted(set(body) - {"objective", "level", "start", "seed"})
        if unknown:
            raise RequestError(400, f"reset: unknown field {unknown[0]!r}; allowed: objective, level, start, seed")
        objective = body.get("objective")
        if not isinstance(objective, str):
            raise RequestError(400, "reset.objective: required, e.g. 'LongPuzzle/MazePaint-Easy'")
        env_id = objective if objective.startswith(ID_PREFIX) else ID_PREFIX + objective
        seed = body.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RequestError(400, f"reset.seed: expected an integer, got {seed!r}")
        kwargs: dict[str, Any] = {"backend": self.backend, "clock": self.clock}
        if body.get("level") is not None:
            kwargs["level"] = body["level"]
        if body.get("start") is not None:
            kwargs["start"] = body["start"]
        s = self.session(name)
        with s.lock:
            try:
                parse_env_id(env_id)
                record = self.record_dir / f"{name}-{s.episodes + 1:04d}"
                env = gym.make(env_id, record_dir=str(record), agent=f"http:{name}", **kwargs)
            except PuzzleGymError as exc:
                raise RequestError(400, str(exc)) from None
            if s.env is not None:
                s.env.close()
            s.env, s.episodes = env, s.episodes + 1
            s.obs, _ = env.reset(seed=seed)
            s.done, s.accepted = False, True
            out = s.public()
            out["instruction"] = env.unwrapped.instruction
            out["record"] = str(record)
            return out

    def act(self, name: str, body: Any, answer: bool = False) -> dict:
        s = self.session(name)
        with s.lock:
            if s.env is None:
                raise RequestError(409, "no episode in this session; POST /reset first")
            if s.done:
                raise RequestError(409, "the episode is over; POST /reset to start another")
            try:
                if answer:
                    if not isinstance(body, dict) or set(body) - {"text"}:
                        raise RequestError(400, "answer: expected {\"text\": \"...\"}")
                    action = Answer(body.get("text", ""))
                else:
                    action = body
                parse_action(action)  # validate first: a bad action changes nothing
                s.obs, _, term, trunc, info = s.env.step(action)
            except PuzzleGymError as exc:
                raise RequestError(400, str(exc)) from None
            s.done, s.accepted = bool(term or trunc), bool(info["accepted"])
            return s.public()

    def screenshot(self, name: str) -> bytes:
        s = self.session(name)
        with s.lock:
            if s.env is None:
                raise RequestError(409, "no episode in this session; POST /reset first")
            return png_bytes(s.obs)

    def status(self, name: str) -> dict:
        s = self.session(name)
        with s.lock:
            if s.env is None:
                raise RequestError(409, "no episode in this session; POST /reset first")
            return s.public(with_png=False)

    def close(self) -> None:
        with self._lock:
            for s in self._sessions.values():
                if s.env is not None:
                    s.env.close()


# --------------------------------------------------------------------------- human play


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
    folder = resources.files("puzzlegym") / "assets" / "page"
    html = (folder / "index.html").read_text(encoding="utf-8")
    return html.replace('<script src="page.js"></script>', '<script>window.PUZZLEGYM_REMOTE = true;</script>\n<script src="page.js"></script>').encode()


# --------------------------------------------------------------------------- HTTP


class Handler(BaseHTTPRequestHandler):
    server_version = "puzzlegym"
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once: no delayed-ACK stalls

    def log_message(self, fmt: str, *args: Any) -> None:  # quiet by default
        if getattr(self.server, "verbose", False):
            super().log_message(fmt, *args)

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, doc: Any) -> None:
        self._send(status, json.dumps(doc).encode(), "application/json")

    def _body(self) -> Any:
        length = self.headers.get("Content-Length")
        if length is None:
            raise RequestError(411, "a Content-Length header is required")
        try:
            n = int(length)
        except ValueError:
            raise RequestError(400, f"Content-Length: {length!r} is not a number") from None
        if n > MAX_BODY_BYTES:
            self.close_connection = True
            raise RequestError(413, f"request body of {n} bytes is too large; at most {MAX_BODY_BYTES}")
        raw = self.rfile.read(n)
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RequestError(400, f"malformed JSON: {exc}") from None

    def _dispatch(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        session = self.headers.get(SESSION_HEADER, "default")
        try:
            routes = self.server.routes  # type: ignore[attr-defined]
            handler = routes.get((method, path))
            if handler is None:
                if any(p == path for _, p in routes):
                    raise RequestError(405, f"{method} is not allowed on {path}")
                raise RequestError(404, f"no such endpoint: {path}")
            handler(self, session)
        except RequestError as exc:
            self._json(exc.status, {"error": str(exc)})
        except Exception as exc:  # a bug, not bad input: say so without a traceback
            self._json(500, {"error": f"internal error: {type(exc).__name__}"})

    def do_GET(self) -> None:  # noqa: N802
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._dispatch("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._dispatch("DELETE")


def make_serve_server(host: str, port: int, service: Service) -> ThreadingHTTPServer:
    routes = {
        ("POST", "/reset"): lambda h, s: h._json(200, service.reset(s, h._body())),
        ("POST", "/action"): lambda h, s: h._json(200, service.act(s, h._body())),
        ("POST", "/answer"): lambda h, s: h._json(200, service.act(s, h._body(), answer=True)),
        ("GET", "/screenshot"): lambda h, s: h._send(200, service.screenshot(s), "image/png"),
        ("GET", "/status"): lambda h, s: h._json(200, service.status(s)),
    }
    server = ThreadingHTTPServer((host, port), Handler)
    server.routes = routes  # type: ignore[attr-defined]
    server.daemon_threads = True
    return server


def make_play_server(host: str, port: int, play: PlaySession) -> ThreadingHTTPServer:
    script = (resources.files("puzzlegym") / "assets" / "page" / "page.js").read_bytes()
    routes = {
        ("GET", "/"): lambda h, s: h._send(200, play_page(), "text/html; charset=utf-8"),
        ("GET", "/page.js"): lambda h, s: h._send(200, script, "text/javascript"),
        ("GET", "/play/frame"): lambda h, s: h._json(200, play.full_frame()),
        ("POST", "/play/events"): lambda h, s: h._json(200, play.events(h._body())),
    }
    server = ThreadingHTTPServer((host, port), Handler)
    server.routes = routes  # type: ignore[attr-defined]
    server.daemon_threads = True
    return server

