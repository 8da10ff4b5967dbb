"""The dead-end lab: checkpoints at certified dead ends and solvable controls, the controller
that hands a board over to an agent, and the diagnostic studies of the paper's Section 5.

* :mod:`~puzzlegym.lab.checkpoints`: lab checkpoint files (a checkpoint with its private
  certificate), listing and summaries;
* :mod:`~puzzlegym.lab.find`: D (certified dead end) and N (solvable control) checkpoints from
  an episode record, a solver trajectory or seeded random play;
* :mod:`~puzzlegym.lab.controller`: restore or replay the legal GUI-action prefix, hand over
  with the same pixels;
* :mod:`~puzzlegym.lab.rq2`: the RQ2 takeover runner (A/B/C state hints) and its outcomes;
* :mod:`~puzzlegym.lab.rq1`: move-level measures from episode records (capacity, coverage);
* :mod:`~puzzlegym.lab.rq4`: RQ4 sessions (rule card K0/K1 x workflow P0/P1, optional
  dead-end restart);
* :mod:`~puzzlegym.lab.study`: the studies from a plain configuration (the Hydra
  experiments ``configs/experiment/rq2.yaml`` and ``rq4.yaml``);
* :mod:`~puzzlegym.lab.tables`: their tables for ``puzzlegym report``;
* the command line of the lab, ``puzzlegym checkpoints find|list|show|restore``, is
  :mod:`puzzlegym.cli.checkpoints`.
"""

from puzzlegym.lab.checkpoints import list_checkpoints, load, save, summary
from puzzlegym.lab.controller import Controller, capture
from puzzlegym.lab.find import find_in_random_play, find_in_record, find_on_solution

__all__ = [
    "Controller",
    "capture",
    "find_in_random_play",
    "find_in_record",
    "find_on_solution",
    "list_checkpoints",
    "load",
    "save",
    "summary",
]
