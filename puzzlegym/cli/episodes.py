"""``puzzlegym run`` (one episode of an agent), ``bench`` (throughput) and ``replay`` (a record
re-run and checked)."""

from __future__ import annotations

import argparse
import json

from puzzlegym.base.errors import ConfigError
from puzzlegym.cli.args import (
    AGENT_KINDS,
    COUNT,
    SEED_LIMIT,
    add_model_options,
    int_in,
    lazy,
    model_options,
    split_kwargs,
)

__all__ = ["register"]


def _cmd_run(args: argparse.Namespace) -> int:
    from puzzlegym.agents.model import is_model_spec
    from puzzlegym.evaluation.runner import run_episode
    from puzzlegym.game.registry import parse_env_id

    parse_env_id(args.env_id)
    split = split_kwargs(args)
    options = model_options(args)
    out = (
        args.out
        or f"runs/{args.env_id.split('/')[-1]}-"
        f"{args.agent.replace(':', '_').replace('/', '_')}-seed{args.seed}"
    )
    clock = args.clock or ("wall" if is_model_spec(args.agent) else "sim")
    kwargs = {"backend": args.backend, "start": args.start, "clock": clock}
    if args.level is not None:
        kwargs["level"] = args.level
    if args.budget_s is not None:
        kwargs["budget_s"] = args.budget_s
    kwargs.update(split)
    result = run_episode(
        args.env_id,
        args.agent,
        seed=args.seed,
        out_dir=out,
        gif=not args.no_gif,
        max_steps=args.max_steps,
        progress=not args.json,
        agent_options=options,
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
        print(
            f"record: {result.get('record')}  final frame: {result.get('final_frame')}  "
            f"gif: {result.get('gif')}"
        )
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from puzzlegym.bench import rates as bench
    from puzzlegym.game.registry import parse_env_id

    parse_env_id(args.env_id)
    steps = args.steps if args.steps is not None else (3000 if args.backend == "native" else 300)
    if args.transitions < 1:
        raise ConfigError(f"--transitions: must be at least 1, got {args.transitions}")
    result = bench.run(args.env_id, steps=steps, backend=args.backend, transitions=args.transitions)
    if not args.json:
        for key, value in result.items():
            print(f"{key:>24}: {value}")
    print(json.dumps(result))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="play one episode with an agent")
    run.add_argument("env_id", help="e.g. LongPuzzle/MazePaint-Easy")
    run.add_argument(
        "--agent",
        default="solver",
        help="one of: " + ", ".join(AGENT_KINDS),
    )
    run.add_argument("--backend", default="native", choices=["native", "browser"])
    run.add_argument("--level", type=int, default=None, help="play only level K (1-based)")
    run.add_argument("--start", default="home", choices=["home", "board"])
    run.add_argument(
        "--levels",
        default="catalogue",
        choices=["catalogue", "generated"],
        help="the catalogue (default) or generated levels of the tier (never a catalogue level)",
    )
    run.add_argument(
        "--num-levels",
        type=int_in(0, SEED_LIMIT),
        default=None,
        metavar="N",
        help="with --levels generated: level seeds start_level + i mod N "
        "(0: unbounded, the default)",
    )
    run.add_argument(
        "--start-level",
        type=int_in(0, SEED_LIMIT - 1),
        default=None,
        metavar="S",
        help="with --levels generated: the first level seed (default 0)",
    )
    run.add_argument(
        "--clock",
        default=None,
        choices=["sim", "wall"],
        help="default: wall for model agents, sim otherwise",
    )
    run.add_argument("--budget-s", type=float, default=None)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--max-steps", type=int, default=None)
    run.add_argument(
        "--out", default=None, help="output directory (default runs/<env>-<agent>-seed<seed>)"
    )
    run.add_argument("--no-gif", action="store_true")
    run.add_argument("--json", action="store_true", help="print the result as one JSON line")
    add_model_options(run)
    run.set_defaults(func=_cmd_run)

    bench = sub.add_parser(
        "bench", help="measure steps per second (native) or step latency (browser)"
    )
    bench.add_argument("env_id")
    bench.add_argument("--backend", default="native", choices=["native", "browser"])
    bench.add_argument(
        "--steps", type=COUNT, default=None, help="default 3000 (native), 300 (browser)"
    )
    bench.add_argument(
        "--transitions",
        type=COUNT,
        default=200_000,
        help="rules-model transitions timed (default 200000)",
    )
    bench.add_argument("--json", action="store_true")
    bench.set_defaults(func=_cmd_bench)

    rpl = sub.add_parser("replay", help="re-run an episode record and check it reproduces")
    rpl.add_argument("dir", help="a record directory (or a run directory: every record under it)")
    rpl.add_argument(
        "--backend", default=None, help="replay on another backend (default: the record's)"
    )
    rpl.add_argument("--json", action="store_true")
    rpl.set_defaults(func=lazy("puzzlegym.evaluation.replay:cmd"))
