"""The browser backend: the suite in a real Chromium page, driven through Playwright.

The page (``puzzlegym/backends/page/``) shows the frames the renderer produces in a canvas and
reports its real pointer and keyboard events. Every GUI action is performed with Playwright's
mouse and keyboard on the page (drags as interpolated moves); the page's events, rebased onto
the episode clock, go to the same gesture recognizer the in-process backend uses; the changed
regions of the rendered frame are pushed to the page as PNG; the observation is a real
Chromium screenshot (CDP ``Page.captureScreenshot``) decoded to a uint8 array. With
``--force-color-profile=srgb`` and device scale 1 it equals the in-process frame byte for byte.

The page receives pixels only. If Chromium dies, the next call starts a new one and redraws
the whole frame from the suite (which lives in this process), so nothing is lost. Every call
into the browser is bounded by ``timeout_s`` (default 10 s, ``PUZZLEGYM_BROWSER_TIMEOUT_S``):
a Chromium that stops answering (frozen, not dead) is killed, with every process it started,
and the step completes on a new one exactly as after a crash; an action whose events never
reached the suite is performed again, so nothing is lost or doubled. The bound holds when
Playwright's own driver (its node process) freezes too: every Playwright call runs in the
thread that owns that driver (:class:`Driver`) and the caller waits for it with a deadline; on
expiry the Chromium and the driver are both killed, the thread is abandoned, and the next call
starts a new driver and a new Chromium.
"""

from __future__ import annotations

import base64
import io
import os
import queue
import signal
import threading
import uuid
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

from puzzlegym.backends.native import FrameBuffer
from puzzlegym.base.actions import (
    Action,
    Click,
    DoubleClick,
    Drag,
    PressKey,
    Scroll,
    TypeText,
    Wait,
)
from puzzlegym.base.errors import PuzzleGymError
from puzzlegym.base.fields import check_number
from puzzlegym.screen.input import Event
from puzzlegym.screen.render import SCREEN, Rect

if TYPE_CHECKING:
    from playwright.sync_api import Browser, CDPSession, Page

CHROMIUM_ENV = "PUZZLEGYM_CHROMIUM"
DEFAULT_CHROMIUM = "/usr/bin/chromium"
TIMEOUT_ENV = "PUZZLEGYM_BROWSER_TIMEOUT_S"
DEFAULT_TIMEOUT_S = 10.0  # a step normally takes ~50 ms; launching Chromium ~1 s
LAUNCH_TIMEOUT_S = 60.0
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--force-color-profile=srgb",
    # frames (and so screenshots) are not held back to a display's refresh rate
    "--disable-gpu-vsync",
    "--disable-frame-rate-limit",
    "--hide-scrollbars",
    "--mute-audio",
)
# Chromium acknowledges each pointer move on its next frame (~15 ms), so drags on the page
# interpolate fewer moves than the synthetic ones; recognition uses only press and release.
BROWSER_DRAG_STEPS = 2
_WHEEL = {"up": (0, -120), "down": (0, 120), "left": (-120, 0), "right": (120, 0)}


class BrowserUnavailable(PuzzleGymError):
    """Chromium (or Playwright) is missing or cannot start."""


class BrowserHung(PuzzleGymError):
    """Chromium did not answer a call within the backend's timeout (it was killed)."""


def _processes() -> list[tuple[int, int, bytes]]:
    """Every process now: (pid, parent pid, command line)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read()
        except (OSError, ValueError, IndexError):
            continue
        out.append((int(entry), ppid, cmdline))
    return out


def _process_tree(marker: bytes) -> set[int]:
    """The processes whose command line holds ``marker`` (one Chromium's main process) and
    every process descending from them (zygotes, renderers, GPU and utility processes)."""
    children: dict[int, list[int]] = {}
    found: set[int] = set()
    for pid, ppid, cmdline in _processes():
        children.setdefault(ppid, []).append(pid)
        if marker in cmdline:
            found.add(pid)
    stack = list(found)
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _driver_processes() -> set[int]:
    """This process's children that are Playwright drivers (``... run-driver``)."""
    me = os.getpid()
    return {pid for pid, ppid, cmdline in _processes() if ppid == me and b"run-driver" in cmdline}


_STARTING = threading.Lock()  # one driver starts at a time, so its process is known


class Expired(Exception):
    """A call into the driver's thread did not return within its deadline."""


class Driver:
    """One Playwright driver and the thread that owns its sync API. :meth:`call` runs a
    function in that thread and waits for it at most ``limit`` seconds (:class:`Expired`
    otherwise), whatever the driver or Chromium do; :meth:`kill` ends the driver process
    and abandons the thread (it exits once its call fails, or is left, a daemon, if even
    that never happens)."""

    def __init__(self, limit: float) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.pid: int | None = None
        self.dead = False
        self.thread = threading.Thread(target=self._serve, name="puzzlegym-playwright", daemon=True)
        self.thread.start()
        try:
            self.playwright = self.call(self._start, limit)
        except BaseException:
            self.kill()
            raise

    def _start(self) -> Any:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:  # pragma: no cover - playwright is a dependency
            raise BrowserUnavailable(f"playwright is not installed: {exc}") from None
        with _STARTING:
            before = _driver_processes()
            pw = sync_playwright().start()
            new = _driver_processes() - before
        self.pid = new.pop() if len(new) == 1 else None
        return pw

    def _serve(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fn, box, done = job
            try:
                box["value"] = fn()
            except BaseException as exc:  # handed to the caller
                box["error"] = exc
            done.set()
            if self.dead:
                return

    def call(self, fn: Callable[[], Any], limit: float) -> Any:
        if self.dead:
            raise BrowserHung("the Playwright driver was killed")
        box: dict[str, Any] = {}
        done = threading.Event()
        self._jobs.put((fn, box, done))
        if not done.wait(limit):
            raise Expired
        if "error" in box:
            raise box["error"]
        return box["value"]

    def kill(self) -> None:
        self.dead = True
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
        self._jobs.put(None)

    def stop(self, limit: float) -> None:
        """Stop Playwright (bounded; killed if it does not stop), then the thread."""
        if not self.dead:
            try:
                self.call(self.playwright.stop, limit)
            except Exception:
                pass
        self.kill()


def chromium_path() -> str:
    path = os.environ.get(CHROMIUM_ENV, DEFAULT_CHROMIUM)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise BrowserUnavailable(
            f"Chromium not found at {path!r} (set {CHROMIUM_ENV} to its path). Install it from "
            "the OS packages, e.g. 'apt-get install -y chromium' on Debian/Ubuntu"
        )
    return path


def page_file(name: str):
    """A file of the static page (``index.html``, ``page.js``) shipped beside this backend."""
    return resources.files("puzzlegym.backends") / "page" / name


def page_html() -> str:
    """The page with its script inlined (the browser backend loads it with no server)."""
    html = page_file("index.html").read_text(encoding="utf-8")
    script = page_file("page.js").read_text(encoding="utf-8")
    return html.replace('<script src="page.js"></script>', f"<script>{script}</script>")


def encode_png(frame: np.ndarray, rect: Rect) -> str:
    """A region of ``frame`` as base64 PNG (fast, lossless)."""
    buf = io.BytesIO()
    region = frame[rect.y : rect.y1, rect.x : rect.x1]
    Image.fromarray(region).save(buf, format="PNG", compress_level=1)
    return base64.b64encode(buf.getvalue()).decode("ascii")


class BrowserBackend(FrameBuffer):
    """One headless Chromium per env, reused across resets (see module docstring)."""

    name = "browser"

    def __init__(
        self, headless: bool = True, timeout_s: float | None = None, cache_bytes: int | None = None
    ) -> None:
        super().__init__(cache_bytes)
        self.headless = headless
        if timeout_s is None:
            try:
                timeout_s = float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT_S))
            except ValueError:
                raise BrowserUnavailable(f"{TIMEOUT_ENV}: expected a number of seconds") from None
        self.timeout_s = check_number(  # bound of every call into the browser
            timeout_s, "timeout_s", 0, 3600, BrowserUnavailable, lo_open=True, what="seconds"
        )
        self.timeouts = 0  # calls that hit the bound (Chromium killed and relaunched)
        self._marker: str | None = None  # a switch on this Chromium's command line
        self._driver: Driver | None = None
        self._browser: Browser | None = None
        self._page: Page | None = None
        self._cdp: CDPSession | None = None
        self._synced_version = -1  # suite version whose frame the page shows
        self.restarts = 0  # Chromium relaunches after a crash
        chromium_path()  # fail early, with the install hint

    def __getstate__(self) -> dict:
        raise TypeError(
            "an env on the browser backend cannot be pickled or copied: it drives a live "
            "Chromium; pickle or copy envs on backend='native'"
        )

    # ------------------------------------------------------------------ lifecycle
    def _launch(self) -> None:
        if self._driver is None or self._driver.dead:
            try:
                self._driver = Driver(LAUNCH_TIMEOUT_S)
            except Expired:
                raise BrowserUnavailable(
                    f"Playwright's driver did not start within {LAUNCH_TIMEOUT_S:g} s"
                ) from None
            except BrowserUnavailable:
                raise
            except Exception as exc:
                raise BrowserUnavailable(f"Playwright's driver failed to start: {exc}") from None
        pw = self._driver.playwright
        self._marker = f"--puzzlegym-browser={os.getpid()}-{uuid.uuid4().hex}"
        try:
            self._browser = browser = self._bounded(
                "launching Chromium",
                pw.chromium.launch,
                executable_path=chromium_path(),
                headless=self.headless,
                args=[*CHROMIUM_ARGS, self._marker],
                timeout=1000 * LAUNCH_TIMEOUT_S,
                limit=LAUNCH_TIMEOUT_S,
            )
        except Exception as exc:
            raise BrowserUnavailable(f"Chromium failed to start: {exc}") from None

        def open_page() -> None:
            context = browser.new_context(
                viewport={"width": SCREEN.w, "height": SCREEN.h}, device_scale_factor=1
            )
            self._page = page = context.new_page()
            page.set_content(page_html())
            self._cdp = context.new_cdp_session(page)

        self._bounded("opening the page", open_page, limit=LAUNCH_TIMEOUT_S)
        self._synced_version = -1
        self.canvas.invalidate()
        self._version = -1

    def _ensure(self) -> None:
        page, browser = self._page, self._browser
        if page is not None and browser is not None:
            try:
                alive = self._bounded(
                    "checking Chromium", lambda: not page.is_closed() and browser.is_connected()
                )
            except BrowserHung:
                alive = False
            if alive:
                return
            self.restarts += 1
            self._drop()
        self._launch()

    def _bounded(
        self,
        what: str,
        fn: Callable[..., Any],
        *args: Any,
        limit: float | None = None,
        **kwargs: Any,
    ) -> Any:
        """``fn(*args, **kwargs)`` in the driver's thread, bounded: if it has not returned
        after ``limit`` seconds (default ``timeout_s``), this Chromium and the Playwright
        driver are killed (frozen ones included) and :class:`BrowserHung` is raised at once;
        the next call starts both anew."""
        limit = self.timeout_s if limit is None else limit
        driver = self._driver
        if driver is None or driver.dead:
            raise BrowserHung(f"{what}: no Playwright driver (it was killed)")
        try:
            return driver.call(lambda: fn(*args, **kwargs), limit)
        except Expired:
            self.timeouts += 1
            self._abandon()
            raise BrowserHung(
                f"{what}: no answer within {limit:g} s; "
                "Chromium and the Playwright driver were killed"
            ) from None

    def _abandon(self) -> None:
        """Kill this Chromium (every process it started) and the driver; forget both."""
        self._kill(self._marker)
        if self._driver is not None:
            self._driver.kill()
        self._driver, self._browser, self._page, self._cdp = None, None, None, None

    @staticmethod
    def _kill(marker: str | None) -> None:
        """SIGKILL one Chromium and every process it started (frozen ones included)."""
        if marker is None:
            return
        for pid in _process_tree(marker.encode()):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def _drop(self) -> None:
        """Forget a dead, frozen or closing browser (best effort, bounded)."""
        browser, self._browser, self._page, self._cdp = self._browser, None, None, None
        if browser is not None and self._driver is not None and not self._driver.dead:
            try:
                self._bounded("closing Chromium", browser.close)
            except Exception:
                self._kill(self._marker)
        else:
            self._kill(self._marker)

    def close(self) -> None:
        self._drop()
        self.release()
        if self._driver is not None:
            self._driver.stop(self.timeout_s)
            self._driver = None

    # ------------------------------------------------------------------ actions
    def _opened(self) -> tuple[Page, CDPSession]:
        """The page and its CDP session (open after ``_ensure``, until Chromium is dropped)."""
        if self._page is None or self._cdp is None:
            raise BrowserHung("the page is closed: Chromium was dropped")
        return self._page, self._cdp

    def _drive(self, action: Action) -> None:
        page = self._opened()[0]
        mouse, keyboard = page.mouse, page.keyboard
        if isinstance(action, Click):
            mouse.click(action.x, action.y)
        elif isinstance(action, DoubleClick):
            mouse.dblclick(action.x, action.y)
        elif isinstance(action, Drag):
            mouse.move(action.x0, action.y0)
            mouse.down()
            mouse.move(action.x1, action.y1, steps=BROWSER_DRAG_STEPS)
            mouse.up()
        elif isinstance(action, PressKey):
            keyboard.press(action.key)
        elif isinstance(action, TypeText):
            keyboard.insert_text(action.text)
        elif isinstance(action, Scroll):
            mouse.wheel(*_WHEEL[action.direction])
        elif isinstance(action, Wait):
            pass
        else:  # pragma: no cover - the env never sends others
            raise TypeError(f"{type(action).__name__} is not performed on the page")

    def perform(self, action: Action, t_ms: int) -> list[Event]:
        """Perform ``action`` on the page with real input; returns the page's events,
        rebased so the first starts at ``t_ms`` (the episode clock)."""

        def drive() -> Any:
            page = self._opened()[0]
            page.evaluate("window.puzzlegym.takeEvents()")
            self._drive(action)
            return page.evaluate("window.puzzlegym.takeEvents()")

        for attempt in (0, 1):
            self._ensure()
            try:  # the page's events reach the suite only below: a failed try delivered none
                raw = self._bounded("performing an action", drive)
                break
            except Exception:
                if attempt:
                    raise
                self._drop_dead()
        if not raw:
            return []
        t0 = raw[0]["t"]
        return [
            Event(
                e["kind"],
                t_ms + int(round(e["t"] - t0)),
                int(e.get("x", 0)),
                int(e.get("y", 0)),
                str(e.get("value", "")),
            )
            for e in raw
        ]

    def _drop_dead(self) -> None:
        self.restarts += 1
        self._drop()

    # ------------------------------------------------------------------ frames
    def observe(self, suite) -> np.ndarray:
        """Push the changed regions of the suite's frame to the page, then return a real
        Chromium screenshot of it."""

        def shoot() -> np.ndarray:
            self._sync(suite)
            return self._screenshot()

        for attempt in (0, 1):
            self._ensure()
            try:
                return self._bounded("taking a screenshot", shoot)
            except Exception:
                if attempt:
                    raise
                self._drop_dead()
        raise AssertionError("unreachable")  # pragma: no cover

    def _sync(self, suite) -> None:
        if self._synced_version == suite.version and self._version == suite.version:
            return
        full = self._version == -1 or self._synced_version == -1
        self.render(suite)
        regions = [SCREEN] if full else self.canvas.last_dirty
        patches = [[r.x, r.y, encode_png(self.canvas.frame, r)] for r in regions]
        if patches:
            self._opened()[0].evaluate("p => window.puzzlegym.drawPatches(p)", patches)
        self._synced_version = suite.version

    def _screenshot(self) -> np.ndarray:
        shot = self._opened()[1].send(
            "Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True}
        )
        img = Image.open(io.BytesIO(base64.b64decode(shot["data"])))
        return np.asarray(img.convert("RGB"))

    def invalidate(self) -> None:
        super().invalidate()
        self._synced_version = -1
