"""The HTTP observation service (``puzzlegym serve``).

``serve`` lets an agent in another process or container play through pixels only:

* ``POST /reset``   ``{"objective": "LongPuzzle/MazePaint-Easy", "level": 2?, "start": "home"?,
  "seed": 0?}`` starts an episode (a rejected reset leaves the running one as it was);
* ``GET /screenshot`` the current screen as PNG;
* ``POST /action``  one GUI action as JSON (or ``{"type": "batch", "actions": [...]}``);
* ``POST /answer``  ``{"text": "..."}``, the agent's terminal declaration;
* ``GET /status``   public counters only;
* ``DELETE /session`` ends the session's episode (its record gets a result) and the session.

``/reset``, ``/action`` and ``/answer`` answer ``{"png": <base64 PNG>, "step", "actions",
"elapsed_s", "accepted", "done"}``: pixels and public counters, nothing of the evaluator.
Sessions are named by the ``X-Session`` header (1-64 characters of ``A-Z a-z 0-9 _ -``;
default ``default``); requests to one session are serialised. At most ``--max-sessions`` live
at once and one unused for ``--idle-s`` seconds expires. Every episode is recorded on disk in
a new ``--record-dir/episode-NNNNNN`` directory, where the operator reads the results. Bad
requests get a 4xx JSON ``{"error": ...}`` naming the problem and change nothing. Requests
are checked as :mod:`puzzlegym.service.http` says (Host, Origin, JSON content type, bounded
bodies, ``--token`` for anything but loopback).
"""

from __future__ import annotations

import base64
import re
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from puzzlegym.base.actions import Answer, parse_action
from puzzlegym.base.errors import ConfigError, PuzzleGymError, shown
from puzzlegym.base.fields import MAX_SEED, check_count, check_number
from puzzlegym.env import puzzle_env
from puzzlegym.game.registry import ID_PREFIX, parse_env_id
from puzzlegym.service.http import (
    HTTPServer,
    Reply,
    RequestError,
    check_token,
    make_server,
    png_bytes,
)

__all__ = ["MAX_SEED", "Service", "Session", "make_serve_server"]


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

    record: str | None = None
    last_used: float = field(default_factory=time.monotonic)
    _png: tuple[tuple[int, int], str] | None = None  # ((episode, suite version), base64 PNG)

    def end(self, reason: str) -> str | None:
        """End the episode (its record gets a result) and close its env; returns the record."""
        if self.env is not None:
            try:
                self.env.unwrapped.end_episode(reason)
            finally:
                self.env.close()
            self.env, self.obs, self.done, self._png = None, None, True, None
        return self.record

    def png_b64(self) -> str:
        """The screen as base64 PNG, encoded once per change of the screen (the suite's
        version), not once per request."""
        assert self.obs is not None, "a session with an env has its screen"
        key = (self.episodes, self.env.unwrapped.probe().version)
        if self._png is None or self._png[0] != key:
            self._png = (key, base64.b64encode(png_bytes(self.obs)).decode("ascii"))
        return self._png[1]

    def public(self, with_png: bool = True) -> dict:
        probe = self.env.unwrapped.probe()
        out = {
            "step": probe.steps,
            "actions": probe.actions,
            "elapsed_s": round(probe.elapsed_s, 3),
            "accepted": self.accepted,
            "done": self.done,
        }
        if with_png:
            out["png"] = self.png_b64()
        return out


class Service:
    """The sessions of one ``serve`` process.

    At most ``max_sessions`` sessions live at once (a new name beyond that gets 429); a
    session unused for ``idle_s`` seconds expires; ``DELETE /session`` ends one. Each of these
    ends the session's episode cleanly (its record gets a result). Every episode's record is a
    new directory ``episode-NNNNNN`` under ``record_dir``, created exclusively, so no record is
    ever overwritten, across restarts too; no path is built from client text."""

    def __init__(
        self,
        backend: str = "native",
        clock: str = "wall",
        record_dir: str | Path = "runs/serve",
        max_sessions: int = 16,
        idle_s: float = 900.0,
    ) -> None:
        check_count(max_sessions, "max_sessions", 1, 10_000, ConfigError)
        idle_s = check_number(idle_s, "idle_s", 0, 10**7, ConfigError, lo_open=True, what="seconds")
        self.backend, self.clock = backend, clock
        self.record_dir = Path(record_dir)
        self.max_sessions, self.idle_s = max_sessions, idle_s
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        self._records = 0  # the highest episode number seen or allocated
        self._stop = threading.Event()
        self._reaper: threading.Thread | None = None

    # ------------------------------------------------------------------ sessions
    def session(self, name: str, create: bool = True) -> Session:
        with self._lock:
            s = self._sessions.get(name)
            if s is None:
                if not create:
                    raise RequestError(409, "no episode in this session; POST /reset first")
                if len(self._sessions) >= self.max_sessions:
                    raise RequestError(
                        429,
                        f"too many sessions ({self.max_sessions}); DELETE /session one or wait "
                        f"{self.idle_s:g} s for idle ones to expire",
                    )
                s = self._sessions[name] = Session(name)
            s.last_used = time.monotonic()
            return s

    def delete(self, name: str) -> dict:
        with self._lock:
            s = self._sessions.get(name)
        if s is None:
            raise RequestError(404, f"no session {name!r}")
        with s.lock:
            record = s.end("session_deleted")
            with self._lock:
                if self._sessions.get(name) is s:
                    del self._sessions[name]
        return {"deleted": name, "record": record}

    def expire_idle(self) -> list[str]:
        """End the sessions unused for ``idle_s`` seconds (skipping any serving a request)."""
        now, gone = time.monotonic(), []
        with self._lock:
            candidates = [s for s in self._sessions.values() if now - s.last_used >= self.idle_s]
        for s in candidates:
            if not s.lock.acquire(blocking=False):
                continue  # busy: not idle
            try:
                if time.monotonic() - s.last_used < self.idle_s:
                    continue
                s.end("session_expired")
                with self._lock:
                    if self._sessions.get(s.name) is s:
                        del self._sessions[s.name]
                        gone.append(s.name)
            finally:
                s.lock.release()
        return gone

    def start_reaper(self) -> None:
        """A daemon thread that expires idle sessions (every ``idle_s``/4, at most 30 s)."""
        if self._reaper is not None:
            return
        period = min(max(self.idle_s / 4, 0.05), 30.0)

        def run() -> None:
            while not self._stop.wait(period):
                self.expire_idle()

        self._reaper = threading.Thread(target=run, name="puzzlegym-session-reaper", daemon=True)
        self._reaper.start()

    def _new_record_dir(self) -> Path:
        """A new, exclusively created ``episode-NNNNNN`` directory."""
        self.record_dir.mkdir(parents=True, exist_ok=True)
        with self._lock:
            if self._records == 0:
                for p in self.record_dir.iterdir():
                    m = re.fullmatch(r"episode-(\d{6,})", p.name)
                    if m:
                        self._records = max(self._records, int(m.group(1)))
            while True:
                self._records += 1
                path = self.record_dir / f"episode-{self._records:06d}"
                try:
                    path.mkdir()
                    return path
                except FileExistsError:
                    continue

    def _forget_if_empty(self, s: Session) -> None:
        """A session whose first reset was rejected takes no slot."""
        with self._lock:
            if s.env is None and self._sessions.get(s.name) is s:
                del self._sessions[s.name]

    # ------------------------------------------------------------------ requests
    def reset(self, name: str, body: Any) -> dict:
        if not isinstance(body, dict):
            raise RequestError(400, "reset: expected a JSON object with 'objective'")
        unknown = sorted(set(body) - {"objective", "level", "start", "seed"}, key=str)
        if unknown:
            raise RequestError(
                400,
                f"reset: unknown field {shown(unknown[0])}; allowed: objective, level, start, seed",
            )
        objective = body.get("objective")
        if not isinstance(objective, str) or len(objective) > 100:
            raise RequestError(
                400,
                "reset.objective: required, e.g. 'LongPuzzle/MazePaint-Easy'; "
                f"got {shown(objective)}",
            )
        env_id = objective if objective.startswith(ID_PREFIX) else ID_PREFIX + objective
        seed = check_count(
            body.get("seed", 0), "reset.seed", 0, MAX_SEED, partial(RequestError, 400)
        )
        kwargs: dict[str, Any] = {"backend": self.backend, "clock": self.clock}
        for key in ("level", "start"):
            if body.get(key) is not None:
                kwargs[key] = body[key]
        try:
            parse_env_id(env_id)
        except PuzzleGymError as exc:
            raise RequestError(400, str(exc)) from None
        s = self.session(name)
        with s.lock:
            record = self._new_record_dir()
            try:
                env = gym.make(env_id, record_dir=str(record), agent=f"http:{name}", **kwargs)
            except PuzzleGymError as exc:
                record.rmdir()  # still empty: nothing was recorded
                self._forget_if_empty(s)
                raise RequestError(
                    400,
                    f"reset.{str(exc)}"
                    if str(exc).split(":")[0] in ("level", "start")
                    else str(exc),
                ) from None
            try:
                obs, _ = env.reset(seed=seed)
            except BaseException:
                env.close()
                raise
            s.end("reset")  # the old episode (if any) ends cleanly, its record closed
            s.env, s.episodes, s.obs, s.record = env, s.episodes + 1, obs, str(record)
            s.done, s.accepted = False, True
            out = s.public()
            out["instruction"] = puzzle_env(env, "reset").instruction
            out["record"] = str(record)
            return out

    def act(self, name: str, body: Any, answer: bool = False) -> dict:
        s = self.session(name, create=False)
        with s.lock:
            if s.env is None:
                raise RequestError(409, "no episode in this session; POST /reset first")
            if s.done:
                raise RequestError(409, "the episode is over; POST /reset to start another")
            try:
                if answer:
                    if not isinstance(body, dict) or set(body) - {"text"}:
                        raise RequestError(400, 'answer: expected {"text": "..."}')
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
        s = self.session(name, create=False)
        with s.lock:
            if s.env is None or s.obs is None:
                raise RequestError(409, "no episode in this session; POST /reset first")
            return png_bytes(s.obs)

    def status(self, name: str) -> dict:
        s = self.session(name, create=False)
        with s.lock:
            if s.env is None:
                raise RequestError(409, "no episode in this session; POST /reset first")
            return s.public(with_png=False)

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for s in sessions:
            with s.lock:
                s.end("server_stopped")


def make_serve_server(
    host: str, port: int, service: Service, token: str | None = None, **limits: Any
) -> HTTPServer:
    """The ``serve`` HTTP server; a non-loopback ``host`` needs a ``token``. ``limits``:
    :func:`puzzlegym.service.http.make_server`'s ``max_connections``, ``request_timeout_s``
    and ``sock``."""
    check_token("serve", host, token)
    routes = {
        ("POST", "/reset"): lambda s, body: Reply.json(service.reset(s, body)),
        ("POST", "/action"): lambda s, body: Reply.json(service.act(s, body)),
        ("POST", "/answer"): lambda s, body: Reply.json(service.act(s, body, answer=True)),
        ("GET", "/screenshot"): lambda s, _: Reply(200, service.screenshot(s), "image/png"),
        ("GET", "/status"): lambda s, _: Reply.json(service.status(s)),
        ("DELETE", "/session"): lambda s, _: Reply.json(service.delete(s)),
    }
    service.start_reaper()
    return make_server(host, port, routes, token=token, **limits)
