"""The Nut and Bolt reader (envs/nut_and_bolt/reader.py) against the env's truth:
every catalogue level's first board, every selection, seeded walks of legal moves played
through the reader's own clicks, tampered frames, and the browser backend's frames."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlegym.envs.nut_and_bolt.reader import READER
from puzzlegym.screen.palette import PIECES
from puzzlegym.vision.pixels import ReadError
from tests.vision_checks import board_env, check_reading, first_boards, walk

GAME = "NutAndBolt"
BOARDS = first_boards(GAME)


@pytest.mark.parametrize(("tier", "level"), BOARDS)
def test_every_first_board_reads_exactly(tier, level):
    env, obs = board_env(GAME, tier, level)
    board = env.unwrapped.probe().board
    reading = check_reading(READER, env, obs, tier)
    assert reading.state.bolts == board.state.bolts  # the whole board, bolt by bolt
    assert reading.level.capacity == board.level.capacity
    assert reading.geometry.selected is None
    assert len(reading.geometry.centres) == board.level.n_bolts
    env.close()


@pytest.mark.parametrize(
    ("tier", "level"), [("Easy", 1), ("Hard", 3), ("Extreme", 3), ("Nightmare", 1)]
)
def test_every_selection_reads_with_its_lifted_run(tier, level):
    """Each bolt with nuts selected in turn (clicked at the reader's centre): the reading
    names it as selected and still reads the lifted run as the top of its stack."""
    env, obs = board_env(GAME, tier, level)
    reading = READER.read(obs, tier)
    for i, nuts in enumerate(reading.state.bolts):
        if not nuts:
            continue
        obs, *_ = env.step(
            {
                "type": "click",
                "x": reading.geometry.centres[i][0],
                "y": reading.geometry.centres[i][1],
            }
        )
        assert env.unwrapped.probe().board.ui == i
        selected = check_reading(READER, env, obs, tier)
        assert selected.geometry.selected == i
        obs, *_ = env.step(
            {
                "type": "click",
                "x": selected.geometry.centres[i][0],
                "y": selected.geometry.centres[i][1],
            }
        )
        assert env.unwrapped.probe().board.ui is None
        assert READER.read(obs, tier).geometry.selected is None
    env.close()


def same_selection(reading, board):
    return reading.geometry.selected == board.ui


def _select_some_bolt(rng, env, reading):
    """Half the time leave a random bolt with nuts selected (the agent must deselect it)."""
    if rng.random() < 0.5:
        return None
    full = [i for i, b in enumerate(reading.state.bolts) if b]
    i = rng.choice(full)
    x, y = reading.geometry.centres[i]
    obs, *_ = env.step({"type": "click", "x": x, "y": y})
    assert env.unwrapped.probe().board.ui == i
    return obs


@pytest.mark.parametrize(("tier", "level"), BOARDS)
def test_seeded_walks_read_every_board_and_play_every_move(tier, level):
    read = sum(
        walk(READER, GAME, tier, level, seed, 12, poke=_select_some_bolt, same_ui=same_selection)
        for seed in range(2)
    )
    assert read >= 12


def test_a_wrong_letter_on_a_nut_is_reported():
    """A nut whose letter is not its colour's (the S of the nut below pasted onto the orange
    top nut of bolt 0) is an error naming the nut, not a silent colour reading."""
    env, obs = board_env(GAME, "Easy", 1)
    reading = READER.read(obs, "Easy")
    env.close()
    assert reading.state.bolts[0] == (1, 1, 0)  # bottom to top: S S O
    frame = obs.copy()
    x = reading.geometry.centres[0][0]
    h = reading.geometry.nut_height
    rows = np.flatnonzero((frame[:, x - h // 3] == PIECES[0].rgb).all(axis=1))
    top = (rows.min() + rows.max()) // 2  # the orange nut's middle row
    r = int(0.3 * h)
    patch = frame[top + h - r : top + h + r, x - r : x + r].copy()  # the S below it
    patch[(patch == PIECES[1].rgb).all(axis=2)] = PIECES[0].rgb  # its ink, on orange
    frame[top - r : top + r, x - r : x + r] = patch
    with pytest.raises(
        ReadError, match=r"the orange nut at \(176, \d+\) shows the letter 'S', not 'O'"
    ):
        READER.read(frame, "Easy")


def test_a_board_without_bolts_is_rejected():
    env, obs = board_env(GAME, "Easy", 1)
    env.close()
    blank = obs.copy()
    blank[(blank == (88, 94, 108)).all(axis=2)] = (232, 227, 216)  # the base plates painted over
    with pytest.raises(ReadError, match="found 0 bolt base plates"):
        READER.read(blank, "Easy")


def test_actions_deselect_switch_and_reject_bad_moves():
    env, obs = board_env(GAME, "Easy", 1)
    reading = READER.read(obs, "Easy")
    c = reading.geometry.centres
    assert READER.actions(reading, (0, 3)) == [
        {"type": "click", "x": c[0][0], "y": c[0][1]},
        {"type": "click", "x": c[3][0], "y": c[3][1]},
    ]
    obs, *_ = env.step(READER.actions(reading, (0, 3))[0])
    selected = READER.read(obs, "Easy")
    assert READER.actions(selected, (0, 3)) == [{"type": "click", "x": c[3][0], "y": c[3][1]}]
    assert READER.actions(selected, (1, 4)) == [
        {"type": "click", "x": c[0][0], "y": c[0][1]},
        {"type": "click", "x": c[1][0], "y": c[1][1]},
        {"type": "click", "x": c[4][0], "y": c[4][1]},
    ]
    for bad in [(0, 5), (-1, 2), (0,), "01", (True, 1), None]:
        with pytest.raises(ValueError, match="move: expected"):
            READER.actions(selected, bad)
    env.close()


@pytest.mark.browser
def test_browser_frames_read_identically():
    for tier, level in [("Easy", 1), ("Nightmare", 1)]:
        native, a = board_env(GAME, tier, level)
        browser, b = board_env(GAME, tier, level, backend="browser")
        try:
            ra, rb = READER.read(a, tier), READER.read(b, tier)
            assert (ra.state, ra.level, ra.geometry) == (rb.state, rb.level, rb.geometry)
            move = next(iter(native.unwrapped.probe().board.legal_moves()))
            first = READER.actions(ra, move)[0]
            a, *_ = native.step(first)
            b, *_ = browser.step(first)
            ra, rb = READER.read(a, tier), READER.read(b, tier)
            assert ra.geometry.selected == rb.geometry.selected == move[0]
            assert (ra.state, ra.geometry) == (rb.state, rb.geometry)
        finally:
            native.close()
            browser.close()
