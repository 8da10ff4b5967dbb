"""The browser backend with a real Chromium: pixel identity with the in-process backend,
nothing private in the page, lifecycle (close, reuse, crash recovery, memory)."""

import base64
import io
import os
import signal
import threading
import time
from collections import defaultdict

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from puzzlegym.agents import SolverAgent
from puzzlegym.backends.browser import CHROMIUM_ARGS, BrowserUnavailable, chromium_path

pytestmark = pytest.mark.browser


def chromium_processes() -> dict[int, str]:
    """Chromium processes descending from this test process: pid -> cmdline."""
    children = defaultdict(list)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children[ppid].append(int(entry))
    out, stack = {}, [os.getpid()]
    while stack:
        for pid in children.get(stack.pop(), []):
            stack.append(pid)
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if "chrom" in cmd.split(" ")[0]:
                out[pid] = cmd
    return out


def rss_kib(pids) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def scripted_episode(env_id, level=None, extra=()):
    """A full scripted episode from the home screen: menus, solver moves, rejected moves,
    Restart, Menu and re-entry, keys, scrolls, waits and batches."""
    env = gym.make(env_id, level=level)
    env.reset(seed=0)
    agent = SolverAgent(env.unwrapped)
    script = [{"type": "click", "x": 5, "y": 5}, {"type": "scroll", "direction": "down"}]
    for i in range(1500):
        a = agent()
        script.append(a)
        _, _, term, trunc, _ = env.step(a)
        if i == 6:  # detour: restart, then menu and back in
            for extra_action in (
                {"type": "press_key", "key": "ArrowUp"},
                {"type": "double_click", "x": 640, "y": 500},
                {"type": "wait"},
            ):
                script.append(extra_action)
                env.step(extra_action)
            for target in ("restart", "menu"):
                x, y = env.unwrapped.suite.targets()[target].center
                script.append({"type": "click", "x": x, "y": y})
                env.step(script[-1])
        if term or trunc:
            break
    env.close()
    return script


def play(env, script):
    obs, _ = env.reset(seed=0)
    frames = [obs]
    for a in script:
        obs, *_ = env.step(a)
        frames.append(obs)
    return frames


def test_chromium_is_installed():
    assert os.access(chromium_path(), os.X_OK)


def test_missing_browser_says_how_to_install(monkeypatch):
    monkeypatch.setenv("PUZZLEGYM_CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(BrowserUnavailable, match="apt-get install -y chromium"):
        gym.make("LongPuzzle/MazePaint-Easy", backend="browser")


def _first_objectives():
    from puzzlegym.game.registry import games

    return [g.env_id(g.tiers[0]) for g in games().values()]


@pytest.mark.parametrize("env_id", _first_objectives())
def test_browser_frames_equal_native_frames_byte_for_byte(env_id):
    """A whole objective of every registered game (its first tier, every level, from the home
    screen, with a restart/menu detour, keys and waits) in both backends: every frame equal."""
    level = None
    script = scripted_episode(env_id, level)
    native = gym.make(env_id, level=level)
    browser = gym.make(env_id, level=level, backend="browser")
    try:
        a, b = play(native, script), play(browser, script)
    finally:
        native.close()
        browser.close()
    assert len(a) == len(b) > 20
    mismatches = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if not np.array_equal(x, y)]
    assert mismatches == []
    assert native.unwrapped.evaluator.summary() == browser.unwrapped.evaluator.summary()
    assert browser.unwrapped.evaluator.success  # the whole objective was played


def test_page_receives_pixels_only():
    env = gym.make("LongPuzzle/MazePaint-Easy", backend="browser", start="board")
    env.reset()
    backend = env.unwrapped.backend
    page = backend._page

    def in_driver(fn):  # Playwright's objects are used in the thread that owns its driver
        return backend._driver.call(fn, 60)

    requests, sent = [], []
    in_driver(lambda: page.on("request", lambda r: requests.append(r.url)))
    real_evaluate = page.evaluate

    def spy(expression, arg=None):
        sent.append((expression, arg))
        return real_evaluate(expression, arg)

    page.evaluate = spy
    try:
        agent = SolverAgent(env.unwrapped)
        for _ in range(15):
            env.step(agent())
        globals_ = set(in_driver(lambda: real_evaluate("Object.keys(window)")))
        dom = in_driver(page.content)
    finally:
        page.evaluate = real_evaluate
        env.close()
    assert requests == []  # no network traffic at all
    blank = {"puzzlegym"}
    assert blank <= globals_ and not any(
        k.lower() in ("state", "board", "level", "potential", "solver") for k in globals_
    )
    assert globals_ - blank <= _window_baseline()
    for expression, arg in sent:
        assert expression in (
            "window.puzzlegym.takeEvents()",
            "p => window.puzzlegym.drawPatches(p)",
        )
        if arg is not None:
            for x, y, data in arg:
                assert isinstance(x, int) and isinstance(y, int)
                img = Image.open(io.BytesIO(base64.b64decode(data)))
                assert img.format == "PNG"
    for word in ("painted", "potential", "ball", "solver", "maze-easy"):
        assert word not in dom.lower()


def _window_baseline() -> set:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
        page = b.new_page()
        keys = set(page.evaluate("Object.keys(window)"))
        b.close()
    return keys


def test_close_ends_chromium_and_resets_reuse_one_browser():
    before = set(chromium_processes())
    env = gym.make("LongPuzzle/MazePaint-Easy", backend="browser")
    env.reset()
    mine = set(chromium_processes()) - before
    assert mine, "a Chromium process runs for the env"
    for seed in range(3):
        env.reset(seed=seed)
        env.step({"type": "wait"})
    assert set(chromium_processes()) - before == mine  # one browser, reused
    env.close()
    deadline = time.time() + 10
    while set(chromium_processes()) - before and time.time() < deadline:
        time.sleep(0.1)
    assert set(chromium_processes()) - before == set()


def test_killed_chromium_is_replaced_and_nothing_is_lost():
    script = scripted_episode("LongPuzzle/MazePaint-Easy", 1)
    native = gym.make("LongPuzzle/MazePaint-Easy", level=1)
    browser = gym.make("LongPuzzle/MazePaint-Easy", level=1, backend="browser")
    try:
        expected = play(native, script)
        obs, _ = browser.reset(seed=0)
        got = [obs]
        for i, a in enumerate(script):
            if i == 5:
                procs = chromium_processes()
                main = [pid for pid, cmd in procs.items() if "--type=" not in cmd]
                assert main
                for pid in main:
                    os.kill(pid, signal.SIGKILL)
                time.sleep(0.5)
            obs, *_ = browser.step(a)
            got.append(obs)
        assert browser.unwrapped.backend.restarts >= 1
        assert all(np.array_equal(x, y) for x, y in zip(expected, got, strict=True))
        assert browser.unwrapped.evaluator.success
    finally:
        native.close()
        browser.close()


def test_memory_stays_bounded_over_100_resets():
    """Chromium's RSS after 100 resets stays near its RSS after 10: a page, a context or a
    listener left behind by each reset would grow it with the resets."""
    before = set(chromium_processes())
    env = gym.make("LongPuzzle/MazePaint-Easy", backend="browser")
    rng = np.random.default_rng(0)
    samples = []
    try:
        for r in range(100):
            env.reset(seed=r)
            for _ in range(2):
                env.step(
                    {"type": "click", "x": int(rng.integers(1280)), "y": int(rng.integers(900))}
                )
            if r in (9, 99):
                samples.append(rss_kib(set(chromium_processes()) - before))
    finally:
        env.close()
    early, late = samples
    print(f"chromium RSS after 10 resets: {early} KiB, after 100: {late} KiB")
    assert late < early * 1.5 + 50_000


def playwright_drivers() -> set[int]:
    """Playwright driver processes (node ... run-driver) started by this test process, not
    yet reaped (a killed one is gone or a zombie)."""
    out = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and b"run-driver" in cmd and fields[0] != "Z":
            out.add(int(entry))
    return out


def process_state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def watched(episode, progress, frozen, release_signal, failure: str) -> None:
    """Run ``episode`` in a thread (Playwright's sync API lives in the thread that started
    it); fail if it makes no step for 60 s (the regression), then send ``release_signal`` to
    the ``frozen`` processes so the test ends either way."""
    worker = threading.Thread(target=episode, daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(timeout=1)
            if time.monotonic() - progress[0] > 60:
                pytest.fail(failure)
    finally:
        for pid in frozen:
            try:
                os.kill(pid, release_signal)
            except OSError:
                pass


def test_frozen_chromium_is_killed_relaunched_and_nothing_is_lost():
    """Issue 15, item 14: a Chromium that stops answering (SIGSTOP, not dead) no longer hangs
    env.step: the call hits the backend's timeout, Chromium is killed and relaunched, and the
    episode's frames are those of the in-process backend, every action applied once."""
    script = scripted_episode("LongPuzzle/MazePaint-Easy", 1)
    native = gym.make("LongPuzzle/MazePaint-Easy", level=1)
    expected = play(native, script)
    native.close()
    frozen: set[int] = set()
    got: list = []
    outcome: dict = {}
    progress = [time.monotonic()]

    def episode():  # Playwright's sync API lives in the thread that started it
        browser = gym.make("LongPuzzle/MazePaint-Easy", level=1, backend="browser")
        backend = browser.unwrapped.backend
        backend.timeout_s = 2.0
        try:
            obs, _ = browser.reset(seed=0)
            got.append(obs)
            for i, a in enumerate(script):
                if i in (5, 9):  # freeze every process of this env's Chromium between two steps
                    frozen.update(chromium_processes())
                    for pid in chromium_processes():
                        os.kill(pid, signal.SIGSTOP)
                obs, *_ = browser.step(a)
                got.append(obs)
                progress[0] = time.monotonic()
            outcome.update(
                timeouts=backend.timeouts,
                restarts=backend.restarts,
                actions=browser.unwrapped.actions,
                success=browser.unwrapped.evaluator.success,
            )
        except Exception as exc:
            outcome["error"] = exc
        finally:
            browser.close()

    watched(
        episode,
        progress,
        frozen,
        signal.SIGKILL,
        f"env.step hung on a frozen Chromium after {len(got)} steps",
    )
    if "error" in outcome:
        raise outcome["error"]
    assert outcome["timeouts"] >= 2 and outcome["restarts"] >= 2
    assert all(np.array_equal(x, y) for x, y in zip(expected, got, strict=True))
    assert outcome["actions"] == len(script) and outcome["success"]  # nothing lost, nothing doubled
    assert all(process_state(pid) in ("gone", "Z") for pid in frozen)  # the frozen ones were killed


def test_frozen_playwright_driver_is_killed_relaunched_and_nothing_is_lost():
    """Issue 21, item 6: with Playwright's own driver frozen (SIGSTOP on its node process),
    killing Chromium alone never unblocked the call (a step took 44 s against a 10 s bound).
    Every call now runs in the driver's thread under a deadline: on expiry the driver and its
    Chromium are killed and the step completes on new ones, frames as in-process."""
    script = scripted_episode("LongPuzzle/MazePaint-Easy", 1)
    native = gym.make("LongPuzzle/MazePaint-Easy", level=1)
    expected = play(native, script)
    native.close()
    frozen: list[int] = []
    drivers: list[int] = []
    got: list = []
    outcome: dict = {}
    progress = [time.monotonic()]

    others = playwright_drivers()

    def episode():
        browser = gym.make("LongPuzzle/MazePaint-Easy", level=1, backend="browser")
        backend = browser.unwrapped.backend
        backend.timeout_s = 2.0
        try:
            obs, _ = browser.reset(seed=0)
            got.append(obs)
            for i, a in enumerate(script):
                if i in (4, 8):  # freeze this env's driver between two steps
                    mine = playwright_drivers() - others - set(drivers)
                    assert len(mine) == 1, mine
                    drivers.extend(mine)
                    frozen.extend(mine)
                    os.kill(drivers[-1], signal.SIGSTOP)
                obs, *_ = browser.step(a)
                got.append(obs)
                progress[0] = time.monotonic()
            outcome.update(
                timeouts=backend.timeouts,
                driver=playwright_drivers() - others - set(drivers),
                actions=browser.unwrapped.actions,
                success=browser.unwrapped.evaluator.success,
            )
        except Exception as exc:
            outcome["error"] = exc
        finally:
            browser.close()

    watched(
        episode, progress, frozen, signal.SIGCONT, "env.step hung on a frozen Playwright driver"
    )
    if "error" in outcome:
        raise outcome["error"]
    assert outcome["timeouts"] == 2 and len(outcome["driver"]) == 1  # a new driver after each
    assert all(
        process_state(pid) in ("gone", "Z") for pid in drivers
    )  # the frozen ones were killed
    assert all(np.array_equal(x, y) for x, y in zip(expected, got, strict=True))
    assert outcome["actions"] == len(script) and outcome["success"]  # nothing lost, nothing doubled
