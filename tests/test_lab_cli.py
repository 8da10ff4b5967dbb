"""``puzzlegym checkpoints find|list|show|restore`` as real subprocesses, on a record from
``puzzlegym run --agent random``."""

from __future__ import annotations

import json
import subprocess
import sys

from PIL import Image


def cli(*args, check=True):
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlegym", *args], capture_output=True, text=True, timeout=300
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_checkpoints_find_list_show_restore_on_a_random_agents_record(tmp_path):
    # the random agent's first accepted move on Bolt Unscrew Hard level 1 (seed 2) is fatal
    cli(
        "run",
        "LongPuzzle/BoltUnscrew-Hard",
        "--agent",
        "random",
        "--start",
        "board",
        "--level",
        "1",
        "--seed",
        "2",
        "--max-steps",
        "140",
        "--no-gif",
        "--json",
        "--out",
        str(tmp_path / "run"),
    )
    out = tmp_path / "ckpt"
    found = json.loads(
        cli(
            "checkpoints", "find", "--record", str(tmp_path / "run" / "record"), "--out", str(out)
        ).stdout.splitlines()[-1]
    )
    assert found["D"] >= 1 and found["N"] >= 1 and found["written"] == len(found["files"])
    rows = json.loads(cli("checkpoints", "list", str(out), "--json").stdout)
    assert {r["class"] for r in rows} == {"D", "N"} and all(r["source"] == "record" for r in rows)
    d = next(r for r in rows if r["class"] == "D")
    assert (
        d["game"] == "BoltUnscrew" and d["free_anchors"] > 0 and not d["visible"]
    )  # lost, holes still free
    assert d["match"] in {r["file"].removesuffix(".ckpt.json") for r in rows}
    shown = json.loads(cli("checkpoints", "show", str(out / d["file"]), "--json").stdout)
    assert (
        shown["certificate (private)"]["verdict"] == "dead_end"
        and shown["prefix_actions"] == d["actions"]
    )
    assert shown["env"]["env_id"] == "LongPuzzle/BoltUnscrew-Hard" and "prefix" not in shown
    restored = json.loads(
        cli(
            "checkpoints",
            "restore",
            str(out / d["file"]),
            "--replay",
            "--png",
            str(tmp_path / "d.png"),
        ).stdout
    )
    assert (
        restored["matches_certificate"]
        and restored["replay_identical"]
        and restored["screen"] == "level"
    )
    assert Image.open(tmp_path / "d.png").size == (1280, 900)
    # listing the same directory again (files are never overwritten: a second find fails cleanly)
    again = cli(
        "checkpoints",
        "find",
        "--record",
        str(tmp_path / "run" / "record"),
        "--out",
        str(out),
        check=False,
    )
    assert again.returncode == 2 and "never overwritten" in again.stderr


def test_checkpoints_bad_input_is_rejected_with_a_clear_error(tmp_path, capsys):
    from puzzlegym.cli import main

    def run(*args):
        rc = main(list(args))
        return rc, capsys.readouterr()

    rc, out = run("checkpoints", "find", "--out", str(tmp_path))
    assert rc == 2 and "give --record DIR" in out.err
    rc, out = run(
        "checkpoints", "find", "--env-id", "LongPuzzle/BoltUnscrew-Hard", "--out", str(tmp_path)
    )
    assert rc == 2 and "--level" in out.err
    rc, out = run(
        "checkpoints",
        "find",
        "--env-id",
        "LongPuzzle/BoltUnscrew-Hard",
        "--level",
        "1",
        "--count",
        "0",
        "--out",
        str(tmp_path),
    )
    assert rc == 2 and "--count" in out.err
    rc, out = run("checkpoints", "find", "--record", str(tmp_path / "nope"), "--out", str(tmp_path))
    assert rc == 2 and "not an episode record" in out.err
    (tmp_path / "x.ckpt.json").write_text("{}")
    rc, out = run("checkpoints", "show", str(tmp_path / "x.ckpt.json"))
    assert rc == 2 and "not a puzzlegym checkpoint" in out.err
    rc, out = run("checkpoints", "list", str(tmp_path / "missing"))
    assert rc == 2 and "not a directory" in out.err
    rc, out = run("checkpoints", "list", str(tmp_path))
    assert rc == 0 and "x.ckpt.json\terror:" in out.out


def test_checkpoints_find_says_why_it_wrote_nothing_and_list_explains_d_and_n(tmp_path, capsys):
    """Issue 33, item 5: random play on Rush Hour (every move can be undone) never reaches a
    certified dead end; find exits 0, writes nothing and says what it searched."""
    from puzzlegym.cli import main

    out = tmp_path / "ck"
    rc = main(
        ["checkpoints", "find", "--env-id", "LongPuzzle/RushHour-Easy", "--level", "1"]
        + ["--out", str(out)]
    )
    printed = capsys.readouterr()
    reason = (
        "200 seeded random playouts of up to 500 moves on LongPuzzle/RushHour-Easy level 1 "
        "reached no certified dead end"
    )
    assert rc == 0 and not out.exists()
    assert f"puzzlegym checkpoints find: nothing written: {reason}" in printed.err
    summary = json.loads(printed.out.splitlines()[-1])
    assert summary["written"] == 0 and summary["reason"].startswith(reason)
    out.mkdir()
    (out / "x.ckpt.json").write_text("{}")
    assert main(["checkpoints", "list", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2] == "1 checkpoint file"
    assert (
        lines[-1].startswith("class D: a certified dead end")
        and "class N: its solvable" in (lines[-1])
    )
