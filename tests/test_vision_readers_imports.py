"""The readers of Nut and Bolt, Color Connect and Bolt Unscrew see pixels only: no module of
theirs (nor any vision module they import) imports a view, the suite's layout or screens, the
grid or panel geometry, or anything holding env state (env, probe, backends, evaluator,
registry), and none imports behind the AST's back (importlib, __import__, sys.modules)."""

from __future__ import annotations

import pytest

from tests.vision_checks import forbidden_imports

READERS = ("nut_and_bolt", "color_connect", "bolt_unscrew")


@pytest.mark.parametrize("module", READERS)
def test_a_reader_imports_nothing_a_pixel_only_player_lacks(module):
    assert forbidden_imports(module) == []


@pytest.mark.parametrize("module", READERS)
def test_each_reader_exposes_its_reader_for_its_game(module):
    import importlib

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
    (tmp_path / "helper.py").write_text("from puzzlegym.probe import Probe\nfrom puzzlegym.screen import grid\n")
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
