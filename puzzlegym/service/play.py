"""Human play (``puzzlegym play``).

``play`` serves the same page the browser backend uses to an ordinary browser; the page sends
its real pointer and keyboard events here, the gestures they make are played as GUI actions
(and recorded as an episode in the agents' format), and the changed screen regions go back
as PNG.

The page shown to a person is a :class:`~puzzlegym.backends.human.HumanPage`: the env's
settled frames, plus, for the person only, a move's in-between frames and a drag's preview
(pointer moves are never actions). A reply is ``{"frames": [...], "cursor": shape}``: the
frames to draw in order (each a list of ``[x, y, base64 PNG]`` patches) and the pointer's
shape (``default``, ``pointer`` or ``grab``) at the last pointer position the batch held,
and ``status``, the page's own line beside the screen (never part of a frame): the level's
move counter and par (its solver-optimal length), a warning while the person plays outside
the episode's objective, and where the Restart control is while a restart would throw away
:data:`CONFIRM_RESTART_MOVES` moves or more (the page asks before it sends that click).

Everything the status says is the human page's own addition: the frames, the env's
observations and the recorded episode are those of any other client.
"""

from __future__ import annotations

import base64
import html
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast, get_args

import gymnasium as gym

from puzzlegym import solvers
from puzzlegym.backends.browser import page_file
from puzzlegym.backends.human import HumanPage
from puzzlegym.base.errors import PuzzleGymError, counted, shown
from puzzlegym.env import puzzle_env
from puzzlegym.env.probe import LEVEL, Probe
from puzzlegym.game.registry import get_game, parse_env_id
from puzzlegym.screen.input import Event, EventKind, Gesture, GestureRecognizer
from puzzlegym.screen.render import SCREEN, Rect
from puzzlegym.service.http import (
    HTTPServer,
    Reply,
    RequestError,
    check_token,
    make_server,
    png_bytes,
)

__all__ = [
    "CONFIRM_RESTART_MOVES",
    "PlaySession",
    "gesture_action",
    "make_play_server",
    "page_title",
    "parse_events",
    "play_page",
    "play_status",
]


def gesture_action(g: Gesture) -> dict | None:
    """The GUI action a human gesture amounts to (recorded like an agent's action)."""
    if g.kind == "click":
        return {"type": "click", "x": g.x, "y": g.y}
    if g.kind == "drag":
        return {"type": "drag", "x0": g.x0, "y0": g.y0, "x1": g.x, "y1": g.y}
    if g.kind == "key":
        return {"type": "press_key", "key": g.value}
    if g.kind == "text":
        return {"type": "type_text", "text": g.value}
    if g.kind == "scroll":
        return {"type": "scroll", "direction": g.value}
    return None  # a double click: its two clicks were already played


MAX_EVENTS = 512
EVENT_KINDS: tuple[str, ...] = get_args(EventKind)
_EVENT_FIELDS = ("kind", "t", "x", "y", "value")


def parse_events(raw: Any) -> list[Event]:
    """The page's event batch, every field checked (kind, ``t`` a finite time in ms, ``x``/``y``
    integers, ``value`` a short string); raises a 400 naming the first bad field."""
    if not isinstance(raw, list) or len(raw) > MAX_EVENTS:
        raise RequestError(400, f"events: expected a list of at most {MAX_EVENTS} events")
    out = []
    for i, item in enumerate(raw):
        where = f"events[{i}]"
        if not isinstance(item, dict):
            raise RequestError(400, f"{where}: expected an object, got {shown(item)}")
        extra = sorted(set(item) - set(_EVENT_FIELDS), key=str)
        if extra:
            raise RequestError(
                400,
                f"{where}: unexpected field {shown(extra[0])}; allowed: {', '.join(_EVENT_FIELDS)}",
            )
        kind = item.get("kind")
        if not isinstance(kind, str) or kind not in EVENT_KINDS:
            raise RequestError(
                400, f"{where}.kind: {shown(kind)} is not one of {', '.join(EVENT_KINDS)}"
            )
        t = item.get("t")
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 1e12:
            raise RequestError(
                400, f"{where}.t: expected a finite time in ms (0..1e12), got {shown(t)}"
            )
        xy = []
        for name in ("x", "y"):
            v = item.get(name, 0)
            if isinstance(v, bool) or not isinstance(v, int) or not -100_000 <= v <= 100_000:
                raise RequestError(
                    400, f"{where}.{name}: expected an integer pixel, got {shown(v)}"
                )
            xy.append(v)
        value = item.get("value", "")
        if not isinstance(value, str) or len(value) > 256:
            raise RequestError(
                400,
                f"{where}.value: expected a string of at most 256 characters, got {shown(value)}",
            )
        out.append(Event(cast(EventKind, kind), int(t), xy[0], xy[1], value))  # checked above
    return out


MAX_PATCHES = 8  # a frame with more changed regions is sent whole
CONFIRM_RESTART_MOVES = 10  # a restart that throws away this many moves is confirmed first


class _Pars:
    """Catalogue levels' solver-optimal lengths, solved one at a time on a background thread
    (a hard level takes seconds, which a reply must not wait for): :meth:`get` answers at
    once, None until the level's length is known (or when the solver finds none)."""

    MAX = 256  # levels remembered

    def __init__(self) -> None:
        self.known: dict[tuple[str, str, int], int | None] = {}
        self.wanted: list[tuple[str, str, int]] = []
        self.lock = threading.Condition()
        self.thread: threading.Thread | None = None

    def get(self, game: str, tier: str, index: int) -> int | None:
        key = (game, tier, index)
        with self.lock:
            if key in self.known:
                return self.known[key]
            if key not in self.wanted and len(self.known) < self.MAX:
                self.wanted.append(key)
                self.lock.notify()
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="par", daemon=True)
                self.thread.start()
        return None

    def wait(self, game: str, tier: str, index: int, timeout: float = 60.0) -> int | None:
        """The length once known (tests), waiting at most ``timeout`` seconds."""
        self.get(game, tier, index)
        with self.lock:
            self.lock.wait_for(lambda: (game, tier, index) in self.known, timeout=timeout)
            return self.known.get((game, tier, index))

    def _run(self) -> None:
        while True:
            with self.lock:
                self.lock.wait_for(lambda: bool(self.wanted))
                game, tier, index = self.wanted[0]
            try:
                par: int | None = solvers.solve(get_game(game).catalogue(tier)[index]).length
            except Exception:  # a level the solver gives up on: no par shown
                par = None
            with self.lock:
                self.known[(game, tier, index)] = par
                self.wanted.pop(0)
                self.lock.notify_all()


PARS = _Pars()


def won_text(board: Any, moves: int) -> str:
    """A won level's line: its moves against par (the solver's optimum, once known)."""
    text = f"{board.game.title} {board.tier} level {board.number} won in {moves} moves"
    par = PARS.get(board.game.name, board.tier, board.index)
    if par is not None:
        text += f" · par {par}" + (" (optimal)" if moves <= par else "")
    return text


def play_status(probe: Probe) -> dict:
    """The human page's status line for the episode now: ``text`` (on a level screen the
    level's moves, and its par once :data:`PARS` has solved the level; else the objective),
    ``warning`` (play outside the objective, or None) and ``restart`` (``[x, y, w, h]`` of
    Restart while restarting would throw away :data:`CONFIRM_RESTART_MOVES` moves or more,
    else None)."""
    obj, board = probe.objective, probe.board
    target = f"{get_game(obj.game).title} {obj.tier}"
    text, warning, restart = f"objective: {target}", None, None
    if probe.game is not None and (probe.game.name, probe.tier) != obj.key:
        where = probe.game.title + ("" if probe.tier is None else f" {probe.tier}")
        warning = (
            f"{where} is outside this episode's objective ({target}): play here does not "
            f"count. Go back to the home screen and choose {get_game(obj.game).title}, "
            f"then {obj.tier}."
        )
    if probe.screen == LEVEL and board is not None:
        par = PARS.get(board.game.name, board.tier, board.index)
        level = f"{board.game.title} {board.tier} level {board.number}"
        if board.solved:
            text = won_text(board, board.depth)
        else:
            text = f"{level} · moves {board.depth}"
            text += "" if par is None else f" · par {par}"
        rect = probe.control("restart")
        if rect is not None and board.depth >= CONFIRM_RESTART_MOVES:
            restart = [rect.x, rect.y, rect.w, rect.h]
    return {"text": text, "warning": warning, "restart": restart, "over": None}


class PlaySession:
    """A human playing one objective in an ordinary browser, recorded as an episode.

    When the episode ends (every target level won, or the budget spent) its record is
    finished: the page and ``log`` (the terminal's line) say so and where it was recorded, and
    the page offers to play it again (:meth:`again`: a new episode, a new record) or, for a
    single level (``level=K``), to go on to the next one (:meth:`next_level`)."""

    def __init__(
        self,
        env_id: str,
        record_dir: str | Path,
        log: Callable[[str], None] | None = None,
        **env_kwargs: Any,
    ) -> None:
        self.env_id = env_id
        self.record_dir = str(record_dir)
        self.log = log or (lambda line: None)
        self.lock = threading.Lock()
        self._start(env_kwargs)

    def _start(self, env_kwargs: dict) -> None:
        self.env_kwargs = dict(env_kwargs)
        self.env = gym.make(
            self.env_id, clock="wall", record_dir=self.record_dir, agent="human", **env_kwargs
        )
        self.base = puzzle_env(self.env, "play")
        self.obs, _ = self.env.reset(seed=0)
        self.page = HumanPage(self.env)
        self.page.full()
        self.recognizer = GestureRecognizer()
        self.done = False
        self.over: dict | None = None  # what the page says once the episode has ended
        self.won: str | None = None  # the last win's line, until another level is played
        self._down: tuple[int, int] | None = None  # where the pointer was pressed
        self._pointer = (0, 0)  # the last pointer position the page reported

    def _next_level(self) -> int | None:
        """The level after this single-level episode's, if it has one and is one."""
        level = self.env_kwargs.get("level")
        if level is None:
            return None
        game, tier = parse_env_id(self.env_id)
        return level + 1 if level < len(game.catalogue(tier)) else None

    def _end(self) -> None:
        """The episode has ended: say so, on the page and in the terminal."""
        probe = self.base.probe()
        won, n = len(probe.levels_won), len(probe.objective.targets)
        how = "complete" if probe.success else "over (the budget was spent)"
        text = (
            f"The episode is {how} and recorded in {self.base.record_path}: {won} of "
            f"{counted(n, 'level')} won in {counted(probe.actions, 'action')}."
        )
        self.over = {"text": text, "next_level": self._next_level()}
        offers = "Play again" + (
            ""
            if self.over["next_level"] is None
            else f" or go on to level {self.over['next_level']}"
        )
        self.log(f"puzzlegym play: {text} The page offers: {offers}.")

    def again(self, body: Any) -> dict:
        """Play the objective again, a new episode in a new record (after the episode ended)."""
        return self._restart(body, "again", self.env_kwargs)

    def next_level(self, body: Any) -> dict:
        """Go on to the next level (a single-level episode that has ended)."""
        with self.lock:
            level = self._next_level()
        if level is None:
            raise RequestError(409, "next: this episode plays no single level with one after it")
        return self._restart(body, "next", {**self.env_kwargs, "level": level})

    def _restart(self, body: Any, what: str, env_kwargs: dict) -> dict:
        if body not in (None, {}):
            raise RequestError(400, f"{what}: expected an empty body, got {shown(body)}")
        with self.lock:
            if not self.done:
                raise RequestError(409, f"{what}: the episode is still being played")
            self.env.close()
            self._start(env_kwargs)
            self.page.full()
            return self._reply([self._patches([SCREEN])])

    def _patches(self, rects: list[Rect]) -> list:
        frame = self.page.frame
        rects = [SCREEN] if len(rects) > MAX_PATCHES else rects
        return [[r.x, r.y, base64.b64encode(png_bytes(frame, r)).decode("ascii")] for r in rects]

    def _note_win(self, board: Any, won_before: tuple[int, ...]) -> None:
        """After a step from ``board``: keep the line of the level it won (its moves against
        par) for the screens that follow; forget it once an unsolved board is in play."""
        probe = self.base.probe()
        now = probe.board
        if now is not None and now.solved:
            self.won = won_text(now, now.depth)
        elif board is not None and len(probe.levels_won) > len(won_before):
            self.won = won_text(board, board.depth + 1)  # the winning move ended the screen
        elif now is not None:
            self.won = None

    def _reply(self, frames: list[list]) -> dict:
        status = play_status(self.base.probe())
        if self.won is not None and status["text"] != self.won:
            status["text"] = f"{self.won} · {status['text']}"
        return {
            "frames": frames,
            "cursor": self.page.cursor(*self._pointer),
            "status": {**status, "over": self.over},
        }

    def rules(self) -> dict:
        """The rule card of the game on the screen, else the objective's game."""
        with self.lock:
            probe = self.base.probe()
        game = probe.game or get_game(probe.objective.game)
        return {"title": game.title, "text": game.rule_card}

    def full_frame(self) -> dict:
        with self.lock:
            self.page.full()
            return self._reply([self._patches([SCREEN])])

    def events(self, raw: Any) -> dict:
        """Play a batch of the page's events; the whole batch is validated first, so a
        malformed event anywhere rejects the batch with nothing applied or recorded. Pointer
        moves only move the pointer (a held drag's preview, the pointer's shape)."""
        batch = parse_events(raw)
        with self.lock:
            frames: list[list] = []  # the frames to draw, each encoded as soon as it is drawn

            def shown(rects: list[Rect] | None) -> None:
                if rects:
                    frames.append(self._patches(rects))

            preview = None  # the last pointer position of a held drag, if the batch moved it
            for event in batch:
                if event.kind in ("pointer_down", "pointer_move", "pointer_up"):
                    self._pointer = (event.x, event.y)
                if event.kind == "pointer_move":
                    if self._down is not None:
                        preview = (event.x, event.y)
                    continue
                if event.kind == "pointer_down":
                    self._down = (event.x, event.y)
                elif event.kind == "pointer_up":
                    self._down, preview = None, None
                for g in self.recognizer.feed(event):
                    action = gesture_action(g)
                    if action is None or self.done:
                        continue
                    previewed = self.page.previewing
                    try:
                        probe = self.base.probe()
                        before, board, won = probe.version, probe.board, probe.levels_won
                        self.obs, _, term, trunc, _ = self.env.step(action)
                    except PuzzleGymError:
                        continue  # e.g. a key outside the allowed set: not a game input
                    self._note_win(board, won)
                    if previewed:  # the piece already follows the pointer: it settles at once
                        shown(self.page.settled())
                    elif self.base.probe().version != before:
                        for rects in self.page.after_step():
                            shown(rects)
                    if term or trunc:
                        self.done = True
                        self._end()
            if preview is not None and self._down is not None and not self.done:
                shown(self.page.preview(*self._down, *preview))
            elif self._down is None and self.page.previewing:
                shown(self.page.settled())
            return self._reply(frames)

    def close(self) -> None:
        self.env.close()


FAVICON = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    b'<rect width="16" height="16" rx="3" fill="#243047"/>'
    b'<rect x="3" y="3" width="4" height="4" fill="#f2c94c"/>'
    b'<rect x="9" y="3" width="4" height="4" fill="#56ccf2"/>'
    b'<rect x="3" y="9" width="4" height="4" fill="#6fcf97"/>'
    b'<rect x="9" y="9" width="4" height="4" fill="#eb5757"/></svg>'
)


def play_page(title: str = "puzzlegym") -> bytes:
    """The human page: the browser backend's page in remote mode, its tab titled ``title``
    and given the favicon."""
    page = page_file("index.html").read_text(encoding="utf-8")
    page = page.replace("<title>puzzlegym</title>", f"<title>{html.escape(title)}</title>")
    page = page.replace(
        '<meta charset="utf-8">',
        '<meta charset="utf-8">\n<link rel="icon" href="favicon.svg" type="image/svg+xml">',
    )
    return page.replace(
        '<script src="page.js"></script>',
        '<script>window.PUZZLEGYM_REMOTE = true;</script>\n<script src="page.js"></script>',
    ).encode()


def page_title(env_id: str) -> str:
    """The human page's tab title: the objective's game and tier (``Maze Paint Easy``)."""
    game, tier = parse_env_id(env_id)
    return f"{game.title} {tier} · puzzlegym play"


PUBLIC = frozenset(  # the page's static files: everything else needs the token, if any
    {("GET", "/"), ("GET", "/favicon.svg"), ("GET", "/favicon.ico"), ("GET", "/page.js")}
)


def make_play_server(
    host: str,
    port: int,
    play: PlaySession,
    sock: socket.socket | None = None,
    token: str | None = None,
) -> HTTPServer:
    """The ``play`` HTTP server (``sock``: a socket from
    :func:`~puzzlegym.service.http.listen`, else one is bound here). A non-loopback ``host``
    needs a ``token``: the page reads it from its address's fragment (``/#token=...``, never
    sent to a server) and sends it as ``Authorization: Bearer`` with the frames and events it
    asks for; the static files are public."""
    check_token("play", host, token)
    script = page_file("page.js").read_bytes()
    page = play_page(page_title(play.env_id))
    routes = {
        ("GET", "/"): lambda s, _: Reply(200, page, "text/html; charset=utf-8"),
        ("GET", "/favicon.svg"): lambda s, _: Reply(200, FAVICON, "image/svg+xml"),
        ("GET", "/favicon.ico"): lambda s, _: Reply(200, FAVICON, "image/svg+xml"),
        ("GET", "/page.js"): lambda s, _: Reply(200, script, "text/javascript"),
        ("GET", "/play/frame"): lambda s, _: Reply.json(play.full_frame()),
        ("POST", "/play/events"): lambda s, body: Reply.json(play.events(body)),
        ("POST", "/play/again"): lambda s, body: Reply.json(play.again(body)),
        ("POST", "/play/next"): lambda s, body: Reply.json(play.next_level(body)),
        ("GET", "/play/rules"): lambda s, _: Reply.json(play.rules()),
    }
    return make_server(host, port, routes, token=token, sock=sock, public=PUBLIC)
