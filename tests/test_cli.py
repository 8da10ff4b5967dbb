"""The command line, run as a real subprocess."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from puzzlegym.record.files import read_log


def cli(*args, check=True):
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlegym", *args], capture_output=True, text=True, timeout=300
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_run_solver_json_writes_frame_gif_and_record(tmp_path):
    out = tmp_path / "run"
    proc = cli("run", "LongPuzzle/MazePaint-Easy", "--agent", "solver", "--json", "--out", str(out))
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["success"] is True and result["lc"] == 1.0 and result["fgp"] == 1.0
    assert result["levels_won"] == list(range(1, 11))
    assert result["steps"] > 88 and result["elapsed_s"] == result["actions"] * 1.0
    assert Image.open(out / "final.png").size == (1280, 900)
    gif = Image.open(out / "episode.gif")
    assert gif.n_frames > 20
    manifest = json.loads((out / "record" / "manifest.json").read_text())
    assert manifest["env_id"] == "LongPuzzle/MazePaint-Easy" and manifest["agent"] == "solver"
    assert manifest["result"]["success"] is True and len(manifest["catalogue_sha256"]) == 64
    log = read_log(out / "record")
    actions = [r for r in log if r["kind"] == "action"]
    assert len(actions) == result["actions"]
    assert {r["action"]["type"] for r in actions} <= {"click", "drag"}
    assert sum(r["kind"] == "level_won" for r in log) == 10


def test_run_random_single_level(tmp_path):
    proc = cli(
        "run",
        "LongPuzzle/MazePaint-Hard",
        "--agent",
        "random",
        "--level",
        "2",
        "--max-steps",
        "40",
        "--json",
        "--no-gif",
        "--out",
        str(tmp_path / "r"),
    )
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(result) >= {"success", "lc", "fgp", "levels_won", "steps", "elapsed_s"}
    assert result["steps"] == 40 and not (Path(tmp_path / "r" / "episode.gif")).exists()


def test_bad_cli_input_is_rejected_with_a_clear_error():
    proc = cli("run", "LongPuzzle/Nope-Easy", check=False)
    assert proc.returncode == 2 and "is not registered; allowed: " in proc.stderr
    assert "LongPuzzle/MazePaint-Easy" in proc.stderr
    proc = cli("run", "LongPuzzle/MazePaint-Esy", check=False)  # a typo: the nearest id named
    assert proc.returncode == 2 and (
        "'LongPuzzle/MazePaint-Esy' is not registered; did you mean 'LongPuzzle/MazePaint-Easy'? "
        "allowed: " in proc.stderr
    )
    proc = cli("run", "rushhour-hard", check=False)  # case and the prefix forgotten
    assert proc.returncode == 2 and "did you mean 'LongPuzzle/RushHour-Hard'?" in proc.stderr
    proc = cli("run", "LongPuzzle/MazePaint-Easy", "--level", "99", check=False)
    assert (
        proc.returncode == 2
        and "level: expected an integer 1..10 or None" in proc.stderr
        and "got 99" in proc.stderr
    )
    proc = cli("run", "LongPuzzle/MazePaint-Easy", "--backend", "x", check=False)
    assert proc.returncode == 2 and "invalid choice: 'x'" in proc.stderr


def test_levels_list_and_validate():
    from puzzlegym.game.registry import games

    rows = [r.split("\t") for r in cli("levels", "list").stdout.strip().splitlines()]
    assert len(rows) == sum(len(g.load_catalogue(t)) for g in games().values() for t in g.tiers)
    assert ["MazePaint", "Easy", "1", "maze-easy-01"] in rows
    assert cli("levels", "validate").stdout.strip().endswith("catalogue OK")


def test_bench_json_reports_rates():
    proc = cli("bench", "LongPuzzle/MazePaint-Easy", "--steps", "200", "--json")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["steps_per_s"] > 0 and result["frame_copies_per_s"] > 0
    assert (
        abs(result["ratio_to_frame_copy"] - result["steps_per_s"] / result["frame_copies_per_s"])
        < 0.002
    )
    assert result["rules_transitions_per_s"] > 0
    # the default observations (pooled) beside a full copy per step, measured in the same run
    assert result["steps_per_s_full_copy"] > 0
    assert result["pool_speedup"] == pytest.approx(
        result["steps_per_s"] / result["steps_per_s_full_copy"], abs=0.002
    )
    # the board-target step (BoardActions), both ways on the same masked random indices
    assert result["board_steps_per_s"] > 0 and result["board_steps_per_s_full_copy"] > 0
    assert result["board_pool_speedup"] == pytest.approx(
        result["board_steps_per_s"] / result["board_steps_per_s_full_copy"], abs=0.002
    )


def test_levels_stats_json_for_maze_paint():
    rows = json.loads(cli("levels", "stats", "--game", "MazePaint", "--json").stdout)
    assert len(rows) == 30
    for row in rows:
        assert row["optimal"] and row["states_complete"] and row["dead_end_share"] == 0.0
        assert row["branching"] > 1.0 and row["states"] > row["n_step"]
    easy = [r["n_step"] for r in rows if r["tier"] == "Easy"]
    assert sum(easy) == 88


def test_play_help_describes_every_option_and_takes_start_and_level():
    """Issue 33, item 3: every option of `puzzlegym play` has a help line; --start and
    --level parse as `run`'s do (a bad choice is refused)."""
    import argparse

    from puzzlegym.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    play = sub.choices["play"]
    undescribed = [a.dest for a in play._actions if a.dest != "help" and not a.help]
    assert undescribed == [] and play.description
    args = play.parse_args(["LongPuzzle/RushHour-Easy", "--start", "board", "--level", "3"])
    assert (args.start, args.level) == ("board", 3)
    proc = cli("play", "--start", "table", check=False)
    assert proc.returncode == 2 and "invalid choice: 'table'" in proc.stderr
