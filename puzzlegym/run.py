"""``python -m puzzlegym.run``: one Hydra app composing env, wrappers, agent and experiment
configs shipped inside the package (``puzzlegym.configs``, the repository's ``configs/``).

* A GUI agent (``agent=solver``, ``agent=random``, ``agent=openai`` with its ``options``,
  ``agent.name=module:callable``; configs with ``kind: play`` or no kind) plays one episode on
  the raw env (``wrappers=none``) and prints its result as one JSON line (files under
  ``out_dir``).
* A training agent (``agent=maskable_ppo``, ``agent=ppo``; ``kind: train``) runs the
  training protocol (:mod:`puzzlegym.training.protocol`, :func:`puzzlegym.rl.train.train`): trains
  through the wrappers (``wrappers=board``: the symbolic board, ``wrappers=rl``: pixels) on
  generated levels (``agent.protocol``: ``num_levels``, ``start_level``, ``budget_multiple``,
  ``train_levels``), tests on the catalogue beside both random policies, and prints their
  success rates, then the headline figures as one JSON line (``out_dir``: config.json,
  progress.csv, curve.csv, curve.png, model.zip, result.json).

Examples::

    python -m puzzlegym.run env=maze_paint_hard agent=random max_steps=50
    python -m puzzlegym.run +experiment=generated_levels env=maze_paint_medium seed=7
    python -m puzzlegym.run agent=maskable_ppo wrappers=board env=rush_hour_easy seed=1
    python -m puzzlegym.run +experiment=ppo_maze_paint            # the PPO run of the README
    python -m puzzlegym.run --cfg job                             # the composed config

* ``+experiment=rq2`` / ``+experiment=rq4`` set a ``study`` section: the dead-end lab's RQ2
  takeovers or RQ4 sessions run into ``out_dir`` (:func:`puzzlegym.lab.study.run_study`).

``examples/train_ppo.py`` is the same app with ``configs/train_ppo.yaml`` as primary config,
and ``puzzlegym train [OVERRIDES]`` composes ``agent=maskable_ppo wrappers=board`` with the
overrides and runs it.
"""

from __future__ import annotations

import json
import sys
from typing import Any, cast

import hydra
from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf

from puzzlegym.base.errors import ConfigError, PuzzleGymError
from puzzlegym.game.registry import games

CONFIG_PATH = "pkg://puzzlegym.configs"
# every env keyword of the env configs, at the env's default (gym.make(id, **kwargs))
ENV_CONFIG_KWARGS = {
    "backend": "native",  # "native" (in-process) or "browser" (a real Chromium page)
    "start": "home",  # "home" (navigate the suite) or "board" (start on the first target level)
    "level": None,  # None: the whole tier; k: only level k (1-based)
    "clock": "sim",  # "sim" (each action costs action_cost_s) or "wall"
    "budget_s": 3600,  # the episode's time budget in seconds; it truncates when spent
    "reward": "potential",  # "potential" (shaped) or "sparse" (1 per level won)
    "levels": "catalogue",  # "catalogue" (the test levels) or "generated" (training levels)
    "num_levels": None,  # generated: level seeds start_level + i mod num_levels (None, 0: all)
    "start_level": None,  # generated: the first level seed (None: 0)
}


def env_config_name(game_package: str, tier: str) -> str:
    """The ``env`` group's config name of an objective: the game package's last part and the
    tier, ``maze_paint_easy``."""
    return f"{game_package.rpartition('.')[2]}_{tier.lower()}"


def register_env_configs() -> dict[str, str]:
    """Store one ``env`` config per registered objective in Hydra's config store (``env=
    maze_paint_easy``, a plugin game's ``env=<package>_<tier>``): its id and every keyword at
    its default. Returns config name -> id."""
    store = ConfigStore.instance()
    out = {}
    for game in games().values():
        for tier in game.tiers:
            name = env_config_name(game.package, tier)
            node = {"id": game.env_id(tier), "kwargs": dict(ENV_CONFIG_KWARGS)}
            store.store(group="env", name=name, node=node)
            out[name] = game.env_id(tier)
    return out


ENV_CONFIGS = register_env_configs()
KINDS = ("play", "train")
_WRAPPER_KEYS = (
    "observation",
    "actions",
    "buttons",
    "scale",
    "size",
    "fit",
    "grayscale",
    "grid",
    "view",
)


def _section(node: Any, where: str) -> dict[str, Any]:
    """A config section as a plain dict, resolved (``where`` names it in the error)."""
    out = OmegaConf.to_container(node, resolve=True)
    if not isinstance(out, dict):
        raise ConfigError(f"{where}: expected a mapping, got {type(out).__name__}")
    return cast(dict[str, Any], out)


def wrapper_kwargs(cfg: DictConfig) -> dict[str, Any]:
    """``make_sb3_env``'s wrapper keywords from the ``wrappers`` group."""
    wrappers = _section(cfg.wrappers, "wrappers")
    unknown = sorted(set(wrappers) - {"name", *_WRAPPER_KEYS})
    if unknown:
        raise ConfigError(
            f"wrappers.{unknown[0]}: unknown key; allowed: {', '.join(_WRAPPER_KEYS)}"
        )
    out = {k: wrappers[k] for k in _WRAPPER_KEYS if k in wrappers}
    for key in ("size", "grid"):
        if out.get(key) is not None:
            out[key] = tuple(out[key])
    if out.get("buttons") is not None:
        out["buttons"] = tuple(out["buttons"])
    if out.get("scale") is not None:
        out.pop("size", None)
    else:
        out.pop("scale", None)
    return out


def _play(cfg: DictConfig) -> dict:
    from puzzlegym.evaluation.runner import run_episode

    if cfg.wrappers.name != "none":
        raise ConfigError(
            f"wrappers={cfg.wrappers.name}: GUI agents ({cfg.agent.name}) play the raw env; "
            "use wrappers=none, or a training agent (agent=maskable_ppo, agent=ppo)"
        )
    env_kwargs = _section(cfg.env.kwargs, "env.kwargs")
    options = _section(cfg.agent.options, "agent.options") if "options" in cfg.agent else None
    if options is not None:  # a model agent's options dict (configs/agent/openai.yaml)
        options = {k: v for k, v in options.items() if v is not None}
    return run_episode(
        cfg.env.id,
        cfg.agent.name,
        seed=cfg.seed,
        out_dir=cfg.out_dir,
        gif=cfg.gif,
        max_steps=cfg.max_steps,
        agent_options=options,
        **env_kwargs,
    )


# env keywords of the env configs that the training protocol sets itself, with the value that
# leaves them to it (the env configs carry every keyword at its default: ENV_CONFIG_KWARGS)
_PROTOCOL_DEFAULTS = {
    "level": None,
    "budget_s": 3600,
    "levels": "catalogue",
    "num_levels": None,
    "start_level": None,
}
_AGENT_KEYS = (
    "name",
    "kind",
    "protocol",
    "algo",
    "policy",
    "extractor",
    "net_arch",
    "timesteps",
    "n_envs",
    "vec",
    "hyperparameters",
    "episodes",
    "curve_every",
    "curve_episodes",
    "torch_threads",
    "checkpoint_every",
    "heldout_generated",
    "heldout_generated_start",
    "progress",
)


def train_config(cfg: DictConfig):
    """The :class:`~puzzlegym.rl.train.TrainConfig` of a training agent's composed config:
    ``env.id``, ``wrappers`` (``make_sb3_env`` keywords), ``agent`` (algorithm, network,
    ``agent.protocol``: the split, budgets, train levels) and ``seed``. Errors name the
    config key."""
    from puzzlegym.rl.train import TrainConfig
    from puzzlegym.training.protocol import ENV_KEYS, Protocol

    if cfg.wrappers.name == "none":
        raise ConfigError(
            f"wrappers=none: {cfg.agent.name} trains on wrapped envs (discrete actions, small "
            "observations); use wrappers=board (the symbolic board) or wrappers=rl (pixels)"
        )
    agent = _section(cfg.agent, "agent")
    unknown = sorted(set(agent) - set(_AGENT_KEYS))
    if unknown:
        raise ConfigError(f"agent.{unknown[0]}: unknown key; allowed: {', '.join(_AGENT_KEYS[2:])}")
    env_kwargs = _section(cfg.env.kwargs, "env.kwargs")
    for key, default in _PROTOCOL_DEFAULTS.items():
        if env_kwargs.get(key, default) != default:
            raise ConfigError(
                f"env.kwargs.{key}: set by the training protocol (one generated level per episode "
                "for training, the catalogue's levels for testing); use agent.protocol.num_levels, "
                "agent.protocol.start_level or agent.protocol.budget_multiple, "
                f"got {env_kwargs[key]!r}"
            )
    passed = {k: v for k, v in env_kwargs.items() if k in ENV_KEYS}
    other = sorted(set(env_kwargs) - set(ENV_KEYS) - set(_PROTOCOL_DEFAULTS) - {"start"})
    if other:
        raise ConfigError(
            f"env.kwargs.{other[0]}: not used by training; allowed: {', '.join(ENV_KEYS)}"
        )
    wrappers = wrapper_kwargs(cfg)
    proto = dict(agent.pop("protocol", None) or {})
    for key in ("env_id", "wrappers", "env_kwargs"):
        if key in proto:
            raise ConfigError(f"agent.protocol.{key}: comes from env.id, wrappers and env.kwargs")
    try:
        protocol = Protocol(cfg.env.id, wrappers=wrappers, env_kwargs=passed, **proto)
    except TypeError as exc:  # an unknown protocol key
        raise ConfigError(f"agent.protocol: {exc}") from None
    except ConfigError as exc:  # name the config key
        raise ConfigError(_prefixed(str(exc), "agent.protocol.", proto)) from None
    for key in ("name", "kind"):
        agent.pop(key, None)
    progress = agent.pop("progress", True)
    try:
        return TrainConfig(protocol=protocol, seed=cfg.seed, progress=progress, **agent)
    except ConfigError as exc:
        raise ConfigError(_prefixed(str(exc), "agent.", {**agent, "progress": progress})) from None


def _prefixed(message: str, prefix: str, keys) -> str:
    """``message`` with ``prefix`` before the key it starts with (``seed`` is the config's own)."""
    head = message.split(":", 1)[0].split(".", 1)[0].split("[", 1)[0]
    return prefix + message if head in keys and head != "seed" else message


def jax_train_config(cfg: DictConfig):
    """The :class:`~puzzlegym.jax.train.JaxTrainConfig` of ``agent=jax_ppo``'s composed
    config: ``env.id``, ``env.kwargs`` (``reward``, ``action_cost_s``), ``wrappers=board``
    (the twin's observations and actions), ``agent`` (``protocol``, ``ppo``, ``network``,
    the run's fields) and ``seed``. Errors name the config key."""
    from puzzlegym.jax.train import ENV_KEYS, config_from_mapping, jax_protocol

    if cfg.wrappers.name != "board":
        raise ConfigError(
            f"wrappers={cfg.wrappers.name}: jax_ppo trains on the twin, whose observations are "
            "the symbolic board and whose actions are board actions; use wrappers=board"
        )
    wrappers = wrapper_kwargs(cfg)
    if (
        wrappers.get("observation") != "board"
        or wrappers.get("actions") != "board"
        or (wrappers.get("buttons") not in (None, ()))
    ):
        raise ConfigError(
            "wrappers: jax_ppo sets the twin's own (the symbolic board, board actions with the "
            "level screen's buttons); leave wrappers=board as it is"
        )
    agent = _section(cfg.agent, "agent")
    for key in ("name", "kind"):
        agent.pop(key, None)
    env_kwargs = _section(cfg.env.kwargs, "env.kwargs")
    for key, default in _PROTOCOL_DEFAULTS.items():
        if env_kwargs.get(key, default) != default:
            raise ConfigError(
                f"env.kwargs.{key}: set by the training protocol; use agent.protocol.num_levels, "
                f"agent.protocol.start_level or agent.protocol.budget_multiple, "
                f"got {env_kwargs[key]!r}"
            )
    for key, needed in (("backend", "native"), ("clock", "sim")):
        if env_kwargs.get(key, needed) != needed:
            raise ConfigError(
                f"env.kwargs.{key}: jax_ppo trains on the twin and tests on the native env with "
                f"the simulated clock (the twin counts actions); got {env_kwargs[key]!r}"
            )
    passed = {k: v for k, v in env_kwargs.items() if k in ENV_KEYS}
    proto = dict(agent.pop("protocol", None) or {})
    for key in ("env_id", "wrappers", "env_kwargs"):
        if key in proto:
            raise ConfigError(f"agent.protocol.{key}: comes from env.id, wrappers and env.kwargs")
    try:
        protocol = jax_protocol(cfg.env.id, env_kwargs=passed, **proto)
    except TypeError as exc:  # an unknown protocol key
        raise ConfigError(f"agent.protocol: {exc}") from None
    except ConfigError as exc:
        raise ConfigError(_prefixed(str(exc), "agent.protocol.", proto)) from None
    try:
        return config_from_mapping(protocol, agent, cfg.seed)
    except ConfigError as exc:
        keys = {**agent, "ppo": 1, "planner": 1, "network": 1, "progress": 1}
        raise ConfigError(_prefixed(str(exc), "agent.", keys)) from None


def _train(cfg: DictConfig, resume: bool = False) -> dict:
    from puzzlegym.training.results import summary

    if cfg.out_dir is None:
        raise ConfigError(
            "out_dir: a training run needs a directory (config, curve, model, result)"
        )
    log = lambda line: print(line, flush=True)  # noqa: E731
    if cfg.agent.get("algo") in ("jax_ppo", "jax_planner"):
        from puzzlegym.jax.train import train as train_jax

        result = train_jax(jax_train_config(cfg), cfg.out_dir, log=log, resume=resume)
        return summary(result)
    from puzzlegym.rl.train import train

    config = train_config(cfg)
    result = train(config, cfg.out_dir, log=log, resume=resume)
    return summary(result)


def _study(cfg: DictConfig) -> dict:
    from puzzlegym.lab.study import run_study

    if cfg.out_dir is None:
        raise ConfigError("out_dir: a study needs a directory")
    return run_study(_section(cfg.study, "study"), cfg.out_dir)


def run(cfg: DictConfig, resume: bool = False) -> dict:
    """Run the composed config (see the module docstring); returns the result dict.
    ``resume`` continues the unfinished training run in ``out_dir`` from its checkpoint."""
    from puzzlegym.game.registry import parse_env_id

    if cfg.get("study") is not None:  # +experiment=rq2 / rq4: a dead-end lab study
        return _study(cfg)
    parse_env_id(cfg.env.id)  # a clear error naming the registered ids
    kind = cfg.agent.get("kind", "play")
    if kind not in KINDS:
        raise ConfigError(f"agent.kind: {kind!r} is not allowed; allowed: {', '.join(KINDS)}")
    if resume and kind != "train":
        raise ConfigError("resume: only training runs resume")
    return _play(cfg) if kind == "play" else _train(cfg, resume)


def _app(cfg: DictConfig) -> None:
    try:
        result = run(cfg)
    except PuzzleGymError as exc:  # a bad id or setting: say which, without a traceback
        print(f"puzzlegym.run: error: {exc}", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(result), flush=True)


TRAIN_DEFAULTS = {"agent": "maskable_ppo", "wrappers": "board"}


def _override_error(exc: Exception, chosen: list[str]) -> ConfigError:
    """Hydra's refusal of an override as one line that says what would work: a key that is
    not at the top level names the full keys it could mean (``timesteps`` ->
    ``agent.timesteps``); an unknown option of a group lists the group's options."""
    import difflib
    import re

    from hydra import compose
    from hydra.core.global_hydra import GlobalHydra

    text = str(exc)
    first = text.splitlines()[0]
    missing = re.search(r"Could not find '([\w.-]+)/([^']*)'", text)
    if missing:
        group, name = missing.groups()
        options = GlobalHydra.instance().config_loader().get_group_options(group)
        if options:
            return ConfigError(
                f"{group}={name}: no such {group}; one of: {', '.join(sorted(options))}"
            )
    unknown = re.search(r"Could not override '([\w.-]+)'", text)
    if unknown:
        key = unknown.group(1)
        defaults = OmegaConf.to_container(compose("run", overrides=[*chosen, "out_dir=null"]))
        keys = _dotted_keys(defaults)
        near = sorted(k for k in keys if k.endswith("." + key))
        near = near or difflib.get_close_matches(key, keys, n=3)
        hint = f"did you mean {' or '.join(near[:4])}?" if near else "see puzzlegym train --help"
        return ConfigError(f"{key}: not a key of the training config; {hint}")
    return ConfigError(f"overrides: {first}")


def _dotted_keys(doc: Any, prefix: str = "") -> list[str]:
    """Every key of a nested config, dotted (``agent.timesteps``)."""
    if not isinstance(doc, dict):
        return []
    out = []
    for k, v in doc.items():
        name = f"{prefix}{k}"
        out.append(name)
        out += _dotted_keys(v, name + ".")
    return out


def cmd_train(args) -> int:
    """``puzzlegym train [OVERRIDES]``: the composed config ``run`` with ``agent=maskable_ppo
    wrappers=board`` (unless the overrides pick others) and the overrides, run into ``--out``
    (default ``runs/train/<Game>-<Tier>/seed<seed>``, or the first free ``-2``, ``-3``, ...);
    prints the headline figures as the last line (JSON)."""
    from pathlib import Path

    from hydra import compose, initialize_config_module
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from puzzlegym.record.files import unused_path

    overrides = list(args.overrides)
    for override in overrides:
        if override.split("=", 1)[0].lstrip("+~").startswith(("out_dir", "hydra")):
            raise ConfigError(
                f"{override.split('=', 1)[0]}: not an override of puzzlegym train; use --out DIR"
            )
    groups = {o.split("=", 1)[0] for o in overrides if "=" in o}
    chosen = [f"{group}={name}" for group, name in TRAIN_DEFAULTS.items() if group not in groups]
    with initialize_config_module("puzzlegym.configs", version_base=None):
        try:
            cfg = compose("run", overrides=[*chosen, *overrides, "out_dir=null"])
            kind = cfg.agent.get("kind", "play")
        except (HydraException, OmegaConfBaseException) as exc:
            raise _override_error(exc, chosen) from None
    if kind != "train":
        raise ConfigError(
            f"agent: {cfg.agent.name} is not a training agent; use agent=maskable_ppo, "
            "agent=ppo or agent=jax_ppo"
        )
    resume = bool(getattr(args, "resume", False))
    if resume and args.out is None:
        raise ConfigError("--resume: name the run directory to continue with --out DIR")
    if args.out is not None:
        out = Path(args.out)
    else:
        name = str(cfg.env.id).rpartition("/")[2]
        out = unused_path(
            Path("runs") / "train" / name / f"seed{cfg.seed}",
            taken=lambda p: p.exists() and any(p.iterdir()),
        )
    OmegaConf.update(cfg, "out_dir", str(out))
    result = run(cfg, resume=resume)
    print(json.dumps(result), flush=True)
    return 0


main = hydra.main(config_path=CONFIG_PATH, config_name="run", version_base=None)(_app)
train_ppo = hydra.main(config_path=CONFIG_PATH, config_name="train_ppo", version_base=None)(_app)

if __name__ == "__main__":
    main()
