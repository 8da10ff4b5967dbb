"""The PPO learning benchmark: the configuration of ``examples/train_ppo.py``
(``configs/train_ppo.yaml``: MaskablePPO, level 1 of MazePaint-Easy within 14 actions, 1/16
scale grayscale observations, the four swipes) with a learning curve every 1,024 steps.
Prints, from one run: the random policies' success rates, the curve (the sampled policy's
success rate over 20 episodes at each point), the trained policy's success rate (100
episodes, sampled and greedy) and the training rate.

    .venv/bin/python benchmarks/bench_ppo.py [HYDRA_OVERRIDES ...]    # e.g. seed=1 agent.timesteps=32768
"""

from __future__ import annotations

import json
import sys
import tempfile

from hydra import compose, initialize_config_module

from puzzlegym.run import run

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        overrides = [f"out_dir={tmp}/ppo", "agent.curve_every=1024", "agent.progress=false", *sys.argv[1:]]
        with initialize_config_module("puzzlegym.configs", version_base=None):
            cfg = compose("train_ppo", overrides=overrides)
        result = run(cfg)
    print("timesteps  success_rate(sampled, 20 episodes)  mean_return")
    for row in result["curve"]:
        print(f"{row['timesteps']:>9}  {row['success_rate']:>10.2f}  {row['mean_return']:>10.3f}")
    summary = {
        "env_id": result["env_id"], "level": result["make_kwargs"].get("level"),
        "budget_actions": result["make_kwargs"].get("budget_s"), "algo": result["algo"],
        "timesteps": result["timesteps"], "train_s": result["train_s"], "train_fps": result["train_fps"],
        "random_uniform_success": result["random_uniform"]["success_rate"],
        "random_masked_success": result.get("random_masked", {}).get("success_rate"),
        "trained_success_sampled": result["trained"]["success_rate"],
        "trained_success_greedy": result["trained_greedy"]["success_rate"],
        "eval_episodes": result["eval_episodes"],
    }
    print(json.dumps(summary))
