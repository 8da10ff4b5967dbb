"""The HTTP plumbing ``serve`` and ``play`` share: a threaded server over a route table,
bounded JSON bodies, errors as 4xx JSON naming the problem, PNG encoding of screen regions.

Every request is checked before a route sees it, and nothing is changed by a rejected one:

* ``Host`` must name the address the server is bound to (on loopback: 127.0.0.1, localhost
  or [::1] with the port), so a DNS-rebinding page cannot reach it; an ``Origin`` header, if
  sent, must be that same origin, so a cross-origin page in a local browser cannot drive it;
* with a token (``serve --token``), ``Authorization: Bearer <token>`` is required;
* ``X-Session`` names are 1-64 characters of ``A-Z a-z 0-9 _ -`` (:data:`SESSION_NAME`);
* a body needs ``Content-Type: application/json`` and a ``Content-Length`` of 0..64 KiB (or
  the server's ``max_body_bytes``)
  (missing: 411; malformed or negative: 400; larger: 413), read within the socket timeout;
  JSON is parsed strictly (:func:`puzzlegym.jsonio.loads`): too deep a nesting is a 400, and
  numbers no field accepts (``Infinity``, 5,000-digit integers) reach the route as markers its
  validation names by field;
* every connection has a socket timeout (a silent client is dropped), and at most
  :data:`MAX_CONNECTIONS` are served at once (more get 503).
"""

from __future__ import annotations

import hmac
import io
import ipaddress
import json
import re
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
from PIL import Image

from puzzlegym import jsonio
from puzzlegym.screen.render import SCREEN, Rect

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_CONNECTIONS",
    "SESSION_HEADER",
    "SESSION_NAME",
    "SOCKET_TIMEOUT_S",
    "Handler",
    "RequestError",
    "is_loopback",
    "make_server",
    "png_bytes",
    "serve_until_interrupted",
]

MAX_BODY_BYTES = 64 * 1024
MAX_CONNECTIONS = 64
SOCKET_TIMEOUT_S = 10.0
SESSION_HEADER = "X-Session"
SESSION_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_LENGTH = re.compile(r"[0-9]{1,12}")
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class RequestError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def png_bytes(frame: np.ndarray, rect: Rect = SCREEN) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(frame[rect.y : rect.y1, rect.x : rect.x1]).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Handler(BaseHTTPRequestHandler):
    server_version = "puzzlegym"
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once: no delayed-ACK stalls
    timeout = SOCKET_TIMEOUT_S  # on every connection: reading a request, a body, idle keep-alive

    def log_message(self, fmt: str, *args: Any) -> None:  # quiet by default
        if getattr(self.server, "verbose", False):
            super().log_message(fmt, *args)

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, doc: Any) -> None:
        self._send(status, json.dumps(doc).encode(), "application/json")

    def _body(self) -> Any:
        ctype = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if ctype != "application/json":
            self.close_connection = True  # the body (if any) is left unread
            raise RequestError(415, f"Content-Type: {ctype or 'missing'}; send application/json")
        length = self.headers.get("Content-Length")
        if length is None:
            self.close_connection = True
            raise RequestError(411, "a Content-Length header is required")
        if not _LENGTH.fullmatch(length.strip()):
            self.close_connection = True
            raise RequestError(400, f"Content-Length: {length[:40]!r} is not a byte count")
        n = int(length)
        limit = getattr(self.server, "max_body_bytes", MAX_BODY_BYTES)
        if n > limit:
            self.close_connection = True
            raise RequestError(413, f"request body of {n} bytes is too large; at most {limit}")
        try:
            raw = self.rfile.read(n)
        except (TimeoutError, OSError):
            self.close_connection = True
            raise RequestError(408, f"the request body did not arrive within {SOCKET_TIMEOUT_S:g} s") from None
        if len(raw) != n:
            self.close_connection = True
            raise RequestError(400, f"the request body has {len(raw)} bytes, Content-Length said {n}")
        try:
            return jsonio.loads(raw, numbers="mark")
        except jsonio.JSONError as exc:
            raise RequestError(400, f"malformed JSON: {exc}") from None

    def _check_origin(self) -> None:
        """Host, Origin and token (see module docstring)."""
        srv = self.server
        host = self.headers.get("Host")
        if host is None:
            raise RequestError(400, "a Host header is required")
        allowed = srv.allowed_hosts  # type: ignore[attr-defined]
        if allowed is not None and host.lower() not in allowed:
            raise RequestError(403, f"Host: {host[:80]!r} is not this server's address")
        origin = self.headers.get("Origin")
        if origin is not None and origin.lower() != f"http://{host.lower()}":
            raise RequestError(403, f"Origin: {origin[:80]!r} may not use this server (cross-origin request)")
        token = srv.token  # type: ignore[attr-defined]
        if token is not None:
            auth = self.headers.get("Authorization") or ""
            scheme, _, given = auth.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
                raise RequestError(401, "Authorization: this server needs 'Bearer <token>' (serve --token)")

    def _session(self) -> str:
        name = self.headers.get(SESSION_HEADER)
        if name is None:
            return "default"
        if not SESSION_NAME.fullmatch(name):
            raise RequestError(
                400, f"{SESSION_HEADER}: {name[:80]!r} is not a session name; use 1-64 characters of A-Z a-z 0-9 _ -"
            )
        return name

    def _dispatch(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        try:
            self._check_origin()
            session = self._session()
            routes = self.server.routes  # type: ignore[attr-defined]
            handler = routes.get((method, path))
            if handler is None:
                if any(p == path for _, p in routes):
                    raise RequestError(405, f"{method} is not allowed on {path}")
                raise RequestError(404, f"no such endpoint: {path[:80]}")
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


class BoundedServer(ThreadingHTTPServer):
    """A thread per connection, at most :data:`MAX_CONNECTIONS` at once (more get 503)."""

    daemon_threads = True
    request_queue_size = 2 * MAX_CONNECTIONS  # a burst of connects is queued, not dropped

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            try:
                body = json.dumps({"error": f"too many connections; at most {MAX_CONNECTIONS}"}).encode()
                request.settimeout(1.0)
                request.sendall(
                    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                    + body
                )
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


def make_server(
    host: str,
    port: int,
    routes: dict[tuple[str, str], Callable],
    token: str | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
) -> ThreadingHTTPServer:
    """A threaded HTTP server dispatching ``(method, path)`` to ``route(handler, session)``;
    request bodies above ``max_body_bytes`` are refused (413)."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    server_cls = type("Server", (BoundedServer,), {"address_family": family})
    server = server_cls((host.strip("[]"), port), Handler)
    server.routes = routes  # type: ignore[attr-defined]
    server.token = token  # type: ignore[attr-defined]
    server.max_body_bytes = max_body_bytes  # type: ignore[attr-defined]
    bound_port = server.server_address[1]
    if host in ("", "0.0.0.0", "::", "[::]"):
        server.allowed_hosts = None  # type: ignore[attr-defined]  # any name (a token guards it)
    else:
        names = _LOOPBACK_NAMES if is_loopback(host) else (host if ":" not in host.strip("[]") else f"[{host.strip('[]')}]",)
        server.allowed_hosts = {f"{name}:{bound_port}".lower() for name in names}  # type: ignore[attr-defined]
    return server


def serve_until_interrupted(server: ThreadingHTTPServer, close: Callable[[], Any] | None = None) -> int:
    """Serve until Ctrl-C, then close the server and (``close``) what it served (envs,
    browsers); the command's exit status (0)."""
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if close is not None:
            close()
    return 0
