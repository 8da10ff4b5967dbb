"""Where the player is, from the pixels: which screen of the suite is showing, what its text
says and where its controls are (measured, never taken from the suite's layout).

- A **level** screen has the dark header bar across the top; its text names the game, the
  tier and "Level k / n", its light buttons carry their labels (Restart, Menu, Undo).
  With the green banner below the header it is **level complete**, the white button inside
  the banner is Next.
- Otherwise the first line of large text names the screen: "Game Suite" (**home**: a white
  card per game, its title in bold), "Objective complete" (**objective complete**: the blue
  Menu button), or a game's title (**difficulty**: a white button per tier, its name in bold
  on the left, then Back).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from puzzlegym.screen import theme
from puzzlegym.screen.labels import label
from puzzlegym.vision.pixels import Box, boxes, is_colour
from puzzlegym.vision.text import Style, Vocabulary, read_words, text_rows

__all__ = [
    "DIFFICULTY",
    "HOME",
    "LEVEL",
    "LEVEL_COMPLETE",
    "OBJECTIVE_COMPLETE",
    "SCREENS",
    "Seen",
    "look",
    "words",
]

HOME, DIFFICULTY, LEVEL = "home", "difficulty", "level"
LEVEL_COMPLETE, OBJECTIVE_COMPLETE = "level_complete", "objective_complete"
SCREENS = (HOME, DIFFICULTY, LEVEL, LEVEL_COMPLETE, OBJECTIVE_COMPLETE)

HEADER_ROWS = 72  # the header bar's height, measured on every level screen
TITLE = Style(theme.TITLE_SIZE, False, theme.TEXT, theme.BACKGROUND)
HEADER_TEXT = Style(theme.HEADING_SIZE - 4, True, theme.HEADER_TEXT, theme.HEADER)
BUTTON = Style(theme.BUTTON_SIZE, True, theme.BUTTON_TEXT, theme.BUTTON)
CARD_TITLE = Style(theme.HEADING_SIZE + 4, True, theme.TEXT, theme.CARD)
TIER_NAME = Style(theme.HEADING_SIZE - 2, True, theme.TEXT, theme.CARD)

Words = tuple[str | None, ...]


def words(key: str) -> tuple[str, ...]:
    """The words of the interface label ``key`` (``"next"`` -> ``("Next",)``)."""
    return tuple(label(key).split())


@dataclass(frozen=True)
class Seen:
    """One reading of the screen: its name, the words of its title (the header's on a
    level screen) and its controls, each a list of (words of its label, click point)."""

    screen: str
    title: Words
    controls: tuple[tuple[Words, tuple[int, int]], ...] = field(default=())

    def control(self, name) -> tuple[int, int] | None:
        """The click point of the control labelled with the words ``name``
        (case-insensitive), or None."""
        want = tuple(w.lower() for w in name)
        for shown, point in self.controls:
            if tuple((w or "").lower() for w in shown) == want:
                return point
        return None


def look(frame: np.ndarray, vocabulary: Vocabulary) -> Seen:
    """Which screen ``frame`` (the full 1280x900 RGB screen) shows."""
    if frame.shape != (900, 1280, 3) or frame.dtype != np.uint8:
        raise ValueError(
            f"screen: expected a 900x1280x3 uint8 frame, got {frame.shape} {frame.dtype}"
        )
    header = is_colour(frame[:HEADER_ROWS], theme.HEADER)
    if header.mean() > 0.5:
        return _level(frame, vocabulary)
    rows = [
        (a, b)
        for a, b in text_rows(frame, (0, 0, frame.shape[1], frame.shape[0]), TITLE)
        if b - a >= TITLE.size // 2
    ]  # a line of title text, not specks
    if not rows:
        raise ValueError("screen: no header and no title: not a screen of the suite")
    y0, y1 = rows[0]
    title = tuple(read_words(frame, (0, y0 - 4, frame.shape[1], y1 + 4), TITLE, vocabulary))
    if title == words("suite_title"):
        return Seen(HOME, title, _cards(frame, vocabulary))
    if title == words("objective_complete"):
        accent = [b for b in boxes(is_colour(frame, theme.ACCENT), 2000)]
        return Seen(
            OBJECTIVE_COMPLETE, title, tuple((words("menu"), b.center) for b in accent[-1:])
        )
    tiers = _tiers(frame, vocabulary)
    if None in title or not tiers:
        raise ValueError(f"screen: not a screen of the suite (title {title}, {len(tiers)} buttons)")
    return Seen(DIFFICULTY, title, tiers)


def _level(frame: np.ndarray, vocabulary: Vocabulary) -> Seen:
    buttons = [b for b in boxes(is_colour(frame[:HEADER_ROWS], theme.BUTTON), 500)]
    controls = []
    for b in buttons:
        label = tuple(
            read_words(frame, (b.x0 + 4, b.y0 + 4, b.x1 - 4, b.y1 - 4), BUTTON, vocabulary)
        )
        controls.append((label, b.center))
    # a disabled button (Undo with no history, Restart under the banner) is only an outline
    disabled = boxes(is_colour(frame[:HEADER_ROWS], theme.DISABLED_BORDER_ON_DARK), 100)
    right = min((b.x0 for b in buttons + disabled), default=frame.shape[1]) - 8
    title = tuple(read_words(frame, (0, 4, right, HEADER_ROWS - 4), HEADER_TEXT, vocabulary))
    banner = [b for b in boxes(is_colour(frame[HEADER_ROWS:], theme.SUCCESS), 20000)]
    if not banner:
        return Seen(LEVEL, title, tuple(controls))
    b = max(banner, key=lambda b: b.pixels)
    inside = frame[HEADER_ROWS + b.y0 + 6 : HEADER_ROWS + b.y1 - 6, b.x0 + 6 : b.x1 - 6]
    white = [w for w in boxes(is_colour(inside, theme.SUCCESS_TEXT), 2000)]
    if white:
        w = max(white, key=lambda w: w.pixels)
        x, y = w.center
        controls.append((words("next"), (b.x0 + 6 + x, HEADER_ROWS + b.y0 + 6 + y)))
    return Seen(LEVEL_COMPLETE, title, tuple(controls))


def _white_boxes(frame: np.ndarray, min_w: int, min_h: int, max_h: int) -> list[Box]:
    return [
        b
        for b in boxes(is_colour(frame, theme.CARD), min_w * min_h // 2)
        if b.w >= min_w and min_h <= b.h <= max_h
    ]


def _cards(frame: np.ndarray, vocabulary: Vocabulary) -> tuple:
    """The home screen's game cards (each named by its title) and, past one page of cards,
    its page buttons."""
    out = []
    for b in _white_boxes(frame, 200, 100, 400):
        for y0, y1 in text_rows(frame, (b.x0 + 6, b.y0, b.x1 - 6, b.y1), CARD_TITLE)[:1]:
            words = read_words(frame, (b.x0 + 6, y0 - 2, b.x1 - 6, y1 + 2), CARD_TITLE, vocabulary)
            out.append((tuple(words), b.center))
    return tuple(out) + _buttons(frame, vocabulary)


def _buttons(frame: np.ndarray, vocabulary: Vocabulary) -> tuple:
    """The buttons of a screen's body (Back, the home screen's page buttons), by label."""
    out = []
    for b in boxes(is_colour(frame, theme.BUTTON), 2000):
        words = read_words(frame, (b.x0 + 4, b.y0 + 4, b.x1 - 4, b.y1 - 4), BUTTON, vocabulary)
        out.append((tuple(words), b.center))
    return tuple(out)


def _tiers(frame: np.ndarray, vocabulary: Vocabulary) -> tuple:
    out = []
    for b in _white_boxes(frame, 300, 40, 120):
        words = read_words(
            frame, (b.x0 + 6, b.y0 + 6, b.x0 + b.w // 2, b.y1 - 6), TIER_NAME, vocabulary
        )
        out.append((tuple(words), b.center))
    return tuple(out) + _buttons(frame, vocabulary)
