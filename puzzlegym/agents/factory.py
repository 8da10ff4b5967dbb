"""Agents by name: the built-in ones, a model agent (``openai:MODEL``), or any
``module:callable``."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from puzzlegym.agents.model import build_model_agent, is_model_spec, model_label
from puzzlegym.agents.random import RandomAgent
from puzzlegym.agents.scripted import ScriptedAgent
from puzzlegym.agents.solver import SolverAgent
from puzzlegym.base.errors import ConfigError, shown

__all__ = ["agent_label", "check_agent", "make_agent"]


def make_agent(spec: str, env, seed: int | None = None, options: dict[str, Any] | None = None):
    """``"solver"``, ``"random"``, ``"scripted"``, ``"vision"`` (pixels only:
    :mod:`puzzlegym.agents.vision`), ``"openai:MODEL"`` (a model agent; ``options`` is its one
    options dict, see :mod:`puzzlegym.agents.model`), ``"jax:PATH"`` (a policy file trained in JAX,
    playing from the board's planes through board actions, sampled with ``seed``:
    :mod:`puzzlegym.agents.jax_policy.policy`; the jax extra) or ``"package.module:factory"``
    (called with the env).

    A model agent is given the env's id and clock kind only, never the env itself.
    """
    if is_model_spec(spec):
        config = env.unwrapped.config
        return build_model_agent(
            spec, config["env_id"], options, wall_clock=config["clock"] == "wall"
        )
    if options:
        raise ConfigError(f"agent options apply to model agents (openai:MODEL) only, not {spec!r}")
    if spec == "solver":
        return SolverAgent(env)
    if spec == "random":
        return RandomAgent(env, seed)
    if spec == "scripted":
        return ScriptedAgent(env, seed)
    if isinstance(spec, str) and spec.startswith(JAX_PREFIX):
        from puzzlegym.agents.jax_policy.policy import jax_agent

        return jax_agent(spec[len(JAX_PREFIX) :], env, seed=seed)
    if spec == "vision":  # pixels only: it is told its objective, never given the env
        from puzzlegym.agents.vision import VisionAgent

        config = env.unwrapped.config
        return VisionAgent(config["env_id"], config["level"])
    factory = _factory(spec)
    try:
        agent = factory(env)
    except Exception as exc:  # not an agent factory (e.g. os:system): say so, no traceback
        raise ConfigError(
            f"agent: {spec!r} is not an agent factory: calling it with the env raised "
            f"{type(exc).__name__}: {str(exc)[:200]}"
        ) from None
    if not callable(agent):
        raise ConfigError(
            f"agent: {spec!r} returned {type(agent).__name__}, "
            "not a callable agent (obs, info) -> action"
        )
    return agent


BUILTIN = ("solver", "random", "scripted", "vision")
JAX_PREFIX = "jax:"  # jax:PATH, a policy file (not the module jax)


def _factory(spec: str):
    """The ``module:callable`` a spec names (imported; it must be callable)."""
    module, sep, attr = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if not sep or not module or not attr:
        raise ConfigError(
            f"agent: {shown(spec)} is not 'solver', 'random', 'scripted', 'vision', "
            "'openai:MODEL', 'jax:PATH' or 'module:callable'"
        )
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"agent: cannot import {spec!r}: {exc}") from None
    if not callable(factory):
        raise ConfigError(
            f"agent: {spec!r} is a {type(factory).__name__}, not a callable agent factory"
        )
    return factory


def check_agent(spec: str) -> None:
    """Raise :class:`ConfigError` unless ``spec`` names an agent :func:`make_agent` can try to
    build (a built-in name, ``openai:MODEL``, ``jax:PATH`` naming a file, or an importable
    callable), before any env exists."""
    if not isinstance(spec, str):
        raise ConfigError(f"agent: expected a name such as 'solver', got {shown(spec)}")
    if spec.startswith(JAX_PREFIX):
        path = Path(spec[len(JAX_PREFIX) :])
        if not path.is_file():
            raise ConfigError(f"agent: {shown(spec)}: no policy file at {shown(str(path))}")
        return
    if spec not in BUILTIN and not is_model_spec(spec):
        _factory(spec)


def agent_label(spec: str, options: dict[str, Any] | None = None) -> str:
    """The agent's name in records, run directories and reports: the spec itself, or for a
    model agent ``openai:MODEL/<setting>/<memory>`` (see
    :func:`~puzzlegym.agents.model.model_label`)."""
    check_agent(spec)
    return model_label(spec, options) if is_model_spec(spec) else spec
