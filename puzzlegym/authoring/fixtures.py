"""The fixtures a game's package commits for the shared tests, made from the game itself.

* ``frames_sha256.json``: per tier, the SHA-256 of a scripted episode's full-resolution frames
  on the objective's own screens (:func:`frames_digest`), so a change to the game's pictures,
  or to the suite's, is seen (``tests/test_render_scaled.py`` compares every game's).
* ``BOARD_SHAPES`` of its ``testdata`` module: per tier, ``(own, bits, C, H, W)``, the
  symbolic board's own planes, the level-index bits and the shape of
  ``make_sb3_env(id, observation="board")`` (:func:`board_shapes`): ``C = own + 5 + bits``
  (the five suite screens) ``+ 1`` for a game with Undo, ``H, W`` the tier's largest board.

``puzzlegym game fixtures NAME`` writes the first and prints the second; ``--check`` compares
both with what the package has. A fixture is regenerated only when a game's pictures change on
purpose.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from puzzlegym.agents.solver import SolverAgent
from puzzlegym.base import jsonio
from puzzlegym.base.errors import PuzzleGymError
from puzzlegym.base.jsonio import write_atomic
from puzzlegym.env.core import puzzle_env
from puzzlegym.env.navigation import navigation_click
from puzzlegym.env.probe import HOME, Probe
from puzzlegym.game import Game
from puzzlegym.game.solver import Unsolvable
from puzzlegym.wrappers.board_observation import BoardEncoder

__all__ = [
    "FRAMES_FIXTURE",
    "HASH_STEPS",
    "board_shapes",
    "frames_digest",
    "frames_fixture",
    "frames_fixture_path",
    "scripted_frames",
    "write_frames_fixture",
]

FRAMES_FIXTURE = "frames_sha256.json"
HASH_STEPS = 160


def scripted_frames(
    env_id: str, steps: int = HASH_STEPS, seed: int = 3
) -> Iterator[tuple[np.ndarray, Probe]]:
    """``(frame, probe)`` of a scripted episode from the home screen: solver moves alternating
    with seeded random clicks anywhere on the objective's own screens (menus and buttons
    included), a click on Restart where the board is a dead end, and the navigation click back
    whenever a click left the objective's game (so no other game is ever shown). The reset's
    frame first."""
    env = gym.make(env_id, render_mode="rgb_array")
    base = puzzle_env(env, "scripted_frames")
    game = base.game
    try:
        obs, _ = env.reset(seed=seed)
        yield obs, base.probe()
        agent = SolverAgent(base)
        rng = np.random.default_rng(seed)
        for i in range(steps):
            probe = base.probe()
            elsewhere = probe.screen == HOME or (probe.game is not None and probe.game is not game)
            x, y = int(rng.integers(1280)), int(rng.integers(900))  # drawn on every step
            action: Any
            if elsewhere:
                action = navigation_click(probe)
            elif i % 2:
                action = {"type": "click", "x": x, "y": y}
            else:
                try:
                    action = agent()
                except Unsolvable:
                    restart = probe.control("restart")
                    if restart is None:
                        raise PuzzleGymError(
                            f"{game.name}'s level screen shows no 'restart' control, which "
                            "the fixture's playouts need to start over (every level screen's "
                            "header has one unless the game's widgets cover it: "
                            f"{game.where('view.py')})"
                        ) from None
                    x, y = restart.center
                    action = {"type": "click", "x": x, "y": y}
            obs, _, term, trunc, _ = env.step(action)
            yield obs, base.probe()
            if term or trunc:
                obs, _ = env.reset(seed=seed)
                agent = SolverAgent(base)
                yield obs, base.probe()
    finally:
        env.close()


def frames_digest(env_id: str) -> dict[str, Any]:
    """The SHA-256 of :func:`scripted_frames`' frames on the objective's own screens (the home
    screen, which shows every installed game's card, is left out, so installing another game
    changes no fixture) and how many there were."""
    h, n = hashlib.sha256(), 0
    for frame, probe in scripted_frames(env_id):
        if probe.screen != HOME:
            h.update(np.ascontiguousarray(frame).tobytes())
            n += 1
    return {"frames": n, "sha256": h.hexdigest()}


def frames_fixture_path(game: Game) -> Path:
    """Where ``game``'s package keeps its frame fixture (found from the installed package)."""
    return Path(str(resources.files(game.package) / FRAMES_FIXTURE))


def frames_fixture(game: Game) -> dict[str, Any] | None:
    """The frame fixture ``game``'s package commits (per tier), None when it has none; a
    PuzzleGymError naming the file when it is not a JSON object of at most 1 MiB."""
    path = frames_fixture_path(game)
    if not path.is_file():
        return None
    try:
        doc = jsonio.load_file(path, 2**20)  # a few hashes per tier
    except (OSError, jsonio.JSONError) as exc:
        raise PuzzleGymError(f"{game.where(FRAMES_FIXTURE)}: unreadable ({exc})") from None
    if not isinstance(doc, dict):
        raise PuzzleGymError(f"{game.where(FRAMES_FIXTURE)}: not a JSON object")
    return doc


def write_frames_fixture(game: Game, doc: dict[str, Any]) -> Path:
    """Write ``doc`` (per tier, a :func:`frames_digest`) as ``game``'s frame fixture,
    atomically; its path."""
    path = frames_fixture_path(game)
    write_atomic(path, (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode())
    return path


def board_shapes(game: Game) -> dict[str, tuple[int, ...]]:
    """Per tier, ``(own planes, level bits, C, H, W)`` of the board observation (the
    ``BOARD_SHAPES`` of a game package's ``testdata`` module); empty for a game without a
    symbolic board."""
    if game.planes is None:
        return {}
    out: dict[str, tuple[int, ...]] = {}
    for tier in game.tiers:
        encoder = BoardEncoder(game, tier)
        out[tier] = (encoder.board_shape[0], encoder.level_bits, *encoder.shape)
    return out
