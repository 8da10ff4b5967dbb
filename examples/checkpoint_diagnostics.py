"""Diagnostic study with checkpoints: stop an episode half-way, save it, and continue it
elsewhere, checking that the copy behaves exactly like the original.

1. The solver plays MazePaint-Hard level 3 (starting on the board) for half of its solution.
2. ``env.unwrapped.checkpoint()`` captures the whole suite; it is saved to a JSON file and
   loaded back with ``Checkpoint.load``.
3. A fresh env is restored with ``reset(options={"checkpoint": ckpt})``.
4. The solver's remaining actions are replayed in both envs; every frame, reward, flag and
   info dict must be identical, byte for byte.

    python examples/checkpoint_diagnostics.py
    python examples/checkpoint_diagnostics.py --level 7 --out runs/ckpt   # keep the file
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
from pathlib import Path

import gymnasium as gym

import puzzlegym  # noqa: F401  (registers the LongPuzzle/* ids)
from puzzlegym import solvers
from puzzlegym.agents import SolverAgent
from puzzlegym.checkpoint import Checkpoint
from puzzlegym.errors import CheckpointError


def digest(frame) -> str:
    return hashlib.sha256(frame.tobytes()).hexdigest()[:16]


def moves_played(env) -> int:
    """Moves settled on the board so far (Maze Paint has no undo: the board's depth)."""
    return env.unwrapped.probe().board.depth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="LongPuzzle/MazePaint-Hard")
    parser.add_argument("--level", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out", default=None, help="directory for the checkpoint file (default: a temp dir)"
    )
    args = parser.parse_args()
    kwargs = {"start": "board", "level": args.level}

    # 1. play half of the solution
    original = gym.make(args.env_id, **kwargs)
    obs, info = original.reset(seed=args.seed)
    board = original.unwrapped.probe().board
    solution = solvers.solve(board.level, board.state)
    half = len(solution.moves) // 2
    agent = SolverAgent(original.unwrapped)
    while moves_played(original) < half:
        obs, reward, terminated, truncated, info = original.step(agent(obs, info))
        assert not (terminated or truncated), "the episode ended before half of the solution"
    print(
        f"{args.env_id} level {args.level}: solution has {len(solution.moves)} moves; "
        f"played {half} in {info['step']} steps (progress {info['evaluator']['progress']:.3f})"
    )

    # 2. checkpoint, save, load
    ckpt = original.unwrapped.checkpoint()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out or tmp)
        out.mkdir(parents=True, exist_ok=True)
        path = ckpt.save(out / f"level{args.level}-half.ckpt.json")
        loaded = Checkpoint.load(path)  # checks format, version, and the payload's SHA-256
        size = path.stat().st_size
    # JSON turns tuples into lists, so compare the canonical digest rather than the objects
    sha = ckpt.to_json()["payload_sha256"]
    assert loaded.to_json()["payload_sha256"] == sha, (
        "the checkpoint changed on its way through disk"
    )
    print(f"saved {path.name} ({size} bytes), loaded it back: payload sha256 {sha[:16]}")

    # 3. restore into a fresh env made with the same keyword arguments
    restored = gym.make(args.env_id, **kwargs)
    obs_copy, _ = restored.reset(options={"checkpoint": loaded})
    assert obs_copy.tobytes() == obs.tobytes(), "the restored frame differs"
    print(f"restored into a fresh env: frame {digest(obs_copy)} matches the original's")

    # a checkpoint only fits an env with the same configuration
    other = gym.make(args.env_id, start="board", level=1 if args.level != 1 else 2)
    try:
        other.reset(options={"checkpoint": loaded})
    except CheckpointError as exc:
        print(f"restoring into a level-{other.unwrapped.config['level']} env is refused: {exc}")
    other.close()

    # 4. replay the same next actions in both
    replayed = 0
    terminated = truncated = False
    while not (terminated or truncated):
        action = agent(obs, info)
        obs, reward, terminated, truncated, info = original.step(action)
        step_copy = restored.step(action)
        assert step_copy[0].tobytes() == obs.tobytes(), (
            f"frames differ after replayed action {replayed + 1}"
        )
        assert step_copy[1:] == (reward, terminated, truncated, info), (
            f"step results differ at {replayed + 1}"
        )
        replayed += 1
    summary, summary_copy = (
        original.unwrapped.summary(),
        restored.unwrapped.summary(),
    )
    assert summary == summary_copy, "the evaluators disagree"
    print(
        f"replayed {replayed} actions in both envs: frames byte-identical, "
        f"last frame {digest(obs)}; "
        f"both end with success={summary['success']}, levels won {summary['levels_won']}"
    )
    original.close()
    restored.close()
    print("OK: the checkpoint restores the episode exactly")


if __name__ == "__main__":
    main()
