"""Maze Paint: roll the ball; every floor cell it crosses is painted. (``GAME`` plugs it in.)"""

from __future__ import annotations

from importlib import resources

from puzzlegym.game import Game

from . import rules
from .catalogue import load_catalogue
from .generator import generate
from .view import MazePaintView


def _never_dead_end(level, state) -> bool:
    """Maze Paint levels are strongly connected: no board ever becomes unsolvable."""
    return False


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
    generate=generate,
    rule_card=(resources.files(__name__) / "card.md").read_text(encoding="utf-8"),
    instruction="Swipe to roll the ball. Paint every floor tile.",
    dead_end=_never_dead_end,
)
