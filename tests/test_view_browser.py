"""The episode viewer in a real Chromium at 1366x768 (issue 33, item 2): a solver episode, a
random episode with a certified dead end and a scripted-model episode. Scrubbing (keys, the
slider, the timeline, the jumps) shows exactly the frame replay produces for that position
(the canvas's pixels hashed against the replayed frame), the dead-end spans are the record's,
the model's turns show as text (a hostile string included), no console error occurs, no
request leaves the page, and the page fits the screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from puzzlegym.record.files import VIEW_PAGE, read_log
from puzzlegym.view.write import view
from tests.view_episodes import HOSTILE, recorded_frames

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1366, "height": 768}

# the canvas's pixels as RGB bytes, hashed in the page (what the screen shows, exactly)
CANVAS_SHA256 = """async () => {
  await window.viewer.settled();
  const d = document.getElementById("screen").getContext("2d").getImageData(0, 0, 1280, 900).data;
  const rgb = new Uint8Array(1280 * 900 * 3);
  for (let i = 0, j = 0; i < d.length; i += 4) {
    rgb[j++] = d[i]; rgb[j++] = d[i + 1]; rgb[j++] = d[i + 2];
  }
  const h = new Uint8Array(await crypto.subtle.digest("SHA-256", rgb));
  return Array.from(h, (b) => b.toString(16).padStart(2, "0")).join("");
}"""


@pytest.fixture(scope="module")
def episodes(view_records):
    """The three records, their pages (one `view` of the run) and the SHA-256 of the frame
    after each action as the env showed it while the episode was played (the record's frame
    hashes; the viewer's replay checks its frames against them too)."""
    written = view(view_records["solver"].parents[1])
    assert not written["failed"] and all(p["replay_ok"] for p in written["pages"])
    return {
        name: (rec, rec / VIEW_PAGE, recorded_frames(rec)) for name, rec in view_records.items()
    }


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    from puzzlegym.backends.browser import CHROMIUM_ARGS, chromium_path

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
        yield b
        b.close()


class Viewer:
    """One episode page open in its own context, its console errors and requests kept."""

    def __init__(self, browser, page_path: Path) -> None:
        self.context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = page_path.resolve().as_uri()
        self.page.goto(self.url)
        self.page.evaluate("() => window.viewer.ready")

    def position(self) -> int:
        return self.page.evaluate("() => window.viewer.position()")

    def shown(self) -> int:
        return self.page.evaluate("() => window.viewer.shown()")

    def canvas_sha256(self) -> str:
        return self.page.evaluate(CANVAS_SHA256)

    def text(self) -> str:
        return self.page.inner_text("#right")

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def open_viewer(browser):
    opened: list[Viewer] = []

    def _open(page_path: Path) -> Viewer:
        opened.append(Viewer(browser, page_path))
        return opened[-1]

    yield _open
    for v in opened:
        # nothing failed in the page and nothing but the page itself was requested
        assert v.errors == []
        assert set(v.requests) == {v.url}
        v.close()


def _fits(v: Viewer) -> None:
    sizes = v.page.evaluate(
        """() => {
          const box = (id) => { const r = document.getElementById(id).getBoundingClientRect();
                                return [r.left, r.top, r.right, r.bottom]; };
          const e = document.documentElement;
          return { scroll: [e.scrollWidth, e.scrollHeight, innerWidth, innerHeight],
                   boxes: ["screenbox", "controls", "jumps", "timeline", "right"].map(box) };
        }"""
    )
    sw, sh, w, h = sizes["scroll"]
    assert (sw, sh) == (w, h) == (1366, 768)  # no scrollbar: the page is the window
    for left, top, right, bottom in sizes["boxes"]:
        assert 0 <= left < right <= w and 0 <= top < bottom <= h


def _check_positions(v: Viewer, digests: dict[int, str], positions) -> None:
    for p in positions:
        v.page.evaluate(f"() => window.viewer.seek({p})")
        assert v.position() == p and v.shown() == p
        assert v.canvas_sha256() == digests[p], f"the frame at position {p}"


@pytest.mark.parametrize("name", ["solver", "random", "model"])
def test_scrubbing_shows_the_frame_replay_produces(episodes, open_viewer, name):
    record, page, digests = episodes[name]
    n = max(digests)
    v = open_viewer(page)
    _fits(v)
    assert v.canvas_sha256() == digests[0]
    # jumps in both directions (each from another composited frame), then the ends
    _check_positions(v, digests, sorted({n // 2, n // 3, 1, n - 1, n // 5}, reverse=True))
    _check_positions(v, digests, [n, 0])
    # the keyboard: one action forward at a time, then ten back
    v.page.locator("#slider").focus()
    for p in range(1, 6):
        v.page.keyboard.press("ArrowRight")
        assert v.position() == p and v.canvas_sha256() == digests[p]
    v.page.keyboard.press("Shift+ArrowLeft")
    assert v.position() == 0 and v.canvas_sha256() == digests[0]
    # the slider, dragged by the mouse to its middle
    box = v.page.locator("#slider").bounding_box()
    v.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    p = v.position()
    assert 0 < p < n and v.canvas_sha256() == digests[p]
    # the timeline, clicked at three quarters
    box = v.page.locator("#timeline").bounding_box()
    v.page.mouse.click(box["x"] + 1 + 30 + 0.75 * (box["width"] - 2 - 38), box["y"] + 60)
    p = v.position()
    assert abs(p - round(0.75 * n)) <= 1 and v.canvas_sha256() == digests[p]
    actions = [r for r in read_log(record) if r["kind"] == "action"]
    assert n == len(actions)
    nxt = actions[p] if p < n else None
    if nxt is not None:
        assert f"Next action: {p + 1}" in v.text()
        assert ("accepted" if nxt["accepted"] else "rejected") in v.text().split("Board")[0]


def test_the_dead_end_spans_are_the_records(episodes, open_viewer):
    record, page, digests = episodes["random"]
    log = read_log(record)
    spans = []
    for a in (r for r in log if r["kind"] == "attempt"):
        for run in a["runs"]:
            left = next(
                (
                    s["actions"]
                    for s in log
                    if s["kind"] == "snapshot"
                    and run["fatal_actions"] < s["actions"] <= a["end_actions"]
                    and not s["dead_end"]
                ),
                a["end_actions"],
            )
            spans.append([run["fatal_actions"], left])
    assert spans == [[241, spans[0][1]]] and spans[0][1] > 241
    v = open_viewer(page)
    assert v.page.evaluate("() => window.viewer.spans()") == spans
    # "d" jumps to the fatal move: the board before it, the move drawn, its verdict listed
    v.page.keyboard.press("d")
    start, end = spans[0]
    assert v.position() == start - 1 and v.canvas_sha256() == digests[start - 1]
    assert "the fatal move" in v.text()
    v.page.keyboard.press("ArrowRight")
    assert "certified dead end" in v.text() and f"left at action {end} by undo" in v.text()
    # the span is shaded on the timeline (red over white) and nowhere before it
    shade = v.page.evaluate(
        """([a, b]) => {
          const c = document.getElementById("timeline"), g = c.getContext("2d");
          const x = (p) => Math.round(30 + p / window.viewer.n * (c.width - 38));
          const px = (p) => Array.from(g.getImageData(x(p), 30, 1, 1).data.slice(0, 3));
          return [px((a + b) / 2), px(a / 2)];
        }""",
        spans[0],
    )
    inside, before = shade
    assert inside[0] > inside[1] + 20 and inside[0] > inside[2] + 20  # reddish
    assert before == [255, 255, 255]


def test_the_models_turns_show_as_text(episodes, open_viewer):
    record, page, digests = episodes["model"]
    v = open_viewer(page)
    text = v.text()
    assert "Model" in text and "retries 1" in text and "fault retried" in text
    assert HOSTILE in text  # shown as it came, as text
    assert v.page.evaluate("() => window.pwned") is None  # and never run
    v.page.click("#right details summary")
    assert "The home screen shows six games" in v.text()
    assert "malformed call click" in v.text()
    # the first reply's click: one action later, the reply that made it and its feedback
    assert "Step 1 of" in v.text()  # the reply whose click is the first action
    v.page.evaluate("() => window.viewer.seek(1)")
    assert "Step 2 of" in v.text() and "feedback to the model" in v.text()
    v.page.keyboard.press("End")
    assert v.position() == max(digests) and "the episode ended here" in v.text()
    v.page.keyboard.press("Shift+F")  # back to the last fault: the retried request
    assert v.position() == 0


def test_a_run_stopped_at_its_step_limit_says_so_on_one_header_line(
    episodes, open_viewer, tmp_path
):
    """Issue 43, item 5: a record stopped by ``--max-steps`` showed a red "unfinished record",
    the header wrapped at 1366 px, the legend did not explain the dashed lines, and a model's
    click showed as "click click (x, y)"."""
    from puzzlegym.evaluation.runner import run_episode

    result = run_episode(
        "LongPuzzle/MazePaint-Easy",
        "random",
        seed=0,
        out_dir=tmp_path / "r",
        gif=False,
        max_steps=12,
    )
    record = Path(result["record"])
    view(record)
    v = open_viewer(record / VIEW_PAGE)
    head = v.page.inner_text("#head")
    assert "stopped at the step limit (12 actions)" in head and "unfinished" not in head
    height = v.page.evaluate("() => document.getElementById('head').offsetHeight")
    assert height < 40, height  # one line
    assert "dashed: off the objective" in v.page.inner_text("#legend")
    model = open_viewer(episodes["model"][1])
    model.page.click("#right details summary")
    turns = model.text()
    assert "→ click (640, 560)" in turns and "click click" not in turns
