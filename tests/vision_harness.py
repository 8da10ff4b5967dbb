"""The shared harness of the vision readers' tests: boards shown by the env (every catalogue
level's first board, seeded walks of legal moves played through GUI actions), the env's
true level and state from its probe beside the full-resolution frame, and the check that
a reader's reconstruction has the same public projection.

A game's reader test calls :func:`check_catalogue` and :func:`check_walks` with its
``READER``; both return how many frames they compared, so a test can assert it compared
some.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import gymnasium as gym
import numpy as np

import puzzlegym  # noqa: F401  (registers the ids)
from puzzlegym.actions import to_dict
from puzzlegym.registry import get_game

__all__ = ["Board", "catalogue_boards", "check_catalogue", "check_reading", "check_walks", "walk_boards"]


class Board:
    """One frame and the env's truth behind it."""

    def __init__(self, frame: np.ndarray, probe, where: str) -> None:
        board = probe.board
        self.frame = frame
        self.level, self.state, self.tier = board.level, board.state, board.tier
        self.where = where


def _board(env, where: str) -> Board:
    probe = env.unwrapped.probe()
    assert probe.screen == "level", f"{where}: expected a level screen, got {probe.screen}"
    return Board(env.unwrapped.screenshot().copy(), probe, where)


def catalogue_boards(game: str, backend: str = "native") -> Iterator[Board]:
    """Every catalogue level's first board, each tier in turn."""
    g = get_game(game)
    for tier in g.tiers:
        for k in range(1, len(g.load_catalogue(tier)) + 1):
            env = gym.make(g.env_id(tier), start="board", level=k, backend=backend)
            try:
                env.reset(seed=0)
                yield _board(env, f"{game}-{tier} level {k}")
            finally:
                env.close()


def walk_boards(game: str, seed: int, moves: int, tiers=None, levels=None) -> Iterator[Board]:
    """Boards reached by a seeded walk of ``moves`` legal moves from each chosen level's
    first board (all tiers / levels by default), each move played through the env by its
    view's GUI actions; one Board after every accepted move."""
    g = get_game(game)
    rng = random.Random(seed)
    for tier in tiers or g.tiers:
        n = len(g.load_catalogue(tier))
        for k in levels or range(1, n + 1):
            if k > n:
                continue
            env = gym.make(g.env_id(tier), start="board", level=k)
            try:
                env.reset(seed=seed)
                for step in range(moves):
                    probe = env.unwrapped.probe()
                    if probe.screen != "level":
                        break
                    legal = list(probe.board.legal_moves())
                    if not legal:
                        break
                    move = legal[rng.randrange(len(legal))]
                    for action in probe.board.actions_for_move(move):
                        env.step(to_dict(action))
                    if env.unwrapped.probe().screen != "level":
                        break  # solved: the banner covers the board
                    yield _board(env, f"{game}-{tier} level {k}, walk seed {seed} move {step + 1} ({move!r})")
            finally:
                env.close()


def check_reading(reader, board: Board) -> None:
    """The reader's reconstruction of ``board.frame`` shows what the env's board shows."""
    reading = reader.read(board.frame, board.tier)
    seen = reader.public(reading.level, reading.state)
    truth = reader.public(board.level, board.state)
    assert seen == truth, f"{board.where}: read {seen!r}, the board is {truth!r}"


def check_catalogue(reader, backend: str = "native") -> int:
    count = 0
    for board in catalogue_boards(reader.game, backend):
        check_reading(reader, board)
        count += 1
    return count


def check_walks(reader, seeds=(0, 1), moves: int = 12, tiers=None, levels=None) -> int:
    count = 0
    for seed in seeds:
        for board in walk_boards(reader.game, seed, moves, tiers, levels):
            check_reading(reader, board)
            count += 1
    return count
