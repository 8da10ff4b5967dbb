"""Agents by name: the built-in ones, a model agent (``openai:MODEL``), or any
``module:callable``."""

from __future__ import annotations

import importlib
from typing import Any

from puzzlegym.agents.model import build_model_agent, is_model_spec, model_label
from puzzlegym.agents.random import RandomAgent
from puzzlegym.agents.scripted import ScriptedAgent
from puzzlegym.agents.solver import SolverAgent
from puzzlegym.errors import ConfigError

__all__ = ["agent_label", "make_agent"]


def make_agent(spec: str, env, seed: int | None = None, options: dict[str, Any] | None = None):
    """``"solver"``, ``"random"``, ``"scripted"``, ``"openai:MODEL"`` (a model agent; ``options`` is its one
    options dict, see :mod:`puzzlegym.agents.model`) or ``"package.module:factory"`` (called
    with the env).

    A model agent is given the env's id and clock kind only, never the env itself.
    """
    if is_model_spec(spec):
        config = env.unwrapped.config
        return build_model_agent(spec, config["env_id"], options, wall_clock=config["clock"] == "wall")
    if options:
        raise ConfigError(f"agent options apply to model agents (openai:MODEL) only, not {spec!r}")
    if spec == "solver":
        return SolverAgent(env)
    if spec == "random":
        return RandomAgent(env, seed)
    if spec == "scripted":
        return ScriptedAgent(env, seed)
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"agent: {spec!r} is not 'solver', 'random', 'scripted', 'openai:MODEL' or 'module:callable'")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"agent: cannot import {spec!r}: {exc}") from None
    return factory(env)


def agent_label(spec: str, options: dict[str, Any] | None = None) -> str:
    """The agent's name in records, run directories and reports: the spec itself, or for a
    model agent ``openai:MODEL/<setting>/<memory>`` (see :func:`~puzzlegym.agents.model.model_label`)."""
    return model_label(spec, options) if is_model_spec(spec) else spec
