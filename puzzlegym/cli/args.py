"""What the subcommands share: bounded integer flags, the generated-levels flags, the model
agents' options, and subcommands implemented in another module."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

from puzzlegym.base.errors import ConfigError

__all__ = [
    "AGENT_KINDS",
    "COUNT",
    "MODEL_OPTION_FLAGS",
    "PORT",
    "SEED_LIMIT",
    "add_model_options",
    "int_in",
    "lazy",
    "model_options",
    "split_kwargs",
]

# every kind of --agent spec (puzzlegym.agents.factory.make_agent), as the help and docs/cli.md
# name them
AGENT_KINDS = (
    "solver",
    "random",
    "scripted",
    "vision",
    "openai:MODEL",
    "jax:PATH",
    "module:callable",
)
SEED_LIMIT = 2**31  # level seeds of generated levels are 0..2**31-1 (puzzlegym.game.splits)


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: a decimal integer ``lo..hi`` (argparse names the flag in its error).
    Most options are checked where they are used (the env, the run, the service); this is
    for those that reach the operating system or a loop first (ports, counts, seeds)."""

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected an integer {lo}..{hi}, got {text[:40]!r}")
        return value

    return parse


PORT = int_in(0, 65535)
COUNT = int_in(1, 10**9)


def split_kwargs(args: argparse.Namespace) -> dict:
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
    "--code-gui-calls": (
        "code_gui_calls",
        int,
        "code setting: GUI calls and screenshots per run_code, one budget (default 1000)",
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


def lazy(target: str):
    """A subcommand implemented in another module (``module:function``), imported on use."""

    def run(args: argparse.Namespace) -> int:
        module, _, func = target.partition(":")
        return getattr(importlib.import_module(module), func)(args)

    return run
