#!/usr/bin/env bash
# Regenerate the committed baseline report (docs/baselines/): the solver and random agents on
# every registered objective, from the suite home screen, 3,600 s simulated budget (1 s per
# action, so a random episode is 3,600 actions), seeds 0,1,2; then the tables and plots.
# Episode records go to runs/baselines/ (not committed; replay them with
# `puzzlegym replay runs/baselines`). Extra arguments go to `puzzlegym eval`.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
RUN="${RUN_DIR:-runs/baselines}"
rm -rf "$RUN"
"$PY" -m puzzlegym eval --agents solver,random --objectives all --seeds 0,1,2 \
    --workers "${WORKERS:-4}" --run-dir "$RUN" "$@"
"$PY" -m puzzlegym report "$RUN" --out docs/baselines \
    --title "Baselines: solver and random agents on every registered objective" \
    --note "Regenerate with \`scripts/baselines.sh\` (records under runs/baselines/, not committed)."
