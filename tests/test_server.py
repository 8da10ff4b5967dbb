"""`puzzlegym serve` and `puzzlegym play` as real server processes, with real HTTP clients."""

import base64
import io
import json
import os
import threading
import urllib.error
import urllib.request
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from puzzlegym.record.files import read_log
from puzzlegym.service.launch import start_service


def start(args, tmp_path):
    return start_service(args, cwd=tmp_path)


def test_a_service_that_does_not_answer_in_time_is_killed_with_a_clear_error(tmp_path):
    before = {p.name for p in Path("/proc").iterdir() if p.name.isdigit()}
    with pytest.raises(RuntimeError, match=r"^puzzlegym serve did not start: it printed nothing"):
        start_service(["serve", "--record-dir", str(tmp_path / "r")], timeout_s=0.001)
    children = [
        p
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and p.name not in before and _parent(p) == os.getpid()
    ]
    assert children == []  # the child was killed and reaped
    with pytest.raises(ValueError, match=r"^args: expected"):
        start_service(["run", "x"])


def _parent(proc_dir: Path) -> int | None:
    try:
        return int((proc_dir / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


@pytest.fixture
def service(tmp_path):
    proc, url = start(
        ["serve", "--clock", "sim", "--record-dir", str(tmp_path / "records")], tmp_path
    )
    yield url, tmp_path / "records"
    proc.terminate()
    proc.wait(timeout=10)


def request(url, path, body=None, session="default", raw=None, method=None):
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(
        url + path, data=data, method=method or ("POST" if data is not None else "GET")
    )
    req.add_header("X-Session", session)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            ctype = resp.headers["Content-Type"]
            payload = resp.read()
            return resp.status, (json.loads(payload) if "json" in ctype else payload)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def decode(png_b64):
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(png_b64))).convert("RGB"))


def test_reset_action_screenshot_answer_match_the_env_and_leak_nothing(service):
    url, records = service
    status, doc = request(
        url, "/reset", {"objective": "MazePaint-Easy", "level": 1, "start": "board"}
    )
    assert status == 200 and set(doc) == {
        "png",
        "step",
        "actions",
        "elapsed_s",
        "accepted",
        "done",
        "instruction",
        "record",
    }
    env = gym.make("LongPuzzle/MazePaint-Easy", level=1, start="board")
    obs, _ = env.reset(seed=0)
    assert np.array_equal(decode(doc["png"]), obs)
    from puzzlegym import solvers

    moves = solvers.solve(env.unwrapped.suite.board.level).moves
    from puzzlegym.screen.layout import BOARD_AREA

    for move in moves:
        u = env.unwrapped
        action = u.game.view.actions_for_move(
            u.suite.board.level, u.suite.board.state, None, move, BOARD_AREA
        )[0]
        action = {
            "type": "drag",
            "x0": action.x0,
            "y0": action.y0,
            "x1": action.x1,
            "y1": action.y1,
        }
        obs, _, term, _, _ = env.step(action)
        status, doc = request(url, "/action", action)
        assert status == 200 and set(doc) == {
            "png",
            "step",
            "actions",
            "elapsed_s",
            "accepted",
            "done",
        }
        assert np.array_equal(decode(doc["png"]), obs) and doc["accepted"] is True
    assert doc["done"] is True
    status, png = request(url, "/screenshot")
    assert status == 200 and np.array_equal(
        np.asarray(Image.open(io.BytesIO(png)).convert("RGB")), obs
    )
    status, doc = request(url, "/action", {"type": "wait"})
    assert status == 409 and "POST /reset" in doc["error"]
    # the operator reads results from the record on disk
    manifest = json.loads((records / "episode-000001" / "manifest.json").read_text())
    assert manifest["result"]["success"] is True
    # answer on a fresh episode
    request(url, "/reset", {"objective": "LongPuzzle/MazePaint-Easy"})
    status, doc = request(url, "/answer", {"text": "done"})
    assert status == 200 and doc["done"] is True
    assert (
        json.loads((records / "episode-000002" / "manifest.json").read_text())["result"]["answered"]
        == "done"
    )
    env.close()


def test_bad_requests_get_4xx_naming_the_problem_and_change_nothing(service):
    url, _ = service
    assert request(url, "/action", {"type": "wait"})[0] == 409  # no episode yet
    request(url, "/reset", {"objective": "MazePaint-Easy"})
    before = request(url, "/status")[1]
    cases = [
        (dict(raw=b"{not json"), 400, "malformed JSON"),
        (dict(body={"type": "teleport"}), 400, "unknown action type 'teleport'"),
        (
            dict(body={"type": "click", "x": 5000, "y": 3}),
            400,
            "x: expected an integer 0..1279 (a pixel on the screen), got 5000",
        ),
        (dict(body={"type": "click", "x": 1}), 400, "missing field 'y'"),
        (
            dict(
                body={
                    "type": "batch",
                    "actions": [{"type": "wait"}, {"type": "press_key", "key": "F9"}],
                }
            ),
            400,
            "'F9' is not an allowed key",
        ),
        (dict(raw=b"x" * (70 * 1024)), 413, "too large"),
    ]
    for kwargs, status, fragment in cases:
        got, doc = request(url, "/action", **kwargs)
        assert got == status and fragment in doc["error"], (kwargs, doc)
    assert request(url, "/reset", {"objective": "Nope-Easy"})[1]["error"].startswith("env id:")
    assert request(url, "/reset", {"objective": "MazePaint-Easy", "level": 99})[0] == 400
    assert request(url, "/nowhere")[0] == 404
    assert request(url, "/screenshot", body={})[0] == 405
    assert request(url, "/status")[1] == before


def test_concurrent_clients_lose_and_reorder_nothing(service):
    url, records = service
    request(url, "/reset", {"objective": "MazePaint-Easy"}, session="load")
    clients, per_client, errors = 8, 200, []

    def client(c):
        for i in range(per_client):
            status, doc = request(
                url, "/action", {"type": "type_text", "text": f"c{c}n{i}"}, session="load"
            )
            if status != 200:
                errors.append((c, i, status))

    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    status = request(url, "/status", session="load")[1]
    assert status["actions"] == clients * per_client
    log = [r for r in read_log(records / "episode-000001") if r["kind"] == "action"]
    texts = [r["action"]["text"] for r in log]
    assert len(texts) == clients * per_client and [r["actions"] for r in log] == list(
        range(1, 1601)
    )
    for c in range(clients):
        mine = [int(t.split("n")[1]) for t in texts if t.startswith(f"c{c}n")]
        assert mine == list(range(per_client))  # every action, in the client's order


def test_play_serves_the_page_and_records_a_human_episode(tmp_path):
    from playwright.sync_api import sync_playwright

    from puzzlegym.backends.browser import CHROMIUM_ARGS, chromium_path

    record = tmp_path / "human"
    proc, url = start(["play", "LongPuzzle/MazePaint-Easy", "--record-dir", str(record)], tmp_path)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url + "/")
            page.wait_for_timeout(500)
            env = gym.make("LongPuzzle/MazePaint-Easy")
            obs, _ = env.reset(seed=0)
            card = env.unwrapped.suite.targets()["game:MazePaint"].center
            script = [("click", *card), ("click", 640, 256), ("drag", 640, 450, 640, 250)]
            for item in script:
                if item[0] == "click":
                    page.mouse.click(item[1], item[2])
                    obs, *_ = env.step({"type": "click", "x": item[1], "y": item[2]})
                else:
                    page.mouse.move(item[1], item[2])
                    page.mouse.down()
                    page.mouse.move(item[3], item[4], steps=5)
                    page.mouse.up()
                    obs, *_ = env.step(
                        {"type": "drag", "x0": item[1], "y0": item[2], "x1": item[3], "y1": item[4]}
                    )
                page.wait_for_timeout(400)
            # the canvas's own pixels: the frame the human is shown (the page's status line is
            # an overlay of the human page above it, never painted into the frame)
            data_url = page.evaluate("document.getElementById('screen').toDataURL('image/png')")
            png = base64.b64decode(data_url.partition(",")[2])
            shot = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
            status = page.evaluate("document.getElementById('status').textContent")
            browser.close()
        assert "Maze Paint" in status or "move" in status.lower(), status
        assert (
            env.unwrapped.suite.screen == "level"
            and env.unwrapped.suite.board.game.name == "MazePaint"
        )
        assert np.array_equal(shot, obs)  # the human saw exactly the env's frame
        env.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    manifest = json.loads((record / "manifest.json").read_text())
    assert manifest["agent"] == "human" and manifest["config"]["clock"] == "wall"
    actions = [r["action"] for r in read_log(record) if r["kind"] == "action"]
    assert actions[:2] == [
        {"type": "click", "x": script[0][1], "y": script[0][2]},
        {"type": "click", "x": 640, "y": 256},
    ]
    assert actions[2]["type"] == "drag" and (actions[2]["x0"], actions[2]["y1"]) == (640, 250)
    assert any(r["kind"] == "level_reached" for r in read_log(record))
