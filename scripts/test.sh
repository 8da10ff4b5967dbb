#!/usr/bin/env bash
# The whole test suite: install everything the tests need (Chromium from the OS packages
# included), then run pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
.venv/bin/python -m pytest -q "$@"
