"""``puzzlegym view RUN_OR_EPISODE_DIR``: the episode viewer's pages beside the records."""

from __future__ import annotations

import argparse
import json
import sys

from puzzlegym.base.errors import counted
from puzzlegym.cli.args import int_in

__all__ = ["register"]

MiB = 2**20


def _cmd_view(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from puzzlegym.view.write import view

    bars: list = []

    def progress(record):
        if args.quiet or args.json:
            return None
        bar = tqdm(desc=f"replaying {record}", unit="action", leave=False, file=sys.stderr)
        bars.append(bar)

        def report(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        return report

    def done(page: dict) -> None:
        for bar in bars:
            bar.close()
        bars.clear()
        if args.json:
            return
        sampled = "every frame" if page["stride"] == 1 else f"every {page['stride']}th frame"
        verdict = (
            "replay reproduces the record"
            if page["replay_ok"]
            else (f"REPLAY DIFFERS: {page['mismatch']}")
        )
        print(
            f"{page['page']}: {page['actions']} actions, {page['bytes'] / MiB:.1f} MiB, "
            f"{sampled}, {counted(page['spans'], 'dead-end span')}, "
            f"{verdict} ({page['seconds']:.0f} s)",
            flush=True,
        )

    result = view(
        args.dir, max_bytes=args.max_mib * MiB, stride=args.stride, progress=progress, done=done
    )
    for record, error in result["failed"]:
        print(f"puzzlegym view: cannot view {record}: {error}", file=sys.stderr)
    if args.json:
        print(
            json.dumps(
                {
                    **result,
                    "pages": [{k: v for k, v in p.items() if k != "row"} for p in result["pages"]],
                }
            )
        )
    elif result["index"]:
        n = len(result["pages"])
        print(f"index of {counted(n, 'episode page')}: {result['index']}")
    if result["index"]:
        from puzzlegym.lab.tables import LAB_SECTION
        from puzzlegym.report.write import refresh_report

        report = refresh_report(args.dir, sections=[LAB_SECTION])
        if report is not None and not args.json:
            print(f"report written again with the pages' links: {report / 'index.md'}")
    bad = result["failed"] or any(not p["replay_ok"] for p in result["pages"])
    return 1 if bad else 0


def register(sub: argparse._SubParsersAction) -> None:
    vw = sub.add_parser(
        "view",
        help="write the episode viewer's HTML pages beside the records (open them in a browser)",
        description="Write one self-contained HTML page per episode record (view.html in the "
        "record's directory: frames replayed from the record, the action on each frame, a "
        "timeline of potential, FGP, levels, restarts, undos and certified dead ends, the model's "
        "turns) and, for a run directory, an index page (view.html in it). Pages open from disk "
        "in any browser; an earlier page is replaced, the record is only read.",
    )
    vw.add_argument("dir", help="an episode record, or a run directory (every record under it)")
    vw.add_argument(
        "--max-mib",
        type=int_in(1, 512),
        default=24,
        help="the frames' bound per page in MiB (default 24; past it every k-th frame is kept)",
    )
    vw.add_argument(
        "--stride",
        type=int_in(1, 10**6),
        default=None,
        help="keep the frame of every k-th action only (default: every action, within --max-mib)",
    )
    vw.add_argument("--quiet", action="store_true", help="no progress bar")
    vw.add_argument("--json", action="store_true", help="print what was written as one JSON line")
    vw.set_defaults(func=_cmd_view)
