"""The RL stack: observations rendered at the training resolution, board-aligned actions with
masks, the SB3 checks and errors, vector envs with every id."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from puzzlegym.base.errors import ActionError, ConfigError
from puzzlegym.game.registry import env_ids, games
from puzzlegym.screen.render import DEFAULT_CACHE_BYTES, SCREEN, Canvas, Rect, Widget, render_full
from puzzlegym.screen.resolution import Resolution
from puzzlegym.solvers import solve
from puzzlegym.suite.view import suite_widgets
from puzzlegym.wrappers import (
    BoardActions,
    LowResObservation,
    check_sb3_env,
    make_sb3_env,
    nature_cnn_parameters,
)

ALL_IDS = env_ids()
GAMES = games()
EASY = "LongPuzzle/MazePaint-Easy"


def quiet_check_env(env):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version.*")
        check_env(env)


# ---------------------------------------------------------------------- resolutions


def test_resolutions_map_the_screen():
    assert Resolution.scaled("1/4").shape == (225, 320, 3)
    assert Resolution.scaled(0.125, grayscale=True).shape == (113, 160, 1)
    fit = Resolution.fit(84, 84)
    assert fit.shape == (84, 84, 3) and fit.map_box(0, 0, 1280, 900) == (0, 12, 84, 71)
    assert Resolution.stretch(96, 96).map_box(0, 0, 1280, 900) == (0, 0, 96, 96)
    assert Resolution.full().is_full and not Resolution.full(grayscale=True).is_full
    for bad in (
        lambda: Resolution.scaled(2),
        lambda: Resolution.scaled("x"),
        lambda: Resolution.fit(4, 84),
        lambda: Resolution.fit(84, 2000),
        lambda: Resolution.stretch(84.5, 84),
    ):
        with pytest.raises(ConfigError):
            bad()


def _fill(draw, img, key):
    draw.rectangle((0, 0, img.width, img.height), fill=key)


def _dot(draw, img, key):
    draw.ellipse((0, 0, img.width - 1, img.height - 1), fill=key + (200,))


scene = st.lists(
    st.tuples(
        st.builds(
            Rect,
            st.integers(-20, 1250),
            st.integers(-20, 880),
            st.integers(1, 300),
            st.integers(1, 300),
        ),
        st.sampled_from([(255, 0, 0), (0, 255, 0), (0, 0, 255)]),
        st.booleans(),
    ),
    max_size=6,
)
resolutions = st.sampled_from(
    [
        Resolution.scaled("1/4"),
        Resolution.scaled("1/8", True),
        Resolution.fit(84, 84),
        Resolution.stretch(96, 96, True),
    ]
)


@settings(max_examples=30, deadline=None)
@given(resolutions, st.lists(scene, min_size=1, max_size=4))
def test_reduced_incremental_equals_from_scratch(resolution, sequence):
    canvas = Canvas(resolution)
    for items in sequence:
        widgets = [Widget("bg", SCREEN, _fill, (240, 240, 240))]
        widgets += [
            Widget(f"w{i}", r, _fill if o else _dot, c, o) for i, (r, c, o) in enumerate(items)
        ]
        canvas.render(widgets)
        assert canvas.frame.shape == resolution.shape
        assert np.array_equal(canvas.frame, render_full(widgets, resolution))


def test_widget_cache_is_bounded_in_bytes():
    assert DEFAULT_CACHE_BYTES == 64 * 2**20
    canvas = Canvas(
        Resolution.scaled("1/4"), cache_bytes=300_000
    )  # a 225x320 background is 216,000 bytes
    for i in range(40):
        canvas.render(
            [
                Widget("bg", SCREEN, _fill, (i, 0, 0)),
                Widget("a", Rect(0, 0, 300, 300), _fill, (0, i, 0)),
            ]
        )
        assert canvas.cached_bytes <= 300_000
        assert canvas.cached_bytes == sum(a.nbytes for a in canvas._cache.values())
    assert canvas.paints == 80 and len(canvas._cache) <= 3  # older images were dropped
    with pytest.raises(ConfigError, match="cache_bytes"):
        Canvas(cache_bytes=-1)
    with pytest.raises(ConfigError, match="render_cache_bytes"):
        gym.make(EASY, render_cache_bytes="lots")
    env = gym.make(EASY, render_cache_bytes=1_000_000)
    env.reset(seed=0)
    assert env.unwrapped.backend.canvas.cache_bytes == 1_000_000
    env.close()


# ---------------------------------------------------------------------- LowResObservation


@pytest.mark.parametrize(
    "kwargs, shape",
    [
        ({}, (84, 84, 3)),
        ({"scale": 0.25}, (225, 320, 3)),
        ({"size": (96, 96), "grayscale": True, "fit": "stretch"}, (96, 96, 1)),
    ],
)
def test_lowres_renders_directly_at_its_resolution(make_env, kwargs, shape):
    env = LowResObservation(
        make_env(EASY, start="board", level=3, render_mode="rgb_array"), **kwargs
    )
    assert env.observation_space == gym.spaces.Box(0, 255, shape, np.uint8)
    obs, _ = env.reset(seed=0)
    u = env.unwrapped
    for move in solve(u.suite.board.level).moves[:4]:
        action = u.game.view.actions_for_move(
            u.suite.board.level,
            u.suite.board.state,
            None,
            move,
            (__import__("puzzlegym.screen.layout", fromlist=["BOARD_AREA"]).BOARD_AREA),
        )[0]
        obs, *_ = env.step(action)
        assert obs.shape == shape
        assert np.array_equal(obs, render_full(suite_widgets(u.suite), u.resolution))
    full = env.render()
    assert full.shape == (900, 1280, 3)  # render() is still the screen
    if kwargs.get("fit") == "stretch" or "scale" in kwargs:
        small = Image.fromarray(full).resize((shape[1], shape[0]), Image.Resampling.BOX)
        if shape[2] == 1:
            small = small.convert("L")
        ref = np.asarray(small).reshape(shape).astype(int)
        assert np.abs(ref - obs.astype(int)).mean() < 8  # the same picture, edges aside


def test_lowres_passes_the_gymnasium_checker(make_env):
    env = LowResObservation(make_env(EASY, start="board", level=1), size=(64, 64), grayscale=True)
    quiet_check_env(env)


def test_lowres_rejects_what_it_cannot_do(make_env):
    with pytest.raises(ConfigError, match="exactly one"):
        LowResObservation(make_env(EASY), size=(84, 84), scale=0.25)
    with pytest.raises(ConfigError, match="backend='native'"):
        LowResObservation(make_env(EASY, backend="browser"))
    once = LowResObservation(make_env(EASY))
    with pytest.raises(ConfigError, match="full 1280x900"):
        LowResObservation(once)
    with pytest.raises(ConfigError, match="fit"):
        LowResObservation(make_env(EASY), fit="crop")


# ---------------------------------------------------------------------- BoardActions


def test_board_action_spaces(make_env):
    maze = BoardActions(make_env(EASY))
    assert maze.n_targets == 4 and maze.buttons == ("restart", "next", "menu", "game", "tier")
    assert maze.action_space == gym.spaces.Discrete(9)
    nut = BoardActions(make_env("LongPuzzle/NutAndBolt-Easy"))
    assert "undo" in nut.buttons  # Nut and Bolt has Undo
    levels = nut.unwrapped.game.load_catalogue("Easy")
    assert nut.n_targets == max(level.n_bolts for level in levels)
    # one level (level=k) is laid out as its whole tier: the tier's most anchors, the level's
    # own padded (Bolt Unscrew Hard: level 2 has 22 of the 26), so every level of the tier,
    # and its JAX twin, shares one layout
    hard = [len(level.anchors) for level in GAMES["BoltUnscrew"].load_catalogue("Hard")]
    assert hard[1] < max(hard)
    for k in (1, 2, len(hard)):
        one = BoardActions(make_env("LongPuzzle/BoltUnscrew-Hard", level=k), buttons=["restart"])
        assert one.n_targets == max(hard)
        assert one.names()[-1] == "restart" and one.action_space.n == one.n_targets + 1
    for bad in (
        {"buttons": ["jump"]},
        {"buttons": "restart"},
        {"buttons": ["menu", "menu"]},
        {"max_targets": 2},
    ):
        with pytest.raises(ConfigError):
            BoardActions(make_env(EASY), **bad)
    with pytest.raises(ConfigError, match="puzzlegym envs"):
        BoardActions(gym.make("CartPole-v1"))


def test_board_actions_play_a_solver_solution_from_home(make_env):
    """From the home screen: the game card, the tier, then the solver's swipes as indices."""
    env = BoardActions(make_env(EASY, level=1))
    env.reset(seed=0)
    game, tier = env.action_space.n - 2, env.action_space.n - 1
    assert env.action_masks().tolist() == [False] * 7 + [True, False]
    env.step(game)
    assert env.action_masks()[tier]
    env.step(tier)
    u = env.unwrapped
    directions = ("up", "down", "left", "right")
    for move in solve(u.suite.board.level).moves:
        *_, terminated, _, _ = env.step(directions.index(move))
    assert terminated and u.evaluator.success


def test_masks_on_a_scripted_nut_and_bolt_board(make_env):
    env = BoardActions(
        make_env("LongPuzzle/NutAndBolt-Easy", start="board", level=1), buttons=["restart", "undo"]
    )
    env.reset(seed=0)
    b = env.unwrapped.suite.board
    n = env.n_targets
    restart, undo = n, n + 1
    mask = env.action_masks()
    full = [i for i, nuts in enumerate(b.state.bolts) if nuts]
    # nothing selected: every bolt with nuts can be selected; empty bolts, Restart and Undo do
    # nothing
    assert np.flatnonzero(mask[: len(b.state.bolts)]).tolist() == full
    assert not mask[restart] and not mask[undo] and not mask[len(b.state.bolts) : n].any()
    src = full[0]
    env.step(src)
    b = env.unwrapped.suite.board  # the board with the selection (each change makes a new one)
    assert b.ui == src
    mask = env.action_masks()
    rules = b.game.rules
    legal_dst = {dst for (s, dst) in rules.legal_moves(b.level, b.state) if s == src}
    # with a bolt selected: deselect it, or move onto a destination the rules accept
    assert set(np.flatnonzero(mask[:n])) == legal_dst | {src}
    assert mask[restart]  # the selection differs from a fresh board
    dst = sorted(legal_dst)[0]
    env.step(dst)
    assert env.action_masks()[undo] and env.action_masks()[restart]


@pytest.mark.parametrize("env_id", [g.env_id(g.tiers[0]) for g in GAMES.values()])
def test_masks_say_exactly_which_indices_change_something(make_env, env_id):
    """On a scripted state of every game (the board after two solver moves, a selection made),
    an index is masked valid iff stepping it changes the screen, the board or its selection."""
    env = BoardActions(make_env(env_id, start="board"))
    env.reset(seed=0)
    u = env.unwrapped
    from puzzlegym.agents import SolverAgent

    agent = SolverAgent(u)
    for _ in range(3):
        env.env.step(agent())  # GUI actions through the inner env
    ckpt = u.checkpoint()
    mask = env.action_masks()
    assert mask.any() and not mask.all()

    def seen():
        s = u.suite
        return (s.screen, s.board.state if s.board else None, s.board.ui if s.board else None)

    for i in range(env.action_space.n):
        env.reset(options={"checkpoint": ckpt})
        before = seen()
        env.step(i)
        assert (seen() != before) == bool(mask[i]), (i, env.names()[i])


def test_board_actions_reject_bad_indices(make_env):
    env = BoardActions(make_env(EASY, start="board"))
    env.reset(seed=0)
    for bad in (-1, 9, 1.5, True, "0"):
        with pytest.raises(ActionError):
            env.step(bad)
    assert env.action_meaning(8) == {"type": "wait"}  # the tier button is not on the level screen
    assert env.action_meaning(0)["type"] == "drag"


def test_board_actions_pass_the_checkers():
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = make_sb3_env(
        "LongPuzzle/BoltUnscrew-Easy",
        actions="board",
        scale="1/16",
        grayscale=True,
        start="board",
        budget_s=30,
    )
    try:
        quiet_check_env(env)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sb3_check_env(env, warn=False)
        names = [w.name for w in env.spec.additional_wrappers]
        assert names == ["LowResObservation", "BlackBox", "NumpyInfo", "BoardActions"]
    finally:
        env.close()


# ---------------------------------------------------------------------- errors that guide


def test_huge_cnn_observations_are_refused_unless_forced():
    assert nature_cnn_parameters((900, 1280, 3)) == 557_263_520
    with pytest.raises(ConfigError, match=r"557M parameters.*size=\(84, 84\).*force=True"):
        make_sb3_env(EASY, size=(900, 1280))
    env = make_sb3_env(EASY, size=(450, 640), force=True, start="board")
    assert env.observation_space.shape == (450, 640, 3)
    env.close()
    with pytest.raises(ConfigError, match="36x36"):
        make_sb3_env(EASY, size=(24, 24))


def test_a_raw_env_gets_a_message_naming_the_wrappers(make_env):
    raw = make_env(EASY)
    with pytest.raises(ConfigError, match="BoardActions.*DiscreteGUIActions.*LowResObservation"):
        check_sb3_env(raw)
    only_actions = BoardActions(raw)
    with pytest.raises(ConfigError, match="557M"):
        check_sb3_env(only_actions)
    check_sb3_env(BoardActions(LowResObservation(make_env(EASY))))


# ---------------------------------------------------------------------- vector envs


def _common_kwargs() -> dict:
    """Every id with the same spaces: board actions padded to the largest target count."""
    most = 0
    for env_id in ALL_IDS:
        env = BoardActions(gym.make(env_id))
        most = max(most, env.n_targets)
        env.close()
    return dict(
        actions="board",
        buttons=("restart", "next", "menu"),
        max_targets=most,
        scale="1/16",
        grayscale=True,
        start="board",
        budget_s=50,
    )


def _masked_actions(masks, rng) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def test_async_vector_env_with_every_id():
    kwargs = _common_kwargs()
    fns = [lambda i=i: make_sb3_env(i, **kwargs) for i in ALL_IDS]
    envs = gym.vector.AsyncVectorEnv(fns, shared_memory=True, context="forkserver")
    try:
        obs, _ = envs.reset(seed=0)
        assert obs.shape == (len(ALL_IDS), 56, 80, 1) and obs.dtype == np.uint8
        rng = np.random.default_rng(0)
        for _ in range(5):
            masks = np.stack(envs.call("action_masks"))
            obs, rewards, terminated, truncated, infos = envs.step(_masked_actions(masks, rng))
            assert obs.shape[0] == len(ALL_IDS) and "evaluator" not in infos
        assert [spec.id for spec in envs.get_attr("spec")] == ALL_IDS
        assert len({frame.tobytes() for frame in obs}) >= len(GAMES)  # each game its own board
    finally:
        envs.close()


def test_sb3_subproc_vec_env_with_every_id():
    from stable_baselines3.common.vec_env import SubprocVecEnv

    kwargs = _common_kwargs()
    venv = SubprocVecEnv(
        [lambda i=i: make_sb3_env(i, **kwargs) for i in ALL_IDS], start_method="forkserver"
    )
    try:
        venv.seed(0)
        obs = venv.reset()
        assert obs.shape == (len(ALL_IDS), 56, 80, 1)
        rng = np.random.default_rng(1)
        for _ in range(5):
            masks = np.stack(venv.env_method("action_masks"))
            obs, rewards, dones, infos = venv.step(_masked_actions(masks, rng))
            assert obs.shape[0] == len(ALL_IDS) and rewards.shape == (len(ALL_IDS),)
    finally:
        venv.close()
