"""The vision readers of Maze Paint, Truck Escape and Rush Hour: the board rebuilt from the
full-resolution frame has the public state of the env's true board, on every catalogue
level's first board and on every board of seeded walks of legal moves played through the
reader's own GUI actions; the browser backend's frames are the same bytes and read the
same. Then, for every registered game's reader: it is its game's, and refuses what is no
level screen."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlegym.agents.vision import reader_for
from puzzlegym.game.registry import builtin_games, games, get_game
from puzzlegym.vision.pixels import ReadError
from tests.vision_checks import board_env, check_reading, first_boards, walk

GAMES = ["MazePaint", "TruckEscape", "RushHour"]


def _truck_of_reading(reading, board, move):
    """The reading numbers only the trucks on the board: the same truck by its place."""
    return reading.level.trucks.index(board.level.trucks[move])


def _vehicle_of_reading(reading, board, move):
    """The reading numbers vehicles target first, then top to bottom: the same vehicle by
    the cells it covers; positions along a lane are the same numbers."""
    i, to = move
    cells = board.level.cells(i, board.state.positions[i])
    j = next(
        j
        for j in range(len(reading.level.vehicles))
        if reading.level.cells(j, reading.state.positions[j]) == cells
    )
    return j, to


TRANSLATE = {"MazePaint": None, "TruckEscape": _truck_of_reading, "RushHour": _vehicle_of_reading}


@pytest.mark.parametrize("game", GAMES)
def test_every_catalogue_first_board_is_read_exactly(game):
    boards = first_boards(game)
    for tier, level in boards:
        env, obs = board_env(game, tier, level)
        try:
            check_reading(reader_for(game), env, obs, tier)
        finally:
            env.close()
    assert len(boards) == {"MazePaint": 30, "TruckEscape": 5, "RushHour": 30}[game]


@pytest.mark.parametrize("game", GAMES)
def test_seeded_walks_read_every_board_and_play_every_move(game):
    # every level of every tier, eight random legal moves from its first board played by the
    # reader's own actions (fewer where the walk solves the level first)
    reader = reader_for(game)
    read = sum(
        walk(reader, game, tier, level, 3, 8, translate=TRANSLATE[game])
        for tier, level in first_boards(game)
    )
    assert read >= 4 * len(first_boards(game))


@pytest.mark.parametrize("game", GAMES)
def test_browser_frames_are_the_native_bytes_and_read_the_same(game):
    reader = reader_for(game)
    for tier, level in first_boards(game)[:3]:
        native, frame = board_env(game, tier, level)
        native.close()
        env, obs = board_env(game, tier, level, backend="browser")
        try:
            assert np.array_equal(obs, frame), (tier, level)
            check_reading(reader, env, obs, tier)
        finally:
            env.close()


def test_the_check_fails_on_a_misread_board():
    """The check can fail: a frame with the ball painted over as floor is no board."""
    reader = reader_for("MazePaint")
    env, obs = board_env("MazePaint", "Easy", 1)
    try:
        state = env.unwrapped.probe().board.state
        g = reader.read(obs, "Easy").geometry
        x, y = g.center(*divmod(state.ball, g.cols))
        frame = obs.copy()
        half = g.cell // 2 - 1
        frame[y - half : y + half, x - half : x + half] = (226, 222, 212)
        with pytest.raises(ReadError, match="expected one ball, saw 0"):
            check_reading(reader, env, frame, "Easy")
    finally:
        env.close()


# ---------------------------- every game's reader (a plugin's included): its game's, frames refused
READER_GAMES = [name for name, game in games().items() if game.reader is not None]
NO_BOARD = {  # what the built-in readers say of a frame with no board
    "MazePaint": "maze paint: no board cell on the screen",
    "TruckEscape": "truck escape: no board cell on the screen",
    "RushHour": "rush hour: no board cell on the screen",
    "NutAndBolt": "no board panel",
    "ColorConnect": "no grid frame",
    "BoltUnscrew": "no steel plate",
}


def test_every_built_in_game_has_a_reader():
    assert set(builtin_games()) <= set(READER_GAMES) and set(NO_BOARD) == set(builtin_games())


@pytest.mark.parametrize("game", READER_GAMES)
def test_each_reader_is_its_games_reader(game):
    assert reader_for(game).game == game


@pytest.mark.parametrize("game", READER_GAMES)
def test_frames_that_are_not_a_level_screen_are_rejected(game):
    reader = reader_for(game)
    tier = get_game(game).tiers[0]
    for bad in (
        np.zeros((900, 1280), np.uint8),
        np.zeros((900, 1280, 4), np.uint8),
        np.zeros((450, 640, 3), np.uint8),
        np.zeros((900, 1280, 3), np.float32),
        [[0]],
        None,
    ):
        with pytest.raises(
            ReadError, match=r"frame: expected a uint8 array of shape \(900, 1280, 3\)"
        ):
            reader.read(bad, tier)
    for fill in (0, 200, 255):
        with pytest.raises(ReadError, match=NO_BOARD.get(game)):
            reader.read(np.full((900, 1280, 3), fill, np.uint8), tier)
