#!/usr/bin/env bash
# Regenerate the committed baseline report (docs/baselines/): the solver and random agents on
# every registered objective, from the suite home screen, 3,600 s simulated budget (1 s per
# action, so a random episode is 3,600 actions), seeds 0,1,2; the vision agent (pixels only)
# on the same objectives and seeds through a real `puzzlegym serve` process (same protocol:
# simulated clock, home screen, 3,600 s); then the tables and plots.
# Episode records go to runs/baselines/ (not committed; replay them with
# `puzzlegym replay runs/baselines`). Extra arguments go to `puzzlegym eval`.
# VISION_SEEDS (default 0,1,2) sets the vision agent's seeds; VISION=0 leaves it out.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
RUN="${RUN_DIR:-runs/baselines}"
rm -rf "$RUN"
"$PY" -m puzzlegym eval --agents solver,random --objectives all --seeds 0,1,2 \
    --workers "${WORKERS:-4}" --run-dir "$RUN" "$@"
if [ "${VISION:-1}" != 0 ]; then
    "$PY" scripts/vision_baselines.py --run-dir "$RUN/vision" --seeds "${VISION_SEEDS:-0,1,2}"
fi
"$PY" -m puzzlegym report "$RUN" --out docs/baselines \
    --title "Baselines: solver, random and vision agents on every registered objective" \
    --note "Regenerate with \`scripts/baselines.sh\` (records under runs/baselines/, not committed). The vision agent (http:vision) plays from pixels only, through \`puzzlegym serve\`."
