"""Frames of every screen a person sees, as PNG files: the games gallery's pictures
(``docs/gallery.md``).

    python scripts/gallery.py OUT_DIR [--scale 0.5] [--quantize] [--only IDS] [--play]

For every objective: the first board of level 1, a mid-game board (half of the solver's
moves of level 1 played through GUI actions) and the screen right after level 1 is won;
for two objectives the screen after their last level is won; the home screen, a
difficulty screen with a completed tier and a level whose Undo has no history; a blocked
truck's roll (the human page's in-between frame, where the code has one); with ``--play``
the ``puzzlegym play`` page in Chromium at 1366x768. ``--scale`` downscales (Lanczos),
``--quantize`` stores 256-colour PNGs (for the docs; the frames themselves are exact RGB).
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import gymnasium as gym
from PIL import Image

import puzzlegym  # noqa: F401  (registers the ids)
from puzzlegym import solvers
from puzzlegym.agents import SolverAgent
from puzzlegym.game.registry import env_ids, get_game
from puzzlegym.screen.render import render_full
from puzzlegym.suite.shell import Suite
from puzzlegym.suite.view import suite_widgets

QUANTIZE = False


def _save(frame, out: Path, name: str, scale: float) -> None:
    img = Image.fromarray(frame) if not isinstance(frame, Image.Image) else frame.convert("RGB")
    if scale != 1:
        img = img.resize(
            (round(img.width * scale), round(img.height * scale)), Image.Resampling.LANCZOS
        )
    if QUANTIZE:
        img = img.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    img.save(out / f"{name}.png", optimize=True)


def _short(env_id: str) -> str:
    return env_id.split("/", 1)[1]


def _level_frames(env_id: str, out: Path, scale: float) -> None:
    """First board, mid-game and won screens of level 1 of ``env_id``."""
    env = gym.make(env_id, start="board", level=1)
    obs, _ = env.reset(seed=0)
    _save(obs, out, f"{_short(env_id)}-first", scale)
    moves = solvers.solve(env.unwrapped.probe().board.level).moves
    agent = SolverAgent(env.unwrapped)
    played = 0
    target = len(moves) // 2
    while True:
        before = env.unwrapped.probe().board.state
        obs, _, term, trunc, _ = env.step(agent())
        probe = env.unwrapped.probe()
        if probe.board is not None and probe.board.state != before:
            played += 1
            if played == target:
                _save(obs, out, f"{_short(env_id)}-mid", scale)
        if term or trunc:
            break
    _save(obs, out, f"{_short(env_id)}-won", scale)
    env.close()


def _objective_end(env_id: str, out: Path, scale: float) -> None:
    """The screen after the objective's last level is won (a whole tier played)."""
    env = gym.make(env_id)
    env.reset(seed=0)
    agent = SolverAgent(env.unwrapped)
    while True:
        obs, _, term, trunc, _ = env.step(agent())
        if term or trunc:
            break
    _save(obs, out, f"{_short(env_id)}-end", scale)
    env.close()


def _menus(out: Path, scale: float) -> None:
    from puzzlegym.game.registry import games

    registered = {name: get_game(name) for name in games()}
    suite = Suite(registered, lambda g, t: registered[g].catalogue(t))
    _save(render_full(suite_widgets(suite)), out, "home", scale)
    suite.choose_game("NutAndBolt")
    suite.progress[("NutAndBolt", "Easy")] = set(
        range(len(registered["NutAndBolt"].catalogue("Easy")))
    )
    suite.progress[("NutAndBolt", "Medium")] = {0}
    _save(render_full(suite_widgets(suite)), out, "difficulty", scale)
    suite.enter_tier("Medium")  # level 2: the undo history is empty
    _save(render_full(suite_widgets(suite)), out, "NutAndBolt-Medium-level2", scale)


def _truck_roll(out: Path, scale: float) -> None:
    """The human page's frame of a blocked truck halfway through its roll (when the code
    draws one)."""
    try:
        from puzzlegym.backends.human import HumanPage
    except ImportError:
        return
    from puzzlegym.envs.truck_escape import rules, view
    from puzzlegym.screen.layout import BOARD_AREA

    env = gym.make("LongPuzzle/TruckEscape-Default", start="board")
    env.reset(seed=0)
    page = HumanPage(env)
    page.full()
    board = env.unwrapped.probe().board
    blocked = next(
        i for i in range(board.level.n_trucks) if not rules.can_leave(board.level, board.state, i)
    )
    x, y = view.click_point(board.level, blocked, BOARD_AREA)
    env.step({"type": "click", "x": x, "y": y})
    frames = [page.frame.copy() for _ in page.after_step()]
    _save(frames[(len(frames) - 1) // 2], out, "TruckEscape-Default-roll", scale)
    env.close()


def _play_page(out: Path, scale: float) -> None:
    """``puzzlegym play`` in Chromium at 1366x768 (Bolt Unscrew Hard, level 1)."""
    import tempfile
    import threading

    from playwright.sync_api import sync_playwright

    from puzzlegym.backends.browser import CHROMIUM_ARGS, chromium_path
    from puzzlegym.service.play import PlaySession, make_play_server

    with tempfile.TemporaryDirectory() as tmp:
        session = PlaySession("LongPuzzle/BoltUnscrew-Hard", Path(tmp) / "human", start="board")
        server = make_play_server("127.0.0.1", 0, session)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=chromium_path(), args=list(CHROMIUM_ARGS)
                )
                page = browser.new_page(viewport={"width": 1366, "height": 768})
                page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
                page.wait_for_timeout(1500)
                shot = Image.open(io.BytesIO(page.screenshot()))
                browser.close()
            _save(shot, out, "play-1366x768", scale)
        finally:
            server.shutdown()
            server.server_close()
            session.close()


def main(argv: list[str] | None = None) -> None:
    global QUANTIZE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--quantize", action="store_true")
    parser.add_argument("--play", action="store_true", help="also the play page in Chromium")
    parser.add_argument("--only", default="", help="comma-separated objective ids (short form)")
    args = parser.parse_args(argv)
    QUANTIZE = args.quantize
    args.out.mkdir(parents=True, exist_ok=True)
    only = {s for s in args.only.split(",") if s}
    for env_id in env_ids():
        if only and _short(env_id) not in only:
            continue
        _level_frames(env_id, args.out, args.scale)
    for env_id in ("LongPuzzle/TruckEscape-Default", "LongPuzzle/MazePaint-Easy"):
        if not only or _short(env_id) in only:
            _objective_end(env_id, args.out, args.scale)
    _menus(args.out, args.scale)
    if not only or "TruckEscape-Default" in only:
        _truck_roll(args.out, args.scale)
    if args.play:
        _play_page(args.out, args.scale)


if __name__ == "__main__":
    main()
