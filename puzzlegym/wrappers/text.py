"""The text channel: a text observation (instruction, feedback, intervention note) beside the
untouched screen."""

from __future__ import annotations

import string
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from puzzlegym.base.errors import ConfigError

__all__ = [
    "SECTION_NAME_MAX",
    "TEXT_CHARSET",
    "TEXT_MAX_LENGTH",
    "TextChannel",
    "find_text_channel",
]

TEXT_MAX_LENGTH = 2048
SECTION_NAME_MAX = 40
TEXT_CHARSET = frozenset(string.printable) - frozenset("\t\r\x0b\x0c")  # printable ASCII + "\n"
_REPLACEMENT = "?"


class TextChannel(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Makes the observation ``{"screen": <inner observation>, "text": str}``.

    ``text`` holds the public instruction (``info["instruction"]``) and the board's feedback
    line (``info["feedback"]``), one per line, plus a ``Note:`` line with whatever an
    intervention set with :meth:`set_text`::

        Instruction: Complete all levels of Maze Paint at Easy difficulty in the Game Suite.
        Feedback: The ball cannot roll that way
        Note: try the other corridor

    Interventions stacked above (rule card, state hint: :mod:`puzzlegym.wrappers.rulecard`,
    :mod:`puzzlegym.wrappers.hints`) each own a named section, set with :meth:`set_section`
    and shown after the note as ``<name>: <text>`` (a text of several lines starts on the line
    after ``<name>:``), in the order they were first set.

    The screen is the inner observation object itself: no text is drawn onto the pixels.
    The text is limited to printable ASCII and newlines (other characters become ``?``) and
    truncated to :data:`TEXT_MAX_LENGTH` characters so it always lies in the
    ``spaces.Text`` space. Works below or above :class:`BlackBox` (it reads public keys only).

    Examples:
        >>> import gymnasium as gym
        >>> env = TextChannel(gym.make("LongPuzzle/MazePaint-Easy"))
        >>> obs, _info = env.reset(seed=0)
        >>> sorted(obs), obs["screen"].shape
        (['screen', 'text'], (900, 1280, 3))
        >>> obs["text"].splitlines()[0]
        'Instruction: Complete all levels of Maze Paint at Easy difficulty in the Game Suite.'
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        super().__init__(env)
        self.observation_space = spaces.Dict(
            {
                "screen": env.observation_space,
                "text": spaces.Text(TEXT_MAX_LENGTH, min_length=0, charset=TEXT_CHARSET),
            }
        )
        self._note = ""
        self._sections: dict[str, str] = {}

    def set_section(self, name: str, text: str | None) -> None:
        """Set (or with ``None``/``""`` remove) the named section ``name`` (a short label
        such as ``"Rules"``); like the note, it stays until replaced, across resets."""
        if (
            not isinstance(name, str)
            or not 0 < len(name) <= SECTION_NAME_MAX
            or not all(ch in TEXT_CHARSET and ch not in ":\n" for ch in name)
        ):
            raise ConfigError(
                f"section name: expected 1..{SECTION_NAME_MAX} printable characters "
                f"without ':', got {name!r}"
            )
        if text is not None and not isinstance(text, str):
            raise TypeError(f"set_section: expected a string or None, got {type(text).__name__}")
        if text:
            self._sections[name] = text
        else:
            self._sections.pop(name, None)

    def section(self, name: str) -> str:
        """The text of section ``name`` ("" when unset)."""
        return self._sections.get(name, "")

    def set_text(self, text: str | None) -> None:
        """Set the intervention text shown from the next observation on (it stays until
        replaced; ``None`` or ``""`` clears it). It is not cleared by ``reset``."""
        if text is not None and not isinstance(text, str):
            raise TypeError(f"set_text: expected a string or None, got {type(text).__name__}")
        self._note = text or ""

    def compose(self, info: dict) -> str:
        """The text observation for ``info`` (and the current intervention text)."""
        lines = [
            f"Instruction: {info.get('instruction', '')}",
            f"Feedback: {info.get('feedback', '')}",
        ]
        if self._note:
            lines.append(f"Note: {self._note}")
        # a one-line section follows its name; a longer one (a rule card) starts on the next line
        lines.extend(
            f"{name}:\n{text}" if "\n" in text else f"{name}: {text}"
            for name, text in self._sections.items()
        )
        text = "\n".join(lines)
        text = "".join(ch if ch in TEXT_CHARSET else _REPLACEMENT for ch in text)
        return text[:TEXT_MAX_LENGTH]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        return {"screen": obs, "text": self.compose(info)}, info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return {"screen": obs, "text": self.compose(info)}, reward, terminated, truncated, info


def find_text_channel(env: gym.Env) -> TextChannel:
    """The :class:`TextChannel` in the wrapper stack of ``env`` (the interventions that write
    text need one below them); :class:`~puzzlegym.base.errors.ConfigError` if there is none."""
    inner = env
    while isinstance(inner, gym.Wrapper):
        if isinstance(inner, TextChannel):
            return inner
        inner = inner.env
    raise ConfigError(
        "this wrapper needs a TextChannel below it: wrap the env in TextChannel(env) first"
    )
