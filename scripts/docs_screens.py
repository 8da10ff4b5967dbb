#!/usr/bin/env python3
"""Render the documentation's screenshots with the in-process backend.

Writes ``home.png`` (the Game Suite's home screen) and ``<game>.png`` for every registered
game (level 1 of its first tier, as the level screen shows it at the start; ``<game>`` is the
game's package name, ``maze_paint``), each the env's full 1280x900 frame (``env.render()``)
reduced to ``--width`` pixels and saved as an optimised palette PNG. The pages under
``docs/games/`` show them; re-run this script whenever the games' rendering changes:

    .venv/bin/python scripts/docs_screens.py             # writes docs/img/screens/*.png
    .venv/bin/python scripts/docs_screens.py --out DIR --width 480

``--training`` writes the RL guide's pictures of the training view instead
(``docs/img/training/<game>.png``): one board of every registered game, the six a few solver
actions in (a selection or a path being drawn where the game has one), any other game at the
start of its hardest tier's level 1, as three 84x84 observations side by
side, each enlarged 4x pixel for pixel: the default view (``LowResObservation``: the whole
screen letterboxed), the training view in colour and in grayscale
(``LowResObservation(view="board")``):

    .venv/bin/python scripts/docs_screens.py --training  # writes docs/img/training/*.png
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
from PIL import Image

import puzzlegym  # noqa: F401  (registers the LongPuzzle/* ids)
from puzzlegym.agents import SolverAgent
from puzzlegym.base.jsonio import write_atomic
from puzzlegym.game import registry
from puzzlegym.wrappers import LowResObservation

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img" / "screens"
TRAINING_OUT = ROOT / "docs" / "img" / "training"
# the board each training picture shows: game -> (tier, level, solver actions played first);
# a game not listed (a plugin's) shows its hardest tier's level 1 as it starts
TRAINING_BOARDS = {
    "BoltUnscrew": ("Hard", 8, 3),
    "RushHour": ("Hard", 1, 2),
    "NutAndBolt": ("Extreme", 1, 3),
    "TruckEscape": ("Default", 5, 3),
    "MazePaint": ("Hard", 1, 3),
    "ColorConnect": ("Hard", 10, 9),
}
ENLARGE = 4  # training pictures: each observation pixel as a 4x4 block
GAP = 8  # pixels between the three observations of a training picture
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


def stem_of(game) -> str:
    """A game's pictures' file stem: its package's own name (``maze_paint``)."""
    return game.package.rpartition(".")[2]


def screens() -> dict[str, tuple[str, str]]:
    """File stem -> (env id, start) of every screenshot the docs show."""
    games = registry.games()
    first = next(iter(games.values()))
    out = {"home": (first.env_id(first.tiers[0]), "home")}
    for game in games.values():  # every registered game, a plugin's included
        out[stem_of(game)] = (game.env_id(game.tiers[0]), "board")
    return out


def training_picture(game: str) -> bytes:
    """The RL guide's picture of ``game``'s training view (see the module docstring), PNG."""
    g = registry.games()[game]
    tier, level, moves = TRAINING_BOARDS.get(game, (g.tiers[-1], 1, 0))
    views = [dict(), dict(view="board"), dict(view="board", grayscale=True)]
    envs = [
        LowResObservation(gym.make(g.env_id(tier), start="board", level=level), **kw)
        for kw in views
    ]
    try:
        frames = [env.reset(seed=0)[0] for env in envs]
        agent = SolverAgent(envs[0].unwrapped)
        for _ in range(moves):
            action = agent()
            frames = [env.step(action)[0] for env in envs]
    finally:
        for env in envs:
            env.close()
    tiles = [np.repeat(f, 3, axis=2) if f.shape[2] == 1 else f for f in frames]
    tiles = [t.repeat(ENLARGE, axis=0).repeat(ENLARGE, axis=1) for t in tiles]
    gap = np.full((tiles[0].shape[0], GAP, 3), 255, np.uint8)
    row = np.concatenate([tiles[0], gap, tiles[1], gap, tiles[2]], axis=1)
    buf = io.BytesIO()
    Image.fromarray(row).save(buf, format="PNG", optimize=True)
    return buf.getvalue()


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
    parser.add_argument(
        "--training",
        action="store_true",
        help="write the training view's pictures instead (default folder "
        f"{TRAINING_OUT.relative_to(ROOT)})",
    )
    args = parser.parse_args(argv)
    if not MIN_WIDTH <= args.width <= MAX_WIDTH:
        parser.error(f"--width: expected {MIN_WIDTH}..{MAX_WIDTH}, got {args.width}")
    if args.training:
        out = TRAINING_OUT if args.out == OUT else args.out
        out.mkdir(parents=True, exist_ok=True)
        for game in registry.games():
            stem = stem_of(registry.get_game(game))
            data = training_picture(game)
            write_atomic(out / f"{stem}.png", data)
            print(f"{out / f'{stem}.png'}: {game}, {len(data) // 1024} KiB")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for stem, (env_id, start) in screens().items():
        data = shrink(frame(env_id, start), args.width)
        path = args.out / f"{stem}.png"
        write_atomic(path, data)
        print(f"{path}: {env_id} ({start}), {len(data) // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
