"""What the readers of Nut and Bolt, Color Connect and Bolt Unscrew share: they see pixels
only (no module of theirs, nor any vision module they import, imports a view, the suite's
layout or screens, the grid or panel geometry, or anything holding env state: env, probe,
backends, evaluator, registry; none imports behind the AST's back: importlib, __import__,
sys.modules), and they refuse what is not a level screen's frame."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from puzzlegym.agents.vision.board_pixels import ReadError
from tests.vision_checks import forbidden_imports

READERS = ("nut_and_bolt", "color_connect", "bolt_unscrew")
NO_BOARD = {
    "nut_and_bolt": "no board panel",
    "color_connect": "no grid frame",
    "bolt_unscrew": "no steel plate",
}


@pytest.mark.parametrize("module", READERS)
def test_a_reader_imports_nothing_a_pixel_only_player_lacks(module):
    assert forbidden_imports(module) == []


@pytest.mark.parametrize("module", READERS)
def test_each_reader_exposes_its_reader_for_its_game(module):
    reader = importlib.import_module(f"puzzlegym.agents.vision.{module}").READER
    assert reader.game == "".join(part.title() for part in module.split("_"))


def test_the_check_catches_every_way_a_reader_could_cheat(tmp_path):
    """The check itself can fail: a hostile reader that reaches the view's layout directly,
    through a helper module of its own, through the suite layout, the probe, and dynamic
    imports, is reported line by line."""
    (tmp_path / "cheat.py").write_text(
        "from puzzlegym.envs.nut_and_bolt import view\n"
        "from puzzlegym.envs.color_connect.view import cell_rect\n"
        "import puzzlegym.screen.layout\n"
        "from . import helper\n"
        "def read(frame):\n"
        "    import importlib, sys\n"
        "    importlib.import_module('puzzlegym.envs.bolt_unscrew.view')\n"
        "    __import__('puzzlegym.probe')\n"
        "    return sys.modules['puzzlegym.env']\n"
    )
    (tmp_path / "helper.py").write_text(
        "from puzzlegym.probe import Probe\nfrom puzzlegym.screen import grid\n"
    )
    assert forbidden_imports("cheat", tmp_path) == [
        "cheat: uses __import__",
        "cheat: uses import_module",
        "cheat: uses modules",
        "cheat: imports puzzlegym.envs.color_connect.view",
        "cheat: imports puzzlegym.envs.nut_and_bolt.view",
        "cheat: imports puzzlegym.screen.layout",
        "helper: imports puzzlegym.probe",
        "helper: imports puzzlegym.screen.grid",
    ]


@pytest.mark.parametrize("module", READERS)
def test_frames_that_are_not_a_level_screen_are_rejected(module):
    reader = importlib.import_module(f"puzzlegym.agents.vision.{module}").READER
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
