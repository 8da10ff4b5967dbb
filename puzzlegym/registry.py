"""The registered games and env ids (the public name of :mod:`puzzlegym.game.registry`)."""

from puzzlegym.game.registry import (
    ENTRY_POINT_GROUP,
    ID_PREFIX,
    builtin_games,
    catalogue_sha256,
    env_ids,
    game_catalogue_sha256,
    games,
    get_game,
    parse_env_id,
    register_envs,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "ID_PREFIX",
    "builtin_games",
    "games",
    "get_game",
    "env_ids",
    "parse_env_id",
    "game_catalogue_sha256",
    "catalogue_sha256",
    "register_envs",
]
