"""The contract every game keeps, :func:`check_game`, and what the shared tests read of every
game's package (the public name of :mod:`puzzlegym.authoring.contract`)."""

from puzzlegym.authoring.contract import (
    TEST_DATA,
    GameContractError,
    check_game,
    game_test_data,
)

__all__ = ["TEST_DATA", "GameContractError", "check_game", "game_test_data"]
