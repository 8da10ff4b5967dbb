"""Train MaskablePPO (sb3-contrib) through puzzlegym's RL wrappers and print the trained
policy's success rate next to the random policy's, measured in the same run.

The default (``configs/train_ppo.yaml``): level 1 of MazePaint-Easy, 14 actions per episode
(twice its 7-slide optimum), observations rendered at 1/16 scale in grayscale (56x80), the
four swipes as actions (``BoardActions``, masked), 16,384 training steps with a progress bar,
SB3's CSV log (``progress.csv``), a learning curve (``curve.csv``), ``result.json`` and
``model.zip`` under ``out_dir``. Hydra overrides as in ``python -m puzzlegym.run``:

    python examples/train_ppo.py
    python examples/train_ppo.py agent.timesteps=32768 seed=1
    python examples/train_ppo.py agent=ppo                     # plain PPO, no masks
    python examples/train_ppo.py env.kwargs.level=3 env.kwargs.budget_s=16

Needs the ``rl`` extra (``pip install torch==2.13.0`` first on CPU machines, then
``pip install -e '.[rl]'``).
"""

from puzzlegym.run import train_ppo

if __name__ == "__main__":
    train_ppo()
