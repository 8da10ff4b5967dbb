"""A game in its own package plugs in with no edit to puzzlegym, exactly as the six built-in
games do: Tiny Lamps (``tests/data/plugin_game/tiny_lamps``: rules, view, catalogue,
generator, rule card, planes, solver, JAX twin and vision reader) is copied into a temporary
directory and declared in the ``puzzlegym.games`` entry point group (a ``*.dist-info`` beside
it, as pip would install it). Fresh interpreters with that directory on their path then
check it: the game contract, ``gym.make``, the symbolic board, the splits, level hashes, the
Hydra env config, a paged home screen reached by the solver agent, by board actions and by
the vision agent, its fixtures made by ``puzzlegym game fixtures``, and the test suite's own
game-parametrised tests (the twin's sameness test among them) run on it. Broken plugins are
named and skipped, and a plugin imported before puzzlegym keeps its game."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from puzzlegym.screen.layout import CARDS_PER_PAGE

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data" / "plugin_game" / "tiny_lamps"

CHECKS = r"""
DOCS_HOOK = "@@HOOK@@"
import json, random, warnings
import gymnasium as gym
from gymnasium.utils.env_checker import check_env
import puzzlegym
from puzzlegym.agents import SolverAgent
from puzzlegym.agents.vision import VisionAgent
from puzzlegym.env.loop import play
from puzzlegym.game.levelhash import is_catalogue_level, level_hash
from puzzlegym.game.splits import Split, TrainingLevels
from puzzlegym.record.events import ActionTaken
from puzzlegym.screen.layout import CARDS_PER_PAGE, PAGE_NEXT, card_rect
from puzzlegym.run import ENV_CONFIGS
from puzzlegym.game.registry import builtin_games, games
from puzzlegym.testing import check_game, game_test_data
from puzzlegym.wrappers import BlackBox, make_sb3_env

out = {}
out["games"] = list(games())
out["builtin"] = list(builtin_games())
index = out["games"].index("TinyLamps")  # other plugins may be installed beside it
game = games()["TinyLamps"]
check_game(game)
data = game_test_data(game)
env_id = "LongPuzzle/TinyLamps-Easy"
out["registered"] = env_id in gym.registry
out["hydra"] = ENV_CONFIGS.get("tiny_lamps_easy")
out["parts"] = [str(game.solver), str(game.reader), str(game.twin)]

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


def home_clicks(env):
    # what each click accepted on the home screen pressed
    clicks, screen = [], ["home"]
    def on_event(event):
        if isinstance(event, ActionTaken):
            if screen[0] == "home" and event.accepted:
                x, y = event.action["x"], event.action["y"]
                pressed = "page:next" if PAGE_NEXT.contains(x, y) else "?"
                on_card = card_rect(index % CARDS_PER_PAGE).contains(x, y)
                clicks.append("card" if on_card else pressed)
            screen[0] = event.screen
    env.unwrapped.subscribe(on_event)
    return clicks


episodes = {}
for name in ("solver", "vision"):
    env = gym.make(env_id)  # the whole objective, from the home screen
    clicks = home_clicks(env)
    agent = SolverAgent(env.unwrapped) if name == "solver" else VisionAgent("TinyLamps-Easy")
    end = play(BlackBox(env) if name == "vision" else env, agent, seed=0)
    probe = env.unwrapped.probe()
    episodes[name] = {
        "reason": end.reason, "success": probe.success, "lc": probe.lc, "home": clicks
    }
    env.close()
out["episodes"] = episodes

# board actions from the home screen: the "game" index pages, then opens the card
env = make_sb3_env(env_id, actions="board", budget_s=40)
env.reset(seed=0)
base = env.unwrapped
game_index = env.get_wrapper_attr("n_targets") + env.get_wrapper_attr("buttons").index("game")
screens = []
for _ in range(index // CARDS_PER_PAGE + 1):
    masked = bool(env.action_masks()[game_index])
    env.step(game_index)
    probe = base.probe()
    screens.append((masked, probe.screen, probe.controls.get("page:prev") is not None))
out["board_actions_home"] = screens
env.close()
print("RESULT " + json.dumps(out))
"""

# the test suite's own tests that are parametrised over every registered game (their ids
# name the game); run on Tiny Lamps alone
GAME_PARAMETRISED = "TinyLamps"


def write_distribution(site: Path, package: Path = SOURCE, dist: str = "tiny_lamps") -> None:
    """A game package installed into ``site`` as pip lays a distribution out: the package
    and a dist-info with its entry point."""
    name = package.name
    shutil.copytree(package, site / name, ignore=shutil.ignore_patterns("__pycache__"))
    info = site / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist.replace('_', '-')}\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text(f"[puzzlegym.games]\n{name} = {name}\n")


def run(code: list[str], site: Path, timeout: int = 600, cwd: Path | None = None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run(
        code, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd or site
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """Tiny Lamps installed, and beside it a second plugin, More Lamps, whose distribution
    sorts first: no test may assume Tiny Lamps is the only plugin or the seventh card."""
    site = tmp_path_factory.mktemp("site")
    write_distribution(site)
    more = site / "more_lamps"
    more.mkdir()
    (more / "__init__.py").write_text(
        "from dataclasses import replace\nimport tiny_lamps\n"
        "GAME = replace(tiny_lamps.GAME, name='MoreLamps', title='More Lamps', "
        "package='more_lamps')\n"
    )
    info = site / "more_lamps-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: more-lamps\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[puzzlegym.games]\nmore_lamps = more_lamps\n")
    return site


@pytest.fixture(scope="module")
def result(site) -> dict:
    hook = str(ROOT / "scripts" / "docs_games.py")
    proc = run([sys.executable, "-c", CHECKS.replace("@@HOOK@@", hook)], site)
    assert proc.returncode == 0, proc.stderr[-4000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT ") :])


def pages_to(result) -> int:
    """The page presses from the home screen to Tiny Lamps' card (1 when it is the only
    plugin; more when other plugins are installed beside it)."""
    return result["games"].index("TinyLamps") // CARDS_PER_PAGE


def test_the_plugin_registers_after_the_six_games(result):
    games, builtin = result["games"], result["builtin"]
    assert games[:6] == builtin and len(builtin) == 6 and games[6:] == ["MoreLamps", "TinyLamps"]
    assert result["registered"] and result["hydra"] == "LongPuzzle/TinyLamps-Easy"


def test_the_plugin_keeps_the_contract_and_its_shared_test_data(result):
    assert result["board_shape_ok"]
    assert result["training_never_catalogue"] and result["copy_caught"]


def test_its_parts_are_found_in_its_own_package_through_its_game(result):
    assert result["parts"] == [
        "tiny_lamps.solver",
        "tiny_lamps.reader.READER",
        "tiny_lamps.twin.TWIN",
    ]


def test_the_solver_and_the_vision_agent_page_to_the_seventh_card_and_win(result):
    """Seven games page the home screen: each agent pages to Tiny Lamps' card by GUI clicks
    (the vision agent reads the page button's label from the pixels) and wins every level."""
    for name in ("solver", "vision"):
        episode = result["episodes"][name]
        assert episode["home"] == ["page:next"] * pages_to(result) + ["card"], name
        assert (episode["reason"], episode["success"], episode["lc"]) == (
            "terminated",
            True,
            1.0,
        ), name


def test_board_actions_reach_the_seventh_card_through_the_pages(result):
    """The "game" index pages the home screen (masked valid), then opens the card."""
    paging = [[True, "home", True]] * pages_to(result)
    assert result["board_actions_home"] == [*paging, [True, "difficulty", False]]


def test_the_docs_give_the_plugin_a_page_a_nav_entry_and_a_table_row(result):
    """scripts/docs_games.py (the site's hooks) reads the registry: the plugin's page is made
    from its parts, placed after the six games in the nav, with its row in the games table."""
    assert result["nav"][0] == "games/index.md" and result["nav"][-1] == {
        "Level science": "levels.md"
    }
    at = 1 + result["games"].index("TinyLamps")  # after the index page, in home-screen order
    assert result["nav"][at] == {"Tiny Lamps": "games/tiny-lamps.md"}
    assert len(result["nav"]) == len(result["games"]) + 2
    assert result["page"] == {"title": "# Tiny Lamps", "card": True, "ids": True}
    assert result["table_row"] == [
        "| Tiny Lamps | Easy | 3 | clicks (a lamp) | no | [Tiny Lamps](../games/tiny-lamps.md) |"
    ]


def test_the_fixtures_command_writes_the_frame_fixture_and_checks_board_shapes(site, result):
    """``puzzlegym game fixtures`` writes the package's frames_sha256.json from the game and
    prints its testdata BOARD_SHAPES; ``--check`` then finds both as the package has them."""
    cli = [str(Path(sys.executable).parent / "puzzlegym")]
    wrote = run([*cli, "game", "fixtures", "tiny_lamps"], site)
    assert wrote.returncode == 0, wrote.stderr[-2000:]
    fixture = json.loads((site / "tiny_lamps" / "frames_sha256.json").read_text())
    assert set(fixture) == {"Easy"} and fixture["Easy"]["frames"] > 0
    assert "BOARD_SHAPES = {'Easy': (2, 2, 9, 1, 5)} (as committed)" in wrote.stdout
    checked = run([*cli, "game", "fixtures", "TinyLamps", "--check"], site)
    assert checked.returncode == 0 and "are the game's" in checked.stdout, checked.stdout
    fixture["Easy"]["sha256"] = "0" * 64
    (site / "tiny_lamps" / "frames_sha256.json").write_text(json.dumps(fixture))
    stale = run([*cli, "game", "fixtures", "TinyLamps", "--check"], site)
    assert stale.returncode == 1 and "differs from the game's frames" in stale.stdout
    bad = run([*cli, "game", "fixtures", "../../etc"], site)
    assert bad.returncode == 2 and "neither a registered game nor its package" in bad.stderr
    # the fixture as the game makes it, for the game-parametrised tests below
    assert run([*cli, "game", "fixtures", "tiny_lamps"], site).returncode == 0


def test_the_suites_game_parametrised_tests_pass_on_the_plugin(site, tmp_path):
    """Every test of the suite parametrised over the registered games, run on Tiny Lamps
    alone (its frame fixture written first by ``puzzlegym game fixtures``): the contract,
    board shapes, masks, splits, level hashes, the training view, the frame fixture,
    checkpoints, the reader's checks and the twin's sameness test, among others."""
    cli = [str(Path(sys.executable).parent / "puzzlegym"), "game", "fixtures", "tiny_lamps"]
    assert run(cli, site).returncode == 0
    report = tmp_path / "junit.xml"
    pytest_args = ["-q", "-p", "no:cacheprovider", "-k", GAME_PARAMETRISED]
    proc = run(
        [
            sys.executable,
            "-m",
            "pytest",
            *pytest_args,
            f"--junitxml={report}",
            str(ROOT / "tests"),
            "--ignore",
            str(ROOT / "tests" / "test_plugin_game.py"),
        ],
        site,
        timeout=900,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    cases = ElementTree.parse(report).getroot().iter("testcase")
    passed: dict[str, int] = {}
    for case in cases:
        if not any(child.tag in ("failure", "error", "skipped") for child in case):
            module = case.get("classname", "").rpartition(".")[2]
            passed[module] = passed.get(module, 0) + 1
    for module in (
        "test_games",  # check_game
        "test_jax_sameness",  # the twin against the Python game, index for index
        "test_render_scaled",  # the frame fixture
        "test_vision_readers",  # the reader's checks
        "test_board_observation",
        "test_board_actions_masks",
        "test_splits",
        "test_levelhash",
        "test_env",
        "test_training_view",
    ):
        assert passed.get(module, 0) >= 1, (module, passed)


PLUGIN_FIRST = r"""
import tiny_lamps  # the plugin first: it imports puzzlegym, which looks for the games then
import gymnasium as gym
env = gym.make("LongPuzzle/TinyLamps-Easy")
obs, _ = env.reset(seed=0)
from puzzlegym.game.registry import games
print("RESULT", list(games())[-1], obs.shape, env.unwrapped.game is tiny_lamps.GAME)
"""


def test_a_plugin_imported_before_puzzlegym_keeps_its_game(site):
    proc = run([sys.executable, "-c", PLUGIN_FIRST], site)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "RESULT TinyLamps (900, 1280, 3) True" in proc.stdout


def test_no_entry_point_no_plugin_game():
    """Without its entry point Tiny Lamps is not registered (its presence above came from
    the entry point alone), and the built-in games are."""
    code = (
        "from puzzlegym.game.registry import builtin_games, games; "
        "print('TinyLamps' in games(), len(builtin_games()))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
        cwd=ROOT,
    )
    assert proc.stdout.strip() == "False 6"


# ------------------------------------------------------------ broken plugins: named, skipped
BROKEN = {  # package -> its __init__.py: each a way a plugin can be wrong
    "bad_name": "GAME = replace(tiny_lamps.GAME, name='Bad Name', package='bad_name')",
    "bad_slash": "GAME = replace(tiny_lamps.GAME, name='Bad/Name', package='bad_slash')",
    "no_tiers": "GAME = replace(tiny_lamps.GAME, name='NoTiers', tiers=None, package='no_tiers')",
    "exits": "import sys\nsys.exit(3)",
    "exits_zero": "import sys\nsys.exit(0)",
    "raises": "raise RuntimeError('a plugin that cannot import')",
    "not_a_game": "GAME = 'Tiny Lamps'",
    "taken": "GAME = replace(tiny_lamps.GAME, name='MazePaint', package='taken')",
    "broken_catalogue": (
        "def load(tier):\n    raise RuntimeError('the catalogue is gone')\n"
        "GAME = replace(tiny_lamps.GAME, name='BrokenLamps', load_catalogue=load, "
        "package='broken_catalogue')"
    ),
}

BROKEN_CHECK = r"""
import warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import puzzlegym
    import gymnasium as gym
    from puzzlegym.game.registry import games
    names = list(games())
env = gym.make("LongPuzzle/BoltUnscrew-Hard")  # every reset built every game's levels once
obs, _ = env.reset(seed=0)
env.step({"type": "click", "x": 640, "y": 450})
env = gym.make("LongPuzzle/TinyLamps-Easy", start="board", level=1)
env.reset(seed=0)
try:  # the broken catalogue fails its own episodes, with one line naming where it lives
    gym.make("LongPuzzle/BrokenLamps-Easy", start="board", level=1).reset(seed=0)
except Exception as exc:
    print("BROKEN", type(exc).__name__, exc)
for w in caught:
    print("WARNING", str(w.message))
print("GAMES", " ".join(names))
"""


def test_a_broken_plugin_is_named_and_skipped_and_every_other_game_works(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    write_distribution(site)
    for package, body in BROKEN.items():
        (site / package).mkdir()
        head = "from dataclasses import replace\nimport tiny_lamps\n"
        (site / package / "__init__.py").write_text(head + body + "\n")
        info = site / f"{package}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(f"[puzzlegym.games]\n{package} = {package}\n")
    proc = run([sys.executable, "-c", BROKEN_CHECK], site)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    games = next(x for x in lines if x.startswith("GAMES ")).split()[1:]
    assert "MazePaint" in games and games.index("BrokenLamps") < games.index("TinyLamps")
    warned = "\n".join(x for x in lines if x.startswith("WARNING "))
    for package in ("bad_name", "bad_slash", "no_tiers", "exits", "raises", "not_a_game"):
        assert f"entry point {package!r} ({package}) failed to load, not registered" in warned
    assert "(exits_zero) failed to load, not registered: it exited (SystemExit 0)" in warned
    broken = next(x for x in lines if x.startswith("BROKEN "))
    assert broken.startswith("BROKEN LevelError BrokenLamps Easy: loading the catalogue failed")
    assert "(broken_catalogue/catalogue.py): RuntimeError: the catalogue is gone" in broken
    assert "'Bad Name' is not an id part" in warned and "'Bad/Name' is not an id part" in warned
    assert "its tiers None are not" in warned and "SystemExit" not in proc.stderr
    assert "entry point 'taken' (taken): the game name 'MazePaint' is taken" in warned
