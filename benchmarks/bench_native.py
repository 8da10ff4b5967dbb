"""In-process benchmark (issue: foundation). Prints, from one run:

* env steps/s at full 1280×900 (mix of solver moves and random clicks, replayed from a
  pre-planned action list), the default observations beside a full frame copy per step and
  their ratio (``pool_speedup``),
* board-target steps/s (``BoardActions`` over the full observations, masked random indices),
  the default beside a full frame copy per step, and their ratio (``board_pool_speedup``),
* plain 1280×900×3 frame copies/s and the ratio of the two,
* rules-model transitions/s.

    .venv/bin/python benchmarks/bench_native.py [ENV_ID ...]
"""

from __future__ import annotations

import json
import sys

import puzzlegym  # noqa: F401
from puzzlegym.bench import rates as bench
from puzzlegym.game.registry import env_ids

if __name__ == "__main__":
    ids = sys.argv[1:] or env_ids()  # every registered objective
    for env_id in ids:
        print(json.dumps(bench.run(env_id)))
