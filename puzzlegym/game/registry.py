"""The registered games and their Gymnasium ids.

Every game, puzzlegym's own six included, is found one way: through the entry point group
:data:`ENTRY_POINT_GROUP` (``puzzlegym.games``). An entry point names a module that exposes
``GAME`` (a :class:`puzzlegym.game.Game`), or the ``Game`` itself::

    [project.entry-points."puzzlegym.games"]
    tiny_lamps = "tiny_lamps"

so a game in its own package registers with no edit to puzzlegym, exactly as the six do
(puzzlegym's own ``pyproject.toml`` declares them). The home screen's order: puzzlegym's own
games first, then each other distribution's (by distribution name), each distribution's by
entry point name (puzzlegym's are ``01_bolt_unscrew`` ... ``06_color_connect``).

A game that fails to load (its import raises or exits, its ``GAME`` is no Game, its name is
no id part, its tiers are not a list of names) is skipped with a warning naming its entry
point, and so is one whose name is taken: the other games stay usable. A game whose package
is still being imported when the registry first looks (a plugin that imports puzzlegym
before it builds its ``GAME``) joins when it is built (:meth:`Game.from_package`) or when
the registry next looks.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.metadata
import json
import re
import sys
import threading
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.game.parts import Part
from puzzlegym.game.protocol import Game, on_game_built

__all__ = [
    "DISTRIBUTION",
    "ENTRY_POINT_GROUP",
    "ID_PREFIX",
    "builtin_games",
    "catalogue_sha256",
    "env_ids",
    "game_catalogue_sha256",
    "games",
    "get_game",
    "nearest_env_id",
    "parse_env_id",
    "register_envs",
]

ENTRY_POINT_GROUP = "puzzlegym.games"
ID_PREFIX = "LongPuzzle/"
DISTRIBUTION = "puzzlegym"  # its own games come first on the home screen
NAME = re.compile(r"[A-Z][A-Za-z0-9]{0,63}")  # a game's name and a tier: the parts of an id
MAX_TIERS = 16
MAX_TITLE = 32  # a home card's title: one line of the card


@dataclass
class _Found:
    """What the registry found: the games by name, in home-screen order (``order``: each
    game's sort key), the entry points whose module was still being imported, and whether
    the ids went to Gymnasium."""

    games: dict[str, Game] = field(default_factory=dict)
    order: dict[str, tuple] = field(default_factory=dict)
    pending: dict[str, tuple[tuple, importlib.metadata.EntryPoint]] = field(default_factory=dict)
    with_gym: bool = False


_found: _Found | None = None
_lock = threading.RLock()


def _sort_key(entry: importlib.metadata.EntryPoint) -> tuple:
    dist = getattr(entry, "dist", None)
    name = (getattr(dist, "name", None) or "").lower().replace("_", "-")
    return (name != DISTRIBUTION, name, entry.name)


def _check_game(loaded: object, where: str) -> Game:
    game = loaded if isinstance(loaded, Game) else getattr(loaded, "GAME", None)
    if not isinstance(game, Game):
        raise TypeError(f"{where} is neither a Game nor a module with GAME")
    if not isinstance(game.name, str) or not NAME.fullmatch(game.name):
        raise ValueError(
            f"its name {shown(game.name)} is not an id part (CamelCase letters and digits)"
        )
    tiers = game.tiers
    if (
        not isinstance(tiers, tuple | list)
        or not 1 <= len(tiers) <= MAX_TIERS
        or not all(isinstance(t, str) and NAME.fullmatch(t) for t in tiers)
        or len(set(tiers)) != len(tiers)
    ):
        raise ValueError(
            f"its tiers {shown(tiers)} are not 1..{MAX_TIERS} distinct names "
            "(CamelCase letters and digits)"
        )
    if not isinstance(game.title, str) or not game.title.strip() or len(game.title) > MAX_TITLE:
        raise ValueError(
            f"its title {shown(game.title)} is not a non-empty string of at most {MAX_TITLE} "
            "characters"
        )
    for name in ("instruction", "rule_card", "level_format", "controls", "package"):
        if not isinstance(getattr(game, name), str):
            raise ValueError(f"its {name} {shown(getattr(game, name))} is not a string")
    for name in ("has_undo", "can_dead_end"):
        if not isinstance(getattr(game, name), bool):
            raise ValueError(f"its {name} {shown(getattr(game, name))} is not True or False")
    cap = game.stats_max_states
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
        raise ValueError(f"its stats_max_states {shown(cap)} is not None or a positive integer")
    needed = ("level_from_json", "level_to_json", "state_to_json", "state_from_json")
    for name in (*needed, "load_catalogue", "generate"):
        if not callable(getattr(game, name)):
            raise ValueError(f"its {name} {shown(getattr(game, name))} is not callable")
    for name in ("dead_end", "describe"):
        if getattr(game, name) is not None and not callable(getattr(game, name)):
            raise ValueError(f"its {name} {shown(getattr(game, name))} is not None or callable")
    for name in ("solver", "reader", "twin"):
        if getattr(game, name) is not None and not isinstance(getattr(game, name), Part):
            raise ValueError(f"its {name} {shown(getattr(game, name))} is not None or a Part")
    return game


def _importing(module: str) -> bool:
    """Whether ``module`` is being imported right now (its import has not finished)."""
    found = sys.modules.get(module)
    spec = getattr(found, "__spec__", None)
    return found is not None and bool(getattr(spec, "_initializing", False))


def _add(found: _Found, game: Game, key: tuple, where: str) -> None:
    """Put ``game`` in its place in home-screen order (warn and skip when its name is taken
    by another game)."""
    other = found.games.get(game.name)
    if other is not None:
        if other is not game:
            warnings.warn(
                f"{where}: the game name {game.name!r} is taken, not registered", stacklevel=3
            )
        return
    found.order[game.name] = key
    ordered = sorted([*found.games.items(), (game.name, game)], key=lambda i: found.order[i[0]])
    found.games.clear()
    found.games.update(ordered)
    if found.with_gym:
        _register(game)


def _load(found: _Found, key: tuple, entry: importlib.metadata.EntryPoint) -> None:
    where = f"{ENTRY_POINT_GROUP} entry point {entry.name!r} ({entry.value})"
    if _importing(entry.module):
        found.pending[entry.module] = (key, entry)
        return
    found.pending.pop(entry.module, None)
    try:
        game = _check_game(entry.load(), entry.value)
    except (Exception, SystemExit) as exc:  # a broken plugin must not take the others down
        why = f"it exited (SystemExit {exc.code!r})" if isinstance(exc, SystemExit) else exc
        warnings.warn(f"{where} failed to load, not registered: {why}", stacklevel=3)
        return
    _add(found, game, key, where)


def _discover() -> _Found:
    found = _Found()
    entries = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    for key, entry in sorted(((_sort_key(e), e) for e in entries), key=lambda k: k[0]):
        _load(found, key, entry)
    return found


def _adopt(game: Game) -> None:
    """A game was built (``Game.from_package``): if its package is an entry point the
    registry found still importing, it joins now."""
    with _lock:
        if _found is None or game.package not in _found.pending:
            return
        key, entry = _found.pending.pop(game.package)
        try:
            game = _check_game(game, entry.value)
        except ValueError as exc:
            warnings.warn(
                f"{ENTRY_POINT_GROUP} entry point {entry.name!r} ({entry.value}) failed to "
                f"load, not registered: {exc}",
                stacklevel=3,
            )
            return
        _add(_found, game, key, f"{ENTRY_POINT_GROUP} entry point {entry.name!r}")


on_game_built(_adopt)


def games() -> dict[str, Game]:
    """Every registered game by name, in home-screen order (see the module docstring). The
    dict is the registry's own: read it, do not change it."""
    global _found
    with _lock:
        if _found is None:
            _found = _discover()
        for key, entry in list(_found.pending.values()):
            _load(_found, key, entry)  # a package that has finished importing since
        return _found.games


def builtin_games() -> dict[str, Game]:
    """The games puzzlegym's own distribution declares (the benchmark's six), by name, in
    home-screen order: what the project's own figures, docs and pictures are about."""
    with _lock:
        found = games()
        return {n: g for n, g in found.items() if not _found.order[n][0]}  # type: ignore[union-attr]


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
        doc = [game.level_to_json(level) for level in game.catalogue(tier)]
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


def _register(game: Game) -> None:
    import gymnasium as gym

    for tier in game.tiers:
        env_id = game.env_id(tier)
        if env_id in gym.registry:
            continue
        gym.register(  # the id names the game and tier: puzzlegym.env.objectives
            id=env_id,
            entry_point=f"puzzlegym.env.objectives:{game.name}-{tier}",
            disable_env_checker=False,
        )


def register_envs() -> None:
    """Register every ``LongPuzzle/<Game>-<Tier>`` id with Gymnasium (idempotent); a game
    that joins later (see the module docstring) registers its ids as it joins."""
    with _lock:
        for game in games().values():
            _register(game)
        assert _found is not None
        _found.with_gym = True
