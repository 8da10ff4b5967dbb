"""The Game Suite's state machine: home, difficulty select, level screen, level-complete
banner, objective-complete screen; sequential unlock and re-entry at the first unsolved level.
Winning a level shows the banner with Next, except for the win that completes the
difficulty, which goes straight to the objective-complete screen (the win is reported to the
listener first, the moment the board is solved).

The suite owns the screen and the board in play. It receives gestures from the input layer,
routes those on the board to the game's view, applies moves with the game's rules, and tells
its listener (the evaluator) what happened. It exposes its clickable controls by name
(:meth:`Suite.targets`); what each screen looks like is :mod:`puzzlegym.suite.view`'s
job, where things are :mod:`puzzlegym.screen.layout`'s.

Its whole state serialises to a plain document (:meth:`Suite.to_json`). One thing lies
outside that state: :attr:`Suite.last_move`, the board move the last gesture tried, kept only
so the human page (``puzzlegym play``) can draw the move's in-between frames; it never
changes what the suite does or shows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Protocol

from puzzlegym.base.errors import shown
from puzzlegym.base.fields import check_count, is_int
from puzzlegym.game import Game, Rejected
from puzzlegym.screen.input import Gesture
from puzzlegym.screen.layout import (
    BACK_BUTTON,
    BOARD_AREA,
    CARDS_PER_PAGE,
    DIFFICULTY,
    HOME,
    LEVEL,
    LEVEL_COMPLETE,
    MENU_BUTTON_CENTER,
    NEXT_BUTTON,
    OBJECTIVE_COMPLETE,
    PAGE_NEXT,
    PAGE_PREV,
    SCREENS,
    card_rect,
    header_buttons,
    home_pages,
    tier_rect,
)
from puzzlegym.screen.render import Rect
from puzzlegym.suite.board import Board, LastMove


class SuiteListener(Protocol):
    """What the suite reports (the evaluator implements it)."""

    def level_ready(self, board: Board) -> None: ...
    def board_settled(self, board: Board, move: Any) -> None: ...
    def move_rejected(self, board: Board, move: Any, reason: str) -> None: ...
    def level_won(self, board: Board) -> None: ...
    def restarted(self, board: Board) -> None: ...
    def undone(self, board: Board) -> None: ...
    def left_level(self, board: Board) -> None: ...


class Levels(Protocol):
    """A tier's levels as the suite reads them: a list, or a
    :class:`puzzlegym.game.splits.LevelSet`."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int) -> Any: ...


LevelProvider = Callable[[str, str], Levels]


class Suite:
    """The Game Suite application (see module docstring)."""

    def __init__(
        self,
        games: dict[str, Game],
        levels: LevelProvider,
        listener: SuiteListener | None = None,
    ) -> None:
        self.games = games
        self.levels = levels
        self.listener = listener
        self.screen = HOME
        self.page = 0  # the home screen's page of cards (0 while the games fit on one)
        self.game: Game | None = None
        self.tier: str | None = None
        self.board: Board | None = None
        self.progress: dict[tuple[str, str], set[int]] = {}
        self.version = 0  # bumps on every change of what the screen shows
        self.pressed: list[str] = []  # controls pressed (and acting) since the env last cleared it
        self.last_move: LastMove | None = None  # the last gesture's board move (see module doc)

    # ------------------------------------------------------------------ navigation
    def _changed(self) -> None:
        self.version += 1

    def solved_levels(self, game: str, tier: str) -> set[int]:
        return self.progress.setdefault((game, tier), set())

    def first_unsolved(self, game: str, tier: str) -> int | None:
        solved = self.solved_levels(game, tier)
        n = len(self.levels(game, tier))
        return next((i for i in range(n) if i not in solved), None)

    def go_home(self) -> None:
        self._leave_board()
        self.screen, self.game, self.tier = HOME, None, None
        self._changed()

    def choose_game(self, name: str) -> None:
        self.screen, self.game, self.tier = DIFFICULTY, self.games[name], None
        self._changed()

    def enter_tier(self, tier: str) -> None:
        """Enter a difficulty at its first unsolved level (or its completion screen)."""
        assert self.game is not None
        self.tier = tier
        index = self.first_unsolved(self.game.name, tier)
        if index is None:
            self.screen = OBJECTIVE_COMPLETE
            self._changed()
        else:
            self.open_level(self.game.name, tier, index)

    def open_level(self, game: str, tier: str, index: int) -> None:
        """Show a fresh board of level ``index`` (0-based)."""
        self._leave_board()
        g = self.games[game]
        level = self.levels(game, tier)[index]
        state = g.rules.initial_state(level)
        self.game, self.tier, self.screen = g, tier, LEVEL
        self.board = Board(g, tier, index, level, state, g.view.initial_ui(level, state))
        self._changed()
        if self.listener:
            self.listener.level_ready(self.board)

    def _leave_board(self) -> None:
        if self.board is not None and self.listener:
            self.listener.left_level(self.board)
        self.board = None

    # ------------------------------------------------------------------ targets
    def targets(self) -> dict[str, Rect]:
        """Named clickable regions of the current screen, top-most first."""
        out: dict[str, Rect] = {}
        if self.screen == HOME:
            names = list(self.games)
            first = self.page * CARDS_PER_PAGE
            for i, name in enumerate(names[first : first + CARDS_PER_PAGE], start=first):
                out[f"game:{name}"] = card_rect(i)
            if self.page > 0:
                out["page:prev"] = PAGE_PREV
            if self.page < home_pages(len(names)) - 1:
                out["page:next"] = PAGE_NEXT
        elif self.screen == DIFFICULTY:
            assert self.game is not None
            for i, tier in enumerate(self.game.tiers):
                out[f"tier:{tier}"] = tier_rect(i)
            out["back"] = BACK_BUTTON
        elif self.screen in (LEVEL, LEVEL_COMPLETE):
            if self.screen == LEVEL_COMPLETE:
                out["next"] = NEXT_BUTTON
            for name, rect in self._header_buttons().items():
                if self.screen == LEVEL or name == "menu":
                    out[name] = rect
        elif self.screen == OBJECTIVE_COMPLETE:
            out["menu"] = MENU_BUTTON_CENTER
        return out

    def _header_buttons(self) -> dict[str, Rect]:
        return header_buttons(bool(self.game and self.game.has_undo))

    # ------------------------------------------------------------------ input
    def handle(self, gesture: Gesture) -> bool:
        """Apply one gesture. Returns whether it was accepted: it pressed a control or changed
        the board or its selection (a rejected move, which only changes the feedback line,
        is not accepted)."""
        self.last_move = None
        if gesture.kind == "click":
            for name, rect in self.targets().items():
                if rect.contains(gesture.x, gesture.y):
                    before = self.version
                    self._press(name)
                    if self.version != before:
                        self.pressed.append(name)
                    return self.version != before
            if self.screen == LEVEL and BOARD_AREA.contains(gesture.x, gesture.y):
                return self._board_gesture(gesture)
        elif gesture.kind == "drag":
            if self.screen == LEVEL and BOARD_AREA.contains(gesture.x0, gesture.y0):
                return self._board_gesture(gesture)
        elif gesture.kind == "key":
            if self.screen == LEVEL:
                return self._board_gesture(gesture)
        return False

    def would_change(self, gesture: Gesture) -> bool:
        """Whether :meth:`handle` would change the screen, the board or its selection (a pure
        query: see :func:`gesture_changes`)."""
        return gesture_changes(self.screen, self.targets(), self.board, gesture)

    def _press(self, name: str) -> None:
        kind, _, arg = name.partition(":")
        if kind == "game":
            self.choose_game(arg)
        elif kind == "tier":
            self.enter_tier(arg)
        elif kind == "page":
            self.page += 1 if arg == "next" else -1
            self._changed()
        elif kind == "back":
            self.go_home()
        elif kind == "menu":
            self.go_home()
        elif kind == "restart":
            self.restart()
        elif kind == "undo":
            self.undo()
        elif kind == "next":
            self.next_level()

    def restart(self) -> None:
        b = self.board
        assert b is not None
        state = b.game.rules.initial_state(b.level)
        ui = b.game.view.initial_ui(b.level, state)
        self.board = b = replace(b, state=state, ui=ui, history=(), feedback="")
        self._changed()
        if self.listener:
            self.listener.restarted(b)

    def undo(self) -> None:
        b = self.board
        assert b is not None
        if not b.history:
            return
        state = b.history[-1]
        ui = b.game.view.initial_ui(b.level, state)
        self.board = b = replace(b, state=state, ui=ui, history=b.history[:-1], feedback="")
        self._changed()
        if self.listener:
            self.listener.undone(b)

    def next_level(self) -> None:
        b = self.board
        assert b is not None
        index = self.first_unsolved(b.game.name, b.tier)
        if index is None:
            self._leave_board()
            self.screen = OBJECTIVE_COMPLETE
            self._changed()
        else:
            self.open_level(b.game.name, b.tier, index)

    def _board_gesture(self, gesture: Gesture) -> bool:
        """Route a gesture to the game view and apply its move; returns whether the board or
        the ui state changed."""
        b = self.board
        assert b is not None
        view, rules = b.game.view, b.game.rules
        outcome = view.on_gesture(b.level, b.state, b.ui, gesture, BOARD_AREA)
        accepted = outcome.ui != b.ui
        ui = outcome.ui
        feedback = outcome.feedback if outcome.feedback is not None else b.feedback
        state, history = b.state, b.history
        moved = False
        if outcome.move is not None:
            result = rules.apply(b.level, b.state, outcome.move)
            if isinstance(result, Rejected):
                feedback = result.reason
                if self.listener:
                    self.listener.move_rejected(b, outcome.move, result.reason)
            else:
                state, history = result, (*b.history, b.state)
                ui = view.after_move(b.level, state, ui)
                feedback = outcome.feedback or ""
                moved = accepted = True
        visible = accepted or feedback != b.feedback
        before = b
        if visible:
            self.board = b = replace(b, state=state, ui=ui, history=history, feedback=feedback)
        if outcome.move is not None:
            self.last_move = LastMove(before, outcome.move, b, moved)
        if not visible:
            return False
        self._changed()
        if moved:
            if self.listener:
                self.listener.board_settled(b, outcome.move)
            if rules.is_solved(b.level, b.state):
                self.solved_levels(b.game.name, b.tier).add(b.index)
                self.screen = LEVEL_COMPLETE
                if self.listener:
                    self.listener.level_won(b)
                if self.first_unsolved(b.game.name, b.tier) is None:
                    # the difficulty's last level: its completion screen at once (no Next)
                    self._leave_board()
                    self.screen = OBJECTIVE_COMPLETE
        return accepted

    # ------------------------------------------------------------------ state document
    def to_json(self) -> dict:
        b = self.board
        # "page" only when the home screen is paged past its first page: the documents of a
        # suite whose games fit on one page are as they always were
        paged = {"page": self.page} if self.page else {}
        return {
            **paged,
            "screen": self.screen,
            "game": self.game.name if self.game else None,
            "tier": self.tier,
            "progress": {f"{g}/{t}": sorted(s) for (g, t), s in sorted(self.progress.items()) if s},
            "board": None
            if b is None
            else {
                "game": b.game.name,
                "tier": b.tier,
                "index": b.index,
                "state": b.game.state_to_json(b.level, b.state),
                "ui": b.game.view.ui_to_json(b.ui),
                "history": [b.game.state_to_json(b.level, s) for s in b.history],
                "feedback": b.feedback,
            },
        }

    def load_json(self, doc: dict) -> None:
        """Replace the whole suite state by ``doc`` (from :meth:`to_json`). Validates before
        changing anything (registered games and tiers, level indices in range, a board that
        belongs to the screen's game and tier, board states and ui the game accepts and can
        draw); raises ValueError/KeyError naming the problem."""
        screen = doc["screen"]
        if screen not in SCREENS:
            raise ValueError(f"suite.screen: unknown screen {shown(screen)}")
        game = self._game(doc["game"], "suite.game") if doc["game"] is not None else None
        tier = doc["tier"]
        if tier is not None and (game is None or tier not in game.tiers):
            raise ValueError(
                f"suite.tier: {shown(tier)} is not a tier of {game.name if game else 'no game'}"
            )
        if screen != HOME and game is None:
            raise ValueError(f"suite.game: screen {screen!r} needs a game")
        pages = home_pages(len(self.games))
        page = check_count(doc.get("page", 0), "suite.page", 0, pages - 1, what="a home page")
        progress: dict[tuple[str, str], set[int]] = {}
        for key, indices in doc["progress"].items():
            g, _, t = key.partition("/")
            if t not in self._game(g, f"suite.progress[{shown(key)}]").tiers:
                raise ValueError(f"suite.progress[{shown(key)}]: {shown(t)} is not a tier of {g}")
            n = len(self.levels(g, t))
            if not all(is_int(i, 0, n - 1) for i in indices):
                raise ValueError(
                    f"suite.progress[{shown(key)}]: level indices must be in 0..{n - 1}"
                )
            progress[(g, t)] = set(indices)
        board = None
        bd = doc["board"]
        if bd is not None:
            g = self._game(bd["game"], "suite.board.game")
            if bd["tier"] not in g.tiers:
                raise ValueError(f"suite.board.tier: {shown(bd['tier'])} is not a tier of {g.name}")
            if screen in (LEVEL, LEVEL_COMPLETE) and (g is not game or bd["tier"] != tier):
                raise ValueError(
                    f"suite.board: a {g.name}-{bd['tier']} board on the {screen} screen "
                    f"of {doc['game']}-{tier}"
                )
            levels = self.levels(g.name, bd["tier"])
            index = check_count(
                bd["index"], "suite.board.index", 0, len(levels) - 1, what="a level index"
            )
            level = levels[index]
            board = Board(
                g,
                bd["tier"],
                index,
                level,
                g.state_from_json(level, bd["state"]),
                g.view.ui_from_json(bd["ui"]),
                tuple(g.state_from_json(level, s) for s in bd["history"]),
                bd["feedback"],
            )
            check_ui = getattr(g.view, "check_ui", None)  # optional: ui checks that need the level
            if check_ui is not None:
                check_ui(level, board.state, board.ui)
            try:  # the view must be able to draw this state and selection
                g.view.widgets(board.level, board.state, board.ui, BOARD_AREA)
            except Exception as exc:
                raise ValueError(
                    f"suite.board.ui: the {g.name} view cannot show this board ({shown(exc)})"
                ) from None
        if screen in (LEVEL, LEVEL_COMPLETE) and board is None:
            raise ValueError(f"suite: screen {screen!r} needs a board")
        self.screen, self.game, self.tier, self.page = screen, game, tier, page
        self.progress, self.board = progress, board
        self.last_move = None
        self._changed()

    def _game(self, name: Any, where: str) -> Game:
        if not isinstance(name, str) or name not in self.games:
            raise ValueError(f"{where}: {shown(name)} is not a registered game")
        return self.games[name]


def gesture_changes(
    screen: str, controls: Mapping[str, Rect], board: Board | None, gesture: Gesture
) -> bool:
    """Whether ``gesture`` would change the screen, the board or its selection on ``screen``
    with ``controls`` (the named targets) and ``board``: a pure query, routed like
    :meth:`Suite.handle`. A control counts when pressing it shows something else (Restart on
    an untouched board and Undo without history do not); a board gesture when the view
    selects or deselects something, or the rules accept the move the view makes of it (a
    rejected move only sets the feedback line)."""
    if gesture.kind == "click":
        for name, rect in controls.items():
            if rect.contains(gesture.x, gesture.y):
                return press_changes(name, board)
        if screen == LEVEL and BOARD_AREA.contains(gesture.x, gesture.y):
            return _board_changes(board, gesture)
    elif gesture.kind == "drag":
        if screen == LEVEL and BOARD_AREA.contains(gesture.x0, gesture.y0):
            return _board_changes(board, gesture)
    elif gesture.kind == "key":
        if screen == LEVEL:
            return _board_changes(board, gesture)
    return False


POINTER_SHAPES = ("default", "pointer", "grab")
PROBE_DRAG_PX = 160  # the length of the drags pointer_shape tries from a board pixel


def pointer_shape(
    screen: str, controls: Mapping[str, Rect], board: Board | None, x: int, y: int
) -> str:
    """The pointer's shape over pixel ``(x, y)`` (one of :data:`POINTER_SHAPES`): "pointer"
    over a control, and on the level screen over a part of the board a click reaches (the
    game's view answers it with a move, a selection or a feedback line); "grab" over a part a
    drag reaches (a drag of :data:`PROBE_DRAG_PX` in any of the four directions); else
    "default". It asks only the view, never the rules, so it tells apart what the pictures
    show (a piece, a cell, an anchor), not which moves are legal."""
    for rect in controls.values():
        if rect.contains(x, y):
            return "pointer"
    if screen != LEVEL or board is None or not BOARD_AREA.contains(x, y):
        return "default"
    view = board.game.view

    def answers(gesture: Gesture) -> bool:
        outcome = view.on_gesture(board.level, board.state, board.ui, gesture, BOARD_AREA)
        return outcome.move is not None or outcome.ui != board.ui or outcome.feedback is not None

    if answers(Gesture("click", x, y)):
        return "pointer"
    d = PROBE_DRAG_PX
    for swipe, (dx, dy) in (
        ("up", (0, -d)),
        ("down", (0, d)),
        ("left", (-d, 0)),
        ("right", (d, 0)),
    ):
        if answers(Gesture("drag", x + dx, y + dy, x, y, swipe)):
            return "grab"
    return "default"


def press_changes(name: str, b: Board | None) -> bool:
    """Whether pressing control ``name`` (on a screen that shows it) would change anything:
    Restart when the board or its selection differs from the level's start, Undo when it
    has a move to undo, every other control always."""
    if name == "restart":
        assert b is not None
        initial = b.game.rules.initial_state(b.level)
        return b.state != initial or b.ui != b.game.view.initial_ui(b.level, initial)
    if name == "undo":
        return b is not None and b.undoable
    return True


def _board_changes(b: Board | None, gesture: Gesture) -> bool:
    assert b is not None
    outcome = b.game.view.on_gesture(b.level, b.state, b.ui, gesture, BOARD_AREA)
    if outcome.ui != b.ui:
        return True
    if outcome.move is None:
        return False
    return not isinstance(b.game.rules.apply(b.level, b.state, outcome.move), Rejected)
