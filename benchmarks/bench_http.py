"""HTTP observation service: requests/s for POST /action (in-process backend, real server on
loopback, one keep-alive client, each response carrying the screen PNG).

    .venv/bin/python benchmarks/bench_http.py [ENV_ID]
"""

from __future__ import annotations

import json
import sys

import puzzlegym  # noqa: F401
from puzzlegym.evaluation import bench

if __name__ == "__main__":
    print(json.dumps(bench.http_action_rate(sys.argv[1] if len(sys.argv) > 1 else "LongPuzzle/MazePaint-Easy")))
