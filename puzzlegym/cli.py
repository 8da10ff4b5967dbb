"""The ``puzzlegym`` command line: run, bench, levels."""

from __future__ import annotations

import argparse
import json
import sys

from puzzlegym.errors import PuzzleGymError


def _cmd_run(args: argparse.Namespace) -> int:
    from puzzlegym.registry import parse_env_id
    from puzzlegym.runner import run_episode

    parse_env_id(args.env_id)
    out = args.out or f"runs/{args.env_id.split('/')[-1]}-{args.agent.replace(':', '_')}-seed{args.seed}"
    kwargs = {"backend": args.backend, "start": args.start, "clock": args.clock}
    if args.level is not None:
        kwargs["level"] = args.level
    if args.budget_s is not None:
        kwargs["budget_s"] = args.budget_s
    result = run_episode(
        args.env_id,
        args.agent,
        seed=args.seed,
        out_dir=out,
        gif=not args.no_gif,
        max_steps=args.max_steps,
        progress=not args.json,
        **kwargs,
    )
    if args.json:
        print(json.dumps(result))
    else:
        verdict = "SOLVED" if result["success"] else "not solved"
        print(
            f"{args.env_id}: {verdict}; LC {result['lc']:.2f}, FGP {result['fgp']:.2f}, "
            f"levels won {result['levels_won']}, {result['steps']} steps, "
            f"{result['elapsed_s']:.0f} s on the {kwargs['clock']} clock"
        )
        print(f"record: {result.get('record')}  final frame: {result.get('final_frame')}  gif: {result.get('gif')}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from puzzlegym import bench
    from puzzlegym.registry import parse_env_id

    parse_env_id(args.env_id)
    if args.backend != "native":
        raise PuzzleGymError(f"--backend: {args.backend!r} is not available yet; allowed: native")
    result = bench.run(args.env_id, steps=args.steps)
    if not args.json:
        for key, value in result.items():
            print(f"{key:>24}: {value}")
    print(json.dumps(result))
    return 0


def _cmd_levels(args: argparse.Namespace) -> int:
    from puzzlegym import levels

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
    elif args.action == "stats":
        rows = levels.stats(args.game)
        if args.json:
            print(json.dumps(rows))
        else:
            print(levels.stats_table(rows))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="puzzlegym", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="play one episode with an agent")
    run.add_argument("env_id", help="e.g. LongPuzzle/MazePaint-Easy")
    run.add_argument("--agent", default="solver", help="solver, random, or module:callable")
    run.add_argument("--backend", default="native", choices=["native"])
    run.add_argument("--level", type=int, default=None, help="play only level K (1-based)")
    run.add_argument("--start", default="home", choices=["home", "board"])
    run.add_argument("--clock", default="sim", choices=["sim", "wall"])
    run.add_argument("--budget-s", type=float, default=None)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--max-steps", type=int, default=None)
    run.add_argument("--out", default=None, help="output directory (default runs/<env>-<agent>-seed<seed>)")
    run.add_argument("--no-gif", action="store_true")
    run.add_argument("--json", action="store_true", help="print the result as one JSON line")
    run.set_defaults(func=_cmd_run)

    bench = sub.add_parser("bench", help="measure in-process steps per second")
    bench.add_argument("env_id")
    bench.add_argument("--backend", default="native")
    bench.add_argument("--steps", type=int, default=3000)
    bench.add_argument("--json", action="store_true")
    bench.set_defaults(func=_cmd_bench)

    lv = sub.add_parser("levels", help="list, validate or measure the level catalogue")
    lv.add_argument("action", choices=["list", "validate", "stats"])
    lv.add_argument("--game", default=None, help="one game (default: all)")
    lv.add_argument("--json", action="store_true")
    lv.set_defaults(func=_cmd_levels)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except PuzzleGymError as exc:
        print(f"puzzlegym: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
