"""The HTTP plumbing ``serve`` and ``play`` share: a threaded server over a route table,
bounded JSON bodies, errors as 4xx JSON naming the problem, PNG encoding of screen regions."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
from PIL import Image

from puzzlegym.screen.render import SCREEN, Rect

__all__ = ["MAX_BODY_BYTES", "SESSION_HEADER", "Handler", "RequestError", "make_server", "png_bytes"]

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
        limit = getattr(self.server, "max_body_bytes", MAX_BODY_BYTES)
        if n > limit:
            self.close_connection = True
            raise RequestError(413, f"request body of {n} bytes is too large; at most {limit}")
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


def make_server(
    host: str, port: int, routes: dict[tuple[str, str], Callable], max_body_bytes: int = MAX_BODY_BYTES
) -> ThreadingHTTPServer:
    """A threaded HTTP server dispatching ``(method, path)`` to ``route(handler, session)``;
    request bodies above ``max_body_bytes`` are refused (413)."""
    server = ThreadingHTTPServer((host, port), Handler)
    server.routes = routes  # type: ignore[attr-defined]
    server.max_body_bytes = max_body_bytes  # type: ignore[attr-defined]
    server.daemon_threads = True
    return server
