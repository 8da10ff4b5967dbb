#!/usr/bin/env bash
# The main job on the embedded default (in-process backend): install, then let the solver
# agent solve LongPuzzle/MazePaint-Easy from the suite home screen through GUI actions.
# Prints the result; writes runs/demo/{final.png,episode.gif,result.json,record/}.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "demo: installing puzzlegym into .venv first (scripts/setup.sh)"
scripts/setup.sh
echo "demo: the solver agent plays ${1:-LongPuzzle/MazePaint-Easy} from the suite home screen through GUI actions"
.venv/bin/puzzlegym run "${1:-LongPuzzle/MazePaint-Easy}" --agent solver --out "${OUT:-runs/demo}"
