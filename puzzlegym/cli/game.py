"""``puzzlegym game check|fixtures GAME``: a game's author checks their game against the
contract, and makes (or checks) the fixtures its package commits."""

from __future__ import annotations

import argparse
import sys

from puzzlegym.base.errors import ConfigError

__all__ = ["register"]


def _game(text: str):
    """The registered game named ``text`` (``TinyLamps``) or whose package it is
    (``tiny_lamps``): never a path, only what the registry holds."""
    from puzzlegym.game.registry import games

    for game in games().values():
        if text in (game.name, game.package):
            return game
    known = ", ".join(f"{g.name} ({g.package})" for g in games().values())
    raise ConfigError(
        f"game: {text[:80]!r} is neither a registered game nor its package; registered: {known} "
        "(a game registers through its puzzlegym.games entry point once its package is "
        "installed: docs/game-protocol.md)"
    )


def _cmd_check(args: argparse.Namespace) -> int:
    from puzzlegym.authoring.contract import GameContractError, check_game

    game = _game(args.game)
    try:
        check_game(game)
    except GameContractError as exc:
        print(f"puzzlegym game check: {exc}", file=sys.stderr)
        return 1
    print(f"{game.name} ({game.package}): keeps the game contract")
    return 0


def _cmd_fixtures(args: argparse.Namespace) -> int:
    from puzzlegym.authoring import fixtures as fx
    from puzzlegym.authoring.contract import game_test_data

    game = _game(args.game)
    frames = {}
    for tier in game.tiers:
        print(f"{game.env_id(tier)}: playing the scripted episode ...", file=sys.stderr)
        frames[tier] = fx.frames_digest(game.env_id(tier))
    shapes = fx.board_shapes(game)
    committed_frames = fx.frames_fixture(game)
    try:
        committed_shapes = dict(getattr(game_test_data(game), "BOARD_SHAPES", {}))
    except AssertionError:  # no testdata module yet
        committed_shapes = {}
    shapes_text = "BOARD_SHAPES = {" + ", ".join(f"{t!r}: {s}" for t, s in shapes.items()) + "}"
    if args.check:
        ok = True
        if committed_frames != frames:
            ok = False
            print(
                f"{fx.frames_fixture_path(game)}: differs from the game's frames "
                f"(committed {committed_frames}, now {frames})"
            )
        if {t: tuple(s) for t, s in committed_shapes.items()} != shapes:
            ok = False
            print(f"testdata.py: BOARD_SHAPES differ; the game's are: {shapes_text}")
        if ok:
            print(f"{game.name}: the frame fixture and BOARD_SHAPES are the game's")
        return 0 if ok else 1
    path = fx.write_frames_fixture(game, frames)
    counts = ", ".join(f"{t}: {d['frames']} frames" for t, d in frames.items())
    print(f"wrote {path} ({counts})")
    if shapes:
        same = {t: tuple(s) for t, s in committed_shapes.items()} == shapes
        print(f"testdata.py: {shapes_text}" + (" (as committed)" if same else " (differs)"))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    game = sub.add_parser(
        "game", help="check a game against the contract; make or check its package's fixtures"
    )
    actions = game.add_subparsers(dest="action", required=True)
    check = actions.add_parser(
        "check", help="check the game against the Game contract (puzzlegym.testing.check_game)"
    )
    check.add_argument("game", help="a registered game's name (TinyLamps) or package (tiny_lamps)")
    check.set_defaults(func=_cmd_check)
    fixtures = actions.add_parser(
        "fixtures",
        help="write the package's frame fixture (frames_sha256.json) and print its testdata "
        "BOARD_SHAPES; --check compares instead of writing",
    )
    fixtures.add_argument(
        "game", help="a registered game's name (TinyLamps) or package (tiny_lamps)"
    )
    fixtures.add_argument(
        "--check",
        action="store_true",
        help="compare with what the package commits; exit 1 when they differ (writes nothing)",
    )
    fixtures.set_defaults(func=_cmd_fixtures)
