"""Maze Paint: roll the ball; every floor cell it crosses is painted. (``GAME`` plugs it in.)"""

from __future__ import annotations

from importlib import resources

from puzzlegym.game import Game

from . import rules
from .catalogue import load_catalogue
from .view import MazePaintView


def _dead_end(level, state) -> bool:
    """The evaluator's certificate: exhaustive (instant on strongly connected levels, which
    every catalogue and generated level is)."""
    from puzzlegym.solvers.maze_paint import certify

    return certify(level, state) == "dead_end"


def _generate(tier: str, seed: int):
    from .generator import generate

    return generate(tier, seed)


GAME = Game(
    name="MazePaint",
    title="Maze Paint",
    tiers=rules.TIERS,
    rules=rules,
    view=MazePaintView(),
    level_from_json=rules.Level.from_json,
    level_to_json=rules.Level.to_json,
    state_to_json=rules.state_to_json,
    state_from_json=rules.state_from_json,
    load_catalogue=load_catalogue,
    generate=_generate,
    rule_card=(resources.files(__name__) / "card.md").read_text(encoding="utf-8"),
    instruction="Swipe to roll the ball. Paint every floor tile.",
    dead_end=_dead_end,
)
