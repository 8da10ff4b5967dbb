"""Play one episode with an agent and keep what it produced: the result, the episode record,
the final frame (PNG) and an animated GIF of the play."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from PIL import Image
from tqdm import tqdm

from puzzlegym.agents import agent_label, make_agent
from puzzlegym.errors import ConfigError, shown
from puzzlegym.evaluation.records import AgentLog, holds_record, unused_path
from puzzlegym.fields import MAX_SEED
from puzzlegym.jsonio import write_atomic, write_json
from puzzlegym.registry import parse_env_id


class GifFrames:
    """Frames for the episode GIF: half-size, only frames that changed, decimated (every
    other frame dropped) whenever ``limit`` is reached, so memory stays bounded."""

    def __init__(self, limit: int = 400, scale: int = 2) -> None:
        self.limit, self.scale = limit, scale
        self.frames: list[np.ndarray] = []
        self.stride, self._seen = 1, 0

    def add(self, frame: np.ndarray, force: bool = False) -> None:
        self._seen += 1
        if not force and self._seen % self.stride:
            return
        self.frames.append(np.ascontiguousarray(frame[:: self.scale, :: self.scale]))
        if len(self.frames) >= self.limit:
            self.frames = self.frames[::2]
            self.stride *= 2

    def write(self, path: Path, fps: int = 4) -> None:
        import imageio.v3 as iio

        iio.imwrite(path, np.stack(self.frames), duration=int(1000 / fps), loop=0)


MAX_STEPS = 10**9


def check_run_limits(seed: Any = 0, max_steps: Any = None) -> None:
    """An episode's ``seed`` (0..MAX_SEED) and harness cap ``max_steps`` (None or
    1..10**9): :class:`ConfigError` naming the field."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed: expected an integer 0..{MAX_SEED}, got {shown(seed)}")
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int)
                                  or not 1 <= max_steps <= MAX_STEPS):
        raise ConfigError(f"max_steps: expected None or an integer 1..{MAX_STEPS}, got {shown(max_steps)}")


def holds_output(out: Path) -> bool:
    """Whether ``out`` holds an earlier episode's output (its result or record)."""
    return (out / "result.json").exists() or holds_record(out / "record") or (out / "record").exists()


def run_episode(
    env_id: str,
    agent: str = "solver",
    *,
    seed: int = 0,
    out_dir: str | Path | None = None,
    gif: bool = True,
    max_steps: int | None = None,
    progress: bool = False,
    agent_options: dict[str, Any] | None = None,
    **env_kwargs: Any,
) -> dict:
    """Play one episode of ``env_id``; returns the result dict (success, lc, fgp, ...).

    With ``out_dir`` it keeps ``result.json``, ``final.png``, ``episode.gif`` and the record
    (``record/``) there; if ``out_dir`` already holds an earlier episode, they go to the first
    free ``out_dir-2``, ``-3``, ... instead (``result["out"]`` says where): nothing earlier
    is overwritten.

    ``agent_options`` is a model agent's options dict (:mod:`puzzlegym.agents.model`); a model
    agent's own record lines go to ``record/agent.jsonl`` and its totals (requests, tokens,
    steps, malformed calls) to the result's ``model`` entry. Model agents play on the wall
    clock unless ``clock`` says otherwise.
    """
    parse_env_id(env_id)  # a clear ConfigError for an unknown id
    check_run_limits(seed=seed, max_steps=max_steps)
    label = agent_label(agent, agent_options)  # validates the agent and its options first
    # a new output directory: out_dir, or out_dir-2, ... if it holds an earlier episode
    out = unused_path(out_dir, taken=holds_output) if out_dir is not None else None
    record_dir = str(out / "record") if out is not None else None
    if label != agent:
        env_kwargs.setdefault("clock", "wall")
    env = gym.make(env_id, record_dir=record_dir, agent=label, **env_kwargs)
    policy = agent_log = None
    try:
        try:
            policy = make_agent(agent, env.unwrapped, seed=seed, options=agent_options)
        except Exception:
            if out is not None and out.is_dir() and not any(out.iterdir()):
                out.rmdir()  # nothing was played: leave no empty output directory
            raise
        drain = getattr(policy, "drain_records", None)
        if drain is not None and record_dir is not None:
            agent_log = AgentLog(record_dir)
        obs, info = env.reset(seed=seed)
        frames = GifFrames() if (gif and out is not None) else None
        if frames:
            frames.add(obs, force=True)
        wall0 = time.perf_counter()
        terminated = truncated = False
        bar = tqdm(total=max_steps, disable=not progress, unit="step", leave=False)
        steps = 0
        while not (terminated or truncated):
            if max_steps is not None and steps >= max_steps:
                break
            try:
                action = policy(obs, info)
            finally:
                _write_agent_lines(policy, agent_log, env.unwrapped)
            obs, _, terminated, truncated, info = env.step(action)
            steps += 1
            bar.update(1)
            if frames and info["accepted"]:
                frames.add(obs)
        bar.close()
        wall = time.perf_counter() - wall0
        ev = env.unwrapped.evaluator
        result = {
            "env_id": env_id,
            "agent": label,
            "seed": seed,
            "success": ev.success,
            "lc": ev.lc,
            "fgp": ev.fgp,
            "levels_won": ev.levels_won,
            "steps": env.unwrapped.steps,
            "actions": env.unwrapped.actions,
            "elapsed_s": info["elapsed_s"],
            "terminated": terminated,
            "truncated": truncated,
            "wall_s": round(wall, 3),
        }
        if label != agent:
            result["agent_spec"] = agent
        if hasattr(policy, "summary"):
            result["model"] = policy.summary()
            if agent_log is not None:
                agent_log.write({"kind": "summary", **result["model"]}, *_stamp(env.unwrapped))
        if out is not None:  # each file appears whole or not at all (temp file + rename)
            out.mkdir(parents=True, exist_ok=True)
            final = obs
            write_atomic(out / "final.png", lambda tmp: Image.fromarray(final).save(tmp, format="PNG"))
            result["final_frame"] = str(out / "final.png")
            if frames:
                if not frames.frames or not np.array_equal(frames.frames[-1], obs[::2, ::2]):
                    frames.add(obs, force=True)
                write_atomic(out / "episode.gif", frames.write)
                result["gif"] = str(out / "episode.gif")
            result["out"] = str(out)
            result["record"] = env.unwrapped.record_path
            write_json(out / "result.json", result)
        return result
    except Exception as exc:
        if agent_log is not None:  # the episode is not scored; say why in its record
            agent_log.write({"kind": "error", "error": f"{type(exc).__name__}: {exc}"[:2000]}, *_stamp(env.unwrapped))
        raise
    finally:
        if agent_log is not None:
            agent_log.close()
        if hasattr(policy, "close"):
            policy.close()
        env.close()


def _stamp(env: Any) -> tuple[int, float]:
    """The env's action count and episode time (0 before the first reset)."""
    clock = getattr(env, "clock", None)
    return getattr(env, "actions", 0), clock.elapsed_s if clock is not None else 0.0


def _write_agent_lines(policy: Any, log: AgentLog | None, env: Any) -> None:
    """Move the agent's pending record lines (if it keeps any) into ``agent.jsonl``."""
    drain = getattr(policy, "drain_records", None)
    if drain is None:
        return
    lines = drain()
    if log is not None:
        step, t = _stamp(env)
        for rec in lines:
            log.write(rec, step, t)
