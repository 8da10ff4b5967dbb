"""The vision agent: pixels only by construction (its imports), its text and screen reading,
its bounds, and whole levels played from the home screen in-process behind BlackBox and
through a real ``puzzlegym serve`` process."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from fnmatch import fnmatchcase
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image, ImageDraw

import puzzlegym  # noqa: F401
from puzzlegym.agents.factory import make_agent
from puzzlegym.agents.vision import VisionAgent
from puzzlegym.agents.vision.screens import LEVEL, LEVEL_COMPLETE, look
from puzzlegym.base.actions import MAX_TEXT_LENGTH, parse_action
from puzzlegym.game.registry import builtin_games, games
from puzzlegym.screen import theme
from puzzlegym.screen.render import font
from puzzlegym.vision.text import Style, Vocabulary, read_words
from puzzlegym.wrappers import BlackBox
from tests.test_layout import MODULES, imported_modules
from tests.test_server import start

ROOT = Path(__file__).resolve().parents[1]

# what a pixel-only agent and every game's reader may not read: the views' and the suite's
# layout code, the env, its probe and evaluator, the records, the catalogues and generators,
# wrappers (the agent finds its game's reader, solver and rules in the registry; it touches no
# catalogue, view or generator of it: FORBIDDEN_NAMES)
FORBIDDEN = (
    "puzzlegym.envs.*.view",
    "puzzlegym.screen.layout",
    "puzzlegym.suite",
    "puzzlegym.suite.*",
    "puzzlegym.screen.grid",
    "puzzlegym.screen.panel",
    "puzzlegym.env",
    "puzzlegym.env.*",
    "puzzlegym.checkpoint",
    "puzzlegym.record",
    "puzzlegym.record.*",
    "puzzlegym.evaluation",
    "puzzlegym.evaluation.*",
    "puzzlegym.backends",
    "puzzlegym.backends.*",
    "puzzlegym.wrappers",
    "puzzlegym.wrappers.*",
    "puzzlegym.game.catalogue",
    "puzzlegym.envs.*.catalogue",
    "puzzlegym.envs.*.generator",
    "puzzlegym.lab",
    "puzzlegym.lab.*",
    "puzzlegym.service",
    "puzzlegym.service.*",
    "puzzlegym.testing",
    "puzzlegym.testing.*",
)
FORBIDDEN_NAMES = {
    "unwrapped",
    "probe",
    "evaluator",
    "suite",
    "screenshot",
    "view",
    "load_catalogue",
    "generate",
    "catalogue_sha256",
}


def vision_modules() -> dict[str, Path]:
    """The vision agent's modules, the vision toolkit's and every registered game's reader
    (a plugin's included), by module name."""
    out = {
        m: p
        for m, p in MODULES.items()
        if m.startswith(("puzzlegym.agents.vision", "puzzlegym.vision"))
    }
    for game in games().values():
        if game.reader is not None:
            spec = importlib.util.find_spec(game.reader.module)
            assert spec is not None and spec.origin, game.reader
            out[game.reader.module] = Path(spec.origin)
    return out


def reader_forbidden(module: str) -> tuple[str, ...]:
    """What a game's reader module may not import of its own package: its view, catalogue and
    generator (a built-in game's are in FORBIDDEN already)."""
    package = module.rpartition(".")[0]
    return tuple(f"{package}.{m}" for m in ("view", "catalogue", "generator"))


def violations(module: str, path: Path) -> list[str]:
    """What ``path`` reaches that a pixel-only agent must not: forbidden modules (imported
    anywhere in the file, directly or via ``importlib``) and the env's privileged names."""
    forbidden = FORBIDDEN + reader_forbidden(module)
    found = [
        f"imports {m}"
        for m in sorted(imported_modules(module, path))
        if any(fnmatchcase(m, p) for p in forbidden)
    ]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_NAMES:
            found.append(f"line {node.lineno}: .{node.attr}")
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and any(
                fnmatchcase(node.value, p) or node.value.endswith((".view", ".layout", ".shell"))
                for p in FORBIDDEN
            )
        ):
            found.append(f"line {node.lineno}: names module {node.value!r}")
    return found


@pytest.mark.parametrize("module", sorted(vision_modules()))
def test_the_vision_package_imports_no_layout_code_and_no_env_state(module):
    assert violations(module, vision_modules()[module]) == []


def test_the_import_check_catches_a_peek_at_the_view_or_the_env(tmp_path):
    bad = tmp_path / "cheat.py"
    bad.write_text(
        "import importlib\n"
        "from puzzlegym.envs.maze_paint.view import layout\n"
        "from puzzlegym.screen.layout import BOARD_AREA\n"
        "def f(env):\n"
        "    importlib.import_module('puzzlegym.envs.rush_hour.view')\n"
        "    return env.unwrapped.probe().board\n"
    )
    assert sorted(violations("puzzlegym.agents.vision.cheat", bad)) == [
        "imports puzzlegym.envs.maze_paint.view",
        "imports puzzlegym.screen.layout",
        "line 5: names module 'puzzlegym.envs.rush_hour.view'",
        "line 6: .probe",
        "line 6: .unwrapped",
    ]


def test_every_built_in_game_has_a_reader_in_its_own_package_and_one_copy_of_each_mechanism():
    names = {m for m in vision_modules() if m.startswith("puzzlegym.")}
    assert {m for m in names if not m.startswith("puzzlegym.envs.")} == {
        "puzzlegym.agents.vision",
        "puzzlegym.agents.vision.__main__",
        "puzzlegym.agents.vision.agent",
        "puzzlegym.agents.vision.screens",
        "puzzlegym.vision",
        "puzzlegym.vision.text",
        "puzzlegym.vision.pixels",
        "puzzlegym.vision.reader",
    }
    for game in builtin_games().values():
        assert game.reader is not None and game.reader.module == f"{game.package}.reader"


# ---------------------------------------------------------------------------- text
VOCAB = Vocabulary({"Maze", "Paint", "Level", "·", "/", "Easy", "Menu", "Hard"})


def rendered(text: str, style: Style, x: float = 32.5) -> np.ndarray:
    img = Image.new("RGB", (800, 72), style.bg)
    ImageDraw.Draw(img).text(
        (x, 36), text, font=font(style.size, style.bold), fill=style.fg, anchor="lm"
    )
    return np.asarray(img)


@pytest.mark.parametrize("x", [32, 32.25, 32.5, 40.75])
def test_text_reads_words_and_numbers_at_any_sub_pixel_position(x):
    style = Style(24, True, theme.HEADER_TEXT, theme.HEADER)
    frame = rendered("Maze Paint  ·  Easy  ·  Level 13 / 20", style, x)
    assert read_words(frame, (0, 0, 800, 72), style, VOCAB) == [
        "Maze",
        "Paint",
        "·",
        "Easy",
        "·",
        "Level",
        "13",
        "/",
        "20",
    ]


def test_text_names_no_word_it_does_not_know_and_ignores_other_colours():
    style = Style(24, True, theme.HEADER_TEXT, theme.HEADER)
    frame = rendered("Maze Paunt Medium", style).copy()  # one letter off, and an unknown word
    frame[10:60, 600:640] = theme.SUCCESS  # a green badge is not text
    assert read_words(frame, (0, 0, 800, 72), style, VOCAB) == ["Maze", None, None]


# ---------------------------------------------------------------------------- screens
def test_screens_are_named_and_their_controls_found_where_the_suite_draws_them(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy", level=1)
    obs, _ = env.reset(seed=0)
    vocab = VisionAgent("MazePaint-Easy").vocabulary
    home = look(obs, vocab)
    controls = env.unwrapped.probe().controls
    assert home.screen == "home" and controls["game:MazePaint"].contains(
        *home.control(("Maze", "Paint"))
    )
    obs, *_ = env.step({"type": "click", "x": 640, "y": 568})
    diff = look(obs, vocab)
    assert diff.screen == "difficulty" and diff.title == ("Maze", "Paint")
    assert env.unwrapped.probe().controls["tier:Easy"].contains(*diff.control(("Easy",)))
    obs, *_ = env.step({"type": "click", "x": 640, "y": 256})
    board = look(obs, vocab)
    assert board.screen == LEVEL
    assert board.title == ("Maze", "Paint", "·", "Easy", "·", "Level", "1", "/", "10")
    assert env.unwrapped.probe().controls["menu"].contains(*board.control(("Menu",)))


def test_a_frame_that_is_no_screen_of_the_suite_is_refused_with_the_reason():
    agent = VisionAgent("MazePaint-Easy")
    noise = np.random.default_rng(0).integers(0, 256, (900, 1280, 3), dtype=np.uint8)
    action = agent(noise)
    assert action["type"] == "answer" and "not a screen of the suite" in action["text"]
    assert agent.failure is not None and agent(noise) == action  # it stays given up
    agent.failure = (
        "x" * 1000 + "·"
    )  # however long (or odd) the reason, the answer is a valid action
    answer = parse_action(agent(noise))
    assert len(answer.text) == MAX_TEXT_LENGTH and answer.text.endswith("...")
    with pytest.raises(ValueError, match="900x1280x3 uint8"):
        look(noise[:450], agent.vocabulary)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"objective": "MazePaint"}, "objective: expected a name"),
        ({"objective": "MazePaint-Easy", "level": 0}, "level: expected an integer 1..999 or None"),
        (
            {"objective": "MazePaint-Easy", "level": True},
            "level: expected an integer 1..999 or None",
        ),
        (
            {"objective": "MazePaint-Easy", "max_readings": 0},
            "max_readings: expected an integer >= 1",
        ),
    ],
)
def test_bad_arguments_are_refused_naming_the_field(kwargs, message):
    with pytest.raises(ValueError, match=message):
        VisionAgent(**kwargs)


def test_a_game_without_a_reader_gives_up_at_once_naming_it():
    agent = VisionAgent("NoSuchGame-Easy")
    action = agent(np.zeros((900, 1280, 3), np.uint8))
    assert action == {
        "type": "answer",
        "text": "vision agent gave up: vision: no reader for NoSuchGame (no game of that name)",
    }


def test_a_board_that_does_not_change_after_its_moves_makes_it_give_up(make_env):
    """Its own bound: the same board read after three moves in a row (a move the screen
    ignores) ends the episode with the reason instead of a loop."""
    env = make_env("LongPuzzle/MazePaint-Easy", start="board", level=1)
    obs, _ = env.reset(seed=0)
    agent = VisionAgent("MazePaint-Easy")
    kinds = [agent(obs)["type"] for _ in range(4)]  # never stepped: the board stays
    assert kinds == ["drag", "drag", "drag", "answer"]
    assert "looked the same after 3 moves" in agent.failure


# ---------------------------------------------------------------------------- playing
@pytest.mark.parametrize("objective", ["MazePaint-Easy", "TruckEscape-Default", "RushHour-Easy"])
def test_vision_agent_solves_level_1_from_the_home_screen_behind_blackbox(objective):
    env = BlackBox(gym.make(f"LongPuzzle/{objective}", level=1))
    try:
        agent = make_agent("vision", env)
        obs, info = env.reset(seed=0)
        for _ in range(200):
            obs, _, term, trunc, info = env.step(agent(obs, info))
            if term or trunc:
                break
        agent.see(obs)
        probe = env.unwrapped.probe()
        assert (probe.success, probe.levels_won, agent.failure) == (True, (1,), None)
        assert agent.won == {1} and agent.solves >= 1
        assert "evaluator" not in info
    finally:
        env.close()


def test_run_cli_plays_a_whole_objective_with_the_vision_agent(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "puzzlegym",
            "run",
            "LongPuzzle/TruckEscape-Default",
            "--agent",
            "vision",
            "--json",
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (result["agent"], result["success"], result["lc"], result["levels_won"]) == (
        "vision",
        True,
        1.0,
        [1, 2, 3, 4, 5],
    )


def test_vision_client_plays_through_a_real_serve_process(tmp_path):
    server, url = start(
        ["serve", "--clock", "sim", "--record-dir", str(tmp_path / "records")], tmp_path
    )
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "puzzlegym.agents.vision",
                "--url",
                url,
                "--objective",
                "TruckEscape-Default",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=ROOT,
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.strip().splitlines()
    result = json.loads(lines[-1])
    assert (result["success"], result["lc"], result["levels_won"], result["failure"]) == (
        True,
        1.0,
        [1, 2, 3, 4, 5],
        None,
    )
    assert lines[-2] == f"record: {result['record']}"
    manifest = json.loads((Path(result["record"]) / "manifest.json").read_text())
    assert (
        manifest["result"]["success"] is True and manifest["result"]["lc"] == 1.0
    )  # the operator's record
    log = [
        json.loads(line) for line in (Path(result["record"]) / "log.jsonl").read_text().splitlines()
    ]
    # home card, tier button, 5 levels' moves, 4 Next clicks: every step the record holds
    assert result["steps"] == sum(e["kind"] == "action" for e in log)
    assert [e["level"] for e in log if e["kind"] == "level_won"] == [1, 2, 3, 4, 5]


def test_the_banner_is_read_with_its_next_button(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy", start="board", level=1)
    obs, _ = env.reset(seed=0)
    agent = VisionAgent("MazePaint-Easy")
    for _ in range(50):
        obs, _, term, _, _ = env.step(agent(obs))
        if env.unwrapped.probe().screen != "level" or term:
            break
    # level 1 of a 10-level objective is not its last: the banner with Next shows
    assert env.unwrapped.probe().screen == "level_complete"
    seen = look(obs, agent.vocabulary)
    assert seen.screen == LEVEL_COMPLETE
    assert env.unwrapped.probe().controls["next"].contains(*seen.control(("Next",)))


def test_it_replans_from_a_fresh_reading_when_someone_else_moves(make_env):
    """Between two of its moves the board is changed behind its back (a legal move it did
    not plan): it reads the new board, plans again and still solves the level."""
    import random

    from puzzlegym.base.actions import to_dict

    env = make_env("LongPuzzle/RushHour-Medium", start="board", level=3)
    obs, _ = env.reset(seed=0)
    agent = VisionAgent("RushHour-Medium", level=3)
    rng = random.Random(5)
    term = False
    for step in range(80):
        obs, _, term, _, _ = env.step(agent(obs))
        if term:
            break
        if step in (0, 2):  # an unexpected slide of a random vehicle
            board = env.unwrapped.probe().board
            move = rng.choice(board.legal_moves())
            for action in board.actions_for_move(move):
                obs, _, term, _, _ = env.step(to_dict(action))
    agent.see(obs)
    assert (term, env.unwrapped.probe().success, agent.success, agent.failure) == (
        True,
        True,
        True,
        None,
    )
    assert agent.solves >= 3  # the first plan, and one after each interference


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--url", "ftp://127.0.0.1:1", "--objective", "MazePaint-Easy"],
            "--url: expected http://HOST:PORT",
        ),
        (
            ["--url", "http://127.0.0.1:1", "--objective", "MazePaint/../../etc"],
            "objective: expected a name",
        ),
        (
            ["--url", "http://127.0.0.1:1", "--objective", "MazePaint-Easy", "--max-actions", "0"],
            "--max-actions",
        ),
    ],
)
def test_the_client_rejects_bad_arguments_before_any_request(args, message, capsys):
    from puzzlegym.agents.vision.__main__ import main

    assert main(args) == 1
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["success"] is False and message in out["error"]


def test_the_client_refuses_a_reply_that_is_not_a_screen():
    from puzzlegym.agents.vision.__main__ import screen

    with pytest.raises(RuntimeError, match="no PNG screen"):
        screen({"png": 12})
    with pytest.raises(RuntimeError, match="too large"):
        screen({"png": "A" * (12 * 2**20)})


def test_the_client_through_serve_shows_its_progress_on_stderr(tmp_path, capsys):
    """Issue 33, item 5: through a real serve process, the client's progress bar counts the
    levels won as seen and the actions sent (stderr); ``--quiet`` prints none. The JSON
    result stays the last line of stdout."""
    from puzzlegym.agents.vision.__main__ import main
    from puzzlegym.service.launch import start_service

    server, url = start_service(["serve", "--clock", "sim", "--record-dir", str(tmp_path)])
    try:
        base = ["--url", url, "--objective", "MazePaint-Easy", "--level", "1"]
        assert main(base) == 0
        out = capsys.readouterr()
        result = json.loads(out.out.strip().splitlines()[-1])
        assert result["levels_won"] == [1]
        last = out.err.replace("\r", "\n").strip().splitlines()[-1]
        assert last.startswith("MazePaint-Easy level 1: 100%") and "1/1 [" in last
        assert f"{result['actions']} actions, {result['elapsed_s']:.0f} s]" in last
        assert main([*base, "--seed", "1", "--quiet"]) == 0
        assert capsys.readouterr().err == ""
    finally:
        server.terminate()
        server.wait(timeout=30)
