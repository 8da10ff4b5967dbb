"""Third-party clients with their own code: the standard library's pickle and copy, SB3's
SubprocVecEnv asking for action masks before reset, TorchRL's GymWrapper and its checks."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest

from puzzlegym.game.registry import env_ids
from puzzlegym.wrappers import (
    BlackBox,
    BoardActions,
    LowResObservation,
    make_sb3_env,
)

ALL_IDS = env_ids()


def same_step(a, b) -> None:
    """Two step (or reset) results are the same: observations byte for byte, the rest equal."""
    assert len(a) == len(b)
    assert np.array_equal(a[0], b[0]) and a[0].dtype == b[0].dtype
    assert a[1:] == b[1:]


def copies(env):
    return [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]


def masked(env, rng) -> int:
    return int(rng.choice(np.flatnonzero(env.action_masks())))


# ---------------------------------------------------------------------- pickle and deepcopy


@pytest.mark.parametrize("env_id", ALL_IDS)
@pytest.mark.parametrize("observation", ["pixels", "board"])
def test_wrapped_envs_pickle_and_copy_before_and_after_reset_and_play_on_identically(
    env_id, observation
):
    env = make_sb3_env(env_id, observation=observation, actions="board", budget_s=10_000)
    try:
        before = copies(env)  # never reset
        first = env.reset(seed=7)
        for other in before:
            same_step(other.reset(seed=7), first)
        rng = np.random.default_rng(7)
        for _ in range(25):
            i = masked(env, rng)
            step = env.step(i)
            for other in before:
                same_step(other.step(i), step)
        after = copies(env)  # mid-episode
        for _ in range(40):
            mask = env.action_masks()
            i = int(rng.choice(np.flatnonzero(mask)))
            step = env.step(i)
            for other in before + after:
                assert np.array_equal(other.action_masks(), mask)
                same_step(other.step(i), step)
            if step[2] or step[3]:
                break
        for other in before + after:
            other.close()
    finally:
        env.close()


@pytest.mark.parametrize(
    "env_id",
    ["LongPuzzle/NutAndBolt-Hard", "LongPuzzle/ColorConnect-Easy", "LongPuzzle/BoltUnscrew-Hard"],
)
def test_raw_envs_copy_mid_level_with_history_selection_and_frames(env_id):
    """The raw env (1280x900 pixels, GUI actions, render()): copied with an undo history and
    a selection or path being drawn, the copy paints the same frames and plays on alike."""
    env = gym.make(env_id, start="board", render_mode="rgb_array", budget_s=10_000)
    pick = BoardActions(env)  # to choose meaningful GUI actions; the raw env is what is copied
    try:
        env.reset(seed=1)
        rng = np.random.default_rng(1)
        for _ in range(30):
            env.step(pick.action_meaning(masked(pick, rng)))
        clones = copies(env)
        for other in clones:
            assert np.array_equal(other.render(), env.render())
            assert other.unwrapped.checkpoint().payload == env.unwrapped.checkpoint().payload
        for _ in range(30):
            action = pick.action_meaning(masked(pick, rng))
            step = env.step(action)
            for other in clones:
                same_step(other.step(action), step)
                assert np.array_equal(other.render(), env.render())
    finally:
        env.close()


def test_a_copy_is_independent_of_its_original():
    env = make_sb3_env(
        "LongPuzzle/MazePaint-Easy", observation="board", actions="board", start="board", level=1
    )
    obs, _ = env.reset(seed=0)
    clone = copy.deepcopy(env)
    for _ in range(3):  # the first swipe that rolls the ball, three times
        moved, *_ = clone.step(int(np.flatnonzero(clone.action_masks()[: clone.n_targets])[0]))
    assert not np.array_equal(moved, obs)
    assert env.unwrapped.probe().actions == 0 and clone.unwrapped.probe().actions == 3
    assert np.array_equal(env.env.env.env.observation(None), obs)  # the original's board as it was
    assert clone.unwrapped.game is env.unwrapped.game  # a game is shared by reference


def test_recording_and_browser_envs_refuse_to_be_copied_saying_why(tmp_path):
    env = gym.make("LongPuzzle/MazePaint-Easy", record_dir=str(tmp_path / "rec"))
    copy.deepcopy(env)  # no record open yet: fine (its copy opens its own, beside it)
    env.reset(seed=0)
    with pytest.raises(
        TypeError, match=r"writing an episode record .*rec.* two envs would write one record"
    ):
        pickle.dumps(env)
    with pytest.raises(TypeError, match="writing an episode record"):
        copy.deepcopy(env)
    env.close()
    browser = gym.make("LongPuzzle/MazePaint-Easy", backend="browser")
    with pytest.raises(
        TypeError, match="browser backend cannot be pickled or copied.*backend='native'"
    ):
        pickle.dumps(browser)
    browser.close()


def test_games_pickle_by_their_package():
    from puzzlegym.game.registry import games

    for game in games().values():
        blob = pickle.dumps(game)
        assert len(blob) < 200 and pickle.loads(blob) is game and copy.deepcopy(game) is game
        assert pickle.loads(pickle.dumps(game.generate)) == game.generate


# ---------------------------------------------------------------------- action masks before reset


def test_action_masks_before_reset_are_all_valid():
    env = LowResObservation(gym.make("LongPuzzle/NutAndBolt-Easy"))
    actions = BoardActions(BlackBox(env))
    mask = actions.action_masks()
    assert mask.dtype == bool and mask.shape == (actions.action_space.n,) and mask.all()
    actions.reset(seed=0)
    assert not actions.action_masks().all()  # the home screen: only the game card changes anything
    actions.close()


@pytest.mark.parametrize("observation", ["pixels", "board"])
def test_sb3_subproc_workers_answer_masks_before_reset_and_live_on(observation):
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import SubprocVecEnv

    ids = ["LongPuzzle/NutAndBolt-Easy"] * 2  # one vec env: one observation space
    kwargs = dict(
        observation=observation,
        actions="board",
        buttons=("restart", "next", "menu", "game", "tier"),
        max_targets=20,
        budget_s=50,
    )
    venv = SubprocVecEnv(
        [lambda i=i: make_sb3_env(i, **kwargs) for i in ids]
    )  # SB3's own start method
    try:
        masks = get_action_masks(venv)
        assert masks.shape == (2, 25) and masks.all()
        venv.seed(0)
        obs = venv.reset()
        assert obs.shape[0] == 2
        masks = get_action_masks(venv)
        assert masks.sum(axis=1).tolist() == [1, 1]  # home screen: the game card only
        rng = np.random.default_rng(0)
        for _ in range(10):
            masks = get_action_masks(venv)
            obs, rewards, dones, infos = venv.step(
                np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            )
        assert (
            [int(info["step"]) for info in infos] == [10, 10]
            and rewards.shape == (2,)
            and not dones.any()
        )
    finally:
        venv.close()


# ---------------------------------------------------------------------- TorchRL


torchrl = pytest.importorskip(
    "torchrl", reason="TorchRL is the optional 'torchrl' extra (pip install 'puzzlegym[torchrl]')"
)


@pytest.mark.parametrize("observation", ["pixels", "board"])
def test_torchrl_gym_wrapper_passes_its_checks_and_reads_the_info_numbers(observation):
    from torchrl.envs import GymWrapper
    from torchrl.envs.utils import check_env_specs

    from puzzlegym.wrappers import torchrl_info_reader

    env = GymWrapper(
        make_sb3_env(
            "LongPuzzle/MazePaint-Easy",
            observation=observation,
            actions="board",
            start="board",
            level=1,
            budget_s=20,
        )
    )
    check_env_specs(env)
    env.set_info_dict_reader(torchrl_info_reader())
    check_env_specs(env)
    rollout = env.rollout(12)
    steps = rollout["next", "step"].tolist()
    assert steps == list(range(1, 13)) and rollout["next", "actions"].tolist() == steps
    assert rollout["next", "elapsed_s"].tolist() == [float(s) for s in steps]
    assert rollout["next", "budget_s"].tolist() == [20.0] * 12
    assert (
        str(rollout["next", "accepted"].dtype) == "torch.bool"
        and str(rollout["next", "step"].dtype) == "torch.int64"
    )
    shape = (84, 84, 3) if observation == "pixels" else (13, 8, 8)
    assert tuple(rollout["next", "pixels" if observation == "pixels" else "observation"].shape) == (
        12,
        *shape,
    )
    env.close()


def test_torchrl_reads_python_scalars_no_more_than_before():
    """Why make_sb3_env types its info numbers: TorchRL's reader needs a dtype on every value,
    which Python's int and bool lack (the stack without NumpyInfo fails the same reader)."""
    from torchrl.envs import GymWrapper

    from puzzlegym.wrappers import DiscreteGUIActions, torchrl_info_reader

    raw = DiscreteGUIActions(
        BlackBox(LowResObservation(gym.make("LongPuzzle/MazePaint-Easy", start="board")))
    )
    env = GymWrapper(raw)
    env.set_info_dict_reader(torchrl_info_reader())
    with pytest.raises(AttributeError, match="has no attribute 'dtype'"):
        env.rollout(3)
    env.close()


def test_torchrl_gym_env_builds_a_puzzlegym_id_by_name():
    """TorchRL's GymEnv makes the env by id and passes ``frameskip``, dropping it only on a
    TypeError saying "unexpected keyword argument 'frameskip'": our refusal is that error, so
    an id whose entry point is make_sb3_env builds, passes TorchRL's checks and rolls out."""
    from torchrl.envs import GymEnv
    from torchrl.envs.utils import check_env_specs

    env_id = "PuzzleGymTest/MazePaintBoard-v0"
    if env_id not in gym.registry:
        gym.register(
            id=env_id,
            entry_point="puzzlegym.wrappers:make_sb3_env",
            kwargs={
                "env_id": "LongPuzzle/MazePaint-Easy",
                "observation": "board",
                "actions": "board",
                "start": "board",
                "level": 1,
                "budget_s": 20,
            },
        )
    env = GymEnv(env_id)
    assert env.wrapper_frame_skip == 1  # TorchRL dropped the keyword and skips no frames
    check_env_specs(env)
    rollout = env.rollout(5)
    assert tuple(rollout["next", "observation"].shape) == (5, 13, 8, 8)
    env.close()


def test_torchrl_gym_env_on_the_raw_id_gets_past_the_keyword_probe():
    """The raw env's GUI action space has no TorchRL spec; before the fix GymEnv failed
    earlier, on our refusal of ``frameskip`` (a ConfigError that was no TypeError)."""
    from torchrl.envs import GymEnv

    with pytest.raises(KeyError, match="GUIActionSpace"):
        GymEnv("LongPuzzle/MazePaint-Easy", start="board", level=1)
