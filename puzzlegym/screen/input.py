"""The input layer: GUI actions become timestamped pointer/key events, and one gesture
recognizer turns events into gestures (click, double click, drag with its swipe direction,
key, text, scroll).

Every backend feeds the same recognizer: the in-process backend synthesises events from
actions with :func:`action_events`; the browser backend forwards the page's real events.
Timestamps are milliseconds on the episode's clock; the recognizer uses no other clock, so
recognition is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from puzzlegym.base.actions import (
    Action,
    Click,
    DoubleClick,
    Drag,
    PressKey,
    Scroll,
    TypeText,
    Wait,
)
from puzzlegym.base.fields import is_int

EventKind = Literal["pointer_down", "pointer_move", "pointer_up", "key", "text", "wheel"]

CLICK_SLOP_PX = 6  # a press/release closer than this is a click, farther a drag
DOUBLE_CLICK_MS = 400  # two clicks within this time and slop make a double click
SWIPE_MIN_PX = 20  # a drag at least this long along its dominant axis is a swipe
SWIPE_AXIS_RATIO = 2.0  # the dominant axis must be this many times the other
CLICK_PRESS_MS = 40  # synthetic press duration of a click
DRAG_STEPS = 8  # synthetic drags interpolate this many pointer moves
DRAG_MS = 240  # synthetic drag duration


@dataclass(frozen=True)
class Event:
    """One input event. ``x``/``y`` for pointer events, ``value`` for key/text/wheel."""

    kind: EventKind
    t_ms: int
    x: int = 0
    y: int = 0
    value: str = ""


@dataclass(frozen=True)
class Gesture:
    """What the user did, as the suite and game views see it.

    ``kind`` is "click", "double_click", "drag", "key", "text" or "scroll". A drag carries
    its start (``x0``, ``y0``) and end (``x``, ``y``) and ``swipe``: "up"/"down"/"left"/
    "right" when it is a clear swipe, else None. Clicks carry ``x``, ``y``; keys, text and
    scrolls carry ``value``.
    """

    kind: str
    x: int = 0
    y: int = 0
    x0: int = 0
    y0: int = 0
    swipe: str | None = None
    value: str = ""


def action_events(action: Action, t_ms: int) -> list[Event]:
    """Synthesise the events a primitive (non-batch, non-answer) action produces, starting
    at ``t_ms``."""
    if isinstance(action, Click):
        return [
            Event("pointer_down", t_ms, action.x, action.y),
            Event("pointer_up", t_ms + CLICK_PRESS_MS, action.x, action.y),
        ]
    if isinstance(action, DoubleClick):
        second = t_ms + 2 * CLICK_PRESS_MS
        return [
            Event("pointer_down", t_ms, action.x, action.y),
            Event("pointer_up", t_ms + CLICK_PRESS_MS, action.x, action.y),
            Event("pointer_down", second, action.x, action.y),
            Event("pointer_up", second + CLICK_PRESS_MS, action.x, action.y),
        ]
    if isinstance(action, Drag):
        events = [Event("pointer_down", t_ms, action.x0, action.y0)]
        for i in range(1, DRAG_STEPS + 1):
            x = action.x0 + round((action.x1 - action.x0) * i / DRAG_STEPS)
            y = action.y0 + round((action.y1 - action.y0) * i / DRAG_STEPS)
            events.append(Event("pointer_move", t_ms + DRAG_MS * i // DRAG_STEPS, x, y))
        events.append(Event("pointer_up", t_ms + DRAG_MS, action.x1, action.y1))
        return events
    if isinstance(action, PressKey):
        return [Event("key", t_ms, value=action.key)]
    if isinstance(action, TypeText):
        return [Event("text", t_ms, value=action.text)]
    if isinstance(action, Scroll):
        return [Event("wheel", t_ms, value=action.direction)]
    if isinstance(action, Wait):
        return []
    raise TypeError(f"{type(action).__name__} produces no input events")


def swipe_direction(dx: int, dy: int) -> str | None:
    """The swipe direction of a pointer displacement, or None when it is not a clear swipe."""
    ax, ay = abs(dx), abs(dy)
    if max(ax, ay) < SWIPE_MIN_PX:
        return None
    if ax >= SWIPE_AXIS_RATIO * ay:
        return "right" if dx > 0 else "left"
    if ay >= SWIPE_AXIS_RATIO * ax:
        return "down" if dy > 0 else "up"
    return None


class GestureRecognizer:
    """Turns a stream of events into gestures. Its small state (a pressed pointer, the last
    click) is part of the suite checkpoint via :meth:`to_json` / :meth:`from_json`."""

    def __init__(self) -> None:
        self._down: tuple[int, int, int] | None = None  # x, y, t of the pointer press
        self._last_click: tuple[int, int, int] | None = None  # x, y, t of the last click

    def feed(self, event: Event) -> list[Gesture]:
        kind = event.kind
        if kind == "pointer_down":
            self._down = (event.x, event.y, event.t_ms)
            return []
        if kind == "pointer_move":
            return []
        if kind == "pointer_up":
            if self._down is None:
                return []
            x0, y0, _ = self._down
            self._down = None
            dx, dy = event.x - x0, event.y - y0
            if abs(dx) < CLICK_SLOP_PX and abs(dy) < CLICK_SLOP_PX:
                gestures = [Gesture("click", x0, y0)]
                last = self._last_click
                if (
                    last is not None
                    and event.t_ms - last[2] <= DOUBLE_CLICK_MS
                    and abs(x0 - last[0]) < CLICK_SLOP_PX
                    and abs(y0 - last[1]) < CLICK_SLOP_PX
                ):
                    gestures.append(Gesture("double_click", x0, y0))
                    self._last_click = None
                else:
                    self._last_click = (x0, y0, event.t_ms)
                return gestures
            self._last_click = None
            return [Gesture("drag", event.x, event.y, x0, y0, swipe_direction(dx, dy))]
        if kind == "key":
            return [Gesture("key", value=event.value)]
        if kind == "text":
            return [Gesture("text", value=event.value)]
        if kind == "wheel":
            return [Gesture("scroll", value=event.value)]
        raise ValueError(f"event.kind: unknown event kind {kind!r}")

    def to_json(self) -> dict:
        return {
            "down": list(self._down) if self._down else None,
            "last_click": list(self._last_click) if self._last_click else None,
        }

    @classmethod
    def from_json(cls, data: dict) -> GestureRecognizer:
        rec = cls()
        for name in ("down", "last_click"):
            value = data[name]
            if value is not None and (
                not isinstance(value, list | tuple)
                or len(value) != 3
                or not all(is_int(v, 0) for v in value)
            ):
                raise ValueError(
                    f"recognizer.{name}: expected null or [x, y, t_ms] as non-negative integers"
                )
            setattr(rec, f"_{name}", tuple(value) if value is not None else None)
        return rec
