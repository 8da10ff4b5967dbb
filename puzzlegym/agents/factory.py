"""Agents by name: the built-in ones, a model agent (``openai:MODEL``), an agent kind of the
``puzzlegym.agents`` entry points (``KIND:ARGUMENT``; puzzlegym declares ``jax``, a policy file
trained in JAX: ``jax:PATH``), or any ``module:callable``.

An agent kind is found the way a game is: by name in the ``puzzlegym.agents`` entry point group
(a callable ``(argument, env, seed) -> agent``), so the tools that train an agent (the JAX
trainers, a layer above the agents) ship the agent that plays what they train without this
module importing them."""

from __future__ import annotations

import importlib
import importlib.metadata
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
    :mod:`puzzlegym.jax.policy.policy`, found through the ``puzzlegym.agents`` entry points; the
    jax extra) or ``"package.module:factory"`` (called with the env).

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
        return agent_kind(JAX_PREFIX[:-1])(spec[len(JAX_PREFIX) :], env, seed=seed)
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


AGENT_GROUP = "puzzlegym.agents"  # the entry point group of agent kinds (KIND:ARGUMENT)


def agent_kind(name: str):
    """The factory ``(argument, env, seed) -> agent`` that the ``puzzlegym.agents`` entry point
    ``name`` declares (loaded on first use); a :class:`ConfigError` names the kind when none is
    installed or it fails to load."""
    found = [e for e in importlib.metadata.entry_points(group=AGENT_GROUP) if e.name == name]
    if not found:
        raise ConfigError(
            f"agent: no agent kind {name!r} is installed (the {AGENT_GROUP} entry points; "
            "reinstall puzzlegym: pip install -e .)"
        )
    try:
        factory = found[0].load()
    except ImportError as exc:
        raise ConfigError(
            f"agent: the {name!r} agent kind cannot load ({exc}); the {name} extra installs "
            f"what it needs: pip install -e '.[{name}]'"
        ) from None
    if not callable(factory):
        raise ConfigError(f"agent: the {name!r} agent kind is not callable")
    return factory


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
