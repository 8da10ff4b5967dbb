"""``python -m puzzlegym.run``: one Hydra app composing env, wrappers, agent and experiment
configs shipped inside the package (``puzzlegym.configs``, the repository's ``configs/``).

* A GUI agent (``agent=solver``, ``agent=random``, ``agent=openai`` with its ``options``,
  ``agent.name=module:callable``; configs with ``kind: play`` or no kind) plays one episode on the raw env (``wrappers=none``) and prints its
  result as one JSON line (files under ``out_dir``).
* A training agent (``agent=ppo``, ``agent=maskable_ppo``; ``kind: train``) measures the
  random policy, trains through the wrappers (``wrappers=rl``), measures the trained policy
  and prints both success rates, then the result as one JSON line (``out_dir``: result.json,
  progress.csv, curve.csv, model.zip).

Examples::

    python -m puzzlegym.run env=maze_paint_hard agent=random max_steps=50
    python -m puzzlegym.run +experiment=generated_levels env=maze_paint_medium seed=7
    python -m puzzlegym.run +experiment=ppo_maze_paint            # the PPO run of the README
    python -m puzzlegym.run --cfg job                             # the composed config

* ``+experiment=rq2`` / ``+experiment=rq4`` set a ``study`` section: the dead-end lab's RQ2
  takeovers or RQ4 sessions run into ``out_dir`` (:func:`puzzlegym.lab.study.run_study`).

``examples/train_ppo.py`` is the same app with ``configs/train_ppo.yaml`` as primary config.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import hydra
from omegaconf import DictConfig, OmegaConf

from puzzlegym.errors import ConfigError, PuzzleGymError

CONFIG_PATH = "pkg://puzzlegym.configs"
KINDS = ("play", "train")
_WRAPPER_KEYS = (
    "observation", "actions", "buttons", "scale", "size", "fit", "grayscale", "grid", "view",
)


def make_kwargs(cfg: DictConfig) -> dict[str, Any]:
    """``make_sb3_env`` keyword arguments from the ``wrappers`` and ``env`` groups."""
    wrappers = OmegaConf.to_container(cfg.wrappers, resolve=True)
    unknown = sorted(set(wrappers) - {"name", *_WRAPPER_KEYS})
    if unknown:
        raise ConfigError(f"wrappers.{unknown[0]}: unknown key; allowed: {', '.join(_WRAPPER_KEYS)}")
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
    out.update(OmegaConf.to_container(cfg.env.kwargs, resolve=True))
    return out


def _play(cfg: DictConfig) -> dict:
    from puzzlegym.evaluation.runner import run_episode

    if cfg.wrappers.name != "none":
        raise ConfigError(
            f"wrappers={cfg.wrappers.name}: GUI agents ({cfg.agent.name}) play the raw env; "
            "use wrappers=none, or a training agent (agent=maskable_ppo, agent=ppo)"
        )
    env_kwargs = OmegaConf.to_container(cfg.env.kwargs, resolve=True)
    options = OmegaConf.to_container(cfg.agent.options, resolve=True) if "options" in cfg.agent else None
    if options is not None:  # a model agent's options dict (configs/agent/openai.yaml)
        options = {k: v for k, v in options.items() if v is not None}
    return run_episode(
        cfg.env.id, cfg.agent.name, seed=cfg.seed, out_dir=cfg.out_dir, gif=cfg.gif,
        max_steps=cfg.max_steps, agent_options=options, **env_kwargs,
    )


def _train(cfg: DictConfig) -> dict:
    from puzzlegym.rl.ppo import train_and_compare

    if cfg.wrappers.name == "none":
        raise ConfigError(
            f"wrappers=none: {cfg.agent.name} trains on wrapped envs (discrete actions, small "
            "observations); use wrappers=rl"
        )
    if cfg.out_dir is None:
        raise ConfigError("out_dir: a training run needs a directory (result.json, logs, model)")
    agent = OmegaConf.to_container(cfg.agent, resolve=True)
    return train_and_compare(
        cfg.env.id,
        out_dir=cfg.out_dir,
        make_kwargs=make_kwargs(cfg),
        algo=agent["algo"],
        policy=agent["policy"],
        timesteps=agent["timesteps"],
        n_envs=agent["n_envs"],
        vec=agent["vec"],
        seed=cfg.seed,
        eval_episodes=agent["eval_episodes"],
        curve_every=agent.get("curve_every"),
        curve_episodes=agent.get("curve_episodes", 20),
        progress=agent.get("progress", True),
        torch_threads=agent.get("torch_threads"),
        hyperparameters=agent.get("hyperparameters") or {},
        force=agent.get("force", False),
        log=lambda line: print(line, flush=True),
    )


def _study(cfg: DictConfig) -> dict:
    from puzzlegym.lab.study import run_study

    if cfg.out_dir is None:
        raise ConfigError("out_dir: a study needs a directory")
    return run_study(OmegaConf.to_container(cfg.study, resolve=True), cfg.out_dir)


def run(cfg: DictConfig) -> dict:
    """Run the composed config (see the module docstring); returns the result dict."""
    from puzzlegym.registry import parse_env_id

    if cfg.get("study") is not None:  # +experiment=rq2 / rq4: a dead-end lab study
        return _study(cfg)
    parse_env_id(cfg.env.id)  # a clear error naming the registered ids
    kind = cfg.agent.get("kind", "play")
    if kind not in KINDS:
        raise ConfigError(f"agent.kind: {kind!r} is not allowed; allowed: {', '.join(KINDS)}")
    return _play(cfg) if kind == "play" else _train(cfg)


def _app(cfg: DictConfig) -> None:
    try:
        result = run(cfg)
    except PuzzleGymError as exc:  # a bad id or setting: say which, without a traceback
        print(f"puzzlegym.run: error: {exc}", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(result), flush=True)


main = hydra.main(config_path=CONFIG_PATH, config_name="run", version_base=None)(_app)
train_ppo = hydra.main(config_path=CONFIG_PATH, config_name="train_ppo", version_base=None)(_app)

if __name__ == "__main__":
    main()
