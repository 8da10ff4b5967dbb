"""RLlib: the env creator (observations RLlib's default models take, the action mask in a Dict
observation), the masked PPO model, ppo_config's checks, and real training iterations with
a remote env runner on a local Ray instance bound to 127.0.0.1, whose failures must raise."""

from __future__ import annotations

import sys

import gymnasium as gym
import numpy as np
import pytest

from puzzlegym.base.errors import ConfigError, WorkerError
from puzzlegym.rl.rllib import build_algo, check_sampled, make_rllib_env, ppo_config
from puzzlegym.wrappers import ActionMaskObservation, make_sb3_env

ID = "LongPuzzle/MazePaint-Easy"
BOARD = {"id": ID, "observation": "board", "actions": "board", "start": "board"}
TINY = dict(num_env_runners=1, train_batch_size=200, minibatch_size=50, num_epochs=1, seed=0)


def _rllib():
    try:
        import ray.rllib  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"ray[rllib] is not installed (the rllib extra): {exc}")


# --- the env creator ------------------------------------------------------------------------


def test_board_env_is_flat_float_planes_with_the_board_actions_mask():
    env = make_rllib_env(BOARD)
    ref = make_sb3_env(ID, observation="board", actions="board", start="board")
    try:
        planes = ref.observation_space.shape
        n = ref.action_space.n
        assert env.observation_space == gym.spaces.Dict(
            {
                "action_mask": gym.spaces.Box(0.0, 1.0, (n,), np.float32),
                "observations": gym.spaces.Box(0.0, 1.0, (int(np.prod(planes)),), np.float32),
            }
        )
        assert env.action_space == ref.action_space
        obs, _ = env.reset(seed=5)
        want, _ = ref.reset(seed=5)
        for action in (0, 1, 2, 3, 0):
            assert obs["observations"].dtype == np.float32
            np.testing.assert_array_equal(obs["observations"], want.reshape(-1).astype(np.float32))
            np.testing.assert_array_equal(obs["action_mask"], ref.action_masks().astype(np.float32))
            assert env.observation_space.contains(obs)
            obs, reward, *_ = env.step(action)
            want, want_reward, *_ = ref.step(action)
            assert reward == want_reward
        # the mask is the one of the observation it comes with: some swipe is invalid here
        assert 0.0 in obs["action_mask"][:4] and obs["action_mask"].max() == 1.0
    finally:
        env.close()
        ref.close()


def test_pixel_env_is_float_in_unit_range_for_the_cnn_and_unmasked_on_grid_actions():
    env = make_rllib_env({"id": ID, "start": "board"})
    ref = make_sb3_env(ID, start="board")
    try:
        assert env.observation_space == gym.spaces.Box(0.0, 1.0, (84, 84, 3), np.float32)
        obs, _ = env.reset(seed=1)
        want, _ = ref.reset(seed=1)
        assert obs.dtype == np.float32 and obs.shape == (84, 84, 3)
        np.testing.assert_array_equal(np.round(obs * 255).astype(np.uint8), want)
        assert float(np.abs(obs - want / 255.0).max()) < 1e-6
    finally:
        env.close()
        ref.close()


def test_a_level_split_reaches_the_env():
    env = make_rllib_env({**BOARD, "levels": "generated", "num_levels": 3, "start_level": 7})
    ref = make_sb3_env(
        ID,
        observation="board",
        actions="board",
        start="board",
        levels="generated",
        num_levels=3,
        start_level=7,
    )
    try:
        for seed in (0, 1, 2):
            obs, _ = env.reset(seed=seed)
            want, _ = ref.reset(seed=seed)
            np.testing.assert_array_equal(obs["observations"], want.reshape(-1).astype(np.float32))
    finally:
        env.close()
        ref.close()


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"observation": "board"}, "id"),
        ({"id": "LongPuzzle/Nope-Easy"}, "id"),
        ({"id": ["LongPuzzle/MazePaint-Easy"]}, "id"),
        ({"id": ID, "masks": True}, "masks"),  # the screen grid has no masks
        ({"id": ID, "actions": "board", "masks": "yes"}, "masks"),
        ({"id": ID, "observation": "text"}, "observation"),
        ({"id": ID, "size": "big"}, "size"),
        ({"id": ID, "bogus": 1}, "bogus"),
        ({**BOARD, "levels": "generated", "num_levels": -1}, "num_levels"),
    ],
)
def test_bad_env_config_names_the_field(config, field):
    with pytest.raises(ConfigError, match=field):
        make_rllib_env(config)


def test_env_config_must_be_a_mapping():
    with pytest.raises(ConfigError, match="env_config"):
        make_rllib_env([("id", ID)])


def test_action_mask_observation_refuses_an_env_without_masks():
    env = make_sb3_env(ID, start="board")  # screen grid: no action_masks()
    try:
        with pytest.raises(ConfigError, match="action_masks"):
            ActionMaskObservation(env)
    finally:
        env.close()


# --- ppo_config's checks and the zero-sample check -----------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"num_env_runners": -1}, "num_env_runners"),
        ({"num_env_runners": 1.5}, "num_env_runners"),
        ({"num_env_runners": True}, "num_env_runners"),
        ({"num_envs_per_env_runner": 0}, "num_envs_per_env_runner"),
        ({"train_batch_size": 10**9}, "train_batch_size"),
        ({"train_batch_size": 100, "minibatch_size": 200}, "minibatch_size"),
        ({"num_epochs": 0}, "num_epochs"),
        ({"sample_timeout_s": float("nan")}, "sample_timeout_s"),
        ({"sample_timeout_s": 0}, "sample_timeout_s"),
        ({"seed": -3}, "seed"),
        ({"seed": "0"}, "seed"),
        ({"masks": 1, "actions": "board"}, "masks"),
        ({"observation": "board", "start": "nowhere"}, "start"),
        ({"env_name": ""}, "name"),
    ],
)
def test_ppo_config_rejects_bad_settings_before_ray_starts(kwargs, field):
    _rllib()
    import ray

    with pytest.raises(ConfigError, match=field):
        ppo_config(ID, **kwargs)
    assert not ray.is_initialized()


def test_build_algo_needs_a_running_ray():
    _rllib()
    import ray

    config = ppo_config(ID, start="board", **TINY)
    assert not ray.is_initialized()
    with pytest.raises(ConfigError, match="Ray: not running"):
        build_algo(config)
    with pytest.raises(ConfigError, match="timeout_s"):
        build_algo(config, timeout_s=-1)
    assert not ray.is_initialized()


def test_check_sampled_fails_an_iteration_without_samples():
    with pytest.raises(WorkerError, match="sampled no env steps"):
        check_sampled(result={"env_runners": {"num_env_steps_sampled": 0}})
    with pytest.raises(WorkerError, match="sampled no env steps"):
        check_sampled(result={})  # no env runner reported at all
    assert check_sampled(result={"env_runners": {"num_env_steps_sampled": 200}}) is None


def test_ppo_config_describes_the_masked_run():
    _rllib()
    from puzzlegym.rl.rllib_module import MaskedPPOTorchRLModule

    config = ppo_config(ID, observation="board", actions="board", start="board", **TINY)
    assert config.env == "puzzlegym"
    assert config.env_config == {
        "id": ID,
        "observation": "board",
        "actions": "board",
        "start": "board",
    }
    assert config.num_env_runners == 1
    assert config.train_batch_size_per_learner == 200 and config.minibatch_size == 50
    assert config.restart_failed_env_runners is False and config.ignore_env_runner_failures is False
    assert config.rl_module_spec.module_class is MaskedPPOTorchRLModule
    assert config.observation_space["action_mask"].shape == (config.action_space.n,)
    unmasked = ppo_config(ID, start="board", **TINY)
    assert unmasked.rl_module_spec.module_class is not MaskedPPOTorchRLModule


# --- the masked PPO model -------------------------------------------------------------------


def test_masked_module_gives_masked_actions_probability_zero():
    _rllib()
    import torch
    from ray.rllib.core.columns import Columns

    from puzzlegym.rl.rllib_module import MaskedPPOTorchRLModule

    env = make_rllib_env(BOARD)
    try:
        module = MaskedPPOTorchRLModule(
            observation_space=env.observation_space, action_space=env.action_space, model_config={}
        )
        obs, _ = env.reset(seed=0)
    finally:
        env.close()
    n = env.action_space.n
    mask = np.zeros((3, n), np.float32)
    mask[0, 2] = 1.0  # one valid action
    mask[1, [0, 3]] = 1.0
    mask[2] = 1.0  # all valid: nothing lowered
    batch = {
        Columns.OBS: {
            "action_mask": torch.from_numpy(mask),
            "observations": torch.from_numpy(np.stack([obs["observations"]] * 3)),
        }
    }
    with torch.no_grad():
        for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
            logits = forward({Columns.OBS: dict(batch[Columns.OBS])})[Columns.ACTION_DIST_INPUTS]
            probs = torch.softmax(logits, dim=-1).numpy()
            np.testing.assert_array_equal(probs[mask == 0], 0.0)
            assert np.all(probs[mask == 1] > 0)
            np.testing.assert_allclose(probs.sum(axis=-1), 1.0, rtol=1e-6)
            assert probs[0, 2] == 1.0
        values = module.compute_values({Columns.OBS: dict(batch[Columns.OBS])})
    assert values.shape == (3,)
    assert torch.equal(values[0], values[2])  # the value function does not see the mask


def test_masked_module_refuses_an_unmasked_space():
    _rllib()
    from puzzlegym.rl.rllib_module import MaskedPPOTorchRLModule

    with pytest.raises(ConfigError, match="action_mask"):
        MaskedPPOTorchRLModule(
            observation_space=gym.spaces.Box(0, 1, (4,), np.float32),
            action_space=gym.spaces.Discrete(2),
            model_config={},
        )


# --- training on a local Ray instance with a remote env runner -----------------------------


class _FailsAtStep(gym.Wrapper):
    def __init__(self, env, at: int):
        super().__init__(env)
        self.at, self.steps = at, 0

    def step(self, action):
        self.steps += 1
        if self.steps == self.at:
            raise RuntimeError(f"env step {self.at} failed in the runner")
        return self.env.step(action)


def _fails_in_the_runner(config):
    if config.worker_index > 0:  # the driver (index 0) builds it; every remote runner fails
        raise RuntimeError("the env creator failed in the runner")
    return make_rllib_env(config)


def _step_fails(config):
    return _FailsAtStep(make_rllib_env(config), at=5)


@pytest.fixture(scope="module")
def local_ray():
    _rllib()
    from puzzlegym.rl.rllib import start_local_ray

    ray = start_local_ray(2, log_to_driver=False)
    from ray import cloudpickle
    from ray.tune.registry import register_env

    # this module's creators travel by value: the runners cannot import the tests
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    register_env("test-creator-fails", _fails_in_the_runner)
    register_env("test-step-fails", _step_fails)
    yield ray
    ray.shutdown()


def test_one_iteration_with_a_remote_env_runner_samples_and_learns(local_ray):
    config = ppo_config(
        ID,
        observation="board",
        actions="board",
        start="board",
        levels="generated",
        num_levels=20,
        start_level=0,
        **TINY,
    )
    algo = build_algo(config, timeout_s=120)
    try:
        assert algo.env_runner_group.num_remote_env_runners() == 1
        assert algo.env_runner_group.num_healthy_remote_workers() == 1
        result = algo.train()
    finally:
        algo.stop()
    assert [node["NodeManagerAddress"] for node in local_ray.nodes()] == ["127.0.0.1"]
    assert result["env_runners"]["num_env_steps_sampled"] == 200
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] == 200
    learner = result["learners"]["default_policy"]
    assert learner["num_module_steps_trained"] >= 200
    assert np.isfinite(learner["total_loss"]) and np.isfinite(learner["policy_loss"])


def test_an_env_creator_failing_in_the_runner_raises(local_ray):
    config = ppo_config(ID, observation="board", actions="board", start="board", **TINY)
    config.environment("test-creator-fails")
    with pytest.raises(RuntimeError, match="the env creator failed in the runner"):
        build_algo(config, timeout_s=120)


def test_an_env_step_failing_in_the_runner_raises_from_train(local_ray):
    from ray.exceptions import RayError

    config = ppo_config(ID, observation="board", actions="board", start="board", **TINY)
    config.environment("test-step-fails")
    algo = build_algo(config, timeout_s=120)
    try:
        # the runner exits on the error (its traceback goes to its log); train() raises
        with pytest.raises(RayError, match="SingleAgentEnvRunner"):
            algo.train()
    finally:
        algo.stop()


def test_with_rllibs_restarts_an_iteration_without_samples_still_raises(local_ray):
    """RLlib's default restarts a failed runner and returns an iteration of 0 samples after
    sample_timeout_s; check_sampled turns that into an error."""
    config = ppo_config(
        ID, observation="board", actions="board", start="board", sample_timeout_s=5.0, **TINY
    )
    config.environment("test-step-fails")
    config.fault_tolerance(restart_failed_env_runners=True, delay_between_env_runner_restarts_s=0.0)
    algo = build_algo(config, timeout_s=120)
    try:
        with pytest.raises(WorkerError, match="sampled no env steps"):
            algo.train()
    finally:
        algo.stop()


def test_env_runners_the_instance_cannot_place_raise_instead_of_waiting(local_ray):
    # 3 runners of 1 CPU on a 2-CPU instance: RLlib's build_algo() would wait forever
    config = ppo_config(
        ID, observation="board", actions="board", start="board", **{**TINY, "num_env_runners": 3}
    )
    with pytest.raises(WorkerError, match="3 env runners of {'CPU': 1.0} each could not be placed"):
        build_algo(config, timeout_s=3)
    from ray.util import placement_group_table

    # the placement group that waited is gone, not left pending for later runners
    assert {group["state"] for group in placement_group_table().values()} <= {"REMOVED"}
