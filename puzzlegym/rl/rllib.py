"""RLlib (Ray's RL library): puzzlegym's envs as an RLlib env and a PPO configuration that
trains on them, on a local Ray instance or a cluster.

* :func:`make_rllib_env` is the env creator (``ray.tune.registry.register_env``; registered
  as :data:`ENV_NAME` by :func:`register_rllib_env`): ``make_sb3_env``'s stack with the
  observations RLlib's default models take (``float32`` in [0, 1]: the symbolic board
  flattened for the MLP, pixels ``(H, W, C)`` for the CNN) and, with board actions, the
  action mask inside a ``Dict`` observation (:class:`~puzzlegym.wrappers.ActionMaskObservation`).
* :func:`ppo_config` returns a configured ``PPOConfig`` (RLlib's new API stack): the env and
  its spaces checked on the driver first, a masked PPO model
  (:class:`~puzzlegym.rl.rllib_module.MaskedPPOTorchRLModule`) when masked, env
  runner failures raised rather than restarted, and :func:`check_sampled`, which fails an
  iteration that sampled no env step instead of letting it return zero samples.
* :func:`build_algo` builds it once the cluster can place its env runners, waiting a bounded
  time (RLlib's own ``build_algo()`` waits forever for runners that cannot be scheduled).
* :func:`~puzzlegym.evaluation.distributed.start_local_ray` starts a local Ray instance
  bound to 127.0.0.1 (re-exported here).

Needs the ``rllib`` extra (``ray[rllib]``; it pins its own Gymnasium, inside ours).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from puzzlegym.base.errors import ConfigError, WorkerError, shown
from puzzlegym.base.fields import MAX_SEED, check_count, check_number
from puzzlegym.evaluation.distributed import start_local_ray
from puzzlegym.game.registry import env_ids
from puzzlegym.wrappers.action_mask import ActionMaskObservation
from puzzlegym.wrappers.sb3 import make_sb3_env, observation_kind

__all__ = [
    "ENV_NAME",
    "LIMITS",
    "build_algo",
    "check_sampled",
    "make_rllib_env",
    "ppo_config",
    "register_rllib_env",
    "rllib_observations",
    "start_local_ray",
]

ENV_NAME = "puzzlegym"  # the name make_rllib_env is registered under
_INSTALL = "install the rllib extra: pip install 'puzzlegym[rllib]'"
# bounds of ppo_config's numbers: (smallest, largest)
LIMITS: dict[str, tuple[float, float]] = {
    "num_env_runners": (0, 1024),
    "num_envs_per_env_runner": (1, 256),
    "train_batch_size": (1, 10_000_000),
    "minibatch_size": (1, 10_000_000),
    "num_epochs": (1, 1000),
    "sample_timeout_s": (0.001, 86_400.0),
    "timeout_s": (0.001, 86_400.0),
}


def rllib_observations(env: gym.Env) -> gym.Env:
    """``env``'s observations (``make_sb3_env``'s uint8 ``Box``) as RLlib's default models
    take them: ``float32`` in [0, 1]. The symbolic board (0/1 planes ``(C, H, W)``) is
    flattened to ``(C * H * W,)`` for the MLP encoder (RLlib reads any 3-D ``Box`` as an
    ``(H, W, C)`` image); pixels stay ``(H, W, C)``, divided by 255, for the CNN encoder
    (whose default filters fit 84x84, 64x64, 42x42 and 10x10; other sizes need
    ``model_config={"conv_filters": ...}``)."""
    if observation_kind(env) == "board":
        env = gym.wrappers.DtypeObservation(env, np.float32)
        return gym.wrappers.FlattenObservation(env)
    env = gym.wrappers.DtypeObservation(env, np.float32)
    return gym.wrappers.RescaleObservation(env, np.float32(0.0), np.float32(1.0))


def _masks(options: Mapping[str, Any]) -> bool:
    masks = options.get("masks")
    actions = options.get("actions", "grid")
    if masks is None:
        return actions == "board"
    if not isinstance(masks, bool):
        raise ConfigError(f"masks: expected true, false or null, got {shown(masks)}")
    if masks and actions != "board":
        raise ConfigError(
            "masks: need actions='board' (the board targets have masks), "
            f"got actions={shown(actions)}"
        )
    return masks


def make_rllib_env(config: Mapping[str, Any]) -> gym.Env:
    """The env creator: ``config`` (RLlib's ``env_config``, an ``EnvContext``) holds ``id``
    (a registered ``LongPuzzle/...`` id), optionally ``masks`` (default: true with
    ``actions="board"``) and ``make_sb3_env``'s keywords (``observation``, ``actions``,
    ``size``, ...) and ``gym.make``'s (``start``, ``levels``, ``num_levels``,
    ``start_level``, ``budget_s``, ...).

    The env is ``make_sb3_env(id, ...)`` with :func:`rllib_observations`, then, when masked,
    :class:`~puzzlegym.wrappers.ActionMaskObservation`: ``Dict({"action_mask": ...,
    "observations": ...})``, the form of RLlib's action-masking RLModule
    (:func:`ppo_config` uses it)."""
    if not isinstance(config, Mapping):
        raise ConfigError(f"env_config: expected a mapping, got {type(config).__name__}")
    options = dict(config)
    env_id = options.pop("id", None)
    if env_id is None:
        raise ConfigError(f"id: env_config needs the env id; allowed: {', '.join(env_ids())}")
    if not isinstance(env_id, str) or env_id not in env_ids():
        raise ConfigError(f"id: {shown(env_id)} is not registered; allowed: {', '.join(env_ids())}")
    masks = _masks(options)
    options.pop("masks", None)
    env = make_sb3_env(env_id, **options)
    try:
        env = rllib_observations(env)
        return ActionMaskObservation(env) if masks else env
    except Exception:
        env.close()
        raise


def _check_name(name: Any) -> None:
    if not isinstance(name, str) or not name or len(name) > 200:
        raise ConfigError(
            f"name: expected a non-empty string of at most 200 characters, got {shown(name)}"
        )


def register_rllib_env(name: str = ENV_NAME) -> str:
    """Register :func:`make_rllib_env` with Ray Tune's registry as ``name`` (what
    ``PPOConfig().environment(name, env_config=...)`` names); returns ``name``."""
    _check_name(name)
    try:
        from ray.tune.registry import register_env
    except ImportError:
        raise ConfigError(f"RLlib: needs ray[rllib]; {_INSTALL}") from None
    register_env(name, make_rllib_env)
    return name


def check_sampled(*, result: dict, **kwargs: Any) -> None:
    """RLlib ``on_train_result`` callback: raise :class:`~puzzlegym.base.errors.WorkerError` when
    the training iteration sampled no env step. RLlib returns such an iteration silently when
    no env runner answers within ``sample_timeout_s`` (a runner that hangs, or one being
    restarted after a crash)."""
    runners = result.get("env_runners") or {}
    sampled = runners.get("num_env_steps_sampled", 0)
    if not sampled:
        raise WorkerError(
            "RLlib: this training iteration sampled no env steps: no env runner returned a "
            "sample within sample_timeout_s (a runner that died, hangs or was restarted); see "
            "the env runners' logs, raise sample_timeout_s, or lower the env's cost per step"
        )


def _number(name: str, value: Any, integer: bool = True) -> Any:
    low, high = LIMITS[name]
    if integer:
        return check_count(value, name, int(low), int(high), ConfigError)
    return check_number(value, name, low, high, ConfigError)


def ppo_config(
    env_id: str,
    *,
    num_env_runners: int = 1,
    num_envs_per_env_runner: int = 1,
    train_batch_size: int = 4000,
    minibatch_size: int = 128,
    num_epochs: int = 10,
    sample_timeout_s: float = 60.0,
    seed: int | None = None,
    env_name: str = ENV_NAME,
    **env_options: Any,
):
    """A ``ray.rllib.algorithms.ppo.PPOConfig`` that trains on ``env_id``; build it with
    :func:`build_algo` (or RLlib's ``.build_algo()``) and call ``.train()``, or hand it to
    ``ray.tune.Tuner``. Every setting
    is checked, and one env is built on the driver (its errors raised here, its spaces given
    to RLlib), before anything starts.

    ``env_options`` go to :func:`make_rllib_env` (``observation="board"``,
    ``actions="board"``, ``levels="generated"``, ``num_levels``, ``start_level``,
    ``start="board"``, ``masks``, ...). Masked envs train with
    :class:`~puzzlegym.rl.rllib_module.MaskedPPOTorchRLModule` (PPO's default model; the
    logits of masked actions lowered to the most negative float before sampling and in the
    loss).

    ``num_env_runners`` remote env runners (0: sampling in the driver) with
    ``num_envs_per_env_runner`` envs each; ``train_batch_size`` env steps per iteration,
    ``num_epochs`` passes of ``minibatch_size``; ``seed`` seeds RLlib (and the envs' resets).
    An env runner that fails raises from ``build_algo()`` or ``train()`` (RLlib's default
    would restart it and return an iteration with no samples); an iteration whose runners
    return no sample within ``sample_timeout_s`` raises too (:func:`check_sampled`)."""
    num_env_runners = _number("num_env_runners", num_env_runners)
    num_envs_per_env_runner = _number("num_envs_per_env_runner", num_envs_per_env_runner)
    train_batch_size = _number("train_batch_size", train_batch_size)
    minibatch_size = _number("minibatch_size", minibatch_size)
    num_epochs = _number("num_epochs", num_epochs)
    sample_timeout_s = float(_number("sample_timeout_s", sample_timeout_s, integer=False))
    if minibatch_size > train_batch_size:
        raise ConfigError(
            f"minibatch_size: {minibatch_size} is larger than train_batch_size ({train_batch_size})"
        )
    _check_name(env_name)
    check_count(seed, "seed", 0, MAX_SEED, ConfigError, optional=True)
    env_config = {"id": env_id, **env_options}
    masks = _masks(env_config)
    env = make_rllib_env(env_config)
    try:
        observation_space, action_space = env.observation_space, env.action_space
    finally:
        env.close()
    try:
        from ray.rllib.algorithms.ppo import PPOConfig
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    except ImportError:
        raise ConfigError(f"RLlib: needs ray[rllib]; {_INSTALL}") from None
    register_rllib_env(env_name)
    config = (
        PPOConfig()
        .environment(
            env_name,
            env_config=env_config,
            observation_space=observation_space,
            action_space=action_space,
        )
        .framework("torch")
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=num_envs_per_env_runner,
            sample_timeout_s=sample_timeout_s,
        )
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
        )
        .fault_tolerance(restart_failed_env_runners=False, ignore_env_runner_failures=False)
        .callbacks(on_train_result=check_sampled)
        .debugging(seed=seed)
    )
    if masks:
        from puzzlegym.rl.rllib_module import MaskedPPOTorchRLModule

        config.rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedPPOTorchRLModule))
    return config


def build_algo(config, timeout_s: float = 300.0):
    """``config.build_algo()`` once the Ray cluster can place the env runners' resources:
    a placement group of one bundle per runner (``num_cpus_per_env_runner`` CPUs,
    ``num_gpus_per_env_runner`` GPUs, ``custom_resources_per_env_runner``) must be ready
    within ``timeout_s`` seconds (an autoscaler may add nodes meanwhile), else
    :class:`~puzzlegym.base.errors.WorkerError` names what was asked and what the cluster has.
    RLlib's own ``build_algo()`` waits forever for runners that cannot be scheduled (3 runners
    of 1 CPU on a 2-CPU instance). Ray must be running (:func:`start_local_ray` or
    ``ray.init(address=...)``)."""
    timeout_s = float(_number("timeout_s", timeout_s, integer=False))
    try:
        import ray
        from ray.exceptions import GetTimeoutError
        from ray.util.placement_group import placement_group, remove_placement_group
    except ImportError:
        raise ConfigError(f"RLlib: needs ray[rllib]; {_INSTALL}") from None
    if not ray.is_initialized():
        raise ConfigError(
            "Ray: not running; start it first: puzzlegym.rl.rllib.start_local_ray() on one "
            "machine, or ray.init(address=...) to join a cluster"
        )
    runners = int(config.num_env_runners)
    if runners:
        bundle = {"CPU": float(config.num_cpus_per_env_runner)}
        if config.num_gpus_per_env_runner:
            bundle["GPU"] = float(config.num_gpus_per_env_runner)
        bundle.update(
            {k: float(v) for k, v in (config.custom_resources_per_env_runner or {}).items()}
        )
        group = placement_group([dict(bundle) for _ in range(runners)])
        try:
            ray.get(group.ready(), timeout=timeout_s)
        except GetTimeoutError:
            raise WorkerError(
                f"RLlib: {runners} env runners of {bundle} each could not be placed within "
                f"{timeout_s:g} s; the cluster has {ray.cluster_resources()}: lower "
                "num_env_runners or add resources"
            ) from None
        finally:
            remove_placement_group(group)
    return config.build_algo()
