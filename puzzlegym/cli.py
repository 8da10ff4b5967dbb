"""The ``puzzlegym`` command line: run, bench, levels, eval, report, replay, serve, play,
checkpoints, train."""

from __future__ import annotations

import argparse
import json
import os
import sys

from puzzlegym.errors import ConfigError, PuzzleGymError

SEED_LIMIT = 2**31  # level seeds of generated levels are 0..2**31-1 (puzzlegym.splits)


def _int_in(low: int, high: int):
    """An argparse type: an integer ``low..high`` (argparse names the flag in its error)."""

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected an integer {low}..{high}, got {text[:40]!r}"
            )
        return value

    return parse


def _split_kwargs(args: argparse.Namespace) -> dict:
    """The env keywords of ``--levels``, ``--num-levels``, ``--start-level`` (checked together)."""
    if args.levels == "catalogue":
        for flag, value in (("--num-levels", args.num_levels), ("--start-level", args.start_level)):
            if value is not None:
                raise ConfigError(
                    f"{flag}: only with --levels generated (the catalogue's levels are fixed)"
                )
        return {}
    out = {"levels": "generated"}
    if args.num_levels is not None:
        out["num_levels"] = args.num_levels
    if args.start_level is not None:
        out["start_level"] = args.start_level
    if (args.start_level or 0) + (args.num_levels or 0) > SEED_LIMIT:
        raise ConfigError(
            f"--num-levels: --start-level + --num-levels must be at most 2**31 (level seeds are "
            f"0..{SEED_LIMIT - 1}), got {args.start_level} + {args.num_levels}"
        )
    return out


def int_in(lo: int, hi: int):
    """An argparse type: an integer lo..hi (argparse names the flag in its error). Most
    options are checked where they are used (the env, the run, the service); this is for
    those that reach the operating system or a loop first (ports, benchmark counts)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected an integer {lo}..{hi}, got {text[:40]!r}")
        return value

    return parse


PORT = int_in(0, 65535)
COUNT = int_in(1, 10**9)


def _cmd_run(args: argparse.Namespace) -> int:
    from puzzlegym.agents.model import is_model_spec
    from puzzlegym.evaluation.runner import run_episode
    from puzzlegym.registry import parse_env_id

    parse_env_id(args.env_id)
    split = _split_kwargs(args)
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
    from puzzlegym.evaluation import bench
    from puzzlegym.registry import parse_env_id

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


def _cmd_levels(args: argparse.Namespace) -> int:
    from puzzlegym.evaluation import levels

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
        result = levels.warm_cache(
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
            from puzzlegym.evaluation.report import write_levels_doc

            ok = write_levels_doc(rows, args.write)
            print(f"wrote {args.write}; N_step check {'OK' if ok else 'FAILS'}", file=sys.stderr)
            return 0 if ok else 1
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from puzzlegym.service.http import serve_until_interrupted
    from puzzlegym.service.serve import Service, make_serve_server

    service = Service(
        backend=args.backend,
        clock=args.clock,
        record_dir=args.record_dir,
        max_sessions=args.max_sessions,
        idle_s=args.idle_s,
    )
    token = args.token if args.token is not None else os.environ.get("PUZZLEGYM_TOKEN") or None
    server = make_serve_server(args.host, args.port, service, token=token)
    host, port = server.server_address[:2]
    print(
        f"puzzlegym serve: http://{host}:{port}/ (backend {args.backend}, "
        f"records in {args.record_dir})",
        flush=True,
    )
    return serve_until_interrupted(server, service.close)


def _cmd_play(args: argparse.Namespace) -> int:
    from puzzlegym.registry import parse_env_id
    from puzzlegym.service.http import serve_until_interrupted
    from puzzlegym.service.play import PlaySession, make_play_server

    parse_env_id(args.env_id)
    kwargs = {} if args.level is None else {"level": args.level}
    play = PlaySession(args.env_id, args.record_dir, **kwargs)
    server = make_play_server(args.host, args.port, play)
    host, port = server.server_address[:2]
    print(
        f"puzzlegym play: open http://{host}:{port}/ in a browser (record: {args.record_dir})",
        flush=True,
    )
    return serve_until_interrupted(server, play.close)


MODEL_OPTION_FLAGS = {
    # flag: (option name, type, help)
    "--base-url": (
        "base_url",
        str,
        "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL)",
    ),
    "--api-key-env": (
        "api_key_env",
        str,
        "environment variable holding the API key (default OPENAI_API_KEY; "
        "keys never go on the command line)",
    ),
    "--setting": (
        "setting",
        str,
        "native (Native GUI Actions, default) or code (Code Execution CUA)",
    ),
    "--memory": (
        "memory",
        str,
        "memory at a level restart: M0 cleared, M1 kept (default), M2 model-written summary",
    ),
    "--image-format": ("image_format", str, "png (default) or jpeg"),
    "--image-width": (
        "image_width",
        int,
        "send screenshots downscaled to this width (320..1280; coordinates are mapped back)",
    ),
    "--image-quality": ("image_quality", int, "JPEG quality 1..100 (default 85)"),
    "--history-turns": (
        "history_turns",
        int,
        "model turns kept in the history window (default 40)",
    ),
    "--history-images": (
        "history_images",
        int,
        "screenshots kept in the history window (default 2)",
    ),
    "--timeout-s": ("timeout_s", float, "seconds per model request (default 120)"),
    "--max-retries": ("max_retries", int, "retries on 429/5xx/timeouts per request (default 4)"),
    "--temperature": ("temperature", float, "sampling temperature (default: the server's)"),
    "--max-tokens": ("max_tokens", int, "output tokens per request (default: the server's)"),
    "--code-time-limit-s": (
        "code_time_limit_s",
        float,
        "code setting: compute seconds per run_code (default 30)",
    ),
    "--code-memory-mb": (
        "code_memory_mb",
        int,
        "code setting: sandbox memory limit in MB (default 1024)",
    ),
}


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """The model agents' options (for ``--agent(s) openai:MODEL``)."""
    group = parser.add_argument_group("model agents (openai:MODEL)")
    for flag, (dest, typ, help_text) in MODEL_OPTION_FLAGS.items():
        group.add_argument(flag, dest=f"model_{dest}", type=typ, default=None, help=help_text)
    group.add_argument(
        "--rule-card",
        dest="model_rule_card",
        action="store_true",
        default=None,
        help="K1: put the game's rule card in the system prompt",
    )


def model_options(args: argparse.Namespace) -> dict:
    """The model agents' options dict from the parsed flags (only the flags given)."""
    out = {}
    for dest, _, _ in MODEL_OPTION_FLAGS.values():
        value = getattr(args, f"model_{dest}", None)
        if value is not None:
            out[dest] = value
    if getattr(args, "model_rule_card", None):
        out["rule_card"] = True
    return out


def _cmd_eval(args: argparse.Namespace) -> int:
    args.agent_options = model_options(args)
    return _lazy("puzzlegym.evaluation.eval:cmd")(args)


def _lazy(target: str):
    """A subcommand implemented in another module (``module:function``), imported on use."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        module, _, func = target.partition(":")
        return getattr(importlib.import_module(module), func)(args)

    return run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="puzzlegym", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="play one episode with an agent")
    run.add_argument("env_id", help="e.g. LongPuzzle/MazePaint-Easy")
    run.add_argument(
        "--agent",
        default="solver",
        help="solver, random, scripted, vision, openai:MODEL, or module:callable",
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
        type=_int_in(0, SEED_LIMIT),
        default=None,
        metavar="N",
        help="with --levels generated: level seeds start_level + i mod N "
        "(0: unbounded, the default)",
    )
    run.add_argument(
        "--start-level",
        type=_int_in(0, SEED_LIMIT - 1),
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

    serve = sub.add_parser("serve", help="HTTP observation service for agents in another process")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=PORT, default=8765, help="0 picks a free port (printed)")
    serve.add_argument("--backend", default="native", choices=["native", "browser"])
    serve.add_argument("--clock", default="wall", choices=["wall", "sim"])
    serve.add_argument("--record-dir", default="runs/serve")
    serve.add_argument(
        "--max-sessions", type=int, default=16, help="sessions alive at once (default 16)"
    )
    serve.add_argument(
        "--idle-s",
        type=float,
        default=900.0,
        help="a session unused this long expires (default 900)",
    )
    serve.add_argument(
        "--token",
        default=None,
        help="require 'Authorization: Bearer TOKEN' (needed for a non-loopback --host; "
        "or set PUZZLEGYM_TOKEN)",
    )
    serve.set_defaults(func=_cmd_serve)

    play = sub.add_parser("play", help="play in an ordinary browser; the play is recorded")
    play.add_argument("env_id", nargs="?", default="LongPuzzle/MazePaint-Easy")
    play.add_argument("--level", type=int, default=None)
    play.add_argument("--host", default="127.0.0.1")
    play.add_argument("--port", type=PORT, default=8766, help="0 picks a free port (printed)")
    play.add_argument("--record-dir", default="runs/human")
    play.set_defaults(func=_cmd_play)

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
        type=_int_in(1, SEED_LIMIT),
        default=None,
        metavar="N",
        help="generate: how many training levels (level seeds S..S+N-1)",
    )
    lv.add_argument(
        "--start-level",
        type=_int_in(0, SEED_LIMIT - 1),
        default=None,
        metavar="S",
        help="generate: the first level seed (default 0)",
    )
    lv.add_argument(
        "--workers", type=_int_in(1, 64), default=1, help="generate: processes (default 1)"
    )
    lv.set_defaults(func=_cmd_levels)

    ev = sub.add_parser(
        "eval", help="run agents over objectives and seeds, writing episode records"
    )
    ev.add_argument(
        "--agents",
        default="solver",
        help="comma list: solver, random, scripted, vision, openai:MODEL, module:callable",
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
    rp.set_defaults(func=_lazy("puzzlegym.evaluation.report:cmd"))

    ck = sub.add_parser(
        "checkpoints", help="dead-end lab: find, list, show or restore certified checkpoints"
    )
    cks = ck.add_subparsers(dest="action", required=True)
    fd = cks.add_parser(
        "find", help="write D (certified dead end) and N (solvable control) checkpoints"
    )
    fd.add_argument(
        "--record", default=None, metavar="DIR", help="an episode record (e.g. from puzzlegym run)"
    )
    fd.add_argument(
        "--env-id", default=None, help="search a level of this objective instead of a record"
    )
    fd.add_argument("--level", type=int, default=None, help="with --env-id: the level (1-based)")
    fd.add_argument(
        "--source",
        default="random",
        choices=["random", "solution"],
        help="with --env-id: seeded random play, or fatal moves off the solver's path",
    )
    fd.add_argument(
        "--count", type=int, default=3, help="with --env-id: dead ends to find (1..100)"
    )
    fd.add_argument("--seed", type=int, default=0)
    fd.add_argument(
        "--limit", type=int, default=None, help="with --record: at most this many dead ends"
    )
    fd.add_argument("--no-controls", action="store_true", help="with --record: no N controls")
    fd.add_argument(
        "--out", required=True, metavar="DIR", help="directory for the checkpoint files"
    )
    fd.add_argument("--json", action="store_true", help="only the summary JSON line")
    ls = cks.add_parser("list", help="the lab checkpoints in a directory")
    ls.add_argument("dir")
    ls.add_argument("--json", action="store_true")
    sh = cks.add_parser("show", help="one checkpoint: env, summary and its (private) certificate")
    sh.add_argument("file")
    sh.add_argument("--prefix", action="store_true", help="also print the GUI-action prefix")
    sh.add_argument("--json", action="store_true", help="one line")
    rs = cks.add_parser(
        "restore",
        help="restore a checkpoint (optionally also replay its prefix) and check the screen",
    )
    rs.add_argument("file")
    rs.add_argument("--backend", default="native", choices=["native", "browser"])
    rs.add_argument(
        "--replay", action="store_true", help="also replay the prefix and compare the pixels"
    )
    rs.add_argument("--png", default=None, metavar="PATH", help="save the restored screen as PNG")
    ck.set_defaults(func=_lazy("puzzlegym.lab.cli:cmd"))

    tr = sub.add_parser(
        "train",
        help="train (Mask)PPO (SB3) or masked PPO in JAX (agent=jax_ppo) on generated levels, "
        "test on the catalogue beside both random policies",
    )
    tr.add_argument(
        "overrides",
        nargs="*",
        metavar="OVERRIDE",
        help="Hydra overrides of python -m puzzlegym.run (agent=maskable_ppo wrappers=board "
        "by default), e.g. env=rush_hour_easy seed=1 agent.timesteps=50000",
    )
    tr.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="the run directory (refused if it holds a run; default: "
        "runs/train/<Game>-<Tier>/seed<seed>, or the first free -2, -3, ...)",
    )
    tr.add_argument(
        "--resume",
        action="store_true",
        help="continue the unfinished run in --out from its last checkpoint (agent=jax_ppo)",
    )
    tr.set_defaults(func=_lazy("puzzlegym.run:cmd_train"))

    rpl = sub.add_parser("replay", help="re-run an episode record and check it reproduces")
    rpl.add_argument("dir", help="a record directory (or a run directory: every record under it)")
    rpl.add_argument(
        "--backend", default=None, help="replay on another backend (default: the record's)"
    )
    rpl.add_argument("--json", action="store_true")
    rpl.set_defaults(func=_lazy("puzzlegym.evaluation.replay:cmd"))
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
