"""HTTP observation service benchmarks.

.venv/bin/python benchmarks/bench_http.py [ENV_ID]           requests/s for POST /action
    (in-process backend, real server on loopback, one keep-alive client, each response
    carrying the screen PNG)
.venv/bin/python benchmarks/bench_http.py resets [N] [ENV_ID]  the resident memory (RSS) of
    a real ``puzzlegym serve`` process over N (default 1000) reset+action pairs on one
    session, beside its RSS after the first pair (the baseline)
"""

from __future__ import annotations

import http.client
import json
import sys
import tempfile

import puzzlegym  # noqa: F401
from puzzlegym.bench import rates as bench
from puzzlegym.service.launch import start_service


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def reset_churn(n: int = 1000, env_id: str = "LongPuzzle/MazePaint-Easy") -> dict:
    """N reset+action pairs against a ``puzzlegym serve`` subprocess; its RSS every 100."""
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_service(["serve", "--record-dir", f"{tmp}/records"])
        try:
            host, port = url.removeprefix("http://").split(":")
            conn = http.client.HTTPConnection(host, int(port), timeout=60)

            def post(path: str, body: dict) -> None:
                conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
                if resp.status != 200:
                    raise RuntimeError(f"{path}: {resp.status}")

            curve = []
            for i in range(n):
                post(
                    "/reset", {"objective": env_id, "level": 1 + i % 5, "start": "board", "seed": i}
                )
                post("/action", {"type": "drag", "x0": 640, "y0": 450, "x1": 640, "y1": 250})
                if i == 0 or (i + 1) % 100 == 0:
                    curve.append((i + 1, round(rss_mb(proc.pid), 1)))
            conn.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    start, end = curve[0][1], curve[-1][1]
    return {
        "env_id": env_id,
        "resets": n,
        "rss_start_mb": start,
        "rss_end_mb": end,
        "rss_peak_mb": max(r for _, r in curve),
        "end_over_start": round(end / start, 2),
        "rss_every_100_mb": curve,
    }


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "resets":
        n = int(args[1]) if len(args) > 1 else 1000
        print(json.dumps(reset_churn(n, args[2] if len(args) > 2 else "LongPuzzle/MazePaint-Easy")))
    else:
        print(json.dumps(bench.http_action_rate(args[0] if args else "LongPuzzle/MazePaint-Easy")))
