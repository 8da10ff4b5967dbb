"""The training core: what every trainer shares, in one package below them all. SB3
(:mod:`puzzlegym.rl.train`), JAX PPO and the planner (:mod:`puzzlegym.jax.train`) are its
backends: each builds its learner and calls these for the rest.

* :mod:`~puzzlegym.training.protocol`: train on generated levels, test on held-out ones, within
  budgets a multiple of each level's solution; play_levels and both random policies;
* :mod:`~puzzlegym.training.config`: :class:`~puzzlegym.training.config.RunConfig`, the config
  fields every trainer shares, checked once;
* :mod:`~puzzlegym.training.rundir`: the run directory (never reused, locked, resumed only by
  the same configuration); :mod:`~puzzlegym.training.book`: the checkpoint books' shapes;
* :mod:`~puzzlegym.training.heldout`: both held-out sets under one budget rule;
* :mod:`~puzzlegym.training.results`, :mod:`~puzzlegym.training.report`,
  :mod:`~puzzlegym.training.plots`: a run's figures, the baseline table's aggregates, plots.
"""
