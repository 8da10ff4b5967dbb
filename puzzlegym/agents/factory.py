"""Agents by name: the built-in ones, or any ``module:callable``."""

from __future__ import annotations

import importlib

from puzzlegym.agents.random import RandomAgent
from puzzlegym.agents.solver import SolverAgent

__all__ = ["make_agent"]


def make_agent(spec: str, env, seed: int | None = None):
    """``"solver"``, ``"random"`` or ``"package.module:factory"`` (called with the env)."""
    if spec == "solver":
        return SolverAgent(env)
    if spec == "random":
        return RandomAgent(env, seed)
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"agent: {spec!r} is not 'solver', 'random' or 'module:callable'")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"agent: cannot import {spec!r}: {exc}") from None
    return factory(env)
