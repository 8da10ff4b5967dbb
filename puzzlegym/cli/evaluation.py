"""``puzzlegym eval`` (agents x objectives x seeds into a run directory) and ``report`` (its
tables and plots, the dead-end lab's among them)."""

from __future__ import annotations

import argparse

from puzzlegym.cli.args import AGENT_KINDS, add_model_options, lazy, model_options

__all__ = ["register"]


def _cmd_eval(args: argparse.Namespace) -> int:
    args.agent_options = model_options(args)
    return lazy("puzzlegym.evaluation.eval:cmd")(args)


def _cmd_report(args: argparse.Namespace) -> int:
    from puzzlegym.lab.tables import LAB_SECTION
    from puzzlegym.report.write import write_report

    out = write_report(
        args.run_dir, args.out, title=args.title, note=args.note, sections=[LAB_SECTION]
    )
    print(f"report: {out / 'index.md'}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    ev = sub.add_parser(
        "eval", help="run agents over objectives and seeds, writing episode records"
    )
    ev.add_argument(
        "--agents",
        default="solver",
        help="comma list of: " + ", ".join(AGENT_KINDS),
    )
    ev.add_argument(
        "--objectives", default="all", help="'all' or a comma list of ids (MazePaint-Easy,...)"
    )
    ev.add_argument(
        "--seeds", default="0", help="comma list or range, e.g. 0,1 or 0-4 (at most 10000 seeds)"
    )
    ev.add_argument(
        "--workers",
        type=int,
        default=1,
        help="parallel episode processes (1..64; never more than the run has episodes)",
    )
    ev.add_argument("--run-dir", required=True)
    ev.add_argument("--backend", default="native")
    ev.add_argument(
        "--clock",
        default=None,
        choices=["sim", "wall"],
        help="default: wall for model agents, sim otherwise",
    )
    ev.add_argument("--budget-s", type=float, default=3600.0)
    ev.add_argument(
        "--max-steps", type=int, default=None, help="harness cap on agent steps (smoke runs)"
    )
    ev.add_argument(
        "--frame-hashes", action="store_true", help="record a SHA-256 of every frame (for replay)"
    )
    ev.add_argument("--gif", action="store_true", help="also write an episode GIF")
    ev.add_argument(
        "--resume", action="store_true", help="skip episodes that already have a result"
    )
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.add_argument(
        "--executor",
        default="local",
        choices=["local", "ray"],
        help="local worker processes, or Ray tasks (the distributed extra)",
    )
    ev.add_argument(
        "--address",
        default=None,
        help="--executor ray: the cluster to join (default: a local instance)",
    )
    add_model_options(ev)
    ev.set_defaults(func=_cmd_eval)

    rp = sub.add_parser("report", help="tables and plots from a run directory")
    rp.add_argument("run_dir")
    rp.add_argument("--out", default=None, help="output directory (default RUN_DIR/report)")
    rp.add_argument("--title", default=None)
    rp.add_argument(
        "--note", default=None, help="a line of text under the title (e.g. how to regenerate)"
    )
    rp.set_defaults(func=_cmd_report)
