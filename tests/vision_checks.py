"""Shared checks of the vision readers (``puzzlegym/agents/vision/<game>.py``), used by
tests/test_vision_<game>.py.

A reader sees the full-resolution frame only; the checks hold it against the env's probe
(the privileged truth): the reading's public projection equals the projection of the true
board, and the reader's GUI actions for a rules move make the env's board what
``rules.apply`` says.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import gymnasium as gym

import puzzlegym  # noqa: F401  (registers the envs)
from puzzlegym.game import Rejected
from puzzlegym.game.registry import games


def env_id(game: str, tier: str) -> str:
    return f"LongPuzzle/{game}-{tier}"


def first_boards(game: str) -> list[tuple[str, int]]:
    """Every catalogue level of ``game`` as (tier, 1-based level)."""
    g = games()[game]
    return [(t, k) for t in g.tiers for k in range(1, len(g.load_catalogue(t)) + 1)]


def board_env(game: str, tier: str, level: int, backend: str = "native"):
    env = gym.make(env_id(game, tier), start="board", level=level, backend=backend)
    obs, _ = env.reset(seed=0)
    return env, obs


def check_reading(reader, env, obs, tier: str, same_ui=None):
    """Read ``obs``; its public projection must equal the true board's, and when given,
    ``same_ui(reading, board)`` must hold (the view's interaction state read right).
    Returns the reading."""
    board = env.unwrapped.probe().board
    reading = reader.read(obs, tier)
    assert reader.public(reading.level, reading.state) == reader.public(board.level, board.state)
    if same_ui is not None:
        assert same_ui(reading, board), f"ui read wrong: {reading.geometry} for {board.ui}"
    return reading


def perform(reader, env, reading, move, translate=None):
    """Play the rules ``move`` of the true board through the reader's GUI actions (for the
    reading's move ``translate(reading, board, move)``, by default the same move); the env's
    new board must be ``rules.apply`` of the old one. Returns the last observation."""
    board = env.unwrapped.probe().board
    expected = board.game.rules.apply(board.level, board.state, move)
    assert not isinstance(expected, Rejected), f"{move} is not legal"
    obs = None
    read_move = move if translate is None else translate(reading, board, move)
    for action in reader.actions(reading, read_move):
        obs, *_ = env.step(action)
    after = env.unwrapped.probe()
    rules = board.game.rules
    if rules.is_solved(board.level, expected):  # the win may leave the level screen
        assert after.snapshot["solved"]
        assert rules.state_from_json(board.level, thaw(after.snapshot["state"])) == expected
    else:
        assert after.board is not None and after.board.level == board.level
        assert after.board.state == expected
    return obs


def thaw(value):
    """A frozen snapshot value (read-only mappings, tuples) as plain JSON values."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value


def walk(
    reader,
    game: str,
    tier: str,
    level: int,
    seed: int,
    steps: int,
    poke=None,
    pick=None,
    translate=None,
    same_ui=None,
):
    """A seeded walk of legal moves from the level's first board, every frame read and every
    move played through the reader's actions. ``poke(rng, env, reading)`` may leave the view's
    interaction state changed (a selection, a path being drawn) and returns the observation
    then (read and checked too), or None; ``pick(rng, level, state)`` chooses the move
    (default: uniform over the legal moves), ``translate`` as for :func:`perform`,
    ``same_ui`` as for :func:`check_reading`. Returns the number of boards read."""
    rng = random.Random(seed)
    env, obs = board_env(game, tier, level)
    rules = games()[game].rules
    read = 0
    try:
        for _ in range(steps):
            board = env.unwrapped.probe().board
            if board is None or rules.is_solved(
                board.level, board.state
            ):  # won (the screen moved on)
                break
            reading = check_reading(reader, env, obs, tier, same_ui)
            read += 1
            if poke is not None:
                poked = poke(rng, env, reading)
                if poked is not None:
                    obs = poked
                    reading = check_reading(reader, env, obs, tier, same_ui)
                    read += 1
            board = env.unwrapped.probe().board
            move = pick(rng, board.level, board.state) if pick else _uniform(rng, rules, board)
            if move is None:
                break
            obs = perform(reader, env, reading, move, translate)
    finally:
        env.close()
    return read


def _uniform(rng, rules, board):
    moves = list(rules.legal_moves(board.level, board.state))
    return rng.choice(moves) if moves else None
