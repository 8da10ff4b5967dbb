"""Evaluation: the private record of an episode and everything computed from records.

* ``evaluator.py``: wins, potentials, dead-end certificates and snapshots of one episode;
* ``records.py``: episode records on disk (``manifest.json``, ``log.jsonl``);
* ``metrics.py``: the paper's metrics from records or per-objective rows (public as
  ``puzzlegym.metrics``);
* ``runner.py``: one episode of an agent (``puzzlegym run``);
* ``eval.py``: agents × objectives × seeds in parallel (``puzzlegym eval``);
* ``report.py``, ``replay.py``: tables and plots from a run; re-running records;
* ``levels.py``: catalogue statistics (``puzzlegym levels``);
* ``bench.py``: throughput figures (``puzzlegym bench``).
"""
