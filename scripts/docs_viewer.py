#!/usr/bin/env python3
"""Render the viewer page's screenshot for docs/viewer.md (``docs/img/viewer.png``).

Plays a real episode (the random agent on Nut and Bolt Hard level 1's board, seed 5: a
certified dead end at action 241, left by an undo at action 319), writes its page with
``puzzlegym view``, opens it in Chromium at 1366x768 and jumps to the first dead end (the
``d`` key), then saves the screen as a palette PNG. Re-run it whenever the viewer's page
changes:

    .venv/bin/python scripts/docs_viewer.py              # writes docs/img/viewer.png
    .venv/bin/python scripts/docs_viewer.py --out DIR/viewer.png
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

from PIL import Image

from puzzlegym.backends.browser import CHROMIUM_ARGS, chromium_path
from puzzlegym.base.jsonio import write_atomic
from puzzlegym.evaluation.runner import run_episode
from puzzlegym.view.write import write_episode_page

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img" / "viewer.png"
VIEWPORT = {"width": 1366, "height": 768}
COLOURS = 256


def screenshot(page_path: Path) -> bytes:
    """The page at 1366x768 after the ``d`` key (the first dead end), as PNG bytes."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
            page.goto(page_path.resolve().as_uri())
            page.evaluate("() => window.viewer.ready")
            page.keyboard.press("d")
            page.evaluate("() => window.viewer.settled()")
            return page.screenshot()
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=OUT, help=f"the PNG (default {OUT})")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        result = run_episode(
            "LongPuzzle/NutAndBolt-Hard",
            "random",
            seed=5,
            out_dir=Path(tmp),
            gif=False,
            start="board",
            level=1,
            budget_s=400,
        )
        written = write_episode_page(result["record"])
        if not written["replay_ok"] or written["spans"] < 1:
            print(f"docs_viewer: unexpected page: {written}", file=sys.stderr)
            return 1
        png = screenshot(Path(written["page"]))
    with Image.open(io.BytesIO(png)) as img:
        reduced = img.convert("RGB").quantize(COLOURS, method=Image.Quantize.MEDIANCUT)
        buf = io.BytesIO()
        reduced.save(buf, format="PNG", optimize=True)
    write_atomic(args.out, buf.getvalue())
    print(f"{args.out}: {len(buf.getvalue())} bytes ({written['spans']} dead-end span(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
