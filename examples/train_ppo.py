"""Train MaskablePPO (sb3-contrib) on generated levels and print its held-out success on the
catalogue's levels beside both random policies, measured in the same run.

The default (``configs/train_ppo.yaml``): MazePaint-Easy's symbolic board read by
``BoardCNN`` (3x3 convolutions over the board's planes), the four swipes as actions (masked),
80,000 steps on 500 generated levels (one per episode), then every catalogue level of the
tier within twice its solver solution, 10 episodes each. Prints a progress bar, both random
policies' and the trained policy's success, and last one JSON line (``heldout_success``,
``train_success``, ``random_success``, ``random_masked_success``, ``timesteps``,
``seconds``); writes config.json, progress.csv, curve.csv, curve.png, model.zip and
result.json under ``out_dir``. Hydra overrides as in ``python -m puzzlegym.run``:

    python examples/train_ppo.py
    python examples/train_ppo.py agent.timesteps=100000 seed=1
    python examples/train_ppo.py env=rush_hour_easy agent.protocol.budget_multiple=3
    python examples/train_ppo.py agent=ppo wrappers=rl agent.extractor=flatten   # pixels, no masks

Needs the ``rl`` extra (``pip install torch==2.13.0`` first on CPU machines, then
``pip install -e '.[rl]'``).
"""

from puzzlegym.run import train_ppo

if __name__ == "__main__":
    train_ppo()
