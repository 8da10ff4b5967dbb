"""Reduced-scale rendering: full-resolution frames stay byte-identical to the frames hashed
before reduced-scale rendering existed; scaled frames are composited directly at the
reduced scale (incremental equals from scratch) and stay close to a resized full frame; the
widget cache is bounded in bytes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import puzzlegym  # noqa: F401
from puzzlegym.agents import SolverAgent
from puzzlegym.solvers.types import Unsolvable

HASHES = Path(__file__).parent / "data" / "full_frames_sha256.json"
HASH_STEPS = 160


def scripted_frames(env_id: str, steps: int = HASH_STEPS, seed: int = 3):
    """The frames of a scripted episode from the home screen: solver moves alternating with
    seeded random clicks anywhere (menus and buttons included); a click on Restart where the
    board is a dead end. Yields every observation, the reset's first."""
    env = gym.make(env_id, render_mode="rgb_array")
    try:
        obs, _ = env.reset(seed=seed)
        yield obs
        agent = SolverAgent(env.unwrapped)
        rng = np.random.default_rng(seed)
        for i in range(steps):
            if i % 2:
                action = {
                    "type": "click",
                    "x": int(rng.integers(1280)),
                    "y": int(rng.integers(900)),
                }
            else:
                try:
                    action = agent()
                except Unsolvable:
                    x, y = env.unwrapped.suite.targets()["restart"].center
                    action = {"type": "click", "x": x, "y": y}
            obs, _, term, trunc, _ = env.step(action)
            yield obs
            if term or trunc:
                obs, _ = env.reset(seed=seed)
                agent = SolverAgent(env.unwrapped)
                yield obs
    finally:
        env.close()


def frames_digest(env_id: str) -> dict:
    h, n = hashlib.sha256(), 0
    for frame in scripted_frames(env_id):
        h.update(np.ascontiguousarray(frame).tobytes())
        n += 1
    return {"frames": n, "sha256": h.hexdigest()}


if __name__ == "__main__":  # regenerate (only when a game's pictures change on purpose)
    from puzzlegym.suite.registry import env_ids

    HASHES.write_text(
        json.dumps({i: frames_digest(i) for i in env_ids()}, indent=1, sort_keys=True) + "\n"
    )


@pytest.mark.parametrize("env_id", sorted(json.loads(HASHES.read_text())))
def test_full_resolution_frames_are_byte_identical_to_before(env_id):
    """Every frame of the scripted episode hashes as it did before reduced-scale rendering
    (ids registered later have no recorded hash and are not in this list)."""
    assert frames_digest(env_id) == json.loads(HASHES.read_text())[env_id]
