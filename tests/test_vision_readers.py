"""The vision readers of Maze Paint, Truck Escape and Rush Hour: the board rebuilt from the
full-resolution frame has the public state of the env's true board, on every catalogue
level's first board and on boards reached by seeded walks of legal moves; the browser
backend's frames are the same bytes and read the same."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlegym.agents.vision import reader_for
from puzzlegym.agents.vision.maze_paint import ReadError as MazeReadError
from puzzlegym.agents.vision.pixels import ReadError
from puzzlegym.registry import get_game
from tests.vision_harness import catalogue_boards, check_catalogue, check_reading, check_walks

GAMES = ["MazePaint", "TruckEscape", "RushHour"]


def catalogue_size(game: str) -> int:
    g = get_game(game)
    return sum(len(g.load_catalogue(t)) for t in g.tiers)


@pytest.mark.parametrize("game", GAMES)
def test_every_catalogue_first_board_is_read_exactly(game):
    assert check_catalogue(reader_for(game)) == catalogue_size(game)


@pytest.mark.parametrize("game", GAMES)
def test_boards_of_seeded_walks_are_read_exactly(game):
    # every level of every tier, eight random legal moves from its first board (fewer where
    # the walk solves the level first)
    n = check_walks(reader_for(game), seeds=(3,), moves=8)
    assert n >= 4 * catalogue_size(game)


@pytest.mark.parametrize("game", GAMES)
def test_browser_frames_are_the_native_bytes_and_read_the_same(game):
    reader = reader_for(game)
    native = {b.where: b for b in catalogue_boards(game)}
    count = 0
    for board in catalogue_boards(game, backend="browser"):
        if count == 3:
            break
        assert np.array_equal(board.frame, native[board.where].frame), board.where
        check_reading(reader, board)
        count += 1
    assert count == 3


def test_the_check_fails_on_a_misread_board():
    """The harness can fail: a frame with one painted cell repainted as floor reads as a
    different board, and the comparison says so."""
    reader = reader_for("MazePaint")
    board = next(catalogue_boards("MazePaint"))
    g = reader.read(board.frame, board.tier).geometry
    x, y = g.center(*divmod(board.state.ball, g.cols))
    frame = board.frame.copy()
    frame[y - g.cell // 2 + 1:y + g.cell // 2 - 1, x - g.cell // 2 + 1:x + g.cell // 2 - 1] = (226, 222, 212)
    board.frame = frame
    with pytest.raises(MazeReadError, match="expected one ball, saw 0"):
        check_reading(reader, board)


def test_a_frame_without_the_board_is_refused_naming_the_game():
    with pytest.raises(ValueError, match="rush hour: no board cell on the screen"):
        reader_for("RushHour").read(np.zeros((900, 1280, 3), np.uint8), "Easy")


# ------------------------------------------- every reader: its game's name, frames refused
READER_MODULES = ("maze_paint", "truck_escape", "rush_hour", "nut_and_bolt", "color_connect",
                  "bolt_unscrew")
NO_BOARD = {
    "maze_paint": "maze paint: no board cell on the screen",
    "truck_escape": "truck escape: no board cell on the screen",
    "rush_hour": "rush hour: no board cell on the screen",
    "nut_and_bolt": "no board panel",
    "color_connect": "no grid frame",
    "bolt_unscrew": "no steel plate",
}


@pytest.mark.parametrize("module", READER_MODULES)
def test_each_reader_exposes_its_reader_for_its_game(module):
    game = "".join(part.title() for part in module.split("_"))
    assert reader_for(game).game == game


@pytest.mark.parametrize("module", READER_MODULES)
def test_frames_that_are_not_a_level_screen_are_rejected(module):
    reader = reader_for("".join(part.title() for part in module.split("_")))
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
            reader.read(bad, "Easy")
    for fill in (0, 200, 255):
        with pytest.raises(ReadError, match=NO_BOARD[module]):
            reader.read(np.full((900, 1280, 3), fill, np.uint8), "Easy")
