"""The registered games and their Gymnasium ids.

The registry holds puzzlegym's own six games (:data:`BUILTIN_GAMES`, in home-screen order)
and then every game an installed package declares in the entry point group
:data:`ENTRY_POINT_GROUP` (``puzzlegym.games``), sorted by entry point name. An entry point
names a module that exposes ``GAME`` (a :class:`puzzlegym.game.Game`), or the ``Game``
itself::

    [project.entry-points."puzzlegym.games"]
    tiny_paint = "tiny_paint"

so a game in its own package registers with no edit to puzzlegym. A plugin that fails to load
is skipped with a warning naming it (the other games stay usable), and so is one whose name
is taken.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.metadata
import json
import warnings
from collections.abc import Iterable
from functools import cache, lru_cache

from puzzlegym.base.errors import ConfigError
from puzzlegym.game import Game

# puzzlegym's own games, in home-screen order
BUILTIN_GAMES: dict[str, str] = {
    "BoltUnscrew": "puzzlegym.envs.bolt_unscrew",
    "RushHour": "puzzlegym.envs.rush_hour",
    "NutAndBolt": "puzzlegym.envs.nut_and_bolt",
    "TruckEscape": "puzzlegym.envs.truck_escape",
    "MazePaint": "puzzlegym.envs.maze_paint",
    "ColorConnect": "puzzlegym.envs.color_connect",
}

ENTRY_POINT_GROUP = "puzzlegym.games"
ID_PREFIX = "LongPuzzle/"


def _plugin_game(entry: importlib.metadata.EntryPoint) -> Game:
    loaded = entry.load()
    game = loaded if isinstance(loaded, Game) else getattr(loaded, "GAME", None)
    if not isinstance(game, Game):
        raise TypeError(f"{entry.value} is neither a Game nor a module with GAME")
    return game


@lru_cache(maxsize=1)
def games() -> dict[str, Game]:
    """Every registered game by name, in home-screen order: the built-in games, then the
    plugins (see the module docstring)."""
    out = {}
    for name, module in BUILTIN_GAMES.items():
        game = importlib.import_module(module).GAME
        if game.name != name:
            raise RuntimeError(f"{module}.GAME is named {game.name!r}, registered as {name!r}")
        out[name] = game
    entries = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    for entry in sorted(entries, key=lambda e: e.name):
        where = f"{ENTRY_POINT_GROUP} entry point {entry.name!r} ({entry.value})"
        try:
            game = _plugin_game(entry)
        except Exception as exc:  # a broken plugin must not take the other games down
            warnings.warn(f"{where} failed to load, not registered: {exc}", stacklevel=2)
            continue
        if game.name in out:
            if out[game.name] is not game:
                warnings.warn(
                    f"{where}: the game name {game.name!r} is taken, not registered",
                    stacklevel=2,
                )
            continue
        out[game.name] = game
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


def nearest_env_id(env_id: object) -> str | None:
    """The registered id closest to a mistyped one (case, the prefix or a few letters off), as
    Gymnasium's ``gym.make`` suggests one; None when no id is close.

    Examples:
        >>> nearest_env_id("LongPuzzle/MazePaint-Esy"), nearest_env_id("mazepaint-easy")
        ('LongPuzzle/MazePaint-Easy', 'LongPuzzle/MazePaint-Easy')
        >>> nearest_env_id("longpuzzle/truckescape"), nearest_env_id("CartPole-v1") is None
        ('LongPuzzle/TruckEscape-Default', True)
    """
    if not isinstance(env_id, str) or len(env_id) > 200:
        return None
    # compared without the prefix (it would make every id look alike) and case-folded
    by_name = {i[len(ID_PREFIX) :].lower(): i for i in env_ids()}
    wanted = env_id.strip().lower().removeprefix(ID_PREFIX.lower())
    if wanted in by_name:
        return by_name[wanted]
    for name, game in games().items():  # a game named without its tier: its first tier
        if wanted == name.lower():
            return game.env_id(game.tiers[0])
    close = difflib.get_close_matches(wanted, list(by_name), n=1, cutoff=0.75)
    return by_name[close[0]] if close else None


def _unregistered(env_id: object, hint: str = "") -> ConfigError:
    near = nearest_env_id(env_id)
    mean = "" if near is None else f"did you mean {near!r}? "
    return ConfigError(
        f"env id: {env_id!r} is not registered{hint}; {mean}allowed: {', '.join(env_ids())}"
    )


def parse_env_id(env_id: str) -> tuple[Game, str]:
    """``LongPuzzle/MazePaint-Easy`` -> (game, "Easy"); ConfigError naming the nearest id
    (:func:`nearest_env_id`) and the allowed ids."""
    if not isinstance(env_id, str) or not env_id.startswith(ID_PREFIX) or "-" not in env_id:
        raise _unregistered(env_id, f" (ids look like {ID_PREFIX}<Game>-<Tier>)")
    name, _, tier = env_id[len(ID_PREFIX) :].partition("-")
    game = games().get(name)
    if game is None or tier not in game.tiers:
        raise _unregistered(env_id)
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
