"""``puzzlegym levels list|validate|stats|generate``: the catalogues measured, checked and
generated from."""

from __future__ import annotations

import argparse
import json
import sys

from puzzlegym.base.errors import ConfigError
from puzzlegym.cli.args import SEED_LIMIT, int_in

__all__ = ["register"]


def _cmd_levels(args: argparse.Namespace) -> int:
    from puzzlegym.levels import stats as levels
    from puzzlegym.levels.generate import warm_cache

    if args.action == "list":
        rows = levels.list_levels(args.game)
        for row in rows:
            print("\t".join(str(row[k]) for k in ("game", "tier", "index", "id")))
    elif args.action == "validate":
        problems = levels.validate(args.game)
        for p in problems:
            print(p)
        print("catalogue OK" if not problems else f"{len(problems)} problem(s)")
        return 0 if not problems else 1
    elif args.action == "generate":
        if args.env_id is None:
            raise ConfigError(
                "--env-id: generate needs the objective whose tier to generate, "
                "e.g. LongPuzzle/RushHour-Hard"
            )
        if args.num_levels is None or args.num_levels < 1:
            raise ConfigError(
                "--num-levels: generate needs at least 1 level (the training set's size)"
            )
        start = args.start_level or 0
        if start + args.num_levels > SEED_LIMIT:
            raise ConfigError(
                "--num-levels: --start-level + --num-levels must be at most 2**31, "
                f"got {start} + {args.num_levels}"
            )
        result = warm_cache(
            args.env_id,
            args.num_levels,
            start,
            workers=args.workers,
            log=None if args.json else print,
        )
        print(json.dumps(result))
    elif args.action == "stats":
        rows = levels.stats(args.game)
        if args.json:
            print(json.dumps(rows))
        else:
            print(levels.stats_table(rows))
        if args.write:
            from puzzlegym.levels.doc import write_levels_doc

            ok = write_levels_doc(rows, args.write)
            print(f"wrote {args.write}; N_step check {'OK' if ok else 'FAILS'}", file=sys.stderr)
            return 0 if ok else 1
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    lv = sub.add_parser(
        "levels", help="list, validate or measure the level catalogue; generate training levels"
    )
    lv.add_argument(
        "action",
        choices=["list", "validate", "stats", "generate"],
        help="generate: training levels 0..N-1 of --env-id's tier into the level cache",
    )
    lv.add_argument("--game", default=None, help="one game (default: all)")
    lv.add_argument("--json", action="store_true")
    lv.add_argument(
        "--write",
        default=None,
        metavar="PATH",
        help="stats: also write the Markdown report (docs/levels.md)",
    )
    lv.add_argument(
        "--env-id", default=None, help="generate: the objective, e.g. LongPuzzle/RushHour-Hard"
    )
    lv.add_argument(
        "--num-levels",
        type=int_in(1, SEED_LIMIT),
        default=None,
        metavar="N",
        help="generate: how many training levels (level seeds S..S+N-1)",
    )
    lv.add_argument(
        "--start-level",
        type=int_in(0, SEED_LIMIT - 1),
        default=None,
        metavar="S",
        help="generate: the first level seed (default 0)",
    )
    lv.add_argument(
        "--workers", type=int_in(1, 64), default=1, help="generate: processes (default 1)"
    )
    lv.set_defaults(func=_cmd_levels)
