"""The registered games and env ids (the public name of :mod:`puzzlegym.suite.registry`)."""

from puzzlegym.suite.registry import (
    BUILTIN_GAMES,
    ENTRY_POINT_GROUP,
    ID_PREFIX,
    catalogue_sha256,
    env_ids,
    game_catalogue_sha256,
    games,
    get_game,
    parse_env_id,
    register_envs,
)

__all__ = [
    "BUILTIN_GAMES",
    "ENTRY_POINT_GROUP",
    "ID_PREFIX",
    "games",
    "get_game",
    "env_ids",
    "parse_env_id",
    "game_catalogue_sha256",
    "catalogue_sha256",
    "register_envs",
]
