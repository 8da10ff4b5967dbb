"""The games, one package each (installed as ``puzzlegym.envs``)."""
