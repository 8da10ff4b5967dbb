"""The conversation a model agent keeps, and its history window policy.

The conversation is the system prompt, the task message, and a list of *units*: the first
observation, then one unit per model reply (the assistant message, the result of each of its
tool calls, and the observation or notes that follow). A unit is never split, so every tool
call in a request has its result.

The window sent with each request is the last ``turns`` units (all when ``turns`` is None),
with only the last ``images`` screenshots kept; older screenshots become the text
``[earlier screenshot omitted]``. The paper's GUI-specialised harness replays the full text
history with the two most recent screenshots: ``turns=None, images=2``.
"""

from __future__ import annotations

import copy
from typing import Any

from puzzlegym.base.errors import ConfigError

__all__ = ["OMITTED_IMAGE", "History", "image_message", "text_chars"]

OMITTED_IMAGE = "[earlier screenshot omitted]"
MAX_TURNS = 10_000
MAX_IMAGES = 64


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

    def __init__(self, system: str, task: str, *, turns: int | None = 40, images: int = 2) -> None:
        if turns is not None and (
            isinstance(turns, bool) or not isinstance(turns, int) or not 1 <= turns <= MAX_TURNS
        ):
            raise ConfigError(
                f"history_turns: expected None or an integer in 1..{MAX_TURNS}, got {turns!r}"
            )
        if isinstance(images, bool) or not isinstance(images, int) or not 1 <= images <= MAX_IMAGES:
            raise ConfigError(
                f"history_images: expected an integer in 1..{MAX_IMAGES}, got {images!r}"
            )
        self.head = [{"role": "system", "content": system}, {"role": "user", "content": task}]
        self.turns, self.images = turns, images
        self.units: list[list[dict]] = []

    # ------------------------------------------------------------------ building
    def new_unit(self, *messages: dict) -> None:
        self.units.append(list(messages))
        self._compact()

    def add(self, message: dict) -> None:
        """Append to the current unit (a new one if there is none)."""
        if not self.units:
            self.units.append([])
        self.units[-1].append(message)
        if isinstance(message.get("content"), list):
            self._compact()

    def _compact(self) -> None:
        """Forget what no request can send again, so memory stays bounded over a long
        episode: units older than the window (all but one more, which the window still needs
        when the current unit grows) and screenshots beyond the window's last ones, stored as
        the placeholder the window would send (the sizes the window reports do not change)."""
        if self.turns is not None and len(self.units) > self.turns + 1:
            del self.units[: len(self.units) - self.turns - 1]
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
    def window_units(self) -> list[list[dict]]:
        return self.units if self.turns is None else self.units[-self.turns :]

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
        return {"history_turns": self.turns, "history_images": self.images}
