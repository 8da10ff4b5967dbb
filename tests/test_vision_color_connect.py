"""The Color Connect reader (envs/color_connect/reader.py) against the env's
truth: every catalogue level's first board, every level solved through the reader's own
clicks, seeded walks of random connects and removes with paths left half drawn, tampered
frames, and the browser backend's frames."""

from __future__ import annotations

from itertools import islice

import pytest

from puzzlegym import solvers
from puzzlegym.envs.color_connect import rules
from puzzlegym.envs.color_connect.reader import READER
from puzzlegym.envs.color_connect.rules import Connect, Remove
from puzzlegym.screen.palette import PIECES
from puzzlegym.vision.pixels import ReadError
from tests.vision_checks import board_env, check_reading, first_boards, perform, walk

GAME = "ColorConnect"
BOARDS = first_boards(GAME)


def drawing_of(ui):
    return None if ui is None else (ui.pair, ui.cells)


def same_drawing(reading, board):
    return read_drawing(reading) == drawing_of(board.ui)


def read_drawing(reading):
    d = reading.geometry.drawing
    return None if d is None else (d.pair, d.cells)


@pytest.mark.parametrize(("tier", "level"), BOARDS)
def test_every_first_board_reads_exactly(tier, level):
    env, obs = board_env(GAME, tier, level)
    board = env.unwrapped.probe().board
    reading = check_reading(READER, env, obs, tier)
    assert reading.level.grid == board.level.grid
    assert reading.state == board.state
    assert (reading.geometry.rows, reading.geometry.cols) == (board.level.height, board.level.width)
    assert reading.geometry.drawing is None
    env.close()


@pytest.mark.parametrize(("tier", "level"), BOARDS)
def test_every_level_is_solved_through_the_readers_clicks(tier, level):
    """The solver's moves, each played with the reader's clicks from the frame just read
    (with every other path first left half drawn, so the clicks must cancel it): every board
    on the way reads exactly and the last one is solved."""
    env, obs = board_env(GAME, tier, level)
    board = env.unwrapped.probe().board
    moves = solvers.solve(board.level).moves
    for j, move in enumerate(moves):
        reading = check_reading(READER, env, obs, tier)
        state = env.unwrapped.probe().board.state
        others = [k for k, p in enumerate(state.paths) if p is None and k != move.pair]
        if j % 2 and others:
            obs = _half_draw(
                env, reading, others[0], next(rules.pair_paths(board.level, state, others[0]))
            )
            reading = check_reading(READER, env, obs, tier)
            assert read_drawing(reading) == drawing_of(env.unwrapped.probe().board.ui)
        obs = perform(READER, env, reading, move)
    assert env.unwrapped.probe().snapshot["solved"]  # perform() checked the last board too
    env.close()


def _half_draw(env, reading, pair, cells):
    """Click the start and the first turns of ``cells`` (never its end): a path left drawn."""
    w = reading.geometry.cols
    turns = [y for x, y, z in zip(cells, cells[1:], cells[2:], strict=False) if y - x != z - y]
    clicks = [cells[0], *turns[: max(0, len(turns) - 1)]]
    if len(clicks) == 1 and len(cells) > 2:
        clicks.append(cells[len(cells) // 2])  # a straight path: stop half way
    obs = None
    for x in clicks:
        cx, cy = reading.geometry.centre(*divmod(x, w))
        obs, *_ = env.step({"type": "click", "x": cx, "y": cy})
    assert env.unwrapped.probe().board.ui is not None
    return obs


def _pick(rng, level, state):
    connected = [k for k, p in enumerate(state.paths) if p is not None]
    if connected and rng.random() < 0.25:
        return Remove(rng.choice(connected))
    open_pairs = [k for k, p in enumerate(state.paths) if p is None]
    rng.shuffle(open_pairs)
    for k in open_pairs:
        paths = list(islice(rules.pair_paths(level, state, k), 30))
        if paths:
            return Connect(k, rng.choice(paths))
    return Remove(rng.choice(connected)) if connected else None


def _leave_a_path_drawn(rng, env, reading):
    if rng.random() < 0.5:
        return None
    board = env.unwrapped.probe().board
    open_pairs = [k for k, p in enumerate(board.state.paths) if p is None]
    for k in rng.sample(open_pairs, len(open_pairs)):
        paths = list(islice(rules.pair_paths(board.level, board.state, k), 10))
        if paths:
            obs = _half_draw(env, reading, k, rng.choice(paths))
            assert read_drawing(READER.read(obs, board.tier)) == drawing_of(
                env.unwrapped.probe().board.ui
            )
            return obs
    return None


@pytest.mark.parametrize(("tier", "level"), BOARDS)
def test_seeded_walks_read_every_board_and_play_every_move(tier, level):
    read = sum(
        walk(
            READER,
            GAME,
            tier,
            level,
            seed,
            8,
            poke=_leave_a_path_drawn,
            pick=_pick,
            same_ui=same_drawing,
        )
        for seed in range(2)
    )
    assert read >= 16


def test_a_dot_with_another_letter_is_reported():
    env, obs = board_env(GAME, "Hard", 10)
    reading = READER.read(obs, "Hard")
    env.close()
    level, geo = reading.level, reading.geometry
    a, b = (divmod(x, level.width) for x in level.endpoints[0])  # the two orange dots
    c, _ = (divmod(x, level.width) for x in level.endpoints[3])  # a yellow dot: dark letter too
    frame = obs.copy()
    r = int(0.2 * geo.cell)
    (ax, ay), (yx, yy) = geo.centre(*a), geo.centre(*c)
    patch = frame[yy - r : yy + r, yx - r : yx + r].copy()
    patch[(patch == PIECES[3].rgb).all(axis=2)] = PIECES[0].rgb
    frame[ay - r : ay + r, ax - r : ax + r] = patch
    with pytest.raises(
        ReadError, match=rf"the orange dot at \({ax}, {ay}\) shows the letter 'Y', not 'O'"
    ):
        READER.read(frame, "Hard")


def test_a_broken_path_is_reported():
    """A finished path with one cell's line painted out is no path: an error naming the
    cell, never a board with that pair unconnected."""
    env, obs = board_env(GAME, "Easy", 1)
    board = env.unwrapped.probe().board
    move = solvers.solve(board.level).moves[0]
    obs = perform(READER, env, READER.read(obs, "Easy"), move)
    reading = READER.read(obs, "Easy")
    env.close()
    geo = reading.geometry
    r, c = divmod(move.cells[1], geo.cols)
    x0, y0 = geo.x0 + c * geo.cell, geo.y0 + r * geo.cell
    frame = obs.copy()
    frame[y0 + 1 : y0 + geo.cell - 1, x0 + 1 : x0 + geo.cell - 1] = (250, 248, 243)
    with pytest.raises(ReadError, match=r"line .* (stops at|does not continue)"):
        READER.read(frame, "Easy")


def test_actions_cancel_a_drawn_path_and_reject_bad_moves():
    env, obs = board_env(GAME, "Easy", 1)
    reading = READER.read(obs, "Easy")
    level, geo = reading.level, reading.geometry
    move = solvers.solve(level).moves[0]
    start = geo.centre(*divmod(move.cells[0], geo.cols))
    obs, *_ = env.step({"type": "click", "x": start[0], "y": start[1]})
    drawn = READER.read(obs, "Easy")
    assert read_drawing(drawn) == (move.pair, (divmod(move.cells[0], geo.cols),))
    clicks = READER.actions(drawn, move)
    assert clicks[0] == {"type": "click", "x": start[0], "y": start[1]}  # cancel first
    assert clicks[1:] == READER.actions(reading, move)
    for bad in [
        Connect(99, (0, 1)),
        Connect(0, (0,)),
        Connect(0, (0, 10_000)),
        Remove(-1),
        (0, 1),
        None,
    ]:
        with pytest.raises(ValueError, match="move: expected Connect"):
            READER.actions(reading, bad)
    env.close()


@pytest.mark.browser
def test_browser_frames_read_identically():
    native, a = board_env(GAME, "Hard", 10)
    browser, b = board_env(GAME, "Hard", 10, backend="browser")
    try:
        level = native.unwrapped.probe().board.level
        moves = solvers.solve(level).moves
        for move in moves[:3]:
            ra, rb = READER.read(a, "Hard"), READER.read(b, "Hard")
            assert (ra.level, ra.state, ra.geometry) == (rb.level, rb.state, rb.geometry)
            for action in READER.actions(ra, move)[:-1]:  # the last click left out: a path drawn
                a, *_ = native.step(action)
                b, *_ = browser.step(action)
            ra, rb = READER.read(a, "Hard"), READER.read(b, "Hard")
            assert ra.geometry.drawing is not None and (ra.state, ra.geometry) == (
                rb.state,
                rb.geometry,
            )
            last = READER.actions(ra, move)[-1]
            a, *_ = native.step(last)
            b, *_ = browser.step(last)
    finally:
        native.close()
        browser.close()
