"""The model client: any OpenAI-compatible chat-completions endpoint with image input (the
protocol vLLM, SGLang, Ollama, llama.cpp's server and hosted APIs serve), spoken over plain
HTTP(S) (the standard library's ``http.client``), so every byte and every wait is bounded here:

* base URL, model and key come from arguments, else from ``OPENAI_BASE_URL`` and
  ``OPENAI_API_KEY`` (a local server that checks no key gets a placeholder); with neither a
  base URL nor a key, nothing is sent: requests would go to the default
  ``https://api.openai.com/v1`` without a key, so :func:`check_endpoint` refuses that
  (ConfigError) and says what to set; errors name the URL a request went to;
* ``timeout_s`` is a deadline for the whole of each attempt (connect, send, headers, body): a
  watchdog shuts the socket at the deadline, so a server that trickles its reply byte by byte
  cannot stretch a request past it; a reply body is at most :data:`MAX_REPLY_BYTES`;
* a 200 body is parsed strictly (:mod:`.replies`); a malformed body is a server fault, counted
  (``errors_by_kind["malformed"]``) and retried like 429, 5xx, timeouts and refused connections
  (a host name that does not resolve is not retried: it fails at once, naming the host),
  a bounded number of times with exponential backoff (a ``Retry-After`` header is honoured up
  to the backoff cap); any other status (400, 401, 404, ...) fails at once; a request that
  fails for good raises :class:`ModelError`, which ends the episode (failed, unscored);
* each request's latency, token usage, retries and faults are returned with the reply and
  summed in :attr:`ChatClient.totals`, for the episode record;
* nothing here logs a key or a prompt: the log names the model, the masked base URL, sizes,
  statuses and times only (:func:`mask_secret`, :func:`mask_url`); any text that came from the
  server (an error message) is masked for the key (:meth:`ChatClient.redact`) before it goes
  into an exception, a record or a log.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from puzzlegym.agents.replies import (
    MAX_REPLY_DEPTH,
    MAX_REPLY_VALUES,
    MAX_TOOL_CALLS,
    Reply,
    ReplyError,
    parse_reply,
)
from puzzlegym.base import jsonio
from puzzlegym.base.errors import ConfigError, PuzzleGymError
from puzzlegym.base.fields import check_count, check_number
from puzzlegym.base.version import __version__

__all__ = [
    "MAX_TOOL_CALLS",
    "ChatClient",
    "ModelError",
    "Reply",
    "check_endpoint",
    "mask_secret",
    "mask_url",
]

log = logging.getLogger("puzzlegym.agents")

BASE_URL_ENV = "OPENAI_BASE_URL"
API_KEY_ENV = "OPENAI_API_KEY"
NO_KEY = "no-key"  # what a server that checks no key receives
MAX_RETRIES = 10
MAX_TIMEOUT_S = 3600.0
DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_REPLY_BYTES = 32 * 1024 * 1024
MAX_SERVER_TEXT = 300  # characters of a server's error message kept
MIN_REDACTED_KEY = 6  # shorter keys are not searched for in server text (they would match anywhere)


class ModelError(PuzzleGymError):
    """The model endpoint failed for good (a non-retryable status, or retries exhausted)."""


def mask_secret(secret: str | None) -> str:
    """A key as logs may show it: its last four characters at most (``…f00d``)."""
    if not secret:
        return "(none)"
    return "…" + secret[-4:] if len(secret) >= 16 else "***"


def mask_url(url: str | None) -> str:
    """A base URL without credentials, query or fragment (``http://host:8000/v1``)."""
    if not url:
        return "(default)"
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def check_endpoint(base_url: str | None, api_key: str | None, key_env: str = API_KEY_ENV) -> None:
    """Refuse (ConfigError, saying what to set) a client that has neither a base URL (argument
    or ``OPENAI_BASE_URL``) nor a key (argument or ``key_env``): its requests would go to the
    default endpoint without a key."""
    if base_url or os.environ.get(BASE_URL_ENV) or api_key or os.environ.get(key_env):
        return
    raise ConfigError(
        f"base_url: none was given (no --base-url, no {BASE_URL_ENV}), so requests would go "
        f"to the default {DEFAULT_BASE_URL}, and no key is set ({key_env}): give --base-url "
        f"http://HOST:PORT/v1 for your own server, or set {key_env} for {DEFAULT_BASE_URL}"
    )


@dataclass
class Totals:
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    retries: int = 0
    failures: int = 0
    by_status: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "requests": self.requests,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "latency_s": round(self.latency_s, 3),
            "retries": self.retries,
            "failures": self.failures,
            "errors_by_kind": dict(self.by_status),
        }


class _Failure(Exception):
    """One failed attempt: ``kind`` (timeout, connection, malformed, or the HTTP status),
    whether it may be retried, the server's text (masked), and a Retry-After in seconds."""

    def __init__(
        self, kind: str, retryable: bool, detail: str = "", retry_after: float | None = None
    ) -> None:
        super().__init__(kind)
        self.kind, self.retryable, self.detail, self.retry_after = (
            kind,
            retryable,
            detail,
            retry_after,
        )


class ChatClient:
    """A chat-completions client with bounded retries and accounting (module docstring)."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout_s: float = 120.0,
        max_retries: int = 4,
        backoff_s: float = 1.0,
        backoff_max_s: float = 30.0,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigError("model: a model name is required (openai:<model>)")
        self.model = model
        check_endpoint(base_url, api_key)
        self.base_url = base_url or os.environ.get(BASE_URL_ENV) or None
        # what messages say the requests go to
        self.shown_url = (
            mask_url(self.base_url)
            if self.base_url
            else f"{DEFAULT_BASE_URL} (the default: no --base-url or {BASE_URL_ENV} was set)"
        )
        url = urlsplit(self.base_url or DEFAULT_BASE_URL)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ConfigError(f"base_url: {mask_url(self.base_url)!r} is not an http(s) URL")
        try:
            url.port  # noqa: B018 - raises ValueError for a bad port
        except ValueError:
            raise ConfigError(f"base_url: {mask_url(self.base_url)!r} has a bad port") from None
        self._url = url
        key = api_key or os.environ.get(API_KEY_ENV) or NO_KEY
        self._key = key
        self.key_hint = mask_secret(None if key == NO_KEY else key)
        self.timeout_s = check_number(timeout_s, "timeout_s", 0.001, MAX_TIMEOUT_S, ConfigError)
        self.max_retries = check_count(max_retries, "max_retries", 0, MAX_RETRIES, ConfigError)
        self.backoff_s = check_number(backoff_s, "backoff_s", 0.0, 60.0, ConfigError)
        self.backoff_max_s = check_number(backoff_max_s, "backoff_max_s", 0.0, 600.0, ConfigError)
        self.temperature = check_number(
            temperature, "temperature", 0.0, 2.0, ConfigError, optional=True
        )
        self.max_tokens = check_count(
            max_tokens, "max_tokens", 1, 1_000_000, ConfigError, optional=True
        )
        self.totals = Totals()

    def describe(self) -> dict:
        """The client's settings as records may show them (no key, no credentials)."""
        return {
            "model": self.model,
            "base_url": mask_url(self.base_url or DEFAULT_BASE_URL),
            "api_key": self.key_hint,
            "timeout_s": self.timeout_s,
            "max_retries": self.max_retries,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def redact(self, text: str) -> str:
        """``text`` with the key replaced by its masked form (for anything a server said)."""
        if self._key != NO_KEY and len(self._key) >= MIN_REDACTED_KEY and self._key in text:
            text = text.replace(self._key, self.key_hint)
        return text

    # ------------------------------------------------------------------ one attempt
    def _post(self, payload: bytes) -> tuple[int, dict, bytearray]:
        """POST ``payload``; (status, lower-cased headers, body), all within ``timeout_s``."""
        url = self._url
        https = url.scheme == "https"
        port = url.port or (443 if https else 80)
        path = (url.path.rstrip("/") or "") + "/chat/completions"
        deadline = time.monotonic() + self.timeout_s
        host = url.hostname
        assert host, "__init__ refuses a base_url without a host"
        conn = http.client.HTTPConnection(host, port, timeout=self.timeout_s)
        held: list[socket.socket] = []  # the connection's socket, for the watchdog
        fired = threading.Event()

        def abort() -> None:  # the deadline: no read or write may outlast it
            fired.set()
            for sock in held:
                try:
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the fd itself, TLS or not
                except OSError:
                    pass

        watchdog = threading.Timer(self.timeout_s, abort)
        watchdog.daemon = True
        watchdog.start()
        response = None
        try:
            sock = socket.create_connection((host, port), timeout=self.timeout_s)
            held.append(sock)
            if https:
                sock = ssl.create_default_context().wrap_socket(
                    sock, server_hostname=host, do_handshake_on_connect=False
                )
                held.append(sock)
                if fired.is_set():
                    raise TimeoutError
                sock.do_handshake()
            conn.sock = sock
            conn.request(
                "POST",
                path,
                body=payload,
                headers={
                    "Content-Type": "application/json",
                    "Accept": "application/json",
                    "Authorization": f"Bearer {self._key}",
                    "User-Agent": f"puzzlegym/{__version__}",
                    "Connection": "close",
                },
            )
            response = conn.getresponse()
            body = bytearray()  # one buffer: no list of chunks joined into a second copy
            while True:
                chunk = response.read1(1 << 16)
                if not chunk:
                    break
                if len(body) + len(chunk) > MAX_REPLY_BYTES:
                    raise _Failure("malformed", True, f"the reply is over {MAX_REPLY_BYTES} bytes")
                body += chunk
            if fired.is_set() or time.monotonic() > deadline:
                raise _Failure("timeout", True)  # a body cut short by the watchdog
            headers = {k.lower(): v for k, v in response.getheaders()}
            return response.status, headers, body
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if fired.is_set() or time.monotonic() >= deadline or isinstance(exc, TimeoutError):
                raise _Failure("timeout", True) from None
            if isinstance(exc, socket.gaierror):  # a name that does not resolve: no retry
                why = self.redact(str(exc.strerror or exc))
                raise _Failure(
                    "connection", False, f"cannot resolve host {host!r} ({why})"
                ) from None
            raise _Failure("connection", True, self.redact(type(exc).__name__)) from None
        finally:
            watchdog.cancel()
            if response is not None:
                response.close()
            conn.close()
            for sock in held:
                try:
                    sock.close()
                except OSError:
                    pass

    def _attempt(self, payload: bytes, latency0: float, retries: int) -> Reply:
        status, headers, body = self._post(payload)
        if status == 200:
            try:
                return parse_reply(body, time.monotonic() - latency0, retries)
            except ReplyError as exc:
                raise _Failure("malformed", True, self.redact(str(exc))[:MAX_SERVER_TEXT]) from None
        retry_after = None
        try:
            retry_after = float(headers.get("retry-after", ""))
        except ValueError:
            pass
        retryable = status == 429 or status >= 500
        raise _Failure(str(status), retryable, self._server_text(body), retry_after)

    def _server_text(self, body: bytes | bytearray) -> str:
        """The server's error message (its JSON ``error.message`` or its text), one line,
        printable, bounded and masked for the key."""
        text = ""
        try:
            doc = jsonio.loads(
                body, numbers="mark", max_values=MAX_REPLY_VALUES, max_depth=MAX_REPLY_DEPTH
            )
        except jsonio.JSONError:
            doc = None
        if isinstance(doc, dict):
            err = doc.get("error", doc)
            message = err.get("message") if isinstance(err, dict) else err
            text = message if isinstance(message, str) else ""
        if not text:
            text = bytes(body[: 4 * MAX_SERVER_TEXT]).decode("utf-8", "replace")
        text = self.redact("".join(c if c.isprintable() else " " for c in text))
        return text[:MAX_SERVER_TEXT]

    # ------------------------------------------------------------------ a request
    def complete(
        self, messages: list[dict], tools: list[dict] | None = None, tool_choice: str | None = None
    ) -> Reply:
        """One chat completion (retried as the module docstring says). Raises ModelError."""
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            kwargs["tools"] = tools
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        payload = json.dumps(kwargs, allow_nan=False).encode("utf-8")
        n = self.totals.requests + 1
        retries = 0
        faults: list[dict] = []
        t0 = time.monotonic()
        while True:
            t_try = time.monotonic()
            try:
                reply = self._attempt(payload, t0, retries)
                break
            except _Failure as exc:
                what = exc.kind
                self.totals.by_status[what] = self.totals.by_status.get(what, 0) + 1
                faults.append(
                    {"kind": what, "detail": exc.detail} if exc.detail else {"kind": what}
                )
                if not exc.retryable or retries >= self.max_retries:
                    self.totals.requests += 1
                    self.totals.failures += 1
                    self.totals.retries += retries
                    log.warning(
                        "model %s at %s: request %d failed (%s) after %d retries",
                        self.model,
                        self.shown_url,
                        n,
                        what,
                        retries,
                    )
                    detail = f": {exc.detail}" if exc.detail else ""
                    raise ModelError(
                        self.redact(
                            f"model {self.model!r} at {self.shown_url}: "
                            f"request failed ({what}) after {retries} retries{detail}"
                        )
                    ) from None
                delay = min(self.backoff_max_s, self.backoff_s * (2**retries))
                if exc.retry_after is not None and exc.retry_after == exc.retry_after:  # not NaN
                    delay = max(delay, min(self.backoff_max_s, max(0.0, exc.retry_after)))
                retries += 1
                log.info(
                    "model %s: request %d got %s after %.2f s; retry %d/%d in %.2f s",
                    self.model,
                    n,
                    what,
                    time.monotonic() - t_try,
                    retries,
                    self.max_retries,
                    delay,
                )
                time.sleep(delay)
        reply.faults = faults
        t = self.totals
        t.requests += 1
        t.retries += retries
        t.latency_s += reply.latency_s
        t.prompt_tokens += reply.prompt_tokens or 0
        t.completion_tokens += reply.completion_tokens or 0
        log.debug(
            "model %s: request %d ok in %.2f s (%s prompt / %s completion tokens, %d tool calls)",
            self.model,
            n,
            reply.latency_s,
            reply.prompt_tokens,
            reply.completion_tokens,
            len(reply.tool_calls),
        )
        return reply

    def close(self) -> None:
        """Nothing stays open between requests (each attempt has its own connection)."""
