"""One training run of the protocol (:mod:`puzzlegym.training.protocol`) on Stable-Baselines3,
a backend of the training core (:mod:`puzzlegym.training`): PPO or sb3-contrib's MaskablePPO
trained on generated levels, tested on both held-out sets (the catalogue, and the generated set
of :mod:`puzzlegym.training.heldout`, every level within twice its own solution), beside the
uniform and the masked-uniform random policy measured in the same run.

:func:`train` validates the whole :class:`TrainConfig` and builds the envs and the model
before it writes a file in ``out_dir`` (an error leaves it empty but for its ``.lock``,
so the directory stays usable), then writes there, in order:

* ``config.json``: the run's configuration (:meth:`TrainConfig.to_dict`);
* ``progress.csv``: SB3's training log; ``curve.csv``: the learning curve (train and test
  success of the sampled policy every ``curve_every`` steps, ``curve_episodes`` episodes per
  level);
* ``model.zip``, ``curve.png`` (the curve beside both random policies) and last
  ``result.json``: every figure (:func:`puzzlegym.training.results.summary` picks the
  headline ones); ``result["generated"]`` the generated held-out set's (the trained policy,
  sampled, and the masked random policy, ``episodes`` per level, intervals over levels and
  episodes).

With ``checkpoint_every``, training runs in segments of that many steps (rounded up to whole
rollouts, ``n_steps`` x ``n_envs``); each segment after the first starts its envs afresh
(``venv.seed(segment_seed(seed, k))``), and ``checkpoint.zip`` is saved after each
(:mod:`puzzlegym.rl.checkpoints`). ``train(..., resume=True)`` continues an unfinished run
of the same configuration from its checkpoint (from the start when it has none) and ends
with the figures an unbroken run has.

A run directory is never reused (:mod:`puzzlegym.training.rundir`: a finished run's
``result.json`` or an unfinished run's files refused; :mod:`puzzlegym.rl.sweep` moves those
aside and starts the run again), and it is locked while a run writes it. A run is a function of
its configuration: the seed fixes the model's initialisation, the envs' level draws, the
random policies and every evaluation, and torch runs ``torch_threads`` threads (1 by
default), so two runs of one configuration give the same figures (times apart).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gymnasium.spaces import Discrete

from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_count, check_number
from puzzlegym.base.jsonio import write_atomic, write_json
from puzzlegym.record.files import unused_path
from puzzlegym.rl import checkpoints
from puzzlegym.rl.vector import make_vector_env, set_torch_threads
from puzzlegym.training.config import RunConfig
from puzzlegym.training.heldout import GeneratedSet, generated_levels
from puzzlegym.training.protocol import (
    MAX_EPISODES,
    LevelEnvs,
    Protocol,
    masks,
    play_levels,
    policy_chooser,
    random_chooser,
)
from puzzlegym.training.results import Curve, dead_end_phases, figures
from puzzlegym.training.rundir import check_dir, open_run, write_config
from puzzlegym.wrappers.sb3 import POLICIES, check_sb3_env, make_sb3_env, observation_kind

__all__ = ["ALGOS", "EXTRACTORS", "HYPERPARAMETERS", "TrainConfig", "train"]

ALGOS = ("maskable_ppo", "ppo")
VECS = ("dummy", "subproc", "sb3_batched")
EXTRACTORS = ("flatten", "board_cnn")
MAX_ENVS = 256
MAX_LAYER = 4096
MAX_THREADS = 256
# PPO's hyperparameters a config may set, with their bounds (integers where the bound is)
HYPERPARAMETERS: dict[str, tuple[type, float, float]] = {
    "n_steps": (int, 2, 1_000_000),
    "batch_size": (int, 2, 1_000_000),
    "n_epochs": (int, 1, 1000),
    "learning_rate": (float, 0.0, 1.0),
    "gamma": (float, 0.0, 1.0),
    "gae_lambda": (float, 0.0, 1.0),
    "clip_range": (float, 0.0, 10.0),
    "ent_coef": (float, 0.0, 10.0),
    "vf_coef": (float, 0.0, 10.0),
    "max_grad_norm": (float, 0.0, 1e6),
}


def _int(value: Any, name: str, lo: int, hi: int) -> int:
    return check_count(value, name, lo, hi, ConfigError)


@dataclass(frozen=True)
class TrainConfig(RunConfig):
    """Everything an SB3 run depends on (each field checked on construction; errors name it):
    the fields every trainer shares (:class:`~puzzlegym.training.config.RunConfig`: protocol,
    timesteps, seed, episodes, curve_every, checkpoint_every, the generated held-out set,
    progress) and the learner's.

    ``algo`` ``maskable_ppo`` (board actions' masks) or ``ppo``; ``policy`` None is the
    observation's (``MlpPolicy`` for the symbolic board, ``CnnPolicy`` for pixels);
    ``extractor`` ``flatten`` (SB3's default for ``MlpPolicy``) or ``board_cnn``
    (:class:`puzzlegym.rl.extractors.BoardCNN`, 3x3 convolutions over the board's planes, with
    ``MlpPolicy`` on the symbolic board); ``net_arch`` the policy and value layers;
    ``hyperparameters`` PPO's (:data:`HYPERPARAMETERS`); ``episodes`` per level in the final
    evaluations of the random and the sampled trained policy (the greedy one plays each level
    once: the env is deterministic), ``curve_episodes`` per level at each point of the learning
    curve; ``checkpoint_every`` (None: none) the steps between checkpoints (rounded up to whole
    rollouts: see the module docstring)."""

    algo: str = "maskable_ppo"
    policy: str | None = None
    extractor: str = "flatten"
    net_arch: tuple[int, ...] = (64, 64)
    n_envs: int = 8
    vec: str = "dummy"
    hyperparameters: dict = field(default_factory=dict)
    curve_episodes: int = 2
    torch_threads: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.algo not in ALGOS:
            raise ConfigError(
                f"algo: {shown(self.algo)} is not allowed; allowed: {', '.join(ALGOS)}"
            )
        if self.policy is not None and self.policy not in POLICIES.values():
            raise ConfigError(
                f"policy: {shown(self.policy)} is not allowed; "
                f"allowed: null, {', '.join(POLICIES.values())}"
            )
        if self.extractor not in EXTRACTORS:
            raise ConfigError(
                f"extractor: {shown(self.extractor)} is not allowed; "
                f"allowed: {', '.join(EXTRACTORS)}"
            )
        net = self.net_arch
        if not isinstance(net, (list, tuple)) or not 0 <= len(net) <= 8:
            raise ConfigError(
                f"net_arch: expected a list of at most 8 layer sizes, got {shown(net)}"
            )
        for i, n in enumerate(net):
            _int(n, f"net_arch[{i}]", 1, MAX_LAYER)
        object.__setattr__(self, "net_arch", tuple(net))
        _int(self.n_envs, "n_envs", 1, MAX_ENVS)
        if self.vec not in VECS:
            raise ConfigError(f"vec: {shown(self.vec)} is not allowed; allowed: {', '.join(VECS)}")
        if not isinstance(self.hyperparameters, dict):
            raise ConfigError(
                f"hyperparameters: expected a mapping, got {shown(self.hyperparameters)}"
            )
        for key, value in self.hyperparameters.items():
            if key not in HYPERPARAMETERS:
                raise ConfigError(
                    f"hyperparameters.{key}: not allowed; allowed: {', '.join(HYPERPARAMETERS)}"
                )
            kind, lo, hi = HYPERPARAMETERS[key]
            if kind is int:
                _int(value, f"hyperparameters.{key}", int(lo), int(hi))
            else:
                check_number(value, f"hyperparameters.{key}", lo, hi, ConfigError)
        _int(self.curve_episodes, "curve_episodes", 1, MAX_EPISODES)
        _int(self.torch_threads, "torch_threads", 1, MAX_THREADS)
        if (
            self.algo == "maskable_ppo"
            and self.protocol.wrappers.get("actions", "board") != "board"
        ):
            raise ConfigError(
                "algo: maskable_ppo needs board actions (wrappers.actions='board'); use algo='ppo'"
            )

    @property
    def masked(self) -> bool:
        return self.algo == "maskable_ppo"

    def to_dict(self) -> dict:
        return {
            **self.run_dict(),
            "algo": self.algo,
            "policy": self.policy,
            "extractor": self.extractor,
            "net_arch": list(self.net_arch),
            "n_envs": self.n_envs,
            "vec": self.vec,
            "hyperparameters": dict(self.hyperparameters),
            "curve_episodes": self.curve_episodes,
            "torch_threads": self.torch_threads,
        }

    @classmethod
    def from_dict(cls, doc: Any, progress: bool = True) -> TrainConfig:
        """A config from :meth:`to_dict`'s form (``protocol`` a mapping of
        :class:`Protocol`'s fields); unknown keys are refused by name."""
        if not isinstance(doc, dict):
            raise ConfigError(f"config: expected a mapping, got {shown(doc)}")
        doc = dict(doc)
        proto = doc.pop("protocol", None)
        if not isinstance(proto, dict):
            raise ConfigError(
                f"protocol: expected a mapping with at least env_id, got {shown(proto)}"
            )
        allowed = (
            "env_id",
            "num_levels",
            "start_level",
            "budget_multiple",
            "train_levels",
            "wrappers",
            "env_kwargs",
        )
        for key in proto:
            if key not in allowed:
                raise ConfigError(f"protocol.{key}: unknown key; allowed: {', '.join(allowed)}")
        if "env_id" not in proto:
            raise ConfigError("protocol.env_id: missing (e.g. LongPuzzle/MazePaint-Easy)")
        fields_ = [f for f in cls.__dataclass_fields__ if f not in ("protocol", "progress")]
        for key in doc:
            if key not in fields_:
                raise ConfigError(f"{key}: unknown key; allowed: protocol, {', '.join(fields_)}")
        return cls(protocol=Protocol(**proto), progress=progress, **doc)


def _policy_kwargs(config: TrainConfig, kind: str) -> dict:
    out: dict[str, Any] = {"net_arch": list(config.net_arch)}
    if config.extractor == "board_cnn":
        if kind != "board":
            raise ConfigError(
                "extractor: board_cnn reads the symbolic board (wrappers.observation='board')"
            )
        from puzzlegym.rl.extractors import BoardCNN

        out["features_extractor_class"] = BoardCNN
    return out


def _callbacks(config: TrainConfig, measure: Callable[[int], None] | None):
    from stable_baselines3.common.callbacks import BaseCallback

    every = config.curve_every

    class Progress(BaseCallback):
        """A tqdm bar over the training steps (SB3's own bar needs ``rich``)."""

        def _on_training_start(self) -> None:
            from tqdm import tqdm

            self.bar = tqdm(
                total=config.timesteps,
                unit="step",
                desc="training",
                disable=not config.progress,
                mininterval=1.0,
            )

        def _on_step(self) -> bool:
            self.bar.update(self.training_env.num_envs)
            return True

        def _on_training_end(self) -> None:
            self.bar.close()

    class Curve(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next_at = 0

        def _on_step(self) -> bool:
            if measure is not None and every is not None and self.num_timesteps >= self.next_at:
                measure(self.num_timesteps)
                self.next_at = self.num_timesteps + every
            return True

    return [Progress()] + ([Curve()] if measure is not None else [])


RL_MODULES = ("torch", "stable_baselines3", "sb3_contrib")  # what the rl extra installs
RL_INSTALL = (
    "install the rl extra: pip install 'torch==2.13.0' --index-url "
    "https://download.pytorch.org/whl/cpu (the CPU build), then pip install -e '.[rl]' "
    "(scripts/setup.sh dev does both)"
)


def require_rl_extra() -> None:
    """Raise a :class:`ConfigError` naming the missing module and how to install the rl extra,
    unless its packages (:data:`RL_MODULES`) import."""
    for name in RL_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            missing = exc.name or name
            raise ConfigError(
                f"training needs the rl extra (no module named {missing!r}); {RL_INSTALL}"
            ) from None


def train(
    config: TrainConfig,
    out_dir: str | Path,
    log: Callable[[str], None] = print,
    resume: bool = False,
) -> dict:
    """Run ``config`` into ``out_dir`` (see the module docstring), or continue the unfinished
    run there from its checkpoint (``resume``); returns the result (also written to
    ``out_dir/result.json``). Without the rl extra, a :class:`ConfigError` says how to
    install it, before anything is written."""
    if not isinstance(config, TrainConfig):
        raise ConfigError(f"config: expected a TrainConfig, got {shown(config)}")
    if not isinstance(resume, bool):
        raise ConfigError(f"resume: expected true or false, got {shown(resume)}")
    require_rl_extra()
    out = Path(out_dir)
    doc = _config_doc(config)
    check_dir(out, doc, resume)
    threads = set_torch_threads(config.torch_threads)
    proto = config.protocol
    probe = make_sb3_env(
        proto.env_id, **proto.train_kwargs()
    )  # validates wrappers and env keywords
    try:
        kind = observation_kind(probe)
        policy = config.policy or POLICIES[kind]
        check_sb3_env(probe, policy=policy)
        if config.masked and masks(probe) is None:
            raise ConfigError("algo: maskable_ppo needs an env with action_masks() (board actions)")
        assert isinstance(probe.action_space, Discrete)  # make_sb3_env's action spaces
        observation_shape, n_actions = (
            list(probe.observation_space.shape or ()),
            int(probe.action_space.n),
        )
    finally:
        probe.close()
    policy_kwargs = _policy_kwargs(config, kind)
    test_levels = proto.test_levels()
    train_levels = proto.training_levels()
    generated = (
        generated_levels(
            proto, config.heldout_generated_start, config.heldout_generated, config.progress
        )
        if config.heldout_generated
        else None
    )
    with open_run(out, doc, resume):
        return _run(
            config,
            out,
            log,
            threads=threads,
            policy=policy,
            policy_kwargs=policy_kwargs,
            observation_shape=observation_shape,
            n_actions=n_actions,
            test_levels=test_levels,
            train_levels=train_levels,
            generated=generated,
            resume=resume,
        )


def _run(
    config: TrainConfig,
    out: Path,
    log,
    *,
    threads,
    policy,
    policy_kwargs,
    observation_shape,
    n_actions,
    test_levels,
    train_levels,
    generated: GeneratedSet | None,
    resume: bool = False,
) -> dict:
    proto, seed = config.protocol, config.seed
    t0 = time.perf_counter()
    result: dict[str, Any] = {
        "config": config.to_dict(),
        "env_id": proto.env_id,
        "policy": policy,
        "torch_threads": threads,
        "observation_shape": observation_shape,
        "actions": n_actions,
        "test_levels": [vars(t) for t in test_levels],
        "train_levels": [vars(t) for t in train_levels],
        "train_budget_actions": proto.train_budget_actions(),
    }
    envs = LevelEnvs(proto)
    eval_seed = seed * 1_000_003 + 10_000

    def evaluate(choose, episodes: int, offset: int) -> dict:
        return {
            "test": play_levels(envs, test_levels, choose, episodes, eval_seed + offset),
            "train": play_levels(
                envs, train_levels, choose, episodes, eval_seed + offset + 500_000
            ),
        }

    from stable_baselines3.common.logger import CSVOutputFormat, Logger
    from stable_baselines3.common.vec_env import VecMonitor

    # the learner first (an error in its settings leaves the directory empty); the random
    # evaluations below use their own generators and the envs' seeds, not torch's
    venv = VecMonitor(
        make_vector_env(
            proto.env_id, config.n_envs, kind=config.vec, seed=seed, **proto.train_kwargs()
        )
    )
    try:
        Algo: Callable[..., Any]
        if config.masked:
            from sb3_contrib import MaskablePPO as Algo
        else:
            from stable_baselines3 import PPO as Algo
        model = Algo(
            policy,
            venv,
            seed=seed,
            verbose=0,
            policy_kwargs=policy_kwargs,
            **config.hyperparameters,
        )
    except Exception:
        venv.close()
        raise
    venv_open = [True]
    try:
        doc = _config_doc(config)
        ckpt_path = out / checkpoints.CHECKPOINT
        segment = 0
        book: dict[str, Any] = {}
        if resume and ckpt_path.exists():
            segment, book = checkpoints.load(ckpt_path, model, doc, config.timesteps)
            book["resumed_at"] = [*book.get("resumed_at", []), int(model.num_timesteps)]
            log(f"resumed at {model.num_timesteps} steps (segment {segment})")
        if not resume:
            write_config(out, doc)
        # SB3's CSV logger truncates its file: a resumed run logs to progress-2.csv, ...
        progress_csv = unused_path(
            out / "progress", taken=lambda p: p.with_suffix(".csv").exists()
        ).with_suffix(".csv")
        model.set_logger(Logger(str(out), [CSVOutputFormat(str(progress_csv))]))
        phases: dict[str, dict] = book.get("phases") or {}
        if not phases:
            phases["random_uniform"] = evaluate(random_chooser(seed, False), config.episodes, 0)
            phases["random_masked"] = evaluate(random_chooser(seed + 1, True), config.episodes, 0)
        log(
            f"random policy: held-out success {phases['random_uniform']['test']['success']:.2f} "
            f"(uniform), {phases['random_masked']['test']['success']:.2f} "
            "(uniform over the mask); "
            f"train levels {phases['random_uniform']['train']['success']:.2f}, "
            f"{phases['random_masked']['train']['success']:.2f}"
        )
        curve = Curve(out / "curve.csv", book.get("curve"))
        t1 = time.perf_counter() - float(book.get("elapsed_s", 0.0))
        curve_s = [float(book.get("curve_s", 0.0))]

        def measure(timesteps: int) -> None:
            t = time.perf_counter()
            choose = policy_chooser(model, False, config.masked)
            row = evaluate(choose, config.curve_episodes, 1_000 + len(curve.rows) * 100)
            curve_s[0] += time.perf_counter() - t
            curve.add(
                {
                    "timesteps": timesteps,
                    "train_success": round(row["train"]["success"], 4),
                    "test_success": round(row["test"]["success"], 4),
                    "elapsed_s": round(time.perf_counter() - t1, 1),
                }
            )

        callbacks = _callbacks(config, measure if config.curve_every is not None else None)
        if len(callbacks) > 1:
            callbacks[1].next_at = int(book.get("curve_next_at", 0))
        length = _segment_steps(config, model)
        while model.num_timesteps < config.timesteps:
            if segment > 0:  # each segment starts its envs afresh, from seeds of its own
                venv.seed(segment_seed(seed, segment))
                model._last_obs = None
            target = min(config.timesteps, (segment + 1) * length)
            model.learn(
                total_timesteps=max(1, target - model.num_timesteps),
                callback=callbacks,
                reset_num_timesteps=False,
            )
            segment += 1
            if config.checkpoint_every is not None:
                book = {
                    "phases": phases,
                    "curve": curve.rows,
                    "curve_next_at": callbacks[1].next_at if len(callbacks) > 1 else 0,
                    "curve_s": curve_s[0],
                    "elapsed_s": time.perf_counter() - t1,
                    "resumed_at": book.get("resumed_at", []),
                }
                checkpoints.save(ckpt_path, model, doc, segment, book)
        venv_open[0] = False
        venv.close()
        if config.curve_every is not None and (
            not curve.rows or curve.rows[-1]["timesteps"] != model.num_timesteps
        ):
            measure(model.num_timesteps)
        train_s = time.perf_counter() - t1 - curve_s[0]
        phases["trained"] = evaluate(
            policy_chooser(model, False, config.masked), config.episodes, 0
        )
        # the greedy policy on a deterministic env: one episode per level says it all
        phases["trained_greedy"] = evaluate(policy_chooser(model, True, config.masked), 1, 0)
        if generated is not None:
            held: dict[str, Any] = {"set": generated.to_dict()}
            players = (
                ("trained", policy_chooser(model, False, config.masked)),
                ("random_masked", random_chooser(seed + 3, True)),
            )
            for name, choose in players:
                played = play_levels(
                    envs, generated.levels, choose, config.episodes, eval_seed + 700_000
                )
                held[name] = figures(played["per_level"], config.episodes, over_levels=True)
            result["generated"] = held
        write_atomic(out / "model.zip", lambda tmp: model.save(str(tmp)))
    finally:
        envs.close()
        if venv_open[0]:
            venv.close()
    result.update(dead_end_phases(phases, proto.game.name))
    result.update(
        {
            "resumed_at": book.get("resumed_at", []),
            "timesteps": int(model.num_timesteps),
            "train_s": round(train_s, 1),
            "train_fps": round(model.num_timesteps / max(train_s, 1e-9), 1),
            "curve_s": round(curve_s[0], 1),
            "curve": curve.rows,
            "total_s": round(time.perf_counter() - t0, 1),
        }
    )
    if curve.rows:
        from puzzlegym.training.plots import plot_run

        write_atomic(out / "curve.png", lambda tmp: plot_run(result, tmp))
    log(
        f"trained policy: held-out success {result['trained']['test']['success']:.2f} (sampled), "
        f"{result['trained_greedy']['test']['success']:.2f} (greedy); train levels "
        f"{result['trained']['train']['success']:.2f} after {model.num_timesteps} steps "
        f"({result['train_s']} s, {result['train_fps']} steps/s)"
    )
    write_json(out / "result.json", result)
    return result


def _config_doc(config: TrainConfig) -> dict:
    """The configuration as ``config.json`` holds it (JSON's types)."""
    import json

    return json.loads(json.dumps(config.to_dict()))


def _segment_steps(config: TrainConfig, model: Any) -> int:
    """The steps of one training segment: ``checkpoint_every`` rounded up to whole rollouts
    (``n_steps`` x ``n_envs``), or the whole run without checkpoints."""
    if config.checkpoint_every is None:
        return config.timesteps
    rollout = int(model.n_steps) * int(model.n_envs)
    return -(-config.checkpoint_every // rollout) * rollout


def segment_seed(seed: int, segment: int) -> int:
    """The envs' seed at the start of training segment ``segment`` (> 0)."""
    return (seed * 1_000_003 + segment * 7_919) % 2**31
