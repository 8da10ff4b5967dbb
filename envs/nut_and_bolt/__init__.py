"""Nut and Bolt: move runs of same-coloured nuts between bolts until every bolt holds one
colour. (``GAME`` plugs it in.)"""

from __future__ import annotations

from importlib import resources

from puzzlegym.game import Game

from . import rules
from .catalogue import load_catalogue
from .view import NutAndBoltView


def _dead_end(level, state) -> bool:
    """The evaluator's certificate: exhaustive search with a shared memo (exact)."""
    from puzzlegym.solvers.nut_and_bolt import certify

    return certify(level, state) == "dead_end"


def _generate(tier: str, seed: int):
    from .generator import generate

    return generate(tier, seed)


GAME = Game(
    name="NutAndBolt",
    title="Nut and Bolt",
    tiers=rules.TIERS,
    rules=rules,
    view=NutAndBoltView(),
    level_from_json=rules.Level.from_json,
    level_to_json=rules.Level.to_json,
    state_to_json=rules.state_to_json,
    state_from_json=rules.state_from_json,
    load_catalogue=load_catalogue,
    generate=_generate,
    rule_card=(resources.files(__name__) / "card.md").read_text(encoding="utf-8"),
    instruction="Click a bolt to lift its top nuts, then click the bolt to put them on.",
    dead_end=_dead_end,
    has_undo=True,
)
