"""Reinforcement learning at speed and scale: vector envs of the RL stack
(:mod:`puzzlegym.rl.vector`; batched workers hosting several envs each:
:mod:`puzzlegym.rl.batched`, :mod:`puzzlegym.rl.sb3_batched`), and PPO trained on generated
levels and tested on the held-out sets beside both random policies (a backend of
:mod:`puzzlegym.training`: :mod:`puzzlegym.training.protocol`,
:mod:`puzzlegym.rl.train`; sweeps :mod:`puzzlegym.rl.sweep`, the baseline table
:mod:`puzzlegym.training.report`, :mod:`puzzlegym.training.plots`, :mod:`puzzlegym.rl.extractors`).

Needs the ``rl`` extra (Stable-Baselines3, sb3-contrib for ``MaskablePPO``). PPO on RLlib,
for runs beyond one machine (:mod:`puzzlegym.rl.rllib`, :mod:`puzzlegym.rl.rllib_module`),
needs the ``rllib`` extra.
"""
