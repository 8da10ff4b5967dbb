#!/usr/bin/env bash
# The whole test suite: install everything the tests need (Chromium from the OS packages
# included), build the documentation site strictly (a broken link, anchor, snippet or API
# reference fails; the site goes to site/), type-check puzzlegym, envs and solvers (mypy,
# [tool.mypy] in pyproject.toml), then run pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
NO_MKDOCS_2_WARNING=1 .venv/bin/python -m mkdocs build --strict
.venv/bin/python -m mypy
.venv/bin/python -m pytest -q "$@"
