"""Issue 21, item 3: every ``serve`` episode reproduces under ``puzzlegym replay``, however it
ended (DELETE, a reset over it, idle expiry, server shutdown) and with batch steps in records
that carry no frame hashes. Real servers on loopback, real HTTP clients, the real replay."""

import json
import time
from pathlib import Path

import pytest

from puzzlegym.cli import main
from puzzlegym.evaluation.replay import replay
from puzzlegym.record.files import read_log
from tests.test_hardening_service import RESET, serve

# clicks on the board and swipes, single and batched (one batch mixes accepted and refused
# members: a click on nothing, then a swipe the board takes)
SWIPES = [
    {"type": "drag", "x0": 640, "y0": 450, "x1": 640, "y1": 250},
    {
        "type": "batch",
        "actions": [
            {"type": "click", "x": 5, "y": 890},
            {"type": "drag", "x0": 640, "y0": 450, "x1": 900, "y1": 450},
            {"type": "wait"},
            {"type": "drag", "x0": 640, "y0": 450, "x1": 640, "y1": 700},
        ],
    },
    {
        "type": "batch",
        "actions": [{"type": "click", "x": 640, "y": 450}, {"type": "click", "x": 640, "y": 450}],
    },
    {"type": "drag", "x0": 640, "y0": 450, "x1": 300, "y1": 450},
]


def play(srv, session):
    record = srv.request("POST", "/reset", RESET, session=session)[1]["record"]
    for action in SWIPES:
        status, doc = srv.request("POST", "/action", action, session=session)
        assert status == 200 and doc["done"] is False, doc
    return Path(record)


def reproduces(record: Path) -> dict:
    rep = replay(record)
    assert rep["ok"], rep["mismatch"]
    assert rep["finished"] and rep["lines_compared"] == len(read_log(record))
    return rep


@pytest.mark.parametrize("clock", ["sim", "wall"])
def test_serve_episodes_ended_every_way_reproduce(tmp_path, clock):
    records = tmp_path / "records"
    srv = serve(records, clock=clock, idle_s=3600)
    try:
        deleted = play(srv, "a")
        assert srv.request("DELETE", "/session", session="a")[0] == 200
        reset_over = play(srv, "b")
        # a new episode ends the old one; shutdown ends the episodes still running
        b_again = Path(srv.request("POST", "/reset", RESET, session="b")[1]["record"])
        srv.request("POST", "/action", SWIPES[1], session="b")
        c = play(srv, "c")
    finally:
        srv.close()
    ends = {
        deleted: "session_deleted",
        reset_over: "reset",
        b_again: "server_stopped",
        c: "server_stopped",
    }
    for record, how in ends.items():
        manifest = json.loads((record / "manifest.json").read_text())
        assert manifest["result"]["ended"] == how and manifest["record_frames"] is None
        assert read_log(record)[-1]["kind"] == "attempt"  # the line end_episode writes
        reproduces(record)


def test_an_expired_serve_episode_reproduces(tmp_path):
    srv = serve(tmp_path / "records", clock="sim", idle_s=0.5)
    try:
        record = play(srv, "x")
        deadline = time.monotonic() + 30
        while (
            "result" not in json.loads((record / "manifest.json").read_text())
            and time.monotonic() < deadline
        ):
            time.sleep(0.1)
    finally:
        srv.close()
    assert (
        json.loads((record / "manifest.json").read_text())["result"]["ended"] == "session_expired"
    )
    reproduces(record)


def test_batch_members_are_recorded_with_their_own_acceptance(tmp_path):
    srv = serve(tmp_path / "records", clock="sim")
    try:
        record = play(srv, "y")
    finally:
        srv.close()
    actions = [r for r in read_log(record) if r["kind"] == "action"]
    first_batch = actions[1:5]
    # the click on nothing and the wait change nothing; the swipes move the ball
    assert [a["accepted"] for a in first_batch] == [False, True, False, True]
    rep = reproduces(record)
    assert rep["frames"] == 0 and rep["steps"] == len(actions)  # member by member
    assert main(["replay", str(tmp_path / "records")]) == 0  # the CLI over the whole directory


def test_a_serve_process_stopped_by_sigterm_ends_its_episodes_and_they_reproduce(tmp_path):
    from tests.test_server import request, start

    proc, url = start(["serve", "--record-dir", str(tmp_path / "records")], tmp_path)  # wall clock
    try:
        record = Path(request(url, "/reset", RESET)[1]["record"])
        for action in SWIPES:
            assert request(url, "/action", action)[0] == 200
    finally:
        proc.terminate()  # SIGTERM: the server stops and ends the running episodes
        assert proc.wait(timeout=30) == 0
    assert json.loads((record / "manifest.json").read_text())["result"]["ended"] == "server_stopped"
    reproduces(record)
