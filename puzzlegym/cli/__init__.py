"""The command line: ``puzzlegym run / bench / levels / eval / report / replay / serve / play /
checkpoints``."""

from puzzlegym.cli.main import main

__all__ = ["main"]
