#!/usr/bin/env python3
"""Render the documentation's screenshots with the in-process backend.

Writes ``home.png`` (the Game Suite's home screen) and ``<game>.png`` for every registered
game (level 1 of its first tier, as the level screen shows it at the start; ``<game>`` is the
game's package name, ``maze_paint``), each the env's full 1280x900 frame (``env.render()``)
reduced to ``--width`` pixels and saved as an optimised palette PNG. The pages under
``docs/games/`` show them; re-run this script whenever the games' rendering changes:

    .venv/bin/python scripts/docs_screens.py             # writes docs/img/screens/*.png
    .venv/bin/python scripts/docs_screens.py --out DIR --width 480
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import gymnasium as gym
from PIL import Image

import puzzlegym  # noqa: F401  (registers the LongPuzzle/* ids)
from puzzlegym import registry
from puzzlegym.jsonio import write_atomic

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img" / "screens"
MIN_WIDTH, MAX_WIDTH = 160, 1280
COLOURS = 128  # palette size: the screens are flat colours, text and a few gradients


def frame(env_id: str, start: str) -> Image.Image:
    """The first frame of ``env_id`` (level 1) from ``start``, at full resolution."""
    env = gym.make(env_id, start=start, level=1, render_mode="rgb_array")
    try:
        env.reset(seed=0)
        return Image.fromarray(env.render())
    finally:
        env.close()


def shrink(image: Image.Image, width: int) -> bytes:
    """``image`` reduced to ``width`` pixels wide (aspect kept) as an optimised palette PNG."""
    height = round(image.height * width / image.width)
    small = image.resize((width, height), Image.Resampling.LANCZOS)
    small = small.quantize(
        colors=COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    buf = io.BytesIO()
    small.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def screens() -> dict[str, tuple[str, str]]:
    """File stem -> (env id, start) of every screenshot the docs show."""
    games = registry.games()
    first = next(iter(games.values()))
    out = {"home": (first.env_id(first.tiers[0]), "home")}
    for name, game in games.items():
        stem = registry.GAME_MODULES[name].rpartition(".")[2]
        out[stem] = (game.env_id(game.tiers[0]), "board")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=OUT, help=f"output folder (default {OUT.relative_to(ROOT)})"
    )
    parser.add_argument(
        "--width",
        type=int,
        default=640,
        help=f"image width, {MIN_WIDTH}..{MAX_WIDTH} (default 640)",
    )
    args = parser.parse_args(argv)
    if not MIN_WIDTH <= args.width <= MAX_WIDTH:
        parser.error(f"--width: expected {MIN_WIDTH}..{MAX_WIDTH}, got {args.width}")
    args.out.mkdir(parents=True, exist_ok=True)
    for stem, (env_id, start) in screens().items():
        data = shrink(frame(env_id, start), args.width)
        path = args.out / f"{stem}.png"
        write_atomic(path, data)
        print(f"{path}: {env_id} ({start}), {len(data) // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
