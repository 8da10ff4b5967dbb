"""Small episodes the viewer's tests open (tests/test_view.py and tests/test_view_browser.py
share them: the ``view_records`` fixture in tests/conftest.py): a solver episode, a random
episode with a certified dead end left by an undo, and a scripted-model episode whose replies
carry text, reasoning and a hostile string. Each records a frame hash per action, so the
frames a page shows are checked against what the env showed while it played."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
from PIL import Image

from puzzlegym.env.loop import Observer
from puzzlegym.evaluation.replay import rerun
from puzzlegym.evaluation.runner import run_episode
from puzzlegym.record.files import read_log
from puzzlegym.service.scripted_model import demo_script
from tests.conftest import scripted

MAZE = "LongPuzzle/MazePaint-Easy"
HOSTILE = '</script><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'


def solver_episode(root: Path) -> Path:
    """The solver on Maze Paint Easy level 1 from the home screen."""
    result = run_episode(
        MAZE, "solver", seed=0, out_dir=root / "solver", gif=False, level=1, record_frames="hash"
    )
    return Path(result["record"])


def random_episode(root: Path) -> Path:
    """Random play on Nut and Bolt Hard level 1's board: a certified dead end at action 241,
    left by an undo at action 319 (seed 5), restarts."""
    result = run_episode(
        "LongPuzzle/NutAndBolt-Hard",
        "random",
        seed=5,
        out_dir=root / "random",
        gif=False,
        start="board",
        level=1,
        budget_s=400,
        record_frames="hash",
    )
    return Path(result["record"])


def model_episode(root: Path) -> Path:
    """A scripted model (Native GUI Actions) on Maze Paint Easy level 1 from the home screen:
    a reply with reasoning and hostile text, a malformed call, a retried 503, then the
    solver's moves."""
    turns = [
        {"status": 503},
        {
            "content": HOSTILE,
            "reasoning": "The home screen shows six games; Maze Paint is the fifth card.",
            "tool_calls": [{"name": "click", "arguments": '{"x": 1,'}],  # malformed JSON
        },
        *demo_script(MAZE, level=1)["turns"],
    ]
    with scripted({"model": "scripted", "turns": turns}) as (_model, url):
        result = run_episode(
            MAZE,
            "openai:scripted",
            seed=0,
            level=1,
            out_dir=root / "model",
            gif=False,
            record_frames="hash",
            agent_options={"base_url": url, "api_key": "sk-test", "backoff_s": 0.01},
        )
    return Path(result["record"])


def recorded_frames(record: Path) -> dict[int, str]:
    """The SHA-256 of the frame after each action, as the record has it."""
    return {r["actions"]: r["sha256"] for r in read_log(record) if r["kind"] == "frame"}


def make_records(root: Path) -> dict[str, Path]:
    return {
        "solver": solver_episode(root),
        "random": random_episode(root),
        "model": model_episode(root),
    }


class FrameDigests(Observer):
    """The SHA-256 of every frame of a per-action replay, by position."""

    def __init__(self) -> None:
        self.by_position: dict[int, str] = {}
        self.frames: dict[int, np.ndarray] = {}

    def on_start(self, obs, info) -> None:
        self.by_position[0] = hashlib.sha256(obs.tobytes()).hexdigest()
        self.frames[0] = obs

    def on_step(self, step) -> None:
        p = int(step.info["actions"])
        self.by_position[p] = hashlib.sha256(step.obs.tobytes()).hexdigest()
        self.frames[p] = step.obs


def replayed_frames(record: Path) -> FrameDigests:
    """The frames replay produces for each position of ``record``."""
    digests = FrameDigests()
    report = rerun(record, [digests], per_action=True)
    assert report["ok"], report["mismatch"]
    return digests


def composite(strip) -> dict[int, np.ndarray]:
    """The frame a page shows at each stored position, drawn from the strip's PNGs in
    Python."""
    frame = np.zeros((900, 1280, 3), np.uint8)
    drawn: dict[int, np.ndarray] = {}
    for position, _key, patches in strip.steps:
        for x, y, i in patches:
            with Image.open(io.BytesIO(strip.images[i])) as img:
                assert img.format == "PNG" and img.mode == "RGB"
                pixels = np.asarray(img)
            frame[y : y + pixels.shape[0], x : x + pixels.shape[1]] = pixels
        drawn[position] = frame.copy()
    out, last = {}, None
    for p in strip.positions():
        last = drawn.get(p, last)
        out[p] = last
    return out
