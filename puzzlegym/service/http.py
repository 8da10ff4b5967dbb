"""The HTTP plumbing ``serve``, ``play`` and the scripted model server share: uvicorn (an
asyncio server, h11 parser) running a small Starlette-based ASGI app over a route table,
bounded JSON bodies, errors as 4xx JSON naming the problem, PNG encoding of screen regions.

Every request is checked before a route sees it, and nothing is changed by a rejected one:

* ``Host`` must name the address the server is bound to (on loopback: 127.0.0.1, localhost
  or [::1] with the port), so a DNS-rebinding page cannot reach it; an ``Origin`` header, if
  sent, must be that same origin, so a cross-origin page in a local browser cannot drive it;
* with a token (``serve --token``; ``play`` makes one for a non-loopback host),
  ``Authorization: Bearer <token>`` is required on every route but the ``public`` ones (the
  play page's static files);
* every reply forbids framing (``X-Frame-Options: DENY``, CSP ``frame-ancestors 'none'``), so
  a foreign page cannot show the page in an iframe and pass a person's clicks to it;
* ``X-Session`` names are 1-64 characters of ``A-Z a-z 0-9 _ -`` (:data:`SESSION_NAME`);
* at most :data:`MAX_HEADERS` header lines, each at most :data:`MAX_HEADER_LINE` bytes, all
  at most :data:`MAX_HEADER_BYTES` (431), and a request target of at most
  :data:`MAX_TARGET_BYTES` (414): h11 bounds only headers that arrive in pieces, not a block
  that comes in one read;
* a body needs ``Content-Type: application/json`` and a ``Content-Length`` of 0..64 KiB (or
  the server's ``max_body_bytes``) (missing: 411; malformed or negative: 400, from the h11
  parser; larger: 413) and no ``Transfer-Encoding`` (411: a chunked body would not be the
  length it announced); its bytes are counted as they arrive, so a body longer than its
  ``Content-Length`` or the bound, whatever the framing, is refused (413) at the first byte
  past it; JSON is parsed strictly (:func:`puzzlegym.base.jsonio.loads`): too deep a nesting is a
  400, and numbers no field accepts (``Infinity``, 5,000-digit integers) reach the route as
  markers its validation names by field;
* a connection has ``request_timeout_s`` (:data:`REQUEST_TIMEOUT_S`, 10 s) from its opening,
  or from the end of its previous response, to deliver a *complete* request (headers and
  body): a client that trickles bytes is answered 408 and closed at that deadline, however
  often it sends (:class:`DeadlineProtocol`); an idle keep-alive connection is closed then
  too. Connections cost no thread while they wait, so slow clients do not hold up others;
* at most ``max_connections`` (:data:`MAX_CONNECTIONS`) are open at once: a new connection
  beyond that closes one that is waiting for a request (never one whose request is being
  served), of the peer address holding the most connections, the longest-waiting first, so
  clients that open and reopen idle or trickling connections cannot lock others out; only when
  every connection has a request in progress does a new one get 503.

Routes are plain functions ``route(session, body) -> Reply`` run in a worker thread; ``body``
is the parsed JSON of a POST or PUT (None for other methods).
"""

from __future__ import annotations

import errno
import hmac
import io
import ipaddress
import json
import re
import signal
import socket
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import h11
import numpy as np
import uvicorn
from PIL import Image
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from uvicorn.protocols.http.h11_impl import H11Protocol

from puzzlegym.base import jsonio
from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.screen.render import SCREEN, Rect

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_CONNECTIONS",
    "MAX_HEADERS",
    "MAX_HEADER_BYTES",
    "MAX_HEADER_LINE",
    "MAX_TARGET_BYTES",
    "REQUEST_TIMEOUT_S",
    "SESSION_HEADER",
    "SESSION_NAME",
    "DeadlineProtocol",
    "HTTPServer",
    "Reply",
    "RequestError",
    "check_token",
    "is_loopback",
    "listen",
    "make_server",
    "png_bytes",
    "serve_until_interrupted",
]

MAX_BODY_BYTES = 64 * 1024
MAX_CONNECTIONS = 512
MAX_HEADERS = 64
MAX_HEADER_LINE = 8 * 1024
MAX_HEADER_BYTES = 16 * 1024
MAX_TARGET_BYTES = 8 * 1024
REQUEST_TIMEOUT_S = 10.0
SESSION_HEADER = "X-Session"
SESSION_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_LENGTH = re.compile(r"[0-9]{1,12}")
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_HEADERS = {  # on every reply: never cached, sniffed, framed by another page or sent as referrer
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}


class RequestError(Exception):
    """A bad request: answered ``status`` with ``{"error": message}``; ``close`` closes the
    connection after the answer (a request body left unread)."""

    def __init__(self, status: int, message: str, close: bool = False) -> None:
        super().__init__(message)
        self.status, self.close = status, close


@dataclass(frozen=True)
class Reply:
    """What a route answers: a status, the body bytes and their content type."""

    status: int
    body: bytes
    ctype: str
    close: bool = False  # close the connection after it (a request body left unread)

    @classmethod
    def json(cls, doc: Any, status: int = 200, close: bool = False) -> Reply:
        return cls(status, json.dumps(doc).encode(), "application/json", close)


def png_bytes(frame: np.ndarray, rect: Rect = SCREEN) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(frame[rect.y : rect.y1, rect.x : rect.x1]).save(
        buf, format="PNG", compress_level=1
    )
    return buf.getvalue()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# ----------------------------------------------------------------------------- the deadline
def _raw_response(status: str, message: str) -> bytes:
    """A whole response written straight to a transport, outside any request cycle."""
    body = json.dumps({"error": message}).encode()
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n".encode()
        + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )


def _timeout_response(seconds: float) -> bytes:
    return _raw_response(
        "408 Request Timeout", f"the request was not complete within {seconds:g} s"
    )


class DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with an absolute deadline for each request: from the
    connection's opening (or the end of the previous response) the client has
    ``request_timeout_s`` to deliver the whole request, headers and body; otherwise it gets a
    408 (if it had sent anything) and the connection is closed. A request that arrived whole
    is never cut off while its route runs. (uvicorn's own keep-alive timer is reset by every
    byte received, so alone it lets a trickling client hold a connection for ever.)"""

    request_timeout_s = REQUEST_TIMEOUT_S  # set per server (make_server)
    max_connections = MAX_CONNECTIONS

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._deadline: Any = None
        self._arm()
        if not self._make_room():
            transport.write(
                _raw_response(
                    "503 Service Unavailable",
                    f"every one of the server's {self.max_connections} connections has a "
                    "request in progress; try again",
                )
            )
            transport.close()

    def _arm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._received = False
        self._waiting_since = self.loop.time()
        self._deadline = self.loop.call_later(self.request_timeout_s, self._expire)

    def _waiting(self) -> bool:
        """Between requests, or in a request's line and headers (nothing being served)."""
        cycle = self.cycle
        return cycle is None or cycle.response_complete

    def _peer(self) -> str:
        return self.client[0] if self.client else ""

    def _make_room(self) -> bool:
        """Keep at most ``max_connections`` open (module docstring): close a waiting connection
        of the peer holding the most, the longest-waiting first; False if none is waiting."""
        open_ = [c for c in self.connections if not c.transport.is_closing()]
        if len(open_) <= self.max_connections:
            return True
        held = Counter(c._peer() for c in open_ if isinstance(c, DeadlineProtocol))
        waiting = [
            c for c in open_ if c is not self and isinstance(c, DeadlineProtocol) and c._waiting()
        ]
        if not waiting:
            return False
        victim = min(waiting, key=lambda c: (-held[c._peer()], c._waiting_since))
        victim._evict()
        return True

    def _evict(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        if self._received:  # it had begun a request: say why it is closed
            self.transport.write(
                _raw_response(
                    "503 Service Unavailable",
                    "the server is at its connection limit; this connection, waiting for its "
                    "request, was closed to make room",
                )
            )
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        self._received = True
        super().data_received(data)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if getattr(self, "_deadline", None) is not None:
            self._deadline.cancel()
        super().connection_lost(exc)

    def _expire(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        waiting = (
            cycle is None or cycle.response_complete
        )  # for (the rest of) a request line and headers
        if not waiting and not cycle.more_body:
            return  # the request arrived whole: its route is running
        if waiting and not self._received and self.conn.their_state is h11.IDLE:
            self.transport.close()  # an idle connection: nothing to answer
            return
        if waiting or not cycle.response_started:
            self.transport.write(_timeout_response(self.request_timeout_s))
        self.transport.close()


# ----------------------------------------------------------------------------- the app
def _check_head(scope: dict) -> None:
    """The request target and header bounds (module docstring)."""
    target = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
    if target > MAX_TARGET_BYTES:
        raise RequestError(414, f"request target of {target} bytes; at most {MAX_TARGET_BYTES}")
    headers = scope.get("headers") or []
    if len(headers) > MAX_HEADERS:
        raise RequestError(431, f"{len(headers)} header lines; at most {MAX_HEADERS}", close=True)
    total = 0
    for name, value in headers:
        line = len(name) + len(value) + 4  # "name: value\r\n"
        if line > MAX_HEADER_LINE:
            shown = name[:40].decode("latin-1")
            raise RequestError(
                431, f"header {shown!r} of {line} bytes; at most {MAX_HEADER_LINE}", close=True
            )
        total += line
    if total > MAX_HEADER_BYTES:
        raise RequestError(431, f"headers of {total} bytes; at most {MAX_HEADER_BYTES}", close=True)


class App:
    """The ASGI app: checks (module docstring), then ``routes[(method, path)](session, body)``
    in a worker thread."""

    def __init__(
        self,
        routes: dict[tuple[str, str], Callable[[str, Any], Reply]],
        token: str | None,
        allowed_hosts: set[str] | None,
        max_body_bytes: int,
        public: frozenset[tuple[str, str]] = frozenset(),
    ) -> None:
        self.routes, self.token, self.allowed_hosts = routes, token, allowed_hosts
        self.max_body_bytes, self.public = max_body_bytes, public

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        try:
            _check_head(scope)
            route, session = self._route(request)
            body = await self._body(request) if request.method in ("POST", "PUT") else None
            reply = await run_in_threadpool(route, session, body)
        except ClientDisconnect:
            return  # nobody to answer
        except RequestError as exc:
            reply = Reply.json({"error": str(exc)}, exc.status, close=exc.close)
        except Exception as exc:  # a bug, not bad input: say so without a traceback
            reply = Reply.json({"error": f"internal error: {type(exc).__name__}"}, 500)
        headers = dict(_HEADERS)
        if reply.close:
            headers["Connection"] = "close"
        await Response(reply.body, reply.status, headers, media_type=reply.ctype)(
            scope, receive, send
        )

    def _route(self, request: Request) -> tuple[Callable, str]:
        method, path = request.method, request.url.path
        self._check_origin(request)
        if (method, path) not in self.public:
            self._check_token(request)
        session = self._session(request)
        route = self.routes.get((method, path))
        if route is None:
            if any(p == path for _, p in self.routes):
                raise RequestError(405, f"{method} is not allowed on {path}")
            raise RequestError(404, f"no such endpoint: {path[:80]}")
        return route, session

    def _check_origin(self, request: Request) -> None:
        """Host and Origin (see module docstring)."""
        host = request.headers.get("host")
        if host is None:
            raise RequestError(400, "a Host header is required")
        if self.allowed_hosts is not None and host.lower() not in self.allowed_hosts:
            raise RequestError(403, f"Host: {host[:80]!r} is not this server's address")
        origin = request.headers.get("origin")
        if origin is not None and origin.lower() != f"http://{host.lower()}":
            raise RequestError(
                403, f"Origin: {origin[:80]!r} may not use this server (cross-origin request)"
            )

    def _check_token(self, request: Request) -> None:
        """``Authorization: Bearer <token>``, when the server has a token."""
        if self.token is None:
            return
        auth = request.headers.get("authorization") or ""
        scheme, _, given = auth.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            given.strip().encode(), self.token.encode()
        ):
            raise RequestError(401, "Authorization: this server needs 'Bearer <token>'")

    @staticmethod
    def _session(request: Request) -> str:
        name = request.headers.get(SESSION_HEADER)
        if name is None:
            return "default"
        if not SESSION_NAME.fullmatch(name):
            raise RequestError(
                400,
                f"{SESSION_HEADER}: {name[:80]!r} is not a session name; "
                "use 1-64 characters of A-Z a-z 0-9 _ -",
            )
        return name

    async def _body(self, request: Request) -> Any:
        def refuse(status: int, message: str) -> RequestError:
            return RequestError(status, message, close=True)  # the body (if any) is left unread

        ctype = (request.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
        if ctype != "application/json":
            raise refuse(415, f"Content-Type: {ctype or 'missing'}; send application/json")
        if "transfer-encoding" in request.headers:
            raise refuse(
                411,
                "Transfer-Encoding: not accepted; send the body with a Content-Length",
            )
        length = request.headers.get("content-length")
        if length is None:
            raise refuse(411, "a Content-Length header is required")
        if not _LENGTH.fullmatch(length.strip()):
            raise refuse(400, f"Content-Length: {length[:40]!r} is not a byte count")
        n = int(length)
        if n > self.max_body_bytes:
            raise refuse(
                413, f"request body of {n} bytes is too large; at most {self.max_body_bytes}"
            )
        raw = bytearray()
        async for chunk in request.stream():  # counted as it arrives, whatever the framing
            if len(raw) + len(chunk) > n:
                raise refuse(413, f"request body longer than its Content-Length of {n} bytes")
            raw += chunk
        try:
            return jsonio.loads(bytes(raw), numbers="mark")
        except jsonio.JSONError as exc:
            raise RequestError(400, f"malformed JSON: {exc}") from None


# ----------------------------------------------------------------------------- the server
class HTTPServer:
    """A uvicorn server on a socket bound at construction (so ``server_address`` is known,
    port 0 included); ``serve_forever`` in one thread, ``shutdown`` from another."""

    def __init__(
        self, app: App, sock: socket.socket, max_connections: int, request_timeout_s: float
    ) -> None:
        self.app, self.socket = app, sock
        self.server_address = sock.getsockname()
        protocol = type(
            "Protocol",
            (DeadlineProtocol,),
            {"request_timeout_s": float(request_timeout_s), "max_connections": max_connections},
        )
        config = uvicorn.Config(
            app,
            http=protocol,
            loop="asyncio",
            lifespan="off",
            ws="none",
            interface="asgi3",
            log_config=None,
            log_level="warning",
            access_log=False,
            proxy_headers=False,
            server_header=False,
            date_header=False,
            # connections are capped by DeadlineProtocol (evicting waiting ones); this bounds
            # requests in progress, connections closed by their clients included
            limit_concurrency=2 * max_connections,
            timeout_keep_alive=max(1, int(request_timeout_s)),
            timeout_graceful_shutdown=5,
        )
        self._server = uvicorn.Server(config)
        self._stopped = threading.Event()
        self._started = False

    def serve_forever(self) -> None:
        self._started = True
        try:
            self._server.run(sockets=[self.socket])
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop serving (from another thread) and wait until ``serve_forever`` returned."""
        self._server.should_exit = True
        if self._started:
            self._stopped.wait(30)

    def server_close(self) -> None:
        self.socket.close()


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (0: a free port); a port in use (or a host that
    cannot be bound) is a :class:`~puzzlegym.base.errors.ConfigError` saying so. Commands bind it
    before they open anything else, so a refused port changes nothing."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    # IPPROTO_TCP named, so asyncio sets TCP_NODELAY on every connection (it checks the
    # protocol); set here too (Linux copies it to accepted sockets): headers and body of a
    # response go out at once, with no delayed-ACK stall (~40 ms a response otherwise)
    try:
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    except OSError as exc:
        raise ConfigError(f"host: cannot open a socket for {host!r} ({exc.strerror})") from None
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(2048)
        sock.set_inheritable(True)
    except OSError as exc:
        sock.close()
        hint = (
            "another server is using it: stop it, or choose another --port (0 picks a free one)"
            if exc.errno == errno.EADDRINUSE
            else "check --host and --port"
        )
        raise ConfigError(
            f"port {port}: cannot listen on {host}:{port} ({exc.strerror}); {hint}"
        ) from None
    except BaseException:
        sock.close()
        raise
    return sock


def check_token(command: str, host: str, token: str | None) -> None:
    """A server on a non-loopback ``host`` needs a ``token`` (anyone who can reach the address,
    or a DNS-rebinding page when the host is a wildcard, could use it otherwise), of 16..256
    printable characters; ConfigError naming ``command``'s option otherwise."""
    if token is None:
        if not is_loopback(host):
            raise ConfigError(
                f"{command} --host {shown(host)}: anything but loopback needs --token "
                "(sent as 'Authorization: Bearer <token>')"
            )
        return
    if not (isinstance(token, str) and 16 <= len(token) <= 256 and token.isprintable()):
        raise ConfigError(f"{command} --token: use 16..256 printable characters")
    if any(c.isspace() for c in token):
        raise ConfigError(f"{command} --token: no spaces")


def make_server(
    host: str,
    port: int,
    routes: dict[tuple[str, str], Callable[[str, Any], Reply]],
    token: str | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    max_connections: int = MAX_CONNECTIONS,
    request_timeout_s: float = REQUEST_TIMEOUT_S,
    sock: socket.socket | None = None,
    public: frozenset[tuple[str, str]] = frozenset(),
) -> HTTPServer:
    """An HTTP server dispatching ``(method, path)`` to ``route(session, body)``; request
    bodies above ``max_body_bytes`` are refused (413). ``sock``: a socket from
    :func:`listen` on ``host:port`` (else one is bound here). ``public``: the routes that need
    no token (static files)."""
    sock = listen(host, port) if sock is None else sock
    bound_port = sock.getsockname()[1]
    if host in ("", "0.0.0.0", "::", "[::]"):
        allowed = None  # any name (a token guards it)
    else:
        bare = host.strip("[]")
        names = (
            _LOOPBACK_NAMES if is_loopback(host) else (host if ":" not in bare else f"[{bare}]",)
        )
        allowed = {f"{name}:{bound_port}".lower() for name in names}
    return HTTPServer(
        App(routes, token, allowed, max_body_bytes, public),
        sock,
        max_connections,
        request_timeout_s,
    )


def serve_until_interrupted(server: HTTPServer, close: Callable[[], Any] | None = None) -> int:
    """Serve until Ctrl-C or SIGTERM, then close the server and (``close``) what it served
    (envs, browsers: their records get a result); the command's exit status (0)."""

    def stop(_sig: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    previous = (
        signal.signal(signal.SIGTERM, stop)
        if threading.current_thread() is threading.main_thread()
        else None
    )
    try:
        server.serve_forever()  # uvicorn stops on SIGINT/SIGTERM and raises it again after
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if close is not None:
            close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 0
