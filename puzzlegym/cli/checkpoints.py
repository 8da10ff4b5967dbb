"""``puzzlegym checkpoints find|list|show|restore``: the dead-end lab on the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from puzzlegym.base import jsonio
from puzzlegym.base.errors import ConfigError, counted
from puzzlegym.lab import checkpoints as files
from puzzlegym.lab.controller import Controller
from puzzlegym.lab.find import (
    MAX_FOUND,
    PLAYOUT_MOVES,
    PLAYOUTS,
    find_in_random_play,
    find_in_record,
    find_on_solution,
)

__all__ = ["cmd", "register"]

_LIST_COLUMNS = (
    "file",
    "class",
    "game",
    "tier",
    "level",
    "depth",
    "actions",
    "visible",
    "free_anchors",
    "source",
    "match",
)


MAX_COUNT = 100

CLASS_LEGEND = (
    "class D: a certified dead end (a settled, unfinished board the exhaustive certifier "
    "proves unsolvable); class N: its solvable control (a board on a verified solution path "
    "of the same level, at the same depth)"
)


def _nothing_found(args: argparse.Namespace) -> str:
    """Why ``find`` wrote nothing: what was searched and found no certified dead end."""
    if args.record is not None:
        where = f"the record {args.record} reached no certified dead end (no move of it left "
        return where + "a board the certifier proves unsolvable)"
    if args.source == "solution":
        return (
            f"no legal move off the solver's path of {args.env_id} level {args.level} leads to "
            "a certified dead end"
        )
    return (
        f"{PLAYOUTS} seeded random playouts of up to {PLAYOUT_MOVES} moves on {args.env_id} "
        f"level {args.level} reached no certified dead end (in a game whose every board stays "
        "solvable, such as Rush Hour, where each move can be undone, there is none to find)"
    )


def _find(args: argparse.Namespace) -> int:
    if not 1 <= args.count <= MAX_COUNT:
        raise ConfigError(f"--count: expected 1..{MAX_COUNT}, got {args.count}")
    if args.limit is not None and not 1 <= args.limit <= MAX_FOUND:
        raise ConfigError(f"--limit: expected 1..{MAX_FOUND}, got {args.limit}")
    if args.record is not None:
        if args.env_id is not None:
            raise ConfigError("find: give either --record or --env-id, not both")
        found = find_in_record(args.record, limit=args.limit, controls=not args.no_controls)
    elif args.env_id is not None:
        if args.level is None:
            raise ConfigError("find: --env-id needs --level K (the level to search, 1-based)")
        finder = find_on_solution if args.source == "solution" else find_in_random_play
        found = finder(args.env_id, args.level, count=args.count, seed=args.seed)
    else:
        raise ConfigError("find: give --record DIR (an episode record) or --env-id ID --level K")
    written = []
    for ckpt in found:
        path = files.save(ckpt, args.out)
        written.append(path)
        if not args.json:
            row = files.summary(ckpt, path)
            print(
                f"{row['class']}  {path}  (level {row['level']}, depth {row['depth']}, "
                f"after {row['actions']} actions)"
            )
    classes = [files.certificate_of(c)["class"] for c in found]
    summary = {
        "out": str(args.out),
        "written": len(written),
        "D": classes.count("D"),
        "N": classes.count("N"),
        "files": [p.name for p in written],
    }
    if not found:
        summary["reason"] = _nothing_found(args)
        print(f"puzzlegym checkpoints find: nothing written: {summary['reason']}", file=sys.stderr)
    print(json.dumps(summary))
    return 0


def _list(args: argparse.Namespace) -> int:
    rows = files.list_checkpoints(args.dir)
    if args.json:
        print(json.dumps(rows))
        return 0
    print("\t".join(_LIST_COLUMNS))
    for row in rows:
        if "error" in row:
            print(f"{row['file']}\terror: {row['error']}")
        else:
            print("\t".join(str(row.get(k, "")) for k in _LIST_COLUMNS))
    print(counted(len(rows), "checkpoint file"))
    print(CLASS_LEGEND)
    return 0


def _show(args: argparse.Namespace) -> int:
    ckpt = files.load(args.file)
    cert = dict(files.certificate_of(ckpt))
    prefix = cert.pop("prefix")
    doc = {
        "file": str(args.file),
        "env": ckpt.config,
        "puzzlegym_version": ckpt.version,
        "catalogue_sha256": ckpt.catalogue,
        "summary": files.summary(ckpt, args.file),
        "certificate (private)": cert,
        "prefix_actions": len(prefix),
    }
    if args.prefix:
        doc["prefix"] = prefix
    print(json.dumps(doc, indent=None if args.json else 1))
    return 0


def _restore(args: argparse.Namespace) -> int:
    ckpt = files.load(args.file)
    controller = Controller(ckpt)
    env = controller.make_env(args.backend)
    try:
        obs, info = controller.restore(env)
        result = {
            "file": str(args.file),
            "backend": args.backend,
            "screen": info["screen"],
            "frame_sha256": files.frame_digest(obs),
            "matches_certificate": True,
        }
        if args.png:
            from PIL import Image

            jsonio.write_atomic(args.png, lambda tmp: Image.fromarray(obs).save(tmp, format="PNG"))
            result["png"] = str(args.png)
        if args.replay:
            other = controller.make_env(args.backend)
            try:
                frame, _ = Controller(ckpt).replay(other)
            finally:
                other.close()
            result["replay_identical"] = frame.tobytes() == obs.tobytes()
            result["prefix_actions"] = len(controller.certificate["prefix"])
    finally:
        env.close()
    print(json.dumps(result))
    return 0 if result.get("replay_identical", True) else 1


def cmd(args: argparse.Namespace) -> int:
    """Dispatch ``puzzlegym checkpoints <action>``."""
    if getattr(args, "out", None) is not None:
        args.out = Path(args.out)
    return {"find": _find, "list": _list, "show": _show, "restore": _restore}[args.action](args)


def register(sub: argparse._SubParsersAction) -> None:
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
    ls = cks.add_parser(
        "list",
        help="the lab checkpoints in a directory",
        description="The lab checkpoints in a directory, one line each. " + CLASS_LEGEND + ".",
    )
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
    ck.set_defaults(func=cmd)
