"""The ``puzzlegym`` command line: run, bench, replay, levels, game, eval, report, view, serve,
play, checkpoints, train. Each command group registers its own subcommands
(``puzzlegym.cli.<group>.register``)."""

from __future__ import annotations

import argparse
import sys

from puzzlegym.base.errors import PuzzleGymError
from puzzlegym.cli import (
    checkpoints,
    episodes,
    evaluation,
    game,
    levels,
    services,
    training,
    view,
)

__all__ = ["COMMAND_GROUPS", "build_parser", "main"]

# the command groups, in the order ``puzzlegym --help`` lists their commands
COMMAND_GROUPS = (episodes, services, levels, game, evaluation, view, checkpoints, training)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="puzzlegym", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for group in COMMAND_GROUPS:
        group.register(sub)
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
