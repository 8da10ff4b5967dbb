"""The HTTP observation service (``puzzlegym serve``).

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
"""

from __future__ import annotations

import base64
import threading
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from puzzlegym.actions import Answer, parse_action
from puzzlegym.errors import PuzzleGymError
from puzzlegym.registry import ID_PREFIX, parse_env_id
from puzzlegym.service.http import RequestError, make_server, png_bytes

__all__ = ["Service", "Session", "make_serve_server"]


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


def make_serve_server(host: str, port: int, service: Service) -> ThreadingHTTPServer:
    routes = {
        ("POST", "/reset"): lambda h, s: h._json(200, service.reset(s, h._body())),
        ("POST", "/action"): lambda h, s: h._json(200, service.act(s, h._body())),
        ("POST", "/answer"): lambda h, s: h._json(200, service.act(s, h._body(), answer=True)),
        ("GET", "/screenshot"): lambda h, s: h._send(200, service.screenshot(s), "image/png"),
        ("GET", "/status"): lambda h, s: h._json(200, service.status(s)),
    }
    return make_server(host, port, routes)
