"""The public API's docstring examples run as doctests: each module's examples must all pass,
and each module listed must hold some (a module whose examples were dropped fails here)."""

from __future__ import annotations

import doctest
import importlib

import pytest

# module -> how many examples (>>> lines) its docstrings hold at least
MODULES = {
    "puzzlegym.env": 12,  # PuzzleEnv's keywords, puzzle_env
    "puzzlegym.wrappers.action": 5,
    "puzzlegym.wrappers.blackbox": 4,
    "puzzlegym.wrappers.board_actions": 5,
    "puzzlegym.wrappers.board_observation": 5,
    "puzzlegym.wrappers.lowres": 5,
    "puzzlegym.wrappers.text": 5,
    "puzzlegym.solvers": 8,
    "puzzlegym.evaluation.metrics": 10,
    "puzzlegym.jax.factory": 5,  # make: actions, shapes, a level started, its mask
    "puzzlegym.jax.network": 8,  # NetworkSpec, masked_logits
    "puzzlegym.jax.ppo": 6,  # three seeds of CartPole in one jit
    "puzzlegym.jax.evaluate": 2,
    "puzzlegym.jax.policy": 9,  # JaxAgent on the Python env
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_docstring_examples_pass(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True
    )
    assert result.failed == 0, (
        f"{name}: {result.failed} of {result.attempted} examples failed (output above)"
    )
    assert result.attempted >= MODULES[name], (
        f"{name}: {result.attempted} examples, expected {MODULES[name]}"
    )
