"""``puzzlegym serve`` (the HTTP observation service for agents) and ``play`` (the human page
in an ordinary browser)."""

from __future__ import annotations

import argparse
import os
import secrets
import urllib.parse
from collections.abc import Callable
from typing import Any

from puzzlegym.cli.args import PORT

__all__ = ["register"]


def _token(args: argparse.Namespace) -> str | None:
    """``--token``, else ``PUZZLEGYM_TOKEN``, else None."""
    return args.token if args.token is not None else os.environ.get("PUZZLEGYM_TOKEN") or None


def _started(make: Callable[[], Any], sock: Any, close: Callable[[], Any]) -> Any:
    """``make()``'s server; on any failure the socket and what ``close`` ends are closed."""
    try:
        return make()
    except BaseException:
        sock.close()
        close()
        raise


def _cmd_serve(args: argparse.Namespace) -> int:
    from puzzlegym.service.http import listen, serve_until_interrupted
    from puzzlegym.service.serve import Service, make_serve_server

    sock = listen(args.host, args.port)  # a port in use is refused before anything opens
    try:
        service = Service(
            backend=args.backend,
            clock=args.clock,
            record_dir=args.record_dir,
            max_sessions=args.max_sessions,
            idle_s=args.idle_s,
        )
    except BaseException:
        sock.close()
        raise
    token = _token(args)
    server = _started(
        lambda: make_serve_server(args.host, args.port, service, token=token, sock=sock),
        sock,
        service.close,
    )
    host, port = server.server_address[:2]
    print(
        f"puzzlegym serve: http://{host}:{port}/ (backend {args.backend}, "
        f"records in {args.record_dir})",
        flush=True,
    )
    return serve_until_interrupted(server, service.close)


def _cmd_play(args: argparse.Namespace) -> int:
    from puzzlegym.game.registry import parse_env_id
    from puzzlegym.service.http import is_loopback, listen, serve_until_interrupted
    from puzzlegym.service.play import PlaySession, make_play_server

    parse_env_id(args.env_id)
    kwargs: dict = {"start": args.start}
    if args.level is not None:
        kwargs["level"] = args.level
    sock = listen(args.host, args.port)  # a port in use is refused before a record is opened
    try:
        play = PlaySession(
            args.env_id, args.record_dir, log=lambda line: print(line, flush=True), **kwargs
        )
    except BaseException:
        sock.close()
        raise
    token = _token(args)
    if token is None and not is_loopback(args.host):
        token = secrets.token_urlsafe(24)  # the person opens the URL that carries it
    server = _started(
        lambda: make_play_server(args.host, args.port, play, sock=sock, token=token),
        sock,
        play.close,
    )
    host, port = server.server_address[:2]
    fragment = "" if token is None else f"#token={urllib.parse.quote(token, safe='')}"
    print(
        f"puzzlegym play: open http://{host}:{port}/{fragment} in a browser "
        f"(record: {args.record_dir})",
        flush=True,
    )
    return serve_until_interrupted(server, play.close)


def register(sub: argparse._SubParsersAction) -> None:
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

    play = sub.add_parser(
        "play",
        help="play in an ordinary browser; the play is recorded",
        description="Serve the game to an ordinary browser: you play the objective with the "
        "mouse and keyboard, every gesture is played as a GUI action and recorded as an "
        "episode in the agents' format (agent 'human'). The page shows the level's moves and "
        "par, warns when you play outside the objective, and asks before a Restart throws "
        "away a long attempt; the screens are the agents' own.",
    )
    play.add_argument(
        "env_id",
        nargs="?",
        default="LongPuzzle/MazePaint-Easy",
        help="the objective to play (default LongPuzzle/MazePaint-Easy)",
    )
    play.add_argument(
        "--level",
        type=int,
        default=None,
        help="play only level K of the objective (1-based; default: every level in turn)",
    )
    play.add_argument(
        "--start",
        default="home",
        choices=["home", "board"],
        help="open on the suite's home screen (default, as agents start) or on the level's board",
    )
    play.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)"
    )
    play.add_argument(
        "--token",
        default=None,
        help="the token the page must send (or set PUZZLEGYM_TOKEN); for a non-loopback --host "
        "one is made when none is given, and the printed URL carries it",
    )
    play.add_argument(
        "--port",
        type=PORT,
        default=8766,
        help="the port to listen on (default 8766; 0 picks a free port, printed)",
    )
    play.add_argument(
        "--record-dir",
        default="runs/human",
        help="the directory the episode is recorded in (default runs/human)",
    )
    play.set_defaults(func=_cmd_play)
