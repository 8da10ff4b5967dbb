"""Reinforcement learning at speed and scale: vector envs of the RL stack
(:mod:`puzzlegym.rl.vector`; batched workers hosting several envs each:
:mod:`puzzlegym.rl.batched`, :mod:`puzzlegym.rl.sb3_batched`) and a PPO run that reports the trained policy's success rate
next to the random policy's, measured in the same run (:mod:`puzzlegym.rl.ppo`).

Needs the ``rl`` extra (Stable-Baselines3, sb3-contrib for ``MaskablePPO``). PPO on RLlib,
for runs beyond one machine (:mod:`puzzlegym.rl.rllib`, :mod:`puzzlegym.rl.rllib_module`),
needs the ``rllib`` extra.
"""
