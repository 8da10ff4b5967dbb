"""A game in its own package plugs in with no edit to puzzlegym: Tiny Lamps
(``tests/data/plugin_game/tiny_lamps``) is copied into a temporary directory and declared in
the ``puzzlegym.games`` entry point group (a ``*.dist-info`` beside it, as pip would install
it); a fresh interpreter with that directory on its path plays it through puzzlegym: the
game contract, ``gym.make``, the symbolic board, the splits, level hashes, the Hydra env
config, a paged home screen and a solver episode through GUI actions from the home screen."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data" / "plugin_game" / "tiny_lamps"

CHECKS = r"""
DOCS_HOOK = "@@HOOK@@"
import json, random, warnings
import gymnasium as gym
from gymnasium.utils.env_checker import check_env
import puzzlegym
from puzzlegym.agents import SolverAgent
from puzzlegym.env.loop import play
from puzzlegym.game.levelhash import is_catalogue_level, level_hash
from puzzlegym.game.splits import Split, TrainingLevels
from puzzlegym.record.events import ActionTaken
from puzzlegym.screen.layout import PAGE_NEXT, card_rect
from puzzlegym.run import ENV_CONFIGS
from puzzlegym.suite.registry import games
from puzzlegym.testing import check_game, game_test_data
from puzzlegym.wrappers import make_sb3_env

out = {}
names = list(games())
out["games"] = names
game = games()["TinyLamps"]
check_game(game)
data = game_test_data(game)
env_id = "LongPuzzle/TinyLamps-Easy"
out["registered"] = env_id in gym.registry
out["hydra"] = ENV_CONFIGS.get("tiny_lamps_easy")

board = make_sb3_env(env_id, observation="board", actions="board", budget_s=40)
own, bits, *shape = data.BOARD_SHAPES["Easy"]
out["board_shape_ok"] = tuple(board.observation_space.shape) == tuple(shape)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    check_env(board)
board.close()

training = TrainingLevels(game, "Easy", Split(0, 0), cache=None)
drawn = [training.level(i) for i in range(data.SPLIT_SAMPLES["Easy"])]
out["training_never_catalogue"] = not any(is_catalogue_level(game, lv) for lv in drawn)
level = game.load_catalogue("Easy")[2]
copy = game.level_from_json(
    {**data.symmetric_copy(game.level_to_json(level), random.Random(1)), "id": "copy"}
)
out["copy_caught"] = level_hash(game, copy) == level_hash(game, level)

import importlib.util
spec = importlib.util.spec_from_file_location("docs_games", DOCS_HOOK)
docs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(docs)
nav = docs.games_nav([{"Games": ["games/index.md", {"Level science": "levels.md"}]}], games())
out["nav"] = nav[0]["Games"]
page = docs.game_page(game)
out["page"] = {
    "title": page.splitlines()[0],
    "card": "Light them" in page or "every lamp is lit" in page,
    "ids": env_id in page,
}
table = docs.games_table(games(), "games/index.md").splitlines()
out["table_row"] = [r for r in table if "Tiny" in r]

env = gym.make(env_id)  # the whole objective, from the home screen
home_clicks, screen = [], ["home"]
def on_event(event):  # the clicks made on the home screen (the screen before each action)
    if isinstance(event, ActionTaken):
        if screen[0] == "home" and event.accepted:
            home_clicks.append((event.action["x"], event.action["y"]))
        screen[0] = event.screen
env.unwrapped.subscribe(on_event)
end = play(env, SolverAgent(env.unwrapped), seed=0)
probe = env.unwrapped.probe()
out["episode"] = {"reason": end.reason, "success": probe.success, "lc": probe.lc}
out["home_clicks"] = [
    "page:next" if PAGE_NEXT.contains(x, y) else "card" if card_rect(6).contains(x, y) else "?"
    for x, y in home_clicks
]
env.close()
print("RESULT " + json.dumps(out))
"""


def write_distribution(site: Path) -> None:
    """Tiny Lamps installed into ``site`` as pip lays a distribution out: its package and a
    dist-info with the entry point."""
    shutil.copytree(SOURCE, site / "tiny_lamps", ignore=shutil.ignore_patterns("__pycache__"))
    info = site / "tiny_lamps-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny-lamps\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[puzzlegym.games]\ntiny_lamps = tiny_lamps\n")


@pytest.fixture(scope="module")
def result(tmp_path_factory) -> dict:
    site = tmp_path_factory.mktemp("site")
    write_distribution(site)
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run(
        [sys.executable, "-c", CHECKS.replace("@@HOOK@@", str(ROOT / "scripts" / "docs_games.py"))],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=site,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT ") :])


def test_the_plugin_registers_after_the_six_games(result):
    assert result["games"] == [
        "BoltUnscrew",
        "RushHour",
        "NutAndBolt",
        "TruckEscape",
        "MazePaint",
        "ColorConnect",
        "TinyLamps",
    ]
    assert result["registered"] and result["hydra"] == "LongPuzzle/TinyLamps-Easy"


def test_the_plugin_keeps_the_contract_and_its_shared_test_data(result):
    assert result["board_shape_ok"]
    assert result["training_never_catalogue"] and result["copy_caught"]


def test_a_solver_episode_from_the_home_screen_reaches_the_seventh_card(result):
    """Seven games page the home screen: the solver agent pages to Tiny Lamps' card by GUI
    clicks and wins every level."""
    assert result["episode"] == {"reason": "terminated", "success": True, "lc": 1.0}
    assert result["home_clicks"] == ["page:next", "card"]


def test_the_docs_give_the_plugin_a_page_a_nav_entry_and_a_table_row(result):
    """scripts/docs_games.py (the site's hooks) reads the registry: the plugin's page is made
    from its parts, placed after the six games in the nav, with its row in the games table."""
    assert result["nav"][0] == "games/index.md" and result["nav"][-1] == {
        "Level science": "levels.md"
    }
    assert result["nav"][-2] == {"Tiny Lamps": "games/tiny-lamps.md"} and len(result["nav"]) == 9
    assert result["page"] == {"title": "# Tiny Lamps", "card": True, "ids": True}
    assert result["table_row"] == [
        "| Tiny Lamps | Easy | 3 | clicks (a lamp) | no | [Tiny Lamps](../games/tiny-lamps.md) |"
    ]


def test_no_plugin_no_seventh_game():
    """Without the entry point the registry holds the six games (the plugin's presence above
    came from the entry point alone)."""
    code = "from puzzlegym.suite.registry import games; print(len(games()))"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert proc.stdout.strip() == "6"
