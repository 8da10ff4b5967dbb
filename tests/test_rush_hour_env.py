"""Rush Hour through GUI actions: drags slide vehicles, gestures that miss change nothing,
the potential from exact distances in the evaluator, checkpoints, determinism, generated
levels."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlegym.agents import SolverAgent
from puzzlegym.base.actions import Click, Drag, to_dict
from puzzlegym.env.checkpoint import Checkpoint
from puzzlegym.envs.rush_hour import rules as R
from puzzlegym.envs.rush_hour import solver
from puzzlegym.envs.rush_hour import view as V
from puzzlegym.screen.layout import BOARD_AREA

from .conftest import frame_hash

EASY = "LongPuzzle/RushHour-Easy"
HARD = "LongPuzzle/RushHour-Hard"


def board(env):
    return env.unwrapped.suite.board


def test_drags_slide_vehicles_and_misses_change_nothing(make_env):
    env = make_env(HARD, start="board", level=1)
    obs0, info = env.reset(seed=0)
    b = board(env)
    level, s0 = b.level, b.state
    cell = V.layout(level, BOARD_AREA).cell
    before = env.unwrapped.checkpoint().payload["suite"]
    grid = V.grid_rect(level, BOARD_AREA)
    empty = next(
        (r, c)
        for r in range(6)
        for c in range(6)
        if V.vehicle_at(level, s0, (r, c)) is None and (r, c) not in level.walls
    )
    ex, ey = grid.x + empty[1] * cell + cell // 2, grid.y + empty[0] * cell + cell // 2
    vertical = next(i for i, v in enumerate(level.vehicles) if not v.horizontal)
    vx, vy = V.vehicle_rect(level, vertical, s0.positions[vertical], BOARD_AREA).center
    for miss in (
        Drag(ex, ey, min(ex + 2 * cell, 1279), ey),  # starts on no vehicle
        Drag(vx, vy, vx + 2 * cell, vy),  # across a vertical vehicle's axis
        Drag(vx, vy, vx + cell, vy + cell),  # diagonal
        Click(vx, vy),  # clicks do nothing
        Click(ex, ey),
    ):
        _, reward, _, _, info = env.step(to_dict(miss))
        assert board(env).state == s0 and reward == 0.0 and info["accepted"] is False
    assert env.unwrapped.checkpoint().payload["suite"]["board"]["state"] == before["board"]["state"]
    assert env.unwrapped.evaluator.snapshots[-1]["state"] == R.state_to_json(level, s0)
    # a solver move through a drag: the board changes and the potential follows the distance
    move = solver.solve(level).moves[0]
    (action,) = V.RushHourView().actions_for_move(level, s0, None, move, BOARD_AREA)
    obs, reward, _, _, info = env.step(to_dict(action))
    d0 = solver.distance(level, s0)
    assert board(env).state == R.apply(level, s0, move)
    assert info["evaluator"]["potential"] == pytest.approx(1 - (d0 - 1) / d0)
    assert reward > 0 and frame_hash(obs) != frame_hash(obs0)
    snap = env.unwrapped.evaluator.snapshots[-1]
    assert snap["dead_end"] is False and snap["potential"] == info["evaluator"]["potential"]


def test_a_detour_lowers_the_potential(make_env):
    env = make_env(EASY, start="board", level=10)
    env.reset(seed=0)
    b = board(env)
    level = b.level
    d0 = solver.distance(level, b.state)
    # the first move of an optimal line, then one that goes back to a state as far as the start
    step = solver.solve(level).moves[0]
    env.step(to_dict(V.RushHourView().actions_for_move(level, b.state, None, step, BOARD_AREA)[0]))
    p1 = env.unwrapped.evaluator.snapshots[-1]["potential"]
    assert p1 == pytest.approx(1 - (d0 - 1) / d0)
    b = board(env)  # the board after the move (a board is immutable: each move makes a new one)
    assert solver.distance(level, b.state) == d0 - 1
    back = next(
        m
        for m in R.legal_moves(level, b.state)
        if solver.distance(level, R.apply(level, b.state, m)) == d0
    )
    _, reward, _, _, info = env.step(
        to_dict(V.RushHourView().actions_for_move(level, b.state, None, back, BOARD_AREA)[0])
    )
    assert info["evaluator"]["potential"] == 0.0 and reward < 0


def test_checkpoint_mid_level_restores_exactly(make_env, tmp_path):
    env = make_env(HARD, start="board", level=3)
    env.reset(seed=0)
    agent = SolverAgent(env.unwrapped)
    for _ in range(5):
        obs, *_ = env.step(agent())
    ckpt = env.unwrapped.checkpoint()
    state = board(env).state
    for _ in range(5):
        env.step(agent())
    assert board(env).state != state
    obs2, _ = env.reset(options={"checkpoint": ckpt})
    assert board(env).state == state and np.array_equal(obs, obs2)
    # and from disk, into a fresh env
    path = ckpt.save(tmp_path / "rush.json")
    fresh = make_env(HARD, start="board", level=3)
    fresh.reset(seed=1)
    obs3, _ = fresh.reset(options={"checkpoint": Checkpoint.load(path)})
    assert board(fresh).state == state and np.array_equal(obs, obs3)


def test_generated_levels_are_seeded_and_solved(make_env):
    env = make_env(EASY, levels="generated", level=1, start="board")
    env.reset(seed=5)
    a = board(env).level
    env.reset(seed=5)
    assert board(env).level == a and a not in env.unwrapped.game.load_catalogue("Easy")
    agent = SolverAgent(env.unwrapped)
    for _ in range(50):
        _, _, term, _, info = env.step(agent())
        if term:
            break
    assert term and info["evaluator"]["success"]


def test_home_screen_lists_rush_hour_second(make_env):
    env = make_env(EASY)
    env.reset(seed=0)
    names = [k for k in env.unwrapped.suite.targets() if k.startswith("game:")]
    assert names[:2] == ["game:BoltUnscrew", "game:RushHour"]


@pytest.mark.parametrize("env_id", [EASY, HARD])
def test_gymnasium_and_sb3_checkers_pass(env_id):
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    from puzzlegym.wrappers import make_sb3_env

    env = gym.make(env_id, start="board", level=2)
    check_env(env.unwrapped)
    env.close()
    wrapped = make_sb3_env(env_id, size=(84, 84), grid=(4, 4), budget_s=50, start="board", level=2)
    try:
        sb3_check_env(wrapped, warn=True)
    finally:
        wrapped.close()
