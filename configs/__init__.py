"""Hydra configs shipped inside the package (installed as ``puzzlegym.configs``): ``run.yaml``
(``python -m puzzlegym.run``), ``train_ppo.yaml`` (``examples/train_ppo.py``) and the groups
``env/``, ``wrappers/``, ``agent/`` and ``experiment/``."""
