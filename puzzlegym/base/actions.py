"""Native GUI actions: the only way an agent acts on the screen.

Actions are accepted as plain dicts (``{"type": "click", "x": 640, "y": 450}``) and as small
typed objects (``Click(640, 450)``). :func:`parse_action` validates either form strictly and
returns the typed object; anything malformed raises :class:`~puzzlegym.base.errors.ActionError`
naming the field and what is allowed. Validation happens before anything is applied, so a
rejected action (or a batch with one bad member) leaves the episode unchanged.

:class:`GUIActionSpace` is the Gymnasium action space of every puzzlegym env; its samples are
valid action dicts.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np
from gymnasium import spaces

from puzzlegym.base.errors import ActionError, shown
from puzzlegym.base.fields import check_count

SCREEN_WIDTH = 1280
SCREEN_HEIGHT = 900

GAME_KEYS = (
    "Enter",
    "Tab",
    "Escape",
    "Space",
    "Backspace",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
)
LETTER_KEYS = tuple(string.ascii_lowercase) + tuple(string.ascii_uppercase)
ALLOWED_KEYS = frozenset(GAME_KEYS + LETTER_KEYS)
SCROLL_DIRECTIONS = ("up", "down", "left", "right")
MAX_TEXT_LENGTH = 256
MAX_BATCH_LENGTH = 64
TEXT_CHARACTERS = frozenset(string.printable) - frozenset("\t\n\r\x0b\x0c")


@dataclass(frozen=True)
class Click:
    x: int
    y: int
    type: ClassVar[str] = "click"


@dataclass(frozen=True)
class DoubleClick:
    x: int
    y: int
    type: ClassVar[str] = "double_click"


@dataclass(frozen=True)
class Drag:
    x0: int
    y0: int
    x1: int
    y1: int
    type: ClassVar[str] = "drag"


@dataclass(frozen=True)
class PressKey:
    key: str
    type: ClassVar[str] = "press_key"


@dataclass(frozen=True)
class TypeText:
    text: str
    type: ClassVar[str] = "type_text"


@dataclass(frozen=True)
class Scroll:
    direction: str
    type: ClassVar[str] = "scroll"


@dataclass(frozen=True)
class Wait:
    type: ClassVar[str] = "wait"


@dataclass(frozen=True)
class Answer:
    """The agent's terminal declaration (claimed completion or voluntary stop)."""

    text: str = ""
    type: ClassVar[str] = "answer"


@dataclass(frozen=True)
class Batch:
    """Ordered actions performed in one step; one observation after the last. Each member
    counts as an action (clock, records)."""

    actions: tuple[Action, ...]
    type: ClassVar[str] = "batch"


Action = Click | DoubleClick | Drag | PressKey | TypeText | Scroll | Wait | Answer | Batch

_TYPES: dict[str, type] = {
    cls.type: cls
    for cls in (Click, DoubleClick, Drag, PressKey, TypeText, Scroll, Wait, Answer, Batch)
}
_FIELDS: dict[str, tuple[str, ...]] = {
    "click": ("x", "y"),
    "double_click": ("x", "y"),
    "drag": ("x0", "y0", "x1", "y1"),
    "press_key": ("key",),
    "type_text": ("text",),
    "scroll": ("direction",),
    "wait": (),
    "answer": (),
    "batch": ("actions",),
}
_OPTIONAL: dict[str, tuple[str, ...]] = {"answer": ("text",)}
ACTION_TYPES = tuple(_TYPES)


def _coordinate(where: str, name: str, value: Any) -> int:
    limit = SCREEN_WIDTH - 1 if name.startswith("x") else SCREEN_HEIGHT - 1
    return check_count(
        value, f"{where}.{name}", 0, limit, ActionError, numpy=True, what="a pixel on the screen"
    )


def _check_text(where: str, name: str, value: Any, *, allow_empty: bool, printable: bool) -> str:
    if not isinstance(value, str):
        raise ActionError(f"{where}.{name}: expected a string, got {type(value).__name__}")
    if len(value) > MAX_TEXT_LENGTH:
        raise ActionError(
            f"{where}.{name}: {len(value)} characters is too long; at most {MAX_TEXT_LENGTH}"
        )
    if not allow_empty and not value:
        raise ActionError(f"{where}.{name}: must not be empty")
    bad = sorted(set(value) - TEXT_CHARACTERS)
    if bad and printable:
        raise ActionError(
            f"{where}.{name}: characters {shown(bad)} are not allowed; printable ASCII only"
        )
    return value


def _check_key(where: str, value: Any) -> str:
    if not isinstance(value, str) or value not in ALLOWED_KEYS:
        raise ActionError(
            f"{where}.key: {shown(value)} is not an allowed key; "
            "allowed: a single letter a-z/A-Z or " + ", ".join(GAME_KEYS)
        )
    return value


def _validate(action: Action, where: str, *, in_batch: bool) -> Action:
    """Check a typed action's field values; returns a normalised copy."""
    kind = action.type
    if isinstance(action, (Click, DoubleClick)):
        return type(action)(_coordinate(where, "x", action.x), _coordinate(where, "y", action.y))
    if isinstance(action, Drag):
        return Drag(*(_coordinate(where, n, getattr(action, n)) for n in ("x0", "y0", "x1", "y1")))
    if isinstance(action, PressKey):
        return PressKey(_check_key(where, action.key))
    if isinstance(action, TypeText):
        return TypeText(_check_text(where, "text", action.text, allow_empty=False, printable=True))
    if isinstance(action, Scroll):
        if not isinstance(action.direction, str) or action.direction not in SCROLL_DIRECTIONS:
            raise ActionError(
                f"{where}.direction: {shown(action.direction)} is not allowed; allowed: "
                + ", ".join(SCROLL_DIRECTIONS)
            )
        return action
    if isinstance(action, Wait):
        return action
    if isinstance(action, Answer):
        if in_batch:
            raise ActionError(f"{where}: an answer ends the episode and cannot be inside a batch")
        return Answer(_check_text(where, "text", action.text, allow_empty=True, printable=False))
    if isinstance(action, Batch):
        if in_batch:
            raise ActionError(f"{where}: a batch cannot contain another batch")
        members = action.actions
        if not isinstance(members, (list, tuple)):
            raise ActionError(f"{where}.actions: expected a list of actions")
        if not 1 <= len(members) <= MAX_BATCH_LENGTH:
            raise ActionError(
                f"{where}.actions: {len(members)} actions; a batch holds 1..{MAX_BATCH_LENGTH}"
            )
        return Batch(
            tuple(
                _parse(member, f"{where}.actions[{i}]", in_batch=True)
                for i, member in enumerate(members)
            )
        )
    raise ActionError(f"{where}: unknown action type {kind!r}")  # pragma: no cover


def _parse(obj: Any, where: str, *, in_batch: bool) -> Action:
    if isinstance(obj, tuple(_TYPES.values())):
        return _validate(cast(Action, obj), where, in_batch=in_batch)
    if not isinstance(obj, dict):
        raise ActionError(
            f"{where}: expected an action dict or a puzzlegym.base.actions object, got "
            f"{type(obj).__name__}"
        )
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in _TYPES:
        raise ActionError(
            f"{where}.type: unknown action type {shown(kind)}; allowed: " + ", ".join(ACTION_TYPES)
        )
    where = f"{where}({kind})"
    required = _FIELDS[kind]
    missing = [name for name in required if name not in obj]
    if missing:
        raise ActionError(f"{where}: missing field {missing[0]!r}; {kind} needs {list(required)}")
    extra = sorted(set(obj) - set(required) - set(_OPTIONAL.get(kind, ())) - {"type"}, key=str)
    if extra:
        raise ActionError(
            f"{where}: unexpected field {shown(extra[0])}; {kind} takes {list(required)}"
        )
    values = {name: obj[name] for name in required + _OPTIONAL.get(kind, ()) if name in obj}
    if kind == "batch":
        members = values["actions"]
        if not isinstance(members, (list, tuple)):
            raise ActionError(f"{where}.actions: expected a list of actions")
        values["actions"] = tuple(members)
    return _validate(_TYPES[kind](**values), where, in_batch=in_batch)


def parse_action(obj: Any) -> Action:
    """Validate ``obj`` (dict or typed action) and return the typed action.

    Raises :class:`ActionError` naming the bad field and what is allowed.
    """
    return _parse(obj, "action", in_batch=False)


def to_dict(action: Action) -> dict:
    """The dict form of a typed action (inverse of :func:`parse_action`)."""
    if isinstance(action, Batch):
        return {"type": "batch", "actions": [to_dict(a) for a in action.actions]}
    out: dict[str, Any] = {"type": action.type}
    for name in _FIELDS[action.type] + _OPTIONAL.get(action.type, ()):
        out[name] = getattr(action, name)
    return out


def flatten(action: Action) -> tuple[Action, ...]:
    """The primitive actions a (possibly batched) action performs, in order."""
    return action.actions if isinstance(action, Batch) else (action,)


class GUIActionSpace(spaces.Space):
    """The Gymnasium space of GUI actions (dicts as accepted by :func:`parse_action`).

    ``sample()`` draws a valid action dict: clicks, double clicks, drags, key presses, short
    text, scrolls and waits, with the given relative ``weights``. Answers and batches are not
    sampled by default (an answer ends the episode); pass weights to include them.
    """

    DEFAULT_WEIGHTS: ClassVar[dict[str, float]] = {
        "click": 0.45,
        "double_click": 0.05,
        "drag": 0.3,
        "press_key": 0.1,
        "type_text": 0.02,
        "scroll": 0.03,
        "wait": 0.05,
    }

    def __init__(self, weights: dict[str, float] | None = None, seed: int | None = None):
        super().__init__(shape=None, dtype=None, seed=seed)
        weights = dict(self.DEFAULT_WEIGHTS if weights is None else weights)
        unknown = sorted(set(weights) - set(ACTION_TYPES))
        if unknown:
            raise ActionError(f"weights: unknown action type {unknown[0]!r}")
        total = float(sum(weights.values()))
        if total <= 0:
            raise ActionError("weights: at least one action type needs a positive weight")
        self._kinds = tuple(weights)
        self._probs = np.array([weights[k] / total for k in self._kinds])

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def _sample_one(self, kind: str) -> dict:
        rng = self.np_random
        if kind in ("click", "double_click"):
            return {
                "type": kind,
                "x": int(rng.integers(SCREEN_WIDTH)),
                "y": int(rng.integers(SCREEN_HEIGHT)),
            }
        if kind == "drag":
            return {
                "type": "drag",
                "x0": int(rng.integers(SCREEN_WIDTH)),
                "y0": int(rng.integers(SCREEN_HEIGHT)),
                "x1": int(rng.integers(SCREEN_WIDTH)),
                "y1": int(rng.integers(SCREEN_HEIGHT)),
            }
        if kind == "press_key":
            keys = sorted(ALLOWED_KEYS)
            return {"type": "press_key", "key": keys[int(rng.integers(len(keys)))]}
        if kind == "type_text":
            n = int(rng.integers(1, 9))
            return {
                "type": "type_text",
                "text": "".join(rng.choice(list(string.ascii_lowercase), n)),
            }
        if kind == "scroll":
            return {"type": "scroll", "direction": SCROLL_DIRECTIONS[int(rng.integers(4))]}
        if kind == "answer":
            return {"type": "answer", "text": "done"}
        if kind == "batch":
            n = int(rng.integers(1, 4))
            inner = [k for k in self._kinds if k not in ("batch", "answer")] or ["wait"]
            return {
                "type": "batch",
                "actions": [
                    self._sample_one(inner[int(rng.integers(len(inner)))]) for _ in range(n)
                ],
            }
        return {"type": "wait"}

    def sample(self, mask: Any = None, probability: Any = None) -> dict:
        if mask is not None or probability is not None:
            raise NotImplementedError("GUIActionSpace.sample does not take a mask")
        kind = self._kinds[int(self.np_random.choice(len(self._kinds), p=self._probs))]
        return self._sample_one(kind)

    def contains(self, x: Any) -> bool:
        try:
            parse_action(x)
        except ActionError:
            return False
        return True

    def __repr__(self) -> str:
        return "GUIActionSpace(" + ", ".join(self._kinds) + ")"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, GUIActionSpace)
            and self._kinds == other._kinds
            and np.array_equal(self._probs, other._probs)
        )

    def __hash__(self) -> int:  # pragma: no cover - spaces are rarely hashed
        return hash(("GUIActionSpace", self._kinds))
