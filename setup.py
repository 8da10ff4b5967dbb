"""The package list, found from the source tree (pyproject.toml holds everything else):
``puzzlegym/`` and its subpackages, and ``envs/``, ``solvers/`` and ``configs/`` installed as
``puzzlegym.envs``, ``puzzlegym.solvers`` and ``puzzlegym.configs`` (``package-dir`` in
pyproject.toml). A new game's folder under ``envs/`` is picked up without editing a list."""

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
TREES = {
    "puzzlegym": "puzzlegym",
    "envs": "puzzlegym.envs",
    "solvers": "puzzlegym.solvers",
    "configs": "puzzlegym.configs",
}


def packages() -> list[str]:
    found = []
    for folder, name in TREES.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.append(".".join([name, *parts]))
    return found


setup(packages=packages())
