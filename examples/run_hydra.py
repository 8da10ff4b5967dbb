"""Play one episode configured with Hydra and print the result as one JSON line.

The configs live in ``configs/`` (primary config ``configs/run.yaml``):

* ``env=<name>`` picks ``configs/env/<name>.yaml`` (a Gymnasium id and its keyword args);
  any keyword can be overridden, e.g. ``env.kwargs.level=3 env.kwargs.start=board``.
* ``agent=<name>`` picks ``configs/agent/<name>.yaml`` (``solver``, ``random``, or ``openai``: a
  model behind an OpenAI-compatible server, whose ``agent.options`` are the model agent's
  options dict); ``agent.name=my_pkg.my_module:make_agent`` plugs in your own agent.
* ``+experiment=<name>`` appends ``configs/experiment/<name>.yaml`` (a ``@package _global_``
  override bundle; experiments are not in the defaults list, hence the ``+``).
* ``seed``, ``out_dir`` (``null`` keeps nothing on disk), ``gif``, ``max_steps``.
* ``+experiment=rq2`` / ``+experiment=rq4`` set a ``study`` section: instead of one episode,
  the dead-end lab's RQ2 takeovers or RQ4 sessions run into ``out_dir``
  (:func:`puzzlegym.lab.study.run_study`); the last line is the study's JSON summary.

Examples::

    python examples/run_hydra.py
    python examples/run_hydra.py env=maze_paint_hard agent=random max_steps=50
    python examples/run_hydra.py +experiment=generated_levels env=maze_paint_medium seed=7
    python examples/run_hydra.py +experiment=rq2 out_dir=runs/rq2
    python examples/run_hydra.py --multirun seed=0,1,2 agent=random max_steps=100
    python examples/run_hydra.py --cfg job      # show the composed config and exit

Hydra writes its own files (``.hydra/``, the log) to ``hydra.run.dir`` (default
``outputs/<date>/<time>``); the episode goes to ``out_dir`` (default ``<run dir>/episode``).
The working directory is not changed (``hydra.job.chdir: false``).
"""

from __future__ import annotations

import json
import sys

import hydra
from omegaconf import DictConfig, OmegaConf

from puzzlegym.errors import PuzzleGymError
from puzzlegym.evaluation.runner import run_episode
from puzzlegym.registry import parse_env_id


@hydra.main(config_path="../configs", config_name="run", version_base=None)
def main(cfg: DictConfig) -> None:
    if cfg.get("study") is not None:
        _run_study(cfg)
        return
    env_kwargs = OmegaConf.to_container(cfg.env.kwargs, resolve=True)
    options = OmegaConf.to_container(cfg.agent.options, resolve=True) if "options" in cfg.agent else None
    if options is not None:
        options = {k: v for k, v in options.items() if v is not None}
    try:
        parse_env_id(cfg.env.id)  # a clear error naming the registered ids
        result = run_episode(
            cfg.env.id,
            cfg.agent.name,
            seed=cfg.seed,
            out_dir=cfg.out_dir,
            gif=cfg.gif,
            max_steps=cfg.max_steps,
            agent_options=options,
            **env_kwargs,
        )
    except PuzzleGymError as exc:  # a bad id or keyword: say which, without a traceback
        print(f"run_hydra: error: {exc}", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(result), flush=True)


def _run_study(cfg: DictConfig) -> None:
    from puzzlegym.lab.study import run_study

    if cfg.out_dir is None:
        print("run_hydra: error: a study needs out_dir", file=sys.stderr)
        sys.exit(2)
    try:
        summary = run_study(OmegaConf.to_container(cfg.study, resolve=True), cfg.out_dir)
    except PuzzleGymError as exc:
        print(f"run_hydra: error: {exc}", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
