"""Issue 15, item 15: ``puzzlegym bench`` runs on every registered game, including the games
whose boards dead-end (the solver agent meets dead ends after random clicks; random rules
walks reach boards with no legal move). Briefly, on the hardest tier of each game."""

import json

import pytest

from puzzlegym.cli import main
from puzzlegym.game.registry import games


@pytest.mark.parametrize("env_id", [g.env_id(g.tiers[-1]) for g in games().values()])
def test_bench_runs_on_every_game(env_id, capsys):
    assert main(["bench", env_id, "--steps", "200", "--transitions", "20000", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["env_id"] == env_id and result["steps"] >= 100
    assert result["steps_per_s"] > 0 and result["rules_transitions_per_s"] > 0
