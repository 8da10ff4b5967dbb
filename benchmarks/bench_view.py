"""Episode viewer benchmark (issue 33): how big a long episode's page is and how fast it opens.

The long episode is the random agent on one objective (``--long-id``, default Nut and Bolt
Hard: it reaches certified dead ends) from level 1's board for ``--actions`` actions
(default 10,000). Beside it, in the same run, the baselines: the record's own files (what
the page is made from), and a short episode (``--short-actions``, default 100) of the same
objective and seed, whose page is the smallest a page gets. For every registered id a short
episode's page is measured too (``--short-actions`` actions), so every game's frames are
covered.

For each page: its size in bytes (and per action), the frames it keeps (stride, PNG images,
keyframes), the seconds ``puzzlegym view`` took to write it, and in Chromium at 1366x768
the open time (``goto`` of the file to the first frame drawn: ``window.viewer.ready``) and
the seek time to the last position (the longest decode from a keyframe), each the median
of ``--rounds`` fresh browser contexts.

Usage: ``python benchmarks/bench_view.py [--actions 10000] [--short-actions 100]
[--rounds 3] [--long-id ID] [--ids ID ...]``; one JSON line per page, the last line the
summary.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import puzzlegym  # noqa: F401  (registers the envs)
from puzzlegym.backends.browser import CHROMIUM_ARGS, chromium_path
from puzzlegym.base.fields import check_count
from puzzlegym.evaluation.runner import run_episode
from puzzlegym.game.registry import env_ids
from puzzlegym.view.write import write_episode_page

VIEWPORT = {"width": 1366, "height": 768}


def record_bytes(record: Path) -> int:
    """The bytes of the record's own files (the page beside it excluded)."""
    return sum(p.stat().st_size for p in record.rglob("*") if p.is_file() and p.suffix != ".html")


def episode(env_id: str, actions: int, out: Path) -> Path:
    """The random agent's episode of ``actions`` actions on ``env_id``'s level 1 board."""
    result = run_episode(
        env_id,
        "random",
        seed=0,
        out_dir=out,
        gif=False,
        start="board",
        level=1,
        max_steps=actions,
        budget_s=10 * actions,
    )
    return Path(result["record"])


def open_times(browser, page: Path, rounds: int) -> dict[str, float]:
    """Median seconds to the first frame drawn, and to the last position's frame."""
    first, last = [], []
    for _ in range(rounds):
        context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
        try:
            tab = context.new_page()
            errors: list[str] = []
            tab.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            t0 = time.perf_counter()
            tab.goto(page.resolve().as_uri())
            tab.evaluate("() => window.viewer.ready")
            first.append(time.perf_counter() - t0)
            t1 = time.perf_counter()
            tab.evaluate("() => window.viewer.seek(window.viewer.n)")
            tab.evaluate("() => window.viewer.settled()")
            last.append(time.perf_counter() - t1)
            if errors:
                raise RuntimeError(f"{page}: page errors: {errors[:3]}")
        finally:
            context.close()
    return {"open_s": statistics.median(first), "seek_last_s": statistics.median(last)}


def measure(browser, env_id: str, actions: int, root: Path, rounds: int) -> dict[str, Any]:
    record = episode(env_id, actions, root / f"{env_id.split('/')[-1]}-{actions}")
    written = write_episode_page(record)
    if not written["replay_ok"]:
        raise RuntimeError(f"{record}: replay differs: {written['mismatch']}")
    return {
        "env_id": env_id,
        "actions": written["actions"],
        "page_bytes": written["bytes"],
        "bytes_per_action": round(written["bytes"] / max(1, written["actions"]), 1),
        "record_bytes": record_bytes(record),
        "stride": written["stride"],
        "images": written["images"],
        "keyframes": written["keyframes"],
        "spans": written["spans"],
        "write_s": written["seconds"],
        **{k: round(v, 3) for k, v in open_times(browser, Path(written["page"]), rounds).items()},
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actions", type=int, default=10_000)
    ap.add_argument("--short-actions", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--long-id", default="LongPuzzle/NutAndBolt-Hard")
    ap.add_argument("--ids", nargs="*", default=None, help="short pages' ids (default: all)")
    args = ap.parse_args(argv)
    check_count(args.actions, "--actions", 1, 100_000)
    check_count(args.short_actions, "--short-actions", 1, 10_000)
    check_count(args.rounds, "--rounds", 1, 20)
    ids = env_ids() if args.ids is None else args.ids
    for i in [args.long_id, *ids]:
        if i not in env_ids():
            raise SystemExit(f"bench_view: unknown id {i!r}")
    from playwright.sync_api import sync_playwright

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
        try:
            root = Path(tmp)
            long = measure(browser, args.long_id, args.actions, root, args.rounds)
            print(json.dumps({"page": "long", **long}), flush=True)
            short = []
            for env_id in ids:
                row = measure(browser, env_id, args.short_actions, root, args.rounds)
                print(json.dumps({"page": "short", **row}), flush=True)
                short.append(row)
            base = next((r for r in short if r["env_id"] == args.long_id), None)
            if base is None:  # the baseline: a short page of the long episode's id
                base = measure(browser, args.long_id, args.short_actions, root, args.rounds)
        finally:
            browser.close()
    summary = {
        "long": {k: long[k] for k in ("env_id", "actions", "page_bytes", "open_s", "seek_last_s")},
        "long_page_over_record": round(long["page_bytes"] / long["record_bytes"], 2),
        "short_same_id": {k: base[k] for k in ("actions", "page_bytes", "open_s")},
        "long_over_short_bytes": round(long["page_bytes"] / base["page_bytes"], 1),
        "long_over_short_open": round(long["open_s"] / base["open_s"], 2),
        "short_all_ids": {
            "ids": len(short),
            "page_bytes_max": max((r["page_bytes"] for r in short), default=None),
            "open_s_max": max((r["open_s"] for r in short), default=None),
        },
        "seconds": round(time.perf_counter() - t0, 1),
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
