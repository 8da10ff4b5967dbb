"""puzzlegym.wrappers: black-box infos, the text channel, downscaling, discrete GUI actions
and the SB3-ready stack."""

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from puzzlegym.base.actions import SCREEN_HEIGHT, SCREEN_WIDTH, parse_action
from puzzlegym.base.errors import ActionError, ConfigError
from puzzlegym.envs.maze_paint.rules import DIRECTIONS, NO_MOVE_REASON
from puzzlegym.envs.maze_paint.view import cell_rect
from puzzlegym.screen.layout import BOARD_AREA
from puzzlegym.solvers import solve
from puzzlegym.wrappers import (
    TEXT_MAX_LENGTH,
    BlackBox,
    DiscreteGUIActions,
    DownscaleObservation,
    TextChannel,
    make_sb3_env,
)

EASY = "LongPuzzle/MazePaint-Easy"
BOARD_L1 = {"start": "board", "level": 1}


def board(env):
    return env.unwrapped.suite.board


def swipe_on_ball(env, move):
    """A drag starting on the ball's cell in direction ``move`` (what a player would do)."""
    b = board(env)
    x, y = cell_rect(b.level, b.state.ball, BOARD_AREA).center
    dx, dy = {"up": (0, -120), "down": (0, 120), "left": (-120, 0), "right": (120, 0)}[move]
    return {"type": "drag", "x0": x, "y0": y, "x1": x + dx, "y1": y + dy}


def blocked_move(env):
    b = board(env)
    legal = b.game.rules.legal_moves(b.level, b.state)
    return next(d for d in DIRECTIONS if d not in legal)


def check_wrapped(env):
    """Gymnasium's checker on a wrapped env; its "is different from the unwrapped version"
    warning is expected here and ignored."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version.*")
        check_env(env)


# ---------------------------------------------------------------------- BlackBox


def test_blackbox_removes_only_the_evaluator_section(make_env):
    raw = make_env(EASY, **BOARD_L1)
    box = BlackBox(make_env(EASY, **BOARD_L1))
    raw_obs, raw_info = raw.reset(seed=3)
    obs, info = box.reset(seed=3)
    assert "evaluator" in raw_info and "evaluator" not in info
    assert info == {k: v for k, v in raw_info.items() if k != "evaluator"}
    assert np.array_equal(obs, raw_obs)
    move = blocked_move(raw)
    legal = board(raw).game.rules.legal_moves(board(raw).level, board(raw).state)[0]
    for action in (swipe_on_ball(raw, move), swipe_on_ball(raw, legal), {"type": "wait"}):
        r = raw.step(action)
        s = box.step(action)
        assert "evaluator" in r[4] and "evaluator" not in s[4]
        assert s[4] == {k: v for k, v in r[4].items() if k != "evaluator"}
        assert np.array_equal(s[0], r[0]) and s[1:4] == r[1:4]
    assert "evaluator" in r[4]  # the inner info was not modified
    check_wrapped(box)


# ---------------------------------------------------------------------- TextChannel


def test_text_channel_carries_instruction_and_feedback_not_pixels(make_env):
    env = TextChannel(make_env(EASY, render_mode="rgb_array", **BOARD_L1))
    raw = make_env(EASY, **BOARD_L1)
    obs, info = env.reset(seed=0)
    raw_obs, _ = raw.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["instruction"] in obs["text"]
    assert obs["text"].endswith("Feedback: ")
    assert np.array_equal(obs["screen"], env.render())
    assert np.array_equal(obs["screen"], raw_obs)

    action = swipe_on_ball(env, blocked_move(env))
    obs, _, _, _, info = env.step(action)
    raw_obs = raw.step(action)[0]
    assert info["feedback"] == NO_MOVE_REASON
    assert f"Feedback: {NO_MOVE_REASON}" in obs["text"]
    assert np.array_equal(obs["screen"], raw_obs) and np.array_equal(obs["screen"], env.render())

    env.set_text("Hint: try another way")
    action = {"type": "wait"}
    obs, _, _, _, _ = env.step(action)
    raw_obs = raw.step(action)[0]
    assert obs["text"].splitlines()[-1] == "Note: Hint: try another way"
    assert np.array_equal(obs["screen"], raw_obs)  # the note never reaches the pixels
    assert env.observation_space.contains(obs)

    b = board(env)
    action = swipe_on_ball(env, b.game.rules.legal_moves(b.level, b.state)[0])
    obs, _, _, _, info = env.step(action)
    raw_obs = raw.step(action)[0]
    assert info["feedback"] == "" and NO_MOVE_REASON not in obs["text"]
    assert np.array_equal(obs["screen"], raw_obs)

    env.set_text("non-ascii · and long " + "x" * 3000)
    obs = env.step({"type": "wait"})[0]
    assert len(obs["text"]) == TEXT_MAX_LENGTH and env.observation_space.contains(obs)
    env.set_text(None)
    assert "Note:" not in env.step({"type": "wait"})[0]["text"]
    with pytest.raises(TypeError):
        env.set_text(3)


def test_text_channel_passes_gymnasium_checker(make_env):
    check_wrapped(TextChannel(BlackBox(make_env(EASY, **BOARD_L1))))


# ---------------------------------------------------------------------- DownscaleObservation


@pytest.mark.parametrize(
    "size, grayscale, resample, channels",
    [
        ((84, 84), False, "box", 3),
        ((45, 64), True, "bilinear", 1),
        ((90, 128), False, "bilinear", 3),
    ],
)
def test_downscale_shape_dtype_and_determinism(make_env, size, grayscale, resample, channels):
    inner = make_env(EASY, render_mode="rgb_array", **BOARD_L1)
    env = DownscaleObservation(inner, size=size, grayscale=grayscale, resample=resample)
    assert env.observation_space.shape == (*size, channels)
    assert env.observation_space.dtype == np.uint8
    a, _ = env.reset(seed=0)
    b, _ = env.reset(seed=0)
    assert a.shape == (*size, channels) and a.dtype == np.uint8
    assert env.observation_space.contains(a)
    assert np.array_equal(a, b)
    frame = inner.render()  # the full-size screen
    assert np.array_equal(env.observation(frame), a)
    assert np.array_equal(env.observation(frame), env.observation(frame.copy()))
    assert a.std() > 0  # still a picture, not a flat colour


def test_downscale_rejects_bad_arguments(make_env):
    with pytest.raises(ConfigError):
        DownscaleObservation(make_env(EASY), size=(0, 10))
    with pytest.raises(ConfigError):
        DownscaleObservation(make_env(EASY), resample="lanczos")
    with pytest.raises(ConfigError):  # needs an RGB Box, not the TextChannel dict
        DownscaleObservation(TextChannel(make_env(EASY)))


def test_downscale_passes_gymnasium_checker(make_env):
    check_wrapped(DownscaleObservation(make_env(EASY, **BOARD_L1), size=(48, 64), grayscale=True))


# ---------------------------------------------------------------------- DiscreteGUIActions


@pytest.mark.parametrize(
    "grid, swipes, keys",
    [
        ((4, 4), True, True),
        ((3, 5), False, True),
        ((2, 7), True, False),
        ((1, 1), False, False),
        ((15, 20), True, True),
    ],
)
def test_discrete_actions_are_valid_and_counted(make_env, grid, swipes, keys):
    env = DiscreteGUIActions(make_env(EASY), grid=grid, swipes=swipes, keys=keys)
    cells = grid[0] * grid[1]
    n = cells + (4 * cells if swipes else 0) + (4 if keys else 0)
    assert env.action_space == gym.spaces.Discrete(n)
    meanings = [env.action_meaning(i) for i in range(n)]
    for i, m in enumerate(meanings):
        parse_action(m)  # raises on anything invalid
        assert env.action(np.int64(i)) == m and env.action(np.array(i)) == m
    kinds = [m["type"] for m in meanings]
    assert kinds == ["click"] * cells + ["drag"] * (4 * cells if swipes else 0) + ["press_key"] * (
        4 if keys else 0
    )
    for cell in range(cells):  # the inverse helpers agree with the table
        m = meanings[cell]
        assert env.click_index(m["x"], m["y"]) == cell
        if swipes:
            for d in DIRECTIONS:
                j = env.swipe_index(m["x"], m["y"], d)
                assert meanings[j]["x0"] == m["x"] and meanings[j]["y0"] == m["y"]
    if keys:
        assert [
            meanings[env.key_index(k)]["key"]
            for k in ("ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight")
        ] == ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"]
    for bad in (-1, n, 1.0, True, "3"):
        with pytest.raises(ActionError):
            env.action_meaning(bad)


def test_swipes_are_clamped_and_recognised_as_swipes(make_env):
    env = DiscreteGUIActions(make_env(EASY), grid=(6, 8))
    for i in range(env.n_cells, 5 * env.n_cells):
        m = env.action_meaning(i)
        assert 0 <= m["x1"] < SCREEN_WIDTH and 0 <= m["y1"] < SCREEN_HEIGHT
        assert max(abs(m["x1"] - m["x0"]), abs(m["y1"] - m["y0"])) >= 20  # SWIPE_MIN_PX


@pytest.mark.parametrize("grid, on_ball", [((4, 4), False), ((18, 24), True)])
def test_discrete_swipes_replay_a_solver_solution(make_env, grid, on_ball):
    """Level 1 solved by discrete swipe indices. A Maze Paint swipe counts wherever it starts
    inside the board area, so the coarse grid's cell around the ball suffices. The fine grid
    starts every swipe on the ball itself: its cells (about 53×50 px) are well under the
    64 px maze cells; a 64 px grid (20 columns) is not enough, since the grid and maze cell
    boundaries are offset and a grid centre can fall just outside the ball's cell."""
    env = DiscreteGUIActions(make_env(EASY, **BOARD_L1), grid=grid)
    env.reset(seed=0)
    level = board(env).level
    total, term = 0.0, False
    for move in solve(level).moves:
        assert not term
        ball = cell_rect(level, board(env).state.ball, BOARD_AREA)
        index = env.swipe_index(*ball.center, move)
        m = env.action_meaning(index)
        assert BOARD_AREA.contains(m["x0"], m["y0"])
        if on_ball:
            assert ball.contains(m["x0"], m["y0"])
        _, reward, term, trunc, info = env.step(index)
        assert info["accepted"] and not trunc
        total += reward
    assert term and info["evaluator"]["success"] and info["evaluator"]["levels_won"] == [1]
    assert total == pytest.approx(1.0)


def test_discrete_arrow_keys_replay_a_solver_solution(make_env):
    env = DiscreteGUIActions(make_env(EASY, **BOARD_L1), grid=(1, 1), swipes=False)
    env.reset(seed=0)
    keys = {"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight"}
    for move in solve(board(env).level).moves:
        _, _, term, _, info = env.step(env.key_index(keys[move]))
    assert term and info["evaluator"]["success"]


def test_discrete_actions_pass_gymnasium_checker(make_env):
    check_wrapped(DiscreteGUIActions(make_env(EASY, **BOARD_L1), grid=(3, 3)))


# ---------------------------------------------------------------------- the SB3 stack


def test_make_sb3_env_stack_and_checkers():
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = make_sb3_env(EASY, size=(84, 84), grid=(4, 4), budget_s=50, **BOARD_L1)
    try:
        assert env.observation_space == gym.spaces.Box(0, 255, (84, 84, 3), np.uint8)
        assert env.action_space == gym.spaces.Discrete(16 + 64 + 4)
        obs, info = env.reset(seed=0)
        assert obs.shape == (84, 84, 3) and "evaluator" not in info
        obs, _, _, _, info = env.step(env.action_space.sample())
        assert "evaluator" not in info
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sb3_check_env(env, warn=True)
        sb3_warnings = [w for w in caught if "stable_baselines3" in w.filename]
        assert sb3_warnings == [], [str(w.message) for w in sb3_warnings]
        check_wrapped(env)
        # the wrapper stack is recorded in the spec, so gym.make can rebuild it
        names = [w.name for w in env.spec.additional_wrappers]
        assert names == ["LowResObservation", "BlackBox", "NumpyInfo", "DiscreteGUIActions"]
        again = gym.make(env.spec)
        assert (
            again.observation_space == env.observation_space
            and again.action_space == env.action_space
        )
        again.close()
    finally:
        env.close()
