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
from puzzlegym.base.errors import ConfigError, PuzzleGymError
from puzzlegym.base.fields import MAX_SEED, check_count
from puzzlegym.base.jsonio import write_atomic, write_json
from puzzlegym.env import puzzle_env
from puzzlegym.env.loop import EpisodeEnd, Observer, Step, play
from puzzlegym.game.registry import parse_env_id
from puzzlegym.record.files import AgentLog, holds_record, unused_path


class GifFrames(Observer):
    """Frames for the episode GIF: half-size, only frames that changed, decimated (every
    other frame dropped) whenever ``limit`` is reached, so memory stays bounded. As an
    observer of the episode loop it keeps the first frame, every step that was accepted
    and the last frame."""

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

    def on_start(self, obs: np.ndarray, info: dict) -> None:
        self.add(obs, force=True)

    def on_step(self, step: Step) -> None:
        if step.info["accepted"]:
            self.add(step.obs)

    def on_end(self, end: EpisodeEnd) -> None:
        last = end.obs[:: self.scale, :: self.scale]
        if not self.frames or not np.array_equal(self.frames[-1], last):
            self.add(end.obs, force=True)

    def write(self, path: Path, fps: int = 4) -> None:
        import imageio.v3 as iio

        iio.imwrite(path, np.stack(self.frames), duration=int(1000 / fps), loop=0)


class AgentLines(Observer):
    """Moves a model agent's pending record lines into ``agent.jsonl`` each time it has
    chosen an action (stamped with the env's action count and time then)."""

    def __init__(self, policy: Any, log: AgentLog, env: Any) -> None:
        self.policy, self.log, self.env = policy, log, env

    def on_policy(self, action: Any) -> None:
        _write_agent_lines(self.policy, self.log, self.env)


class Progress(Observer):
    """A tqdm bar over the loop's steps."""

    def __init__(self, total: int | None, enabled: bool) -> None:
        self.bar = tqdm(total=total, disable=not enabled, unit="step", leave=False)

    def on_step(self, step: Step) -> None:
        self.bar.update(1)

    def on_end(self, end: EpisodeEnd) -> None:
        self.bar.close()


MAX_STEPS = 10**9


def check_run_limits(seed: Any = 0, max_steps: Any = None) -> None:
    """An episode's ``seed`` (0..MAX_SEED) and harness cap ``max_steps`` (None or
    1..10**9): :class:`ConfigError` naming the field."""
    check_count(seed, "seed", 0, MAX_SEED, ConfigError)
    check_count(max_steps, "max_steps", 1, MAX_STEPS, ConfigError, optional=True)


def holds_output(out: Path) -> bool:
    """Whether ``out`` holds an earlier episode's output (its result or record)."""
    return (
        (out / "result.json").exists() or holds_record(out / "record") or (out / "record").exists()
    )


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
    turns, malformed calls) to the result's ``model`` entry. Model agents play on the wall
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
    base = puzzle_env(env, "run_episode")
    policy = agent_log = None
    try:
        try:
            policy = make_agent(agent, base, seed=seed, options=agent_options)
        except Exception:
            if out is not None and out.is_dir() and not any(out.iterdir()):
                out.rmdir()  # nothing was played: leave no empty output directory
            raise
        drain = getattr(policy, "drain_records", None)
        if drain is not None and record_dir is not None:
            agent_log = AgentLog(record_dir)
        frames = GifFrames() if (gif and out is not None) else None
        observers: list[Observer] = [Progress(max_steps, progress)]
        if agent_log is not None:
            observers.append(AgentLines(policy, agent_log, base))
        if frames is not None:
            observers.append(frames)
        wall0 = time.perf_counter()
        end = play(env, policy, observers, max_steps=max_steps, seed=seed)
        if end.reason == "max_steps":  # the record says the harness stopped it at its limit
            base.end_episode("max_steps")
        result = _result(env_id, label, seed, base.probe(), end, time.perf_counter() - wall0)
        if label != agent:
            result["agent_spec"] = agent
        if hasattr(policy, "summary"):
            result["model"] = policy.summary()
            if agent_log is not None:
                agent_log.write({"kind": "summary", **result["model"]}, *_stamp(base))
        if out is not None:
            _write_outputs(out, result, end.obs, frames, base.record_path)
        return result
    except Exception as exc:
        if agent_log is not None:  # the episode is not scored; say why in its record
            text = getattr(policy, "redact", str)(f"{type(exc).__name__}: {exc}")  # key masked
            agent_log.write({"kind": "error", "error": text[:2000]}, *_stamp(base))
        raise
    finally:
        if agent_log is not None:
            agent_log.close()
        if policy is not None and hasattr(policy, "close"):
            policy.close()
        env.close()


def _result(env_id: str, label: str, seed: int, probe: Any, end: Any, wall_s: float) -> dict:
    """The episode's result dict (``result.json``) from its last probe and its end."""
    return {
        "env_id": env_id,
        "agent": label,
        "seed": seed,
        "success": probe.success,
        "lc": probe.lc,
        "fgp": probe.fgp,
        "levels_won": list(probe.levels_won),
        "steps": probe.steps,
        "actions": probe.actions,
        "elapsed_s": end.info["elapsed_s"],
        "terminated": end.reason == "terminated",
        "truncated": end.reason == "truncated",
        "wall_s": round(wall_s, 3),
    }


def _write_outputs(
    out: Path, result: dict, final: np.ndarray, frames: GifFrames | None, record: str | None
) -> None:
    """``final.png``, ``episode.gif`` and ``result.json`` under ``out``, each whole or not
    at all (temp file + rename); ``result`` gets their paths."""
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "final.png", lambda tmp: Image.fromarray(final).save(tmp, format="PNG"))
    result["final_frame"] = str(out / "final.png")
    if frames:
        write_atomic(out / "episode.gif", frames.write)
        result["gif"] = str(out / "episode.gif")
    result["out"] = str(out)
    result["record"] = record
    write_json(out / "result.json", result)


def _stamp(env: Any) -> tuple[int, float]:
    """The env's action count and episode time (0 before the first reset)."""
    try:
        probe = env.probe()
    except PuzzleGymError:
        return 0, 0.0
    return probe.actions, probe.elapsed_s


def _write_agent_lines(policy: Any, log: AgentLog | None, env: Any) -> None:
    """Move the agent's pending record lines (if it keeps any) into ``agent.jsonl``."""
    drain = getattr(policy, "drain_records", None)
    if drain is None:
        return
    lines = drain()
    if log is not None:
        actions, t = _stamp(env)
        for rec in lines:
            log.write(rec, actions, t)
