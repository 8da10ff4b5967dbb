"""The human page of ``puzzlegym play`` (issue 25, part 2, items 1 and 4): a move's
in-between frames and a drag's preview for the person only (the env's observations stay the
settled frames, pointer moves are no actions), the pointer's shape (from what the pictures
show, not from which moves are legal), replies that hold frames and a pointer shape only;
and in a real Chromium at 1366x768 and 1920x1080 the page scaled to the window with the
pointer mapped back to the exact screen pixel."""

from __future__ import annotations

import base64
import io
import json
import threading
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from puzzlegym import solvers
from puzzlegym.base.actions import to_dict
from puzzlegym.envs.bolt_unscrew import rules as BR
from puzzlegym.envs.bolt_unscrew import view as BV
from puzzlegym.envs.rush_hour import rules as RR
from puzzlegym.envs.rush_hour import view as RV
from puzzlegym.envs.truck_escape import rules as TR
from puzzlegym.envs.truck_escape import view as TV
from puzzlegym.screen.layout import BOARD_AREA, FEEDBACK
from puzzlegym.service.http import RequestError
from puzzlegym.service.play import PlaySession, make_play_server
from puzzlegym.suite.view import MAX_MOTION_FRAMES, motion_scenes


class Page:
    """The page as the browser would draw it: the replies' patches applied in order."""

    def __init__(self, session: PlaySession):
        self.session = session
        self.frame = np.zeros((900, 1280, 3), np.uint8)
        self.frames: list[np.ndarray] = []  # every frame drawn, in order
        self.t = 1000.0
        self.draw(session.full_frame())

    def draw(self, reply: dict) -> dict:
        assert set(reply) == {"frames", "cursor", "status"} and reply["cursor"] in (
            "default",
            "pointer",
            "grab",
        )
        assert set(reply["status"]) == {"text", "warning", "restart", "over"}
        json.dumps(reply)  # plain JSON
        for patches in reply["frames"]:
            for x, y, data in patches:
                assert isinstance(x, int) and isinstance(y, int) and isinstance(data, str)
                img = Image.open(io.BytesIO(base64.b64decode(data)))
                assert img.format == "PNG" and img.mode == "RGB"
                arr = np.asarray(img)
                self.frame[y : y + arr.shape[0], x : x + arr.shape[1]] = arr
            self.frames.append(self.frame.copy())
        return reply

    def send(self, *events) -> dict:
        batch = []
        for kind, *rest in events:
            self.t += 40
            ev = {"kind": kind, "t": self.t}
            if rest:
                ev["x"], ev["y"] = rest
            batch.append(ev)
        return self.draw(self.session.events(batch))

    def click(self, x, y) -> dict:
        return self.send(("pointer_down", x, y), ("pointer_up", x, y))


@pytest.fixture
def session(tmp_path):
    made = []

    def _make(env_id, **kwargs):
        s = PlaySession(env_id, tmp_path / f"human{len(made)}", **kwargs)
        made.append(s)
        return s

    yield _make
    for s in made:
        s.close()


def test_a_blocked_truck_rolls_to_its_blocker_and_back_on_the_page_only(session):
    s = session("LongPuzzle/TruckEscape-Default", start="board")
    page = Page(s)
    u = s.env.unwrapped
    level, state = u.probe().board.level, u.probe().board.state
    blocked = next(i for i in range(level.n_trucks) if not TR.can_leave(level, state, i))
    page.frames.clear()
    reply = page.click(*TV.click_point(level, blocked, BOARD_AREA))
    assert u.actions == 1 and u.probe().board.feedback == TR.BLOCKED_REASON
    n = len(reply["frames"])
    assert 3 <= n <= MAX_MOTION_FRAMES + 1
    # the in-between frames show the truck off its cells; the last one is the env's frame
    assert all(not np.array_equal(f, s.obs) for f in page.frames[:-1])
    assert np.array_equal(page.frames[-1], s.obs)
    # it rolls along its heading up to the first truck on its path (nudging it) and back
    truck = level.trucks[blocked]
    path = truck.path(level.rows, level.cols)
    gap = next(k for k, c in enumerate(path) if c in level.occupant)
    cell = TV.layout(level, BOARD_AREA).cell
    dr, dc = TR.DELTAS[truck.facing]
    home = TV.truck_rect(level, blocked, BOARD_AREA)
    offsets = []
    for scene in motion_scenes(u.suite):
        r = next(w.rect for w in scene if w.id == f"truck{blocked}")
        assert (r.x - home.x) * dr == 0 and (r.y - home.y) * dc == 0  # along its heading
        offsets.append((r.x - home.x) * dc + (r.y - home.y) * dr)
    peak = offsets.index(max(offsets))
    assert max(offsets) == gap * cell + cell // 6
    assert offsets[: peak + 1] == sorted(offsets[: peak + 1]) and offsets[peak:] == sorted(
        offsets[peak:], reverse=True
    )
    assert 0 < offsets[-1] < max(offsets)
    # the env saw one settled frame, the same as an env that never had a page
    plain = gym.make("LongPuzzle/TruckEscape-Default", start="board")
    try:
        plain.reset(seed=0)
        obs, *_ = plain.step(
            {
                "type": "click",
                "x": TV.click_point(level, blocked, BOARD_AREA)[0],
                "y": TV.click_point(level, blocked, BOARD_AREA)[1],
            }
        )
        assert np.array_equal(obs, s.obs)
    finally:
        plain.close()


def test_a_whole_objective_played_through_the_page_ends_on_the_env_frame(session):
    """Every reply of a solved objective stays bounded, and the page ends showing exactly the
    env's frame (the objective-complete screen)."""
    s = session("LongPuzzle/TruckEscape-Default")
    page = Page(s)
    u = s.env.unwrapped
    steps = 0
    while not s.done:
        probe = u.probe()
        if probe.board is not None and probe.screen == "level":
            move = solvers.solve(probe.board.level, probe.board.state).moves[0]
            (action,) = probe.board.actions_for_move(move)
            x, y = action.x, action.y
        else:
            x, y = (
                next(iter(probe.controls.values())).center
                if probe.screen != "home"
                else probe.controls["game:TruckEscape"].center
            )
        reply = page.click(x, y)
        assert len(reply["frames"]) <= MAX_MOTION_FRAMES + 1
        steps += 1
        assert steps < 200
    assert u.probe().screen == "objective_complete" and u.evaluator.success
    assert np.array_equal(page.frame, s.obs)


def test_a_held_drag_previews_the_vehicle_and_moves_are_no_actions(session):
    s = session("LongPuzzle/RushHour-Easy", start="board")
    page = Page(s)
    u = s.env.unwrapped
    level, state = u.probe().board.level, u.probe().board.state
    i = next(
        k
        for k in range(len(level.vehicles))
        if RR.slide_range(level, state, k)[1] > state.positions[k] and level.vehicles[k].horizontal
    )
    lo, hi = RR.slide_range(level, state, i)
    cell = RV.layout(level, BOARD_AREA).cell
    x0, y0 = RV.vehicle_rect(level, i, state.positions[i], BOARD_AREA).center
    page.send(("pointer_down", x0, y0))
    shown = page.send(("pointer_move", x0 + 20, y0), ("pointer_move", x0 + cell // 2, y0 + 3))
    assert len(shown["frames"]) == 1 and shown["cursor"] == "grab"
    assert u.actions == 0 and u.probe().board.state == state  # nothing played yet
    assert not np.array_equal(page.frame, s.obs)
    scene = page.session.page  # the preview follows the pointer, within the free run
    far = page.send(("pointer_move", x0 + 5000, y0))
    assert len(far["frames"]) == 1
    from puzzlegym.suite.view import drag_scene

    moved = next(
        w for w in reversed(drag_scene(u.suite, x0, y0, x0 + 5000, y0)) if w.id == f"rush:v{i}"
    )
    home = RV.vehicle_rect(level, i, state.positions[i], BOARD_AREA)
    assert moved.rect.x - home.x == (hi - state.positions[i]) * cell
    assert scene.previewing
    done = page.send(("pointer_up", x0 + cell, y0))
    assert u.actions == 1 and u.probe().board.state.positions[i] == state.positions[i] + 1
    assert len(done["frames"]) == 1 and np.array_equal(page.frame, s.obs)
    # a drag let go where it started (a click): the preview is taken back
    page.send(("pointer_down", x0 + cell, y0), ("pointer_move", x0 + cell + 40, y0))
    page.send(("pointer_move", x0 + cell + 2, y0), ("pointer_up", x0 + cell + 2, y0))
    assert np.array_equal(page.frame, s.obs) and not scene.previewing


def test_the_pointer_shape_tells_pieces_apart_not_legal_moves(session):
    s = session("LongPuzzle/BoltUnscrew-Hard", start="board")
    page = Page(s)
    u = s.env.unwrapped
    level, state = u.probe().board.level, u.probe().board.state

    def shape(x, y):
        return page.send(("pointer_move", x, y))["cursor"]

    pinned = next(a for a in BR.bits(state.occupied) if not BR.selectable(level, state, a))
    pickable = next(a for a in BR.bits(state.occupied) if BR.selectable(level, state, a))
    free = next(BR.bits(BR.available(level, state)))
    closed = next(BR.bits(level.all_anchors & ~state.occupied & level.covered(state.remaining)))
    for a in (pinned, pickable, free, closed):
        assert shape(*BV.anchor_xy(level, a, BOARD_AREA)) == "pointer", a
    plate = BV.plate_rect(level, BOARD_AREA)
    assert shape(plate.x + 4, plate.y + 4) == "default"
    assert shape(*u.probe().controls["menu"].center) == "pointer"
    assert shape(5, 880) == "default"
    assert u.actions == 0  # pointer moves are never actions
    s2 = session("LongPuzzle/RushHour-Easy", start="board")
    page2 = Page(s2)
    lv, st = s2.env.unwrapped.probe().board.level, s2.env.unwrapped.probe().board.state
    x, y = RV.vehicle_rect(lv, 0, st.positions[0], BOARD_AREA).center
    assert page2.send(("pointer_move", x, y))["cursor"] == "grab"
    empty = next(
        (r, c)
        for r in range(lv.height)
        for c in range(lv.width)
        if RV.vehicle_at(lv, st, (r, c)) is None
    )
    assert (
        page2.send(("pointer_move", *RV.layout(lv, BOARD_AREA).center(*empty)))["cursor"]
        == "default"
    )


# ----------------------------------------------------------------------------- real Chromium
class _Server:
    def __init__(self, session: PlaySession, host: str = "127.0.0.1", token: str | None = None):
        self.server = make_play_server(host, 0, session, token=token)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _screen_point(page):
    """The page point of a screen pixel's centre, as the scaled canvas shows it now."""
    left, top, w, _h = page.evaluate(
        "(() => { const r = document.getElementById('screen').getBoundingClientRect();"
        " return [r.left, r.top, r.width, r.height]; })()"
    )
    scale = w / 1280
    return lambda x, y: (left + (x + 0.5) * scale, top + (y + 0.5) * scale)


def _wait(condition, timeout=10.0):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "the page did not catch up"
        time.sleep(0.05)


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [(1366, 768), (1920, 1080)])
def test_the_play_page_fits_the_window_and_clicks_land_on_the_screen_pixel(session, viewport):
    from playwright.sync_api import sync_playwright

    from puzzlegym.backends.browser import CHROMIUM_ARGS, chromium_path

    s = session("LongPuzzle/TruckEscape-Default", start="board", level=1)
    server = _Server(s)
    u = s.env.unwrapped
    vw, vh = viewport
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
            page = browser.new_page(viewport={"width": vw, "height": vh})
            page.goto(server.url + "/")
            box = page.evaluate(
                "(() => { const r = document.getElementById('screen').getBoundingClientRect();"
                " return [r.left, r.top, r.width, r.height]; })()"
            )
            left, top, w, h = box
            scale = min(vw / 1280, vh / 900)
            px = 0.1  # CSS layout rounds to 1/64 px
            assert w == pytest.approx(1280 * scale, abs=px) and h == pytest.approx(
                900 * scale, abs=px
            )
            assert left == pytest.approx((vw - w) / 2, abs=px) and top == pytest.approx(
                (vh - h) / 2, abs=px
            )
            level = u.probe().board.level
            blocked = next(
                i
                for i in range(level.n_trucks)
                if not TR.can_leave(level, u.probe().board.state, i)
            )

            def click(x, y):
                n = u.actions
                page.mouse.click(left + (x + 0.5) * scale, top + (y + 0.5) * scale)
                _wait(lambda: u.actions == n + 1)

            def differences():
                """Mean difference of the board area and the feedback line, as the page shows
                them, from the env's frame scaled the same way."""
                shot = np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("RGB")).astype(
                    int
                )
                assert shot.shape == (vh, vw, 3)
                want = np.asarray(
                    Image.fromarray(s.obs).resize((round(w), round(h)), Image.Resampling.BILINEAR)
                )
                out = []
                for rect in (BOARD_AREA, FEEDBACK):  # inside the window, and showing the frame
                    x0, y0 = round(left + rect.x * scale), round(top + rect.y * scale)
                    x1, y1 = round(left + rect.x1 * scale), round(top + rect.y1 * scale)
                    assert 0 <= x0 < x1 <= vw and 0 <= y0 < y1 <= vh, rect
                    ref = want[
                        y0 - round(top) : y1 - round(top), x0 - round(left) : x1 - round(left)
                    ]
                    out.append(float(np.abs(shot[y0:y1, x0:x1] - ref.astype(int)).mean()))
                return out

            click(*TV.click_point(level, blocked, BOARD_AREA))  # "That truck is blocked"
            # the server's thread counts the action before its step has applied it
            _wait(lambda: u.probe().board.feedback == TR.BLOCKED_REASON)
            _wait(lambda: max(differences()) < 6)  # the reply's frames are drawn
            moves = solvers.solve(level, u.probe().board.state).moves
            for move in moves:
                (action,) = u.probe().board.actions_for_move(move)
                click(action.x, action.y)
            _wait(lambda: s.done)  # the session's reply to the winning click
            browser.close()
        assert u.evaluator.success and s.done
        log = Path(s.env.unwrapped.record_path) / "log.jsonl"
        actions = [rec["action"] for rec in map(json.loads, log.open()) if rec["kind"] == "action"]
        want_xy = [TV.click_point(level, blocked, BOARD_AREA)]
        state = TR.initial_state(level)
        for move in moves:
            want_xy.append(TV.click_point(level, move, BOARD_AREA))
            state = TR.apply(level, state, move)
        assert [(a["x"], a["y"]) for a in actions] == want_xy  # the exact screen pixels
    finally:
        server.close()


def test_the_status_line_shows_moves_par_a_warning_off_the_objective_and_restart(
    session, monkeypatch
):
    """Issue 33, item 3: the human page's own status (never in a frame): the level's moves
    and par (the solver-optimal length), a warning while the person plays another game than
    the objective, and Restart's rectangle once a restart would throw away
    CONFIRM_RESTART_MOVES moves."""
    from puzzlegym.game.registry import get_game
    from puzzlegym.service import play

    monkeypatch.setattr(play, "CONFIRM_RESTART_MOVES", 2)
    s = session("LongPuzzle/MazePaint-Easy", start="board", level=1)
    u = s.env.unwrapped
    par = solvers.solve(get_game("MazePaint").load_catalogue("Easy")[0]).length
    # the par is solved on a background thread: the first replies may come before it
    assert play.PARS.wait("MazePaint", "Easy", 0) == par
    status = s.full_frame()["status"]
    assert status == {
        "text": f"Maze Paint Easy level 1 · moves 0 · par {par}",
        "warning": None,
        "restart": None,
        "over": None,
    }
    board = u.probe().board
    for move in solvers.solve(board.level).moves[:2]:  # two moves (played as GUI actions)
        for action in u.probe().board.actions_for_move(move):
            s.env.step(to_dict(action))
    status = s.full_frame()["status"]
    r = u.probe().control("restart")
    assert status["text"] == f"Maze Paint Easy level 1 · moves 2 · par {par}"
    assert status["restart"] == [r.x, r.y, r.w, r.h]
    # from the home screen into another game: the warning names it and the objective
    h = session("LongPuzzle/MazePaint-Easy")
    home = Page(h)
    assert h.full_frame()["status"] == {
        "text": "objective: Maze Paint Easy",
        "warning": None,
        "restart": None,
        "over": None,
    }
    card = h.env.unwrapped.probe().control("game:RushHour")
    status = home.click(*card.center)["status"]
    assert h.env.unwrapped.probe().game.name == "RushHour"
    assert status["warning"] == (
        "Rush Hour is outside this episode's objective (Maze Paint Easy): play here does not "
        "count. Go back to the home screen and choose Maze Paint, then Easy."
    )
    tier = h.env.unwrapped.probe().control("tier:Medium")
    status = home.click(*tier.center)["status"]
    assert status["warning"].startswith("Rush Hour Medium is outside this episode's objective")


def test_the_play_page_is_titled_by_the_objective_and_has_a_favicon():
    from puzzlegym.service.play import FAVICON, page_title, play_page

    assert page_title("LongPuzzle/NutAndBolt-Hard") == "Nut and Bolt Hard · puzzlegym play"
    html = play_page(page_title("LongPuzzle/NutAndBolt-Hard")).decode()
    assert "<title>Nut and Bolt Hard · puzzlegym play</title>" in html
    assert '<link rel="icon" href="favicon.svg" type="image/svg+xml">' in html
    assert "<title>a&lt;b</title>" in play_page("a<b").decode()  # escaped
    assert FAVICON.startswith(b"<svg") and len(FAVICON) < 1000


@pytest.mark.browser
def test_the_play_page_in_chromium_titles_its_tab_shows_its_status_and_confirms_restart(
    session, monkeypatch
):
    """Issue 33, item 3, in a real Chromium at 1366x768: the tab names the game, the favicon
    loads (no request fails), the status line shows the moves and par, and a click on Restart
    after a move asks first: dismissed, nothing is played; accepted, the level restarts."""
    from playwright.sync_api import sync_playwright

    from puzzlegym.backends.browser import CHROMIUM_ARGS, chromium_path
    from puzzlegym.service import play

    monkeypatch.setattr(play, "CONFIRM_RESTART_MOVES", 1)
    par = play.PARS.wait("MazePaint", "Easy", 0)  # known before the page's first reply
    s = session("LongPuzzle/MazePaint-Easy", start="board", level=1)
    server = _Server(s)
    u = s.env.unwrapped
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
            page = browser.new_page(viewport={"width": 1366, "height": 768})
            failed: list[str] = []
            page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
            dialogs: list[str] = []
            answer = {"accept": False}

            def on_dialog(d):
                dialogs.append(d.message)
                d.accept() if answer["accept"] else d.dismiss()

            page.on("dialog", on_dialog)
            page.goto(server.url + "/")
            assert page.title() == "Maze Paint Easy · puzzlegym play"
            at = _screen_point(page)
            _wait(lambda: f"moves 0 · par {par}" in page.inner_text("#status"))
            (drag,) = u.probe().board.actions_for_move(
                solvers.solve(u.probe().board.level).moves[0]
            )
            page.mouse.move(*at(drag.x0, drag.y0))
            page.mouse.down()
            page.mouse.move(*at(drag.x1, drag.y1), steps=4)
            page.mouse.up()
            _wait(
                lambda: (
                    page.inner_text("#status") == f"Maze Paint Easy level 1 · moves 1 · par {par}"
                )
            )
            restart = u.probe().control("restart")
            page.mouse.click(*at(*restart.center))
            assert dialogs == ["Restart this level? The moves of this attempt are lost."]
            time.sleep(0.3)
            assert u.probe().board.depth == 1  # dismissed: nothing was sent
            answer["accept"] = True
            page.mouse.click(*at(*restart.center))
            _wait(lambda: u.probe().board.depth == 0)
            assert len(dialogs) == 2
            page.goto(server.url + "/favicon.ico")
            browser.close()
        assert failed == []
    finally:
        server.close()


@pytest.mark.browser
def test_a_foreign_page_cannot_frame_play_nor_reach_it_beyond_loopback_without_the_token(
    session,
):
    """Issue 45, items 3 and 4, in a real Chromium. A foreign page shows the play page in an
    iframe and the person clicks the card there: the frame is refused (nothing played). Served
    on 0.0.0.0 with a token, a page opened without the token's fragment (as a DNS-rebinding
    page would reach it) plays nothing; the printed address, with ``#token=``, plays."""
    from playwright.sync_api import sync_playwright

    from puzzlegym.backends.browser import CHROMIUM_ARGS, chromium_path

    token = "t0ken-" + "x" * 20
    s = session("LongPuzzle/MazePaint-Easy")
    server = _Server(s, host="0.0.0.0", token=token)
    u = s.env.unwrapped
    card = u.suite.targets()["game:MazePaint"].center
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
            page = browser.new_page(viewport={"width": 1366, "height": 768})
            refused: list[int] = []
            page.on("response", lambda r: refused.append(r.status) if r.status >= 400 else None)
            page.set_content(
                f'<iframe src="{server.url}/#token={token}" width="1280" height="900" '
                'style="border:0;position:absolute;left:0;top:0"></iframe>'
            )
            time.sleep(1.0)
            framed = page.frames[1]
            assert framed.url.startswith("chrome-error://")  # X-Frame-Options / frame-ancestors
            page.mouse.click(card[0] * 1366 / 1280, card[1] * 768 / 900)
            time.sleep(0.5)
            assert u.actions == 0

            def click_card():
                page.mouse.click(*_screen_point(page)(*card))

            page.goto(server.url + "/")  # the page is public, its frames and events are not
            time.sleep(0.5)
            click_card()
            time.sleep(0.5)
            assert u.actions == 0 and 401 in refused
            assert "this page needs its token" in page.inner_text("#status")
            page.goto(f"{server.url}/#token={token}")
            page.reload()
            click_card()
            _wait(lambda: u.actions == 1)
            assert u.suite.screen == "difficulty"
            browser.close()
    finally:
        server.close()


def _solve_through_the_page(s: PlaySession, page: Page) -> dict:
    """Play the single level of ``s`` (on its board) to its win through the page's drags."""
    u = s.env.unwrapped
    reply: dict = {}
    for move in solvers.solve(u.probe().board.level).moves:
        for a in u.probe().board.actions_for_move(move):
            reply = page.send(("pointer_down", a.x0, a.y0), ("pointer_up", a.x1, a.y1))
    return reply


def test_after_a_win_the_page_and_terminal_say_it_is_over_and_offer_again_or_next(tmp_path):
    """Issue 43, item 3: after a win with ``play --level K`` the Next button did nothing and
    nothing said why (events after the end were dropped silently). The win states the moves
    against par; the end says the episode is over and where it is recorded, on the page and
    in the terminal; Play again starts a new episode in a new record, Next level the level
    after."""
    from puzzlegym.service import play

    lines: list[str] = []
    s = PlaySession(
        "LongPuzzle/MazePaint-Easy", tmp_path / "human", log=lines.append, start="board", level=1
    )
    try:
        par = play.PARS.wait("MazePaint", "Easy", 0)
        page = Page(s)
        with pytest.raises(RequestError, match="still being played"):
            s.again({})
        status = _solve_through_the_page(s, page)["status"]
        record = s.base.record_path
        assert status["text"].startswith(
            f"Maze Paint Easy level 1 won in {par} moves · par {par} (optimal)"
        )
        assert status["over"] == {
            "text": f"The episode is complete and recorded in {record}: 1 of 1 level won in "
            f"{s.base.probe().actions} actions.",
            "next_level": 2,
        }
        assert lines == [
            f"puzzlegym play: {status['over']['text']} The page offers: Play again "
            "or go on to level 2."
        ]
        assert page.click(640, 450)["status"]["over"] == status["over"]  # still said, not dropped
        reply = page.draw(s.again({}))
        assert reply["status"]["over"] is None and s.base.record_path == f"{tmp_path / 'human'}-2"
        assert s.base.probe().board.number == 1 and s.base.probe().board.depth == 0
        _solve_through_the_page(s, page)
        reply = page.draw(s.next_level({}))
        assert s.base.probe().board.number == 2 and reply["status"]["over"] is None
        assert json.loads((Path(record) / "manifest.json").read_text())["result"]["success"]
        with pytest.raises(RequestError, match="expected an empty body"):
            s.next_level({"level": 9})
    finally:
        s.close()


@pytest.mark.browser
def test_the_play_page_shows_rules_keeps_the_title_clear_and_offers_play_again(session):
    """Issue 43, item 3, in a real Chromium at 1366x768: the status line no longer covers the
    screen's title (it sits in the window's bottom-left corner), a Rules button shows the
    game's rule card (keys go to it, not the game, until it is closed), and once the level is
    won the page says the episode is over and its Play again button starts a new episode."""
    from playwright.sync_api import sync_playwright

    from puzzlegym.backends.browser import CHROMIUM_ARGS, chromium_path
    from puzzlegym.game.registry import get_game

    s = session("LongPuzzle/MazePaint-Easy", start="board", level=1)
    server = _Server(s)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
            page = browser.new_page(viewport={"width": 1366, "height": 768})
            page.goto(server.url + "/")
            _wait(lambda: "moves 0" in page.inner_text("#status"))
            box = page.evaluate(
                "(() => { const s = document.getElementById('status').getBoundingClientRect();"
                " const c = document.getElementById('screen').getBoundingClientRect();"
                " return [s.top, s.bottom, c.top + 64 * c.height / 900]; })()"
            )
            assert box[0] > box[2] and box[1] == pytest.approx(768 - 6, abs=1)  # below the title
            page.click("#rules-button")
            _wait(lambda: page.locator("#rules").count() == 1)
            card = get_game("MazePaint").rule_card.splitlines()[2]
            assert "Rules: Maze Paint" in page.inner_text("#rules") and card in page.inner_text(
                "#rules"
            )
            depth = s.env.unwrapped.probe().board.depth
            page.keyboard.press("ArrowDown")  # read by the card, not played
            page.keyboard.press("Escape")
            assert page.locator("#rules").count() == 0 and s.env.unwrapped.probe().actions == 0
            assert s.env.unwrapped.probe().board.depth == depth
            at = _screen_point(page)
            for move in solvers.solve(s.env.unwrapped.probe().board.level).moves:
                (drag,) = s.env.unwrapped.probe().board.actions_for_move(move)
                n = s.env.unwrapped.probe().actions
                page.mouse.move(*at(drag.x0, drag.y0))
                page.mouse.down()
                page.mouse.move(*at(drag.x1, drag.y1), steps=4)
                page.mouse.up()
                _wait(lambda n=n: s.env.unwrapped.probe().actions > n)
            _wait(lambda: "The episode is complete and recorded" in page.inner_text("#status"))
            page.click("#over button")  # Play again
            _wait(lambda: "moves 0" in page.inner_text("#status") and not s.done)
            assert s.base.record_path.endswith("-2")
            browser.close()
    finally:
        server.close()
