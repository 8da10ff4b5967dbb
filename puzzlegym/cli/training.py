"""``puzzlegym train``: PPO on generated levels, tested on the catalogue beside both random
policies (the Hydra app of ``python -m puzzlegym.run``)."""

from __future__ import annotations

import argparse

from puzzlegym.cli.args import lazy

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    tr = sub.add_parser(
        "train",
        help="train (Mask)PPO (SB3) or masked PPO in JAX (agent=jax_ppo) on generated levels, "
        "test on the catalogue beside both random policies",
    )
    tr.add_argument(
        "overrides",
        nargs="*",
        metavar="OVERRIDE",
        help="Hydra overrides of python -m puzzlegym.run (agent=maskable_ppo wrappers=board "
        "by default), e.g. env=rush_hour_easy seed=1 agent.timesteps=50000",
    )
    tr.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="the run directory (refused if it holds a run; default: "
        "runs/train/<Game>-<Tier>/seed<seed>, or the first free -2, -3, ...)",
    )
    tr.add_argument(
        "--resume",
        action="store_true",
        help="continue the unfinished run in --out from its last checkpoint",
    )
    tr.set_defaults(func=lazy("puzzlegym.run:cmd_train"))
