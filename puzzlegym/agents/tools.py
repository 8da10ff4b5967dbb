"""The model's tools: the GUI actions of :mod:`puzzlegym.base.actions` as chat-completions function
tools, and the strict parsing of the model's tool calls back into actions.

Tools (both settings): ``click``, ``double_click``, ``drag``, ``press_key``, ``type_text``,
``scroll``, ``wait``, ``batch`` and ``answer``; the Code Execution setting adds ``screenshot``
(the current screen) and ``run_code`` (Python in the sandbox, see :mod:`.code`).

Coordinates are integer pixels of the screenshot the model sees (x to the right, y down, origin
at the top-left corner); when screenshots are downscaled they are mapped back to screen pixels
(:class:`~puzzlegym.agents.screenshots.ScreenEncoder`). A call that is malformed (unknown tool,
arguments that are not a JSON object, a missing or unexpected field, a coordinate off the
screenshot, a key that is not allowed, ...) raises :class:`ToolError` whose message names the
field and what is allowed; the agent returns it to the model and counts it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from puzzlegym.agents.screenshots import ScreenEncoder
from puzzlegym.base import jsonio
from puzzlegym.base.actions import (
    GAME_KEYS,
    MAX_BATCH_LENGTH,
    MAX_TEXT_LENGTH,
    SCROLL_DIRECTIONS,
    Action,
    parse_action,
)
from puzzlegym.base.errors import ActionError, shown
from puzzlegym.base.fields import check_count

__all__ = [
    "CODE_TOOLS",
    "GUI_TOOLS",
    "MAX_CODE_CHARS",
    "NATIVE_TOOLS",
    "ParsedCall",
    "ToolError",
    "parse_call",
    "tool_schemas",
]

GUI_TOOLS = ("click", "double_click", "drag", "press_key", "type_text", "scroll", "batch")
NATIVE_TOOLS = (*GUI_TOOLS, "wait", "answer")
CODE_TOOLS = (*NATIVE_TOOLS, "screenshot", "run_code")
MAX_CODE_CHARS = 32_000
MAX_ARGUMENT_CHARS = 64_000
_COORDS = {"click": ("x", "y"), "double_click": ("x", "y"), "drag": ("x0", "y0", "x1", "y1")}


class ToolError(ValueError):
    """A tool call the agent cannot perform; the message is what the model is told."""


@dataclass(frozen=True)
class ParsedCall:
    """A valid tool call: ``kind`` is "gui" (``action`` is a click, drag, batch, ...), "wait",
    "answer" (``action`` set), "screenshot" or "run_code" (``code`` set)."""

    id: str
    name: str
    kind: str
    action: Action | None = None
    code: str | None = None


def _coordinate_schema(axis: str, limit: int) -> dict:
    edge = "left" if axis == "x" else "top"
    return {
        "type": "integer",
        "minimum": 0,
        "maximum": limit,
        "description": f"pixels from the {edge} edge of the screenshot",
    }


def tool_schemas(width: int, height: int, *, code: bool = False) -> list[dict]:
    """The function tools offered to the model, for screenshots of ``width``×``height``."""
    x = _coordinate_schema("x", width - 1)
    y = _coordinate_schema("y", height - 1)
    key = {
        "type": "string",
        "description": "a single letter a-z or A-Z, or one of " + ", ".join(GAME_KEYS),
    }
    text = {"type": "string", "maxLength": MAX_TEXT_LENGTH}
    direction = {"type": "string", "enum": list(SCROLL_DIRECTIONS)}

    def fn(
        name: str, description: str, properties: dict, required: list[str] | None = None
    ) -> dict:
        params = {
            "type": "object",
            "properties": properties,
            "required": required or [],
            "additionalProperties": False,
        }
        return {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": params},
        }

    member = {
        "type": "object",
        "description": "one action: its type and that action's fields",
        "properties": {
            "type": {
                "type": "string",
                "enum": [
                    "click",
                    "double_click",
                    "drag",
                    "press_key",
                    "type_text",
                    "scroll",
                    "wait",
                ],
            },
            "x": x,
            "y": y,
            "x0": x,
            "y0": y,
            "x1": x,
            "y1": y,
            "key": key,
            "text": text,
            "direction": direction,
        },
        "required": ["type"],
    }
    tools = [
        fn(
            "click",
            "Click the primary mouse button at a point of the screenshot.",
            {"x": x, "y": y},
            ["x", "y"],
        ),
        fn(
            "double_click",
            "Double-click at a point of the screenshot.",
            {"x": x, "y": y},
            ["x", "y"],
        ),
        fn(
            "drag",
            "Press at (x0, y0), move to (x1, y1) and release (a drag or swipe).",
            {"x0": x, "y0": y, "x1": x, "y1": y},
            ["x0", "y0", "x1", "y1"],
        ),
        fn("press_key", "Press one key.", {"key": key}, ["key"]),
        fn("type_text", "Type printable ASCII text.", {"text": text}, ["text"]),
        fn("scroll", "Scroll the mouse wheel once.", {"direction": direction}, ["direction"]),
        fn("wait", "Do nothing for a moment and look again.", {}),
        fn(
            "batch",
            f"Perform 1 to {MAX_BATCH_LENGTH} actions in order (each counts as an action); "
            "one screenshot follows the last.",
            {
                "actions": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": MAX_BATCH_LENGTH,
                    "items": member,
                }
            },
            ["actions"],
        ),
        fn(
            "answer",
            "End the episode with a final message (your completion declaration or your "
            "decision to stop).",
            {"text": {"type": "string", "maxLength": MAX_TEXT_LENGTH}},
            ["text"],
        ),
    ]
    if code:
        tools += [
            fn("screenshot", "Look at the current screen.", {}),
            fn(
                "run_code",
                "Run Python code in your sandbox (a persistent session with a small GUI API: "
                "click, double_click, drag, key, type_text, scroll, wait, screenshot). "
                "Returns what it prints.",
                {"code": {"type": "string", "maxLength": MAX_CODE_CHARS}},
                ["code"],
            ),
        ]
    return tools


def _arguments(name: str, raw: Any) -> dict:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if not isinstance(raw, str):
        raise ToolError(f"{name}: arguments must be a JSON object")
    if len(raw) > MAX_ARGUMENT_CHARS:
        raise ToolError(
            f"{name}: arguments of {len(raw)} characters are too long; at most {MAX_ARGUMENT_CHARS}"
        )
    try:  # strict: nesting too deep is an error, odd numbers become markers no field accepts
        args = jsonio.loads(raw, numbers="mark")
    except jsonio.JSONError as exc:
        raise ToolError(
            f"{name}: arguments are not valid JSON ({str(exc).removeprefix('not valid JSON: ')})"
        ) from None
    if not isinstance(args, dict):
        raise ToolError(f"{name}: arguments must be a JSON object, got {type(args).__name__}")
    return args


def _pixel(where: str, field: str, value: Any, limit: int) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return check_count(
        value, f"{where}.{field}", 0, limit, ToolError, what="a pixel of the screenshot"
    )


def _to_screen(where: str, kind: Any, args: dict, enc: ScreenEncoder) -> dict:
    """An action dict with its coordinates checked against the image and mapped to the screen."""
    out = dict(args)
    names = _COORDS.get(kind, ()) if isinstance(kind, str) else ()
    for i in range(0, len(names), 2):
        fx, fy = names[i], names[i + 1]
        if fx in out and fy in out:
            x = _pixel(where, fx, out[fx], enc.width - 1)
            y = _pixel(where, fy, out[fy], enc.height - 1)
            out[fx], out[fy] = enc.to_screen(x, y)
    return out


def parse_call(call: dict, enc: ScreenEncoder, allowed: tuple[str, ...]) -> ParsedCall:
    """A model tool call (``{"id", "name", "arguments"}``) as a :class:`ParsedCall`."""
    name = call.get("name") or ""
    cid = str(call.get("id") or "")
    if not isinstance(name, str) or name not in allowed:
        raise ToolError(f"unknown tool {shown(name)}; available tools: {', '.join(allowed)}")
    if call.get("error"):  # found while the reply was parsed (puzzlegym.agents.replies)
        raise ToolError(f"{name}: {call['error']}")
    args = _arguments(name, call.get("arguments"))
    if name in ("screenshot", "wait") and args:
        raise ToolError(f"{name}: takes no arguments, got {sorted(args)}")
    if name == "screenshot":
        return ParsedCall(cid, name, "screenshot")
    if name == "run_code":
        extra = sorted(set(args) - {"code"})
        if extra:
            raise ToolError(f"run_code: unexpected field {extra[0]!r}; run_code takes ['code']")
        code = args.get("code")
        if not isinstance(code, str) or not code.strip():
            raise ToolError("run_code.code: expected a non-empty string of Python code")
        if len(code) > MAX_CODE_CHARS:
            raise ToolError(
                f"run_code.code: {len(code)} characters is too long; at most {MAX_CODE_CHARS}"
            )
        return ParsedCall(cid, name, "run_code", code=code)
    if "type" in args:
        raise ToolError(f"{name}: unexpected field 'type' (the tool's name is the action type)")
    if name == "batch":
        members = args.get("actions")
        if not isinstance(members, list):
            raise ToolError("batch.actions: expected a list of actions")
        if not 1 <= len(members) <= MAX_BATCH_LENGTH:
            raise ToolError(
                f"batch.actions: {len(members)} actions; a batch holds 1..{MAX_BATCH_LENGTH}"
            )
        mapped = []
        for i, member in enumerate(members):
            if not isinstance(member, dict):
                raise ToolError(
                    f"batch.actions[{i}]: expected an object with a 'type', "
                    f"got {type(member).__name__}"
                )
            mapped.append(_to_screen(f"batch.actions[{i}]", member.get("type"), member, enc))
        doc = {
            "type": "batch",
            **{k: v for k, v in args.items() if k != "actions"},
            "actions": mapped,
        }
    else:
        doc = {"type": name, **_to_screen(name, name, args, enc)}
    try:
        action = parse_action(doc)
    except ActionError as exc:
        raise ToolError(str(exc)) from None
    kind = "gui" if name in GUI_TOOLS else name
    return ParsedCall(cid, name, kind, action=action)
