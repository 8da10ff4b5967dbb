#!/usr/bin/env bash
# The whole test suite: install everything the tests need (Chromium from the OS packages
# included), check the code's form (ruff: the lint rules and the 100-character line, and that
# `ruff format` leaves every file as it is), build the documentation site strictly (a broken
# link, anchor, snippet or API reference fails; the site goes to site/), type-check
# puzzlegym, envs and solvers as one namespace (scripts/typecheck.py: mypy with [tool.mypy] of
# pyproject.toml), then run pytest on a
# worker per core (pytest-xdist, at most 4; PUZZLEGYM_TEST_WORKERS=N sets the number, 0 runs in
# this process; tests/conftest.py says which tests share a worker). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
.venv/bin/ruff check .
.venv/bin/ruff format --check .
NO_MKDOCS_2_WARNING=1 .venv/bin/python -m mkdocs build --strict
.venv/bin/python scripts/typecheck.py
.venv/bin/python -m pytest -q -n "${PUZZLEGYM_TEST_WORKERS:-auto}" --maxprocesses 4 \
  --dist loadgroup "$@"
