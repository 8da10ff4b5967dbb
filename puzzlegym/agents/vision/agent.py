"""The vision agent: the screenshot in, GUI actions out, nothing else.

Each turn it looks at the 1280x900 frame (:func:`~puzzlegym.agents.vision.screens.look`),
navigates the suite like a player (its game's card, its tier's button, Menu off its
objective, Next on a banner, an answer on the objective-complete screen) and on a board of
its objective reads the board with the game's reader, plans with the project's solver on
that reconstruction and performs the plan's next move with the reader's GUI actions. After
every move it reads the board afresh: the plan goes on only while the board is the one the
plan expects, anything else is planned again from the new reading.

It bounds its own work (readings, a board that stays the same after a move) and on any
failure answers with the reason, so the episode ends with a clear message instead of an
agent that loops; :attr:`VisionAgent.failure` keeps it.
"""

from __future__ import annotations

import re
import sys
from collections import deque
from typing import Any

import numpy as np

from puzzlegym.agents.vision.screens import (
    DIFFICULTY,
    HOME,
    LEVEL,
    LEVEL_COMPLETE,
    OBJECTIVE_COMPLETE,
    Seen,
    look,
    words,
)
from puzzlegym.base.actions import MAX_TEXT_LENGTH, TEXT_CHARACTERS, Answer, Click, to_dict
from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count
from puzzlegym.game import Game, Rejected
from puzzlegym.game.registry import get_game
from puzzlegym.game.solver import Solver, Unsolvable
from puzzlegym.screen.labels import LABELS, label
from puzzlegym.vision.reader import GameReader, Reading
from puzzlegym.vision.text import Vocabulary

__all__ = ["DONE_ANSWER", "VisionAgent", "VisionError", "parse_objective", "reader_for"]

DONE_ANSWER = "All levels complete"
MAX_READINGS = 20_000
MAX_STALLS = 3  # moves in a row after which the board still looks the same
MAX_IDLE = 60  # clicks in a row that are not moves (navigation) before it gives up


class VisionError(RuntimeError):
    """The vision agent cannot go on (the message says what it saw)."""


def parse_objective(objective: str) -> tuple[str, str]:
    """``"MazePaint-Easy"`` (or ``"LongPuzzle/MazePaint-Easy"``) -> ``("MazePaint", "Easy")``."""
    m = (
        re.fullmatch(r"(?:LongPuzzle/)?([A-Z][A-Za-z0-9]*)-([A-Z][A-Za-z0-9]*)", objective)
        if isinstance(objective, str)
        else None
    )
    if m is None:
        raise ValueError(f"objective: expected a name such as 'MazePaint-Easy', got {objective!r}")
    return m.group(1), m.group(2)


def reader_for(game: str) -> GameReader:
    """The vision reader of the registered game named ``game`` (its :class:`Game`'s ``reader``
    part); VisionError naming where it belongs when the game has none."""
    try:
        found: Game = get_game(game)
    except ConfigError:
        raise VisionError(f"vision: no reader for {game} (no game of that name)") from None
    if found.reader is None:
        raise VisionError(
            f"vision: no reader for {game} (the game has no {found.where('reader.py')} with READER)"
        )
    reader = found.reader.load()
    if getattr(reader, "game", None) != game:
        raise VisionError(f"vision: {found.reader} is not a reader of {game}")
    return reader


def title_words(game: str) -> tuple[str, ...]:
    """A game's title as words, from its name: ``NutAndBolt`` -> ``("Nut", "And", "Bolt")``."""
    return tuple(re.findall(r"[A-Z][a-z0-9]*", game))


def _same(words, want) -> bool:
    return tuple((w or "").lower() for w in words) == tuple(w.lower() for w in want)


class VisionAgent:
    """A pixel-only agent for one objective (``"MazePaint-Easy"``; ``level``: the one level
    of it the episode asks for, if any)."""

    name = "vision"

    def __init__(
        self, objective: str, level: int | None = None, max_readings: int = MAX_READINGS
    ) -> None:
        self.game, self.tier = parse_objective(objective)
        self.level = check_count(level, "level", 1, 999, optional=True)
        max_readings = check_count(max_readings, "max_readings", 1, None)
        self.failure: str | None = None
        # the game's parts it plays with: its reader, its solver and its rules (to check a
        # plan's move); none of them sees the env
        self.reader: GameReader | None = None
        self.solver: Solver | None = None
        self.rules: Any = None
        try:
            self.reader = reader_for(self.game)
            found = get_game(self.game)
            self.solver, self.rules = found.get_solver(), found.rules
        except (VisionError, LookupError) as exc:  # it answers with the reason at once: a
            self.reader, self.failure = None, str(exc)  # clear, scored failure
        self.title = title_words(self.game)
        words = {w for text in LABELS["en"].values() for w in text.split() if "{" not in w}
        words |= set(self.title) | {w.lower() for w in self.title} | {self.tier}
        self.vocabulary = Vocabulary(words)
        self.max_readings = max_readings
        self.readings = 0
        self.solves = 0
        self.levels: int | None = None  # n, from a header
        self.won: set[int] = set()
        self.success = False
        self._board: int | None = None  # the level number of the board last played
        self._plan: deque = deque()
        self._expect: Reading | None = None  # the board the plan continues from
        self._last: Any = None  # the public reading before the last move
        self._stalls = 0
        self._idle = 0  # navigation clicks since the last move
        self._paging = "next"  # the way through the home screen's pages to its card

    # ------------------------------------------------------------------ the policy
    def __call__(self, obs: Any, info: Any = None) -> dict:
        """The next GUI action for the screen ``obs`` (``info`` is not read)."""
        if self.failure is None:
            try:
                return self._act(np.asarray(obs))
            except (VisionError, ValueError) as exc:
                self.failure = f"{type(exc).__name__}: {exc}"
                print(f"vision: {self.failure}", file=sys.stderr)
        return self._give_up()

    def _give_up(self) -> dict:
        """The answer that ends the episode with the reason (cut to an answer's length)."""
        text = f"vision agent gave up: {self.failure}"
        if len(text) > MAX_TEXT_LENGTH:
            text = text[: MAX_TEXT_LENGTH - 3] + "..."
        return to_dict(Answer("".join(ch if ch in TEXT_CHARACTERS else "?" for ch in text)))

    @property
    def lc(self) -> float:
        """Levels completed as seen: the share of the objective's levels won (the one level
        asked for, or every level of the tier, counted from a header; 0 before one)."""
        if self.level is not None:
            return float(self.level in self.won)
        return len(self.won) / self.levels if self.levels else 0.0

    def result(self) -> dict:
        return {
            "success": self.success,
            "lc": round(self.lc, 6),
            "levels_won": sorted(self.won),
            "readings": self.readings,
            "solves": self.solves,
            "failure": self.failure,
        }

    def _act(self, frame: np.ndarray) -> dict:
        self.readings += 1
        if self.readings > self.max_readings:
            raise VisionError(f"read {self.max_readings} screens without finishing")
        seen = look(frame, self.vocabulary)
        number = self._note(seen)
        if seen.screen == HOME:
            return self._home(seen)
        if seen.screen == DIFFICULTY:
            if not _same(seen.title, self.title):
                return self._click(seen, words("back"), "Back")
            return self._click(seen, (self.tier,), f"the {self.tier} button")
        if seen.screen == OBJECTIVE_COMPLETE:
            return to_dict(Answer(DONE_ANSWER))
        if seen.screen == LEVEL_COMPLETE:
            self._forget()
            return self._click(seen, words("next"), "Next")
        if number is None:  # another game's or tier's board
            self._forget()
            return self._click(seen, words("menu"), "Menu")
        self._board = number
        try:
            return self._play(frame)
        except Unsolvable:  # a dead end (after an unexpected move): start the level again
            self._forget()
            return self._click(seen, words("restart"), "Restart")

    def see(self, obs: Any) -> None:
        """Take in the last screen of an episode without acting on it: the win that completes
        the objective ends the episode on the objective-complete screen, or, for a one-level
        objective whose tier is not complete, on that level's banner."""
        try:
            seen = look(np.asarray(obs), self.vocabulary)
        except ValueError as exc:
            self.failure = self.failure or f"{type(exc).__name__}: {exc}"
            return
        number = self._note(seen)
        if seen.screen == LEVEL_COMPLETE and self.level is not None and number == self.level:
            self.success = True

    def _note(self, seen: Seen) -> int | None:
        """Count what ``seen`` shows was won; the level number of a board of the objective."""
        if seen.screen == OBJECTIVE_COMPLETE:
            if self._board is not None:
                self.won.add(self._board)
            self.success = True
            return None
        if seen.screen not in (LEVEL, LEVEL_COMPLETE):
            return None
        number = self._header(seen)
        if seen.screen == LEVEL_COMPLETE and number is not None:
            self.won.add(number)
        return number

    def _header(self, seen: Seen) -> int | None:
        """The level number the header of a board of the objective shows, else None (the
        header is the label ``header`` with this game, this tier and two numbers)."""
        expected = label(
            "header", game=" ".join(self.title), tier=self.tier, k="\0k", n="\0n"
        ).split()
        shown = list(seen.title)
        if len(shown) != len(expected):
            return None
        numbers: dict[str, int] = {}
        for want, got in zip(expected, shown, strict=True):
            if want in ("\0k", "\0n"):
                if got is None or not got.isdigit():
                    return None
                numbers[want] = int(got)
            elif (got or "").lower() != want.lower():
                return None
        self.levels = numbers["\0n"]
        return numbers["\0k"]

    # ------------------------------------------------------------------ a board
    def _play(self, frame: np.ndarray) -> dict:
        if self.reader is None or self.solver is None:  # __call__ answers with the failure
            raise VisionError(self.failure or "no reader for this game")  # before any board
        reading = self.reader.read(frame, self.tier)
        seen = self.reader.public(reading.level, reading.state)
        if seen == self._last:
            self._stalls += 1
            if self._stalls >= MAX_STALLS:
                raise VisionError(f"the board looked the same after {MAX_STALLS} moves in a row")
        else:
            self._stalls = 0
        expect = self._expect
        if (
            not self._plan
            or expect is None
            or self.reader.public(expect.level, expect.state) != seen
        ):
            solution = self.solver.solve(reading.level, reading.state)
            self.solves += 1
            if not solution.moves:
                raise VisionError("the board reads as solved, but no banner shows")
            self._plan = deque(solution.moves)
            expect = reading
        move = self._plan.popleft()
        result = self.rules.apply(expect.level, expect.state, move)
        if isinstance(result, Rejected):
            raise VisionError(
                f"the plan's move {move!r} is not legal on the board it was planned for"
            )
        if (expect.level, expect.state) == (reading.level, reading.state):
            expect = reading  # the very board the plan expects: the reading is the plan's
        # else the same public board, its pieces numbered another way: the plan's numbering,
        # placed with this reading's geometry
        actions = self.reader.actions(Reading(expect.level, expect.state, reading.geometry), move)
        self._expect = Reading(expect.level, result, None) if self._plan else None
        self._last = seen
        self._idle = 0
        if not actions:
            raise VisionError(f"the reader gave no action for the move {move!r}")
        return actions[0] if len(actions) == 1 else {"type": "batch", "actions": actions}

    def _home(self, seen: Seen) -> dict:
        """Its game's card; while the card is on another page of the home screen, the page
        button one way until the card shows (the other way from the last page)."""
        if seen.control(self.title) is not None:
            return self._click(seen, self.title, "its card on the home screen")
        ahead, back = words("page_next"), words("page_prev")
        if self._paging == "prev" and seen.control(back) is None:
            self._paging = "next"  # the first page: the card lies ahead after all
        elif self._paging == "next" and seen.control(ahead) is None:
            self._paging = "prev"
        if self._paging == "next":
            return self._click(seen, ahead, "its card or the next page of cards")
        return self._click(seen, back, "its card or the previous page of cards")

    def _forget(self) -> None:
        self._plan.clear()
        self._expect = self._last = None
        self._stalls = 0

    def _click(self, seen: Seen, label, what: str) -> dict:
        self._idle += 1
        if self._idle > MAX_IDLE:
            raise VisionError(
                f"{MAX_IDLE} clicks through the menus without reaching a board to play"
            )
        point = seen.control(label)
        if point is None:
            raise VisionError(
                f"cannot find {what} on the {seen.screen} screen (saw {seen.controls})"
            )
        return to_dict(Click(*point))
