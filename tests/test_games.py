"""The game contract (puzzlegym.testing.check_game) over every registered game: the checks
each game's own tests used to repeat (JSON round trips, rejected moves that change nothing,
random-play invariants of the potential, the view and the solver) written once."""

import dataclasses

import pytest

from puzzlegym.game import Rejected
from puzzlegym.game.registry import games, get_game
from puzzlegym.testing import GameContractError, check_game


@pytest.mark.parametrize("name", list(games()))
def test_every_registered_game_keeps_the_contract(name):
    check_game(get_game(name), walks=6, steps=40)


@pytest.mark.parametrize("name", ["MazePaint", "NutAndBolt"])
def test_every_catalogue_level_keeps_the_contract(name):
    game = get_game(name)
    levels = [
        (f"{t} level {i + 1}", lv)
        for t in game.tiers
        for i, lv in enumerate(game.load_catalogue(t))
    ]
    check_game(game, levels, walks=1, steps=15)


class _Broken:
    """A rules module whose potential reaches 1 before the board is solved."""

    def __init__(self, rules):
        self._rules = rules

    def __getattr__(self, name):
        return getattr(self._rules, name)

    def potential(self, level, state):
        return 1.0


class _Refusing(_Broken):
    """A rules module that reports a legal move as rejected."""

    def potential(self, level, state):
        return self._rules.potential(level, state)

    def apply(self, level, state, move):
        return Rejected("")


@pytest.mark.parametrize("broken,message", [(_Broken, "potential 1.0"), (_Refusing, "is rejected")])
def test_the_contract_catches_a_broken_game(broken, message):
    game = get_game("MazePaint")
    bad = dataclasses.replace(game, rules=broken(game.rules))
    with pytest.raises(GameContractError, match=message):
        check_game(bad, walks=1, steps=5)
