"""The model client: any OpenAI-compatible chat-completions endpoint with image input (the
protocol vLLM, SGLang, Ollama, llama.cpp's server and hosted APIs serve), through the official
``openai`` package (the optional extra ``puzzlegym[openai]``).

* base URL, model and key come from arguments, else from ``OPENAI_BASE_URL`` and
  ``OPENAI_API_KEY`` (a local server that checks no key gets a placeholder);
* every request has a timeout; 429, 5xx, timeouts and refused connections are retried a
  bounded number of times with exponential backoff (a ``Retry-After`` header is honoured up to
  the backoff cap); any other error (400, 401, 404, ...) fails at once with :class:`ModelError`;
* each request's latency, token usage and retries are returned with the reply and summed in
  :attr:`ChatClient.totals`, for the episode record;
* nothing here logs a key or a prompt: the log names the model, the masked base URL, sizes,
  statuses and times only (:func:`mask_secret`, :func:`mask_url`).
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from puzzlegym.errors import ConfigError, PuzzleGymError

__all__ = ["ChatClient", "ModelError", "Reply", "mask_secret", "mask_url"]

log = logging.getLogger("puzzlegym.agents")

BASE_URL_ENV = "OPENAI_BASE_URL"
API_KEY_ENV = "OPENAI_API_KEY"
NO_KEY = "no-key"  # what a server that checks no key receives
MAX_RETRIES = 10
MAX_TIMEOUT_S = 3600.0
MAX_TOOL_CALLS = 16  # tool calls kept from one reply (the rest are reported as errors)


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


@dataclass
class Reply:
    """One model reply with its accounting."""

    content: str
    tool_calls: list[dict]  # {"id", "name", "arguments"} (arguments: the raw JSON text)
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float
    retries: int
    dropped_tool_calls: int = 0  # calls past MAX_TOOL_CALLS

    @property
    def message(self) -> dict:
        """The assistant message to keep in the conversation."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = [
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                for c in self.tool_calls
            ]
        return msg


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


def _number(name: str, value: Any, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise ConfigError(f"{name}: expected a number in {lo}..{hi}, got {value!r}")
    return float(value)


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
        try:
            import openai
        except ImportError:  # pragma: no cover - the extra is installed in CI
            raise ConfigError(
                "model agents need the openai package: pip install 'puzzlegym[openai]'"
            ) from None
        self._openai = openai
        self.model = model
        self.base_url = base_url or os.environ.get(BASE_URL_ENV) or None
        if self.base_url is not None and urlsplit(self.base_url).scheme not in ("http", "https"):
            raise ConfigError(f"base_url: {mask_url(self.base_url)!r} is not an http(s) URL")
        key = api_key or os.environ.get(API_KEY_ENV) or NO_KEY
        self.key_hint = mask_secret(None if key == NO_KEY else key)
        self.timeout_s = _number("timeout_s", timeout_s, 0.001, MAX_TIMEOUT_S)
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or not 0 <= max_retries <= MAX_RETRIES:
            raise ConfigError(f"max_retries: expected an integer in 0..{MAX_RETRIES}, got {max_retries!r}")
        self.max_retries = max_retries
        self.backoff_s = _number("backoff_s", backoff_s, 0.0, 60.0)
        self.backoff_max_s = _number("backoff_max_s", backoff_max_s, 0.0, 600.0)
        self.temperature = None if temperature is None else _number("temperature", temperature, 0.0, 2.0)
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or not 1 <= max_tokens <= 1_000_000):
            raise ConfigError(f"max_tokens: expected an integer in 1..1000000, got {max_tokens!r}")
        self.max_tokens = max_tokens
        # the package's own retries are off: this class retries, counts and logs them
        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=key, timeout=self.timeout_s, max_retries=0
        )
        self.totals = Totals()

    def describe(self) -> dict:
        """The client's settings as records may show them (no key, no credentials)."""
        return {
            "model": self.model,
            "base_url": mask_url(self.base_url),
            "api_key": self.key_hint,
            "timeout_s": self.timeout_s,
            "max_retries": self.max_retries,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def _retry_delay(self, attempt: int, exc: Exception) -> float:
        delay = min(self.backoff_max_s, self.backoff_s * (2**attempt))
        response = getattr(exc, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        if header:
            try:
                delay = max(delay, min(self.backoff_max_s, float(header)))
            except ValueError:
                pass
        return delay

    def _retryable(self, exc: Exception) -> tuple[bool, str]:
        o = self._openai
        if isinstance(exc, o.APITimeoutError):
            return True, "timeout"
        if isinstance(exc, o.APIConnectionError):
            return True, "connection"
        if isinstance(exc, o.APIStatusError):
            status = exc.status_code
            return status == 429 or status >= 500, str(status)
        return False, type(exc).__name__

    def complete(self, messages: list[dict], tools: list[dict] | None = None, tool_choice: str | None = None) -> Reply:
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
        n = self.totals.requests + 1
        retries = 0
        t0 = time.monotonic()
        while True:
            t_try = time.monotonic()
            try:
                response = self._client.chat.completions.create(**kwargs)
                break
            except self._openai.OpenAIError as exc:
                retryable, what = self._retryable(exc)
                self.totals.by_status[what] = self.totals.by_status.get(what, 0) + 1
                if not retryable or retries >= self.max_retries:
                    self.totals.requests += 1
                    self.totals.failures += 1
                    self.totals.retries += retries
                    log.warning("model %s at %s: request %d failed (%s) after %d retries",
                                self.model, mask_url(self.base_url), n, what, retries)
                    raise ModelError(
                        f"model {self.model!r} at {mask_url(self.base_url)}: request failed ({what}) "
                        f"after {retries} retries: {_short_error(exc)}"
                    ) from None
                delay = self._retry_delay(retries, exc)
                retries += 1
                log.info("model %s: request %d got %s after %.2f s; retry %d/%d in %.2f s",
                         self.model, n, what, time.monotonic() - t_try, retries, self.max_retries, delay)
                time.sleep(delay)
        latency = time.monotonic() - t0
        reply = _parse(response, latency, retries)
        t = self.totals
        t.requests += 1
        t.retries += retries
        t.latency_s += latency
        t.prompt_tokens += reply.prompt_tokens or 0
        t.completion_tokens += reply.completion_tokens or 0
        log.debug("model %s: request %d ok in %.2f s (%s prompt / %s completion tokens, %d tool calls)",
                  self.model, n, latency, reply.prompt_tokens, reply.completion_tokens, len(reply.tool_calls))
        return reply

    def close(self) -> None:
        self._client.close()


def _short_error(exc: Exception) -> str:
    """A one-line description of an API error (status and the server's message, bounded)."""
    body = getattr(exc, "body", None)
    message = None
    if isinstance(body, dict):
        err = body.get("error", body)
        message = err.get("message") if isinstance(err, dict) else str(err)
    text = message or str(exc)
    return text.replace("\n", " ")[:300]


def _parse(response: Any, latency: float, retries: int) -> Reply:
    choices = getattr(response, "choices", None) or []
    usage = getattr(response, "usage", None)
    prompt = getattr(usage, "prompt_tokens", None) if usage is not None else None
    completion = getattr(usage, "completion_tokens", None) if usage is not None else None
    if not choices:
        return Reply("", [], None, prompt, completion, latency, retries)
    choice = choices[0]
    message = choice.message
    calls = []
    for i, call in enumerate(getattr(message, "tool_calls", None) or []):
        function = getattr(call, "function", None)
        name = getattr(function, "name", None) or ""
        arguments = getattr(function, "arguments", None)
        if not isinstance(arguments, str):  # some servers send an object
            arguments = json.dumps(arguments) if arguments is not None else ""
        calls.append({"id": getattr(call, "id", None) or f"call_{i}", "name": name, "arguments": arguments})
    dropped = max(0, len(calls) - MAX_TOOL_CALLS)
    return Reply(
        content=message.content or "",
        tool_calls=calls[:MAX_TOOL_CALLS],
        finish_reason=getattr(choice, "finish_reason", None),
        prompt_tokens=prompt,
        completion_tokens=completion,
        latency_s=latency,
        retries=retries,
        dropped_tool_calls=dropped,
    )
