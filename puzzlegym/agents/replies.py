"""Strict parsing of what a chat-completions server sends back: one function,
:func:`parse_reply`, turns the raw body of a 200 response into a :class:`Reply`, or raises
:class:`ReplyError` naming the field that was wrong.

The body is parsed with :func:`puzzlegym.base.jsonio.loads` (no NaN/Infinity, no integers of
thousands of digits: such numbers become markers that no field accepts; at most
:data:`MAX_REPLY_VALUES` values nested at most :data:`MAX_REPLY_DEPTH` deep, checked on the
text before anything is built, so a body padded with millions of empty lists costs no more
memory than its text) and validated with pydantic in strict mode:

* ``choices``: a non-empty list; its first element has a ``message`` object whose
  ``content`` is a string or null and whose ``tool_calls`` (a list, or absent/null) each have a
  ``function`` with a string ``name`` and ``arguments`` as a string, an object, or null;
* the message's ``reasoning_content`` or ``reasoning`` (what some servers return of the
  model's reasoning; a string or null) is kept for the record, never sent back;
* ``usage`` (absent or null allowed): ``prompt_tokens`` and ``completion_tokens`` are integers
  in ``0..MAX_USAGE_TOKENS`` or null (no strings, floats, booleans, NaN or huge numbers);
* other fields are ignored.

A malformed body is a server fault (the client counts it, retries it and, past its retries,
fails the request). A tool call whose arguments arrived as an object that cannot be written
back as JSON keeps an ``error`` that the tool parser returns to the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from puzzlegym.base import jsonio

__all__ = [
    "MAX_REPLY_DEPTH",
    "MAX_REPLY_VALUES",
    "MAX_TOOL_CALLS",
    "MAX_USAGE_TOKENS",
    "Reply",
    "ReplyError",
    "parse_reply",
]

MAX_TOOL_CALLS = 16  # tool calls kept from one reply (the rest are reported as errors)
MAX_USAGE_TOKENS = 10**9  # no request uses more; larger counts are a malformed reply
MAX_CALLS_IN_REPLY = 1000
MAX_NAME_CHARS = 200
MAX_REPLY_VALUES = 100_000  # JSON values in one body (a reply has tens; a batch hundreds)
MAX_REPLY_DEPTH = 64  # nesting of arrays and objects (a reply needs about a dozen)


class ReplyError(ValueError):
    """A reply body that is not a valid chat completion (the message names the field)."""


@dataclass
class Reply:
    """One model reply with its accounting."""

    content: str
    tool_calls: list[dict]  # {"id", "name", "arguments"[, "error"]} (arguments: raw JSON text)
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float
    retries: int
    dropped_tool_calls: int = 0  # calls past MAX_TOOL_CALLS
    faults: list[dict] = field(default_factory=list)  # the failed attempts before this reply
    reasoning: str = ""  # the server's reasoning text, if it returned one (record only)

    @property
    def message(self) -> dict:
        """The assistant message to keep in the conversation."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c["arguments"]},
                }
                for c in self.tool_calls
            ]
        return msg


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


class _Function(_Strict):
    name: str = Field(max_length=MAX_NAME_CHARS)
    arguments: str | dict[str, Any] | None = None


class _ToolCall(_Strict):
    id: str | None = Field(None, max_length=MAX_NAME_CHARS)
    function: _Function


class _Message(_Strict):
    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    tool_calls: list[_ToolCall] | None = Field(None, max_length=MAX_CALLS_IN_REPLY)


class _Choice(_Strict):
    message: _Message
    finish_reason: str | None = Field(None, max_length=MAX_NAME_CHARS)


class _Usage(_Strict):
    prompt_tokens: int | None = Field(None, ge=0, le=MAX_USAGE_TOKENS)
    completion_tokens: int | None = Field(None, ge=0, le=MAX_USAGE_TOKENS)


class _Completion(_Strict):
    choices: list[_Choice] = Field(min_length=1, max_length=MAX_CALLS_IN_REPLY)
    usage: _Usage | None = None


def _refuse(obj: Any) -> Any:
    raise TypeError(f"{obj!r} cannot be written as JSON")


def _first_error(exc: ValidationError) -> str:
    err = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "(body)"
    return f"{where}: {err.get('msg', 'invalid')}"


def parse_reply(body: bytes | bytearray, latency_s: float = 0.0, retries: int = 0) -> Reply:
    """The reply in ``body`` (module docstring); raises :class:`ReplyError`."""
    if not body.strip():
        raise ReplyError("the body is empty")
    try:
        doc = jsonio.loads(
            body, numbers="mark", max_values=MAX_REPLY_VALUES, max_depth=MAX_REPLY_DEPTH
        )
    except jsonio.JSONError as exc:
        raise ReplyError(f"the body is not JSON ({str(exc)[:200]})") from None
    if not isinstance(doc, dict):
        raise ReplyError(f"the body is a JSON {type(doc).__name__}, not an object")
    try:
        completion = _Completion.model_validate(doc)
    except ValidationError as exc:
        raise ReplyError(_first_error(exc)) from None
    choice = completion.choices[0]
    calls = []
    for i, call in enumerate(choice.message.tool_calls or []):
        args = call.function.arguments
        entry: dict[str, Any] = {"id": call.id or f"call_{i}", "name": call.function.name}
        if isinstance(args, dict):  # some servers send an object
            try:
                args = json.dumps(args, allow_nan=False, default=_refuse)
            except (TypeError, ValueError, RecursionError):
                entry["error"] = (
                    "arguments hold a value that is not JSON this harness accepts "
                    "(a number too long, NaN or Infinity, or nesting too deep)"
                )
                args = ""
        entry["arguments"] = args or ""
        calls.append(entry)
    usage = completion.usage
    return Reply(
        content=choice.message.content or "",
        tool_calls=calls[:MAX_TOOL_CALLS],
        finish_reason=choice.finish_reason,
        prompt_tokens=usage.prompt_tokens if usage else None,
        completion_tokens=usage.completion_tokens if usage else None,
        latency_s=latency_s,
        retries=retries,
        dropped_tool_calls=max(0, len(calls) - MAX_TOOL_CALLS),
        reasoning=choice.message.reasoning_content or choice.message.reasoning or "",
    )
