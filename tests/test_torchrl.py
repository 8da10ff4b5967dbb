"""The TorchRL route of docs/rl.md, with the real TorchRL (the ``torchrl`` extra):
``GymWrapper(make_sb3_env(...))`` with :func:`torchrl_info_reader` (typed info specs, the
bool as ``torch.bool``), :func:`make_torchrl_env` (masked random rollouts take valid actions
only), and ``GymEnv`` on a raw id after :func:`register_torchrl_spaces` (GUI action dicts
as non-tensor actions)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

torchrl = pytest.importorskip(
    "torchrl", reason="TorchRL is the optional 'torchrl' extra (pip install 'puzzlegym[torchrl]')"
)
import torch  # noqa: E402  (torch comes with torchrl)
from tensordict import NonTensorData  # noqa: E402
from torchrl.envs import GymEnv, GymWrapper, TransformedEnv  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

from puzzlegym.base.actions import GUIActionSpace  # noqa: E402
from puzzlegym.base.errors import ActionError, ConfigError  # noqa: E402
from puzzlegym.wrappers import (  # noqa: E402
    NUMERIC_INFO_KEYS,
    TORCHRL_DEFAULT_ACTION,
    NumpyInfo,
    make_sb3_env,
    make_torchrl_env,
    register_torchrl_spaces,
    torchrl_info_reader,
)

ENV_ID = "LongPuzzle/MazePaint-Easy"
LEVEL = {"start": "board", "level": 1}
INFO_DTYPES = {
    "step": torch.int64,
    "actions": torch.int64,
    "elapsed_s": torch.float64,
    "budget_s": torch.float64,
    "accepted": torch.bool,
}


def board_env():
    return make_sb3_env(ENV_ID, observation="board", actions="board", budget_s=20, **LEVEL)


def info_dtypes(td, where=()) -> dict:
    return {key: td[(*where, key)].dtype for key in NUMERIC_INFO_KEYS}


def test_the_reader_declares_every_info_number_with_its_dtype_and_no_text():
    reader = torchrl_info_reader()
    assert list(reader.keys) == list(NUMERIC_INFO_KEYS)
    assert {key: spec.dtype for key, spec in reader.info_spec.items()} == INFO_DTYPES


def test_gym_wrapper_over_make_sb3_env_reads_the_info_numbers_with_their_dtypes():
    env = GymWrapper(board_env())
    env.set_info_dict_reader(torchrl_info_reader())
    try:
        check_env_specs(env)
        spec = env.observation_spec
        assert {key: spec[key].dtype for key in NUMERIC_INFO_KEYS} == INFO_DTYPES
        fake = env.fake_tensordict()  # what TorchRL's collectors and buffers preallocate
        assert info_dtypes(fake) == info_dtypes(fake, ("next",)) == INFO_DTYPES
        rollout = env.rollout(6)
        assert rollout.batch_size == torch.Size([6])
        assert info_dtypes(rollout, ("next",)) == INFO_DTYPES
        assert rollout["next", "step"].tolist() == [1, 2, 3, 4, 5, 6]
        assert rollout["next", "budget_s"].tolist() == [20.0] * 6
        assert tuple(rollout["next", "observation"].shape) == (6, 13, 8, 8)
        # GymWrapper's default action: one-hot over BoardActions' Discrete(9), one index a step
        assert tuple(rollout["action"].shape) == (6, 9)
        assert rollout["action"].sum(-1).tolist() == [1] * 6
    finally:
        env.close()


def test_auto_register_info_dict_takes_the_reader_and_fails_on_text_without_it():
    env = GymWrapper(board_env())
    registered = env.auto_register_info_dict(info_dict_reader=torchrl_info_reader())
    try:
        assert info_dtypes(registered.fake_tensordict(), ("next",)) == INFO_DTYPES
        assert registered.rollout(2)["next", "accepted"].dtype == torch.bool
    finally:
        registered.close()
    # a bare auto_register_info_dict() reads every key, the text ones too (docs/rl.md)
    bare = GymWrapper(board_env())
    try:
        with pytest.raises(AttributeError, match="'str' object has no attribute 'dtype'"):
            bare.auto_register_info_dict()
    finally:
        bare.close()


@pytest.mark.parametrize("observation", ["board", "pixels"])
def test_make_torchrl_env_masks_random_rollouts_to_valid_actions(observation):
    env = make_torchrl_env(ENV_ID, observation=observation, budget_s=20, **LEVEL)
    try:
        assert isinstance(env, TransformedEnv)
        check_env_specs(env)
        assert env.action_spec.dtype == torch.int64 and env.action_spec.space.n == 9
        assert env.observation_spec["action_mask"].dtype == torch.bool
        assert info_dtypes(env.fake_tensordict(), ("next",)) == INFO_DTYPES
        torch.manual_seed(0)
        rollout = env.rollout(12)
        key, shape = (
            ("observation", (13, 8, 8)) if observation == "board" else ("pixels", (84, 84, 3))
        )
        assert tuple(rollout[key].shape) == tuple(rollout["next", key].shape) == (12, *shape)
        masks, taken = rollout["action_mask"], rollout["action"]
        assert masks.dtype == torch.bool and tuple(masks.shape) == (12, 9)
        assert (~masks).any()  # some actions were masked out on the way
        assert masks.gather(-1, taken.unsqueeze(-1)).all()  # and none of them was taken
        assert rollout["next", "accepted"].all()  # so the game accepted every step
        assert rollout["next", "step"].tolist() == list(range(1, 13))
    finally:
        env.close()


def test_make_torchrl_env_names_its_observation_as_gym_wrapper_does():
    for observation in ("board", "pixels"):
        plain = GymWrapper(make_sb3_env(ENV_ID, observation=observation, actions="board"))
        masked = make_torchrl_env(ENV_ID, observation=observation)
        try:
            expected = {"action_mask", *plain.observation_spec.keys()}
            assert set(masked.observation_spec.keys()) - set(NUMERIC_INFO_KEYS) == expected
        finally:
            plain.close()
            masked.close()


def test_make_torchrl_env_grid_actions_have_no_mask():
    env = make_torchrl_env(ENV_ID, actions="grid", categorical_action_encoding=False, **LEVEL)
    try:
        assert isinstance(env, GymWrapper) and "action_mask" not in env.observation_spec.keys()
        assert type(env.action_spec).__name__ == "OneHot"
        rollout = env.rollout(2)
        assert rollout["action"].sum(-1).tolist() == [1, 1]
        assert info_dtypes(rollout, ("next",)) == INFO_DTYPES
    finally:
        env.close()
    with pytest.raises(ConfigError, match="no action_masks"):
        make_torchrl_env(ENV_ID, actions="grid", mask=True)


@pytest.fixture
def torchrl_spaces():
    """register_torchrl_spaces() for one test; afterwards TorchRL's registry is as it was, so
    a later test of this worker sees TorchRL without the registration (tests/test_clients.py
    checks that error). TorchRL has no public unregister: the test reaches into it."""
    from torchrl.envs.libs.gym import _conversion_registry

    had = GUIActionSpace in _conversion_registry.data
    register_torchrl_spaces()
    register_torchrl_spaces()  # a second call changes nothing
    yield
    if not had:
        _conversion_registry.data.pop(GUIActionSpace, None)


def test_gym_env_takes_a_raw_id_with_gui_action_dicts(torchrl_spaces):
    env = GymEnv(ENV_ID, **LEVEL)
    try:
        assert type(env.action_spec).__name__ == "NonTensor"
        check_env_specs(env)
        rollout = env.rollout(3)  # a random rollout: the spec's one action, the no-op
        assert list(rollout["action"]) == [TORCHRL_DEFAULT_ACTION] * 3
        frames = rollout["next", "pixels"]
        assert tuple(frames.shape) == (3, 900, 1280, 3) and frames.dtype == torch.uint8
        assert torch.equal(frames[0], frames[-1]) and not rollout["next", "reward"].any()

        td = env.reset()
        td["action"] = NonTensorData({"type": "press_key", "key": "ArrowRight"})
        moved = env.step(td)["next"]
        assert moved["reward"].item() > 0 and not torch.equal(moved["pixels"], td["pixels"])
        td["action"] = NonTensorData({"type": "bogus"})
        with pytest.raises(ActionError, match="unknown action type 'bogus'"):
            env.step(td)
    finally:
        env.close()


def test_gym_wrapper_over_the_raw_env_reads_the_infos_numpy_info_typed(torchrl_spaces):
    env = GymWrapper(NumpyInfo(gym.make(ENV_ID, **LEVEL)))
    env.set_info_dict_reader(torchrl_info_reader())
    try:
        rollout = env.rollout(2)
        assert info_dtypes(rollout, ("next",)) == INFO_DTYPES
        assert rollout["next", "step"].tolist() == [1, 2]
        # the no-op changes nothing on the board, and the game says so
        assert not rollout["next", "accepted"].any()
        assert np.isclose(rollout["next", "elapsed_s"].numpy(), [1.0, 2.0]).all()
    finally:
        env.close()
