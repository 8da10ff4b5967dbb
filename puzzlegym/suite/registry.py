"""The registered games and their Gymnasium ids.

Adding a game is one line in ``GAME_MODULES`` (its folder under ``envs/`` is packaged by
``setup.py``, which lists the packages from the tree): each module exposes ``GAME``, a
:class:`puzzlegym.game.Game`; its solver is the module of the same name in
``puzzlegym.solvers`` (found by convention).
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Iterable
from functools import cache, lru_cache

from puzzlegym.base.errors import ConfigError
from puzzlegym.game import Game

# home-screen order; one line per game
GAME_MODULES: dict[str, str] = {
    "BoltUnscrew": "puzzlegym.envs.bolt_unscrew",
    "RushHour": "puzzlegym.envs.rush_hour",
    "NutAndBolt": "puzzlegym.envs.nut_and_bolt",
    "TruckEscape": "puzzlegym.envs.truck_escape",
    "MazePaint": "puzzlegym.envs.maze_paint",
    "ColorConnect": "puzzlegym.envs.color_connect",
}

ID_PREFIX = "LongPuzzle/"


@lru_cache(maxsize=1)
def games() -> dict[str, Game]:
    """Every registered game by name, in home-screen order."""
    out = {}
    for name, module in GAME_MODULES.items():
        game = importlib.import_module(module).GAME
        if game.name != name:
            raise RuntimeError(f"{module}.GAME is named {game.name!r}, registered as {name!r}")
        out[name] = game
    return out


def get_game(name: str) -> Game:
    try:
        return games()[name]
    except KeyError:
        raise ConfigError(
            f"game: {name!r} is not a registered game; registered: {', '.join(games())}"
        ) from None


def env_ids() -> list[str]:
    return [g.env_id(t) for g in games().values() for t in g.tiers]


def parse_env_id(env_id: str) -> tuple[Game, str]:
    """``LongPuzzle/MazePaint-Easy`` -> (game, "Easy"); ConfigError naming the allowed ids."""
    if not isinstance(env_id, str) or not env_id.startswith(ID_PREFIX) or "-" not in env_id:
        raise ConfigError(
            f"env id: {env_id!r} is not registered (ids look like {ID_PREFIX}<Game>-<Tier>); "
            f"allowed: {', '.join(env_ids())}"
        )
    name, _, tier = env_id[len(ID_PREFIX) :].partition("-")
    game = games().get(name)
    if game is None or tier not in game.tiers:
        raise ConfigError(f"env id: {env_id!r} is not registered; allowed: {', '.join(env_ids())}")
    return game, tier


@cache
def game_catalogue_sha256(name: str) -> str:
    """A hash of one game's canonical catalogue (every tier, in order)."""
    game = get_game(name)
    h = hashlib.sha256()
    for tier in game.tiers:
        doc = [game.level_to_json(level) for level in game.load_catalogue(tier)]
        h.update(f"{name}/{tier}\n".encode())
        h.update(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode())
    return h.hexdigest()


def catalogue_sha256(names: Iterable[str] | None = None) -> str:
    """A hash of the canonical catalogues of the named games (every registered game when
    ``names`` is None). Records and checkpoints carry the hash of the games they play, so
    results from different catalogues are never mixed, and a game added or changed leaves
    the others' records and checkpoints valid. One game's hash is
    :func:`game_catalogue_sha256`."""
    chosen = list(games()) if names is None else sorted(set(names))
    if len(chosen) == 1:
        return game_catalogue_sha256(chosen[0])
    h = hashlib.sha256()
    for name in chosen:
        h.update(f"{name}:{game_catalogue_sha256(name)}\n".encode())
    return h.hexdigest()


def register_envs() -> None:
    """Register every ``LongPuzzle/<Game>-<Tier>`` id with Gymnasium (idempotent)."""
    import gymnasium as gym

    for game in games().values():
        for tier in game.tiers:
            env_id = game.env_id(tier)
            if env_id in gym.registry:
                continue
            gym.register(
                id=env_id,
                entry_point="puzzlegym.env:PuzzleEnv",
                kwargs={"game": game.name, "tier": tier},
                disable_env_checker=False,
            )
