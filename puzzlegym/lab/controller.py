"""The controller: prepares a checkpoint's board for a takeover.

Two ways reach the same moment, pixel for pixel:

* :meth:`Controller.restore`: ``env.reset(options={"checkpoint": ckpt})``;
* :meth:`Controller.replay`: ``env.reset(seed=cert["seed"])`` and the certificate's legal
  GUI-action prefix, one action at a time through the env (the same input path an agent
  uses), then a check that the whole suite (screen, board, ui, history, clock, input state,
  evaluator record) equals the checkpoint's.

Either way the controller then holds the game: it takes no further action, and the agent's
first observation is the screen it handed over (:attr:`Controller.frame`). :func:`capture`
runs a prefix on a fresh native env and returns the checkpoint at its end (how the finders
make lab checkpoints).
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium as gym
import numpy as np

from puzzlegym.base.errors import CheckpointError, ConfigError
from puzzlegym.env import puzzle_env
from puzzlegym.env.checkpoint import Checkpoint
from puzzlegym.lab.checkpoints import canonical, certificate_of, frame_digest

__all__ = ["Controller", "capture", "make_env"]

_ENV_KEYS = ("start", "level", "clock", "budget_s", "reward", "action_cost_s", "levels")


def make_env(config: dict, backend: str | None = None, **kwargs: Any) -> gym.Env:
    """``gym.make`` for an env configuration (``PuzzleEnv.config`` or a checkpoint's), on
    ``backend`` (default: the configuration's) with extra keyword arguments (``record_dir``,
    ``agent``)."""
    if "env_id" not in config:
        raise ConfigError("config: needs 'env_id'")
    env_kwargs = {k: config[k] for k in _ENV_KEYS if k in config}
    env_kwargs["backend"] = backend or config.get("backend", "native")
    return gym.make(config["env_id"], **env_kwargs, **kwargs)


def _replay(env: gym.Env, seed: int | None, prefix: list) -> tuple[np.ndarray, dict]:
    base = puzzle_env(env, "replay")
    if base.config["clock"] != "sim":
        raise ConfigError(
            "replay: a prefix replays exactly on the simulated clock only (config clock is 'wall')"
        )
    # reset through the wrappers, so they (and Gymnasium's order checks) see a new episode
    obs, info = env.reset(seed=seed)
    obs = obs["screen"] if isinstance(obs, dict) else obs
    if base.actions != 0:
        raise ConfigError(
            "replay: a wrapper acted at reset (e.g. WorkflowController P1); replay below it"
        )
    for i, action in enumerate(prefix):
        obs, _reward, terminated, truncated, info = base.step(action)
        if (terminated or truncated) and i < len(prefix) - 1:
            raise CheckpointError(f"prefix: the episode ended at action {i + 1} of {len(prefix)}")
    return obs, info


def capture(config: dict, seed: int | None, prefix: list) -> tuple[Checkpoint, np.ndarray, gym.Env]:
    """Run ``prefix`` from ``reset(seed)`` on a fresh native env made from ``config``;
    returns the checkpoint at its end, the screen, and the env (left open at that moment; the
    caller closes it)."""
    env = make_env(config, backend="native")
    try:
        obs, _info = _replay(env, seed, prefix)
    except Exception:
        env.close()
        raise
    return puzzle_env(env, "capture").checkpoint(), obs, env


class Controller:
    """Prepares ``checkpoint`` (a lab checkpoint) for a takeover on ``env`` (see the module
    docstring). ``env`` may be wrapped (text channel, hints): restore goes through the
    wrappers' ``reset``, replay drives the base env."""

    def __init__(self, checkpoint: Checkpoint) -> None:
        self.checkpoint = checkpoint
        self.certificate = certificate_of(checkpoint)
        self.frame: np.ndarray | None = None

    def make_env(self, backend: str | None = None, **kwargs: Any) -> gym.Env:
        """An env the checkpoint fits, on ``backend`` (default: native)."""
        return make_env(self.checkpoint.config, backend=backend or "native", **kwargs)

    def _check_frame(self, obs: Any) -> np.ndarray:
        frame = obs["screen"] if isinstance(obs, dict) else obs
        if frame_digest(frame) != self.certificate["frame_sha256"]:
            raise CheckpointError(
                "handover: the screen differs from the checkpoint's (certificate.frame_sha256)"
            )
        self.frame = frame
        return frame

    def restore(self, env: gym.Env) -> tuple[Any, dict]:
        """``env.reset(options={"checkpoint": ...})``; checks the screen; returns
        ``(obs, info)`` of the wrapped env."""
        obs, info = env.reset(options={"checkpoint": self.checkpoint})
        self._check_frame(obs)
        return obs, info

    def replay(self, env: gym.Env) -> tuple[np.ndarray, dict]:
        """Replay the prefix on ``env``'s base env and check that the suite equals the
        checkpoint's; returns ``(screen, info)`` of the base env."""
        cert = self.certificate
        obs, info = _replay(env, cert.get("seed"), cert["prefix"])
        mine = puzzle_env(env, "Controller.replay").checkpoint()
        ours = {k: v for k, v in mine.config.items() if k != "backend"}
        if ours != {k: v for k, v in self.checkpoint.config.items() if k != "backend"}:
            raise CheckpointError("replay: the env's configuration differs from the checkpoint's")
        for part in ("suite", "evaluator", "clock", "recognizer", "steps", "actions"):
            if canonical(mine.payload[part]) != canonical(self.checkpoint.payload[part]):
                raise CheckpointError(
                    f"replay: the prefix does not reproduce the checkpoint ({part} differs)"
                )
        self._check_frame(obs)
        return obs, copy.deepcopy(info)
