"""The conversation a model agent keeps, and its history window policy.

The conversation is the system prompt, the task message, and a list of *units*: the first
observation, then one unit per model reply (the assistant message, the result of each of its
tool calls, and the observation or notes that follow). A unit is never split, so every tool
call in a request has its result.

The window sent with each request is the last ``turns`` units (all when ``turns`` is None),
with only the last ``images`` screenshots kept; older screenshots become the text
``[earlier screenshot omitted]``. The paper's GUI-specialised harness replays the full text
history with the two most recent screenshots: ``turns=None, images=2``.

The history is bounded in characters too, whatever the server sends: a message's text longer
than :data:`MAX_MESSAGE_CHARS` is cut when it is added (a note says how much was dropped; a
tool call's arguments that long become an object saying so), and the window holds only the
newest units whose text fits in ``chars`` (:data:`WINDOW_CHARS`; the newest unit always), so
replies of megabytes do not make every later request carry them all.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count

__all__ = [
    "MAX_MESSAGE_CHARS",
    "OMITTED_IMAGE",
    "WINDOW_CHARS",
    "History",
    "clip_text",
    "clipped",
    "image_message",
    "text_chars",
]

OMITTED_IMAGE = "[earlier screenshot omitted]"
MAX_TURNS = 10_000
MAX_IMAGES = 64
MAX_MESSAGE_CHARS = 256_000  # a message's text (a run's result with 100,000-character outputs fits)
WINDOW_CHARS = 2_000_000  # text characters of the units a window holds (the newest unit always)
MAX_WINDOW_CHARS = 100_000_000


def clip_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with a note of what was dropped.

    Examples:
        >>> clip_text("abcdef", 4)
        'abcd\\n[... 2 more characters not kept]'
    """
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters not kept]"


def clipped(message: dict) -> dict:
    """``message`` with every text over :data:`MAX_MESSAGE_CHARS` cut (:func:`clip_text`) and
    every tool call's ``arguments`` over it replaced by a small JSON object that says so (the
    call was refused anyway; a history must stay valid JSON for servers that parse it)."""
    out = dict(message)
    content = out.get("content")
    if isinstance(content, str):
        out["content"] = clip_text(content)
    elif isinstance(content, list):
        out["content"] = [
            {**part, "text": clip_text(part["text"])}
            if part.get("type") == "text" and isinstance(part.get("text"), str)
            else part
            for part in content
        ]
    calls = out.get("tool_calls")
    if calls:
        kept = []
        for call in calls:
            fn = call.get("function") or {}
            args = fn.get("arguments")
            if isinstance(args, str) and len(args) > MAX_MESSAGE_CHARS:
                note = json.dumps({"omitted": f"arguments of {len(args)} characters"})
                call = {**call, "function": {**fn, "arguments": note}}
            kept.append(call)
        out["tool_calls"] = kept
    return out


def image_message(text: str, data_url: str) -> dict:
    """A user message with a text and one image."""
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": data_url}},
        ],
    }


def text_chars(messages: list[dict]) -> int:
    """The number of text characters in ``messages`` (contents, tool-call names and
    arguments); images count zero. The size measure of memory condition M2."""
    total = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            total += len(content)
        elif isinstance(content, list):
            total += sum(len(p.get("text", "")) for p in content if p.get("type") == "text")
        for call in m.get("tool_calls") or []:
            fn = call.get("function", {})
            total += len(fn.get("name", "")) + len(fn.get("arguments", ""))
    return total


class History:
    """System prompt, task message and units (module docstring)."""

    def __init__(
        self,
        system: str,
        task: str,
        *,
        turns: int | None = 40,
        images: int = 2,
        chars: int = WINDOW_CHARS,
    ) -> None:
        check_count(turns, "history_turns", 1, MAX_TURNS, ConfigError, optional=True)
        check_count(images, "history_images", 1, MAX_IMAGES, ConfigError)
        check_count(chars, "history_chars", MAX_MESSAGE_CHARS, MAX_WINDOW_CHARS, ConfigError)
        self.head = [{"role": "system", "content": system}, {"role": "user", "content": task}]
        self.turns, self.images, self.chars = turns, images, chars
        self.units: list[list[dict]] = []

    # ------------------------------------------------------------------ building
    def new_unit(self, *messages: dict) -> None:
        self.units.append([clipped(m) for m in messages])
        self._compact()

    def add(self, message: dict) -> None:
        """Append to the current unit (a new one if there is none)."""
        if not self.units:
            self.units.append([])
        self.units[-1].append(clipped(message))
        if isinstance(message.get("content"), list):
            self._compact()

    def _compact(self) -> None:
        """Forget what no request can send again, so memory stays bounded over a long
        episode: units older than the window (all but one more, which the window still needs
        when the current unit grows) and screenshots beyond the window's last ones, stored as
        the placeholder the window would send (the sizes the window reports do not change)."""
        if self.turns is not None and len(self.units) > self.turns + 1:
            del self.units[: len(self.units) - self.turns - 1]
        # by characters, with twice the window's room: a message added and taken back again
        # (window_text_chars) never needs a unit that was forgotten
        start = self._char_start(2 * self.chars)
        if start > 0:
            del self.units[: start - 1]
        seen = 0
        for unit in reversed(self.units):
            for i in range(len(unit) - 1, -1, -1):
                content = unit[i].get("content")
                if not isinstance(content, list):
                    continue
                parts = list(content)
                for j in range(len(parts) - 1, -1, -1):
                    if parts[j].get("type") == "image_url":
                        seen += 1
                        if seen > self.images + 1:
                            parts[j] = {"type": "text", "text": OMITTED_IMAGE}
                unit[i] = {**unit[i], "content": parts}
                if seen > self.images + 1:  # older screenshots were compacted by earlier calls
                    return

    def clear(self) -> None:
        self.units = []

    # ------------------------------------------------------------------ the window
    def _char_start(self, budget: int) -> int:
        """The index of the oldest unit of the newest ones whose text fits in ``budget``
        characters (the newest unit always counts)."""
        total, start = 0, len(self.units)
        while start > 0:
            total += text_chars(self.units[start - 1])
            if total > budget and start < len(self.units):
                break
            start -= 1
        return start

    def window_units(self) -> list[list[dict]]:
        """The units a request sends: the last ``turns``, then only the newest whose text fits
        in ``chars`` characters (the newest unit always)."""
        units = self.units if self.turns is None else self.units[-self.turns :]
        start = self._char_start(self.chars)
        return units[max(0, start - (len(self.units) - len(units))) :]

    def messages(self) -> list[dict]:
        """The request's messages: head + windowed units, older screenshots omitted."""
        body = [m for unit in self.window_units() for m in unit]
        seen = 0
        out: list[dict] = []
        for m in reversed(body):
            content = m.get("content")
            if isinstance(content, list) and any(p.get("type") == "image_url" for p in content):
                parts = []
                for p in reversed(content):
                    if p.get("type") == "image_url":
                        seen += 1
                        if seen > self.images:
                            p = {"type": "text", "text": OMITTED_IMAGE}
                    parts.append(p)
                m = {**m, "content": list(reversed(parts))}
            out.append(m)
        return self.head + list(reversed(out))

    def window_text_chars(self, then: dict | None = None) -> int:
        """Text characters of the history the next request sends (after the head; omitted
        screenshots count as their placeholder text). With ``then``, the size of the same
        history in a request that ends with the message ``then`` (a newer screenshot pushes an
        older one out of the window), ``then`` itself not counted."""
        if then is None:
            return text_chars(self.messages()[len(self.head) :])
        fresh = not self.units
        self.add(then)
        try:
            return text_chars(self.messages()[len(self.head) : -1])
        finally:
            self.units[-1].pop()
            if fresh:
                self.units.pop()

    def snapshot(self) -> list[list[dict]]:
        return copy.deepcopy(self.units)

    def __len__(self) -> int:
        return len(self.units)

    def describe(self) -> dict[str, Any]:
        return {
            "history_turns": self.turns,
            "history_images": self.images,
            "history_chars": self.chars,
        }
