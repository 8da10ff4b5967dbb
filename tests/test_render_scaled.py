"""Full-resolution frames stay byte-identical: a scripted episode of every objective hashes as
its game's fixture says (``<game package>/frames_sha256.json``, one file per game, so a new
game changes no other game's fixtures)."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

import gymnasium as gym
import numpy as np
import pytest

import puzzlegym  # noqa: F401
from puzzlegym.agents import SolverAgent
from puzzlegym.env.navigation import navigation_click
from puzzlegym.env.probe import HOME
from puzzlegym.solvers.types import Unsolvable
from puzzlegym.suite.registry import env_ids, parse_env_id

FIXTURE = "frames_sha256.json"
HASH_STEPS = 160


def scripted_frames(env_id: str, steps: int = HASH_STEPS, seed: int = 3):
    """``(frame, probe)`` of a scripted episode from the home screen: solver moves alternating
    with seeded random clicks anywhere on the objective's own screens (menus and buttons
    included), a click on Restart where the board is a dead end, and the navigation click back
    whenever a click left the objective's game (so no other game is ever shown). The reset's
    frame first."""
    env = gym.make(env_id, render_mode="rgb_array")
    base = env.unwrapped
    game, _ = parse_env_id(env_id)
    try:
        obs, _ = env.reset(seed=seed)
        yield obs, base.probe()
        agent = SolverAgent(base)
        rng = np.random.default_rng(seed)
        for i in range(steps):
            probe = base.probe()
            elsewhere = probe.screen == HOME or (probe.game is not None and probe.game is not game)
            x, y = int(rng.integers(1280)), int(rng.integers(900))  # drawn on every step
            if elsewhere:
                action = navigation_click(probe)
            elif i % 2:
                action = {"type": "click", "x": x, "y": y}
            else:
                try:
                    action = agent()
                except Unsolvable:
                    x, y = probe.control("restart").center
                    action = {"type": "click", "x": x, "y": y}
            obs, _, term, trunc, _ = env.step(action)
            yield obs, base.probe()
            if term or trunc:
                obs, _ = env.reset(seed=seed)
                agent = SolverAgent(base)
                yield obs, base.probe()
    finally:
        env.close()


def frames_digest(env_id: str) -> dict:
    """The SHA-256 of the episode's frames on the objective's own screens (the home screen,
    which shows every game's card, is left out) and how many there were."""
    h, n = hashlib.sha256(), 0
    for frame, probe in scripted_frames(env_id):
        if probe.screen != HOME:
            h.update(np.ascontiguousarray(frame).tobytes())
            n += 1
    return {"frames": n, "sha256": h.hexdigest()}


def fixture(env_id: str) -> dict | None:
    game, tier = parse_env_id(env_id)
    path = resources.files(game.package) / FIXTURE
    return json.loads(path.read_text()).get(tier) if path.is_file() else None


if __name__ == "__main__":  # regenerate (only when a game's pictures change on purpose)
    import sys
    from pathlib import Path

    from puzzlegym.suite.registry import get_game

    for name in sys.argv[1:]:  # game names, e.g. MazePaint
        game = get_game(name)
        doc = {tier: frames_digest(game.env_id(tier)) for tier in game.tiers}
        path = Path(str(resources.files(game.package) / FIXTURE))
        path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        print(f"wrote {path}")


@pytest.mark.parametrize("env_id", [i for i in env_ids() if fixture(i) is not None])
def test_full_resolution_frames_are_byte_identical_to_the_fixture(env_id):
    assert frames_digest(env_id) == fixture(env_id)
