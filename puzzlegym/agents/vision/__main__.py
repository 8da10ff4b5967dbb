"""The vision agent as a pixel-only HTTP client of ``puzzlegym serve``.

    python -m puzzlegym.agents.vision --url http://127.0.0.1:8765 --objective MazePaint-Easy

It resets an episode from the home screen (POST /reset), then sends one GUI action per
screen it is shown (POST /action, POST /answer) until the server says the episode is done.
It sees nothing but the PNG screens and the public counters of the answers (docs/service.md).
The last line it prints is a JSON result like ``puzzlegym run --json``'s: ``success``, ``lc``
and ``levels_won`` as the agent saw them on the screens, ``steps``, ``elapsed_s``, and the
``record`` path the server returned (the operator's record has the real results). While it
plays, a progress bar on stderr counts the levels won as seen and the actions sent
(``--quiet``: none).
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from urllib.parse import urlsplit

import numpy as np
from PIL import Image

from puzzlegym.agents.vision.agent import VisionAgent, parse_objective

MAX_PNG_BYTES = 8 * 2**20  # a 1280x900 screen is far smaller
MAX_REPLY_BYTES = 12 * 2**20
TIMEOUT_S = 60.0


class Client:
    """JSON over HTTP to one session of ``puzzlegym serve``."""

    def __init__(self, url: str, session: str = "vision", token: str | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"--url: expected http://HOST:PORT, got {url!r}")
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.headers = {"Content-Type": "application/json", "X-Session": session}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base + path, data=data, method=method, headers=self.headers
        )
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
                raw = resp.read(MAX_REPLY_BYTES + 1)
        except urllib.error.HTTPError as exc:
            text = exc.read(2000).decode("utf-8", "replace")
            raise RuntimeError(f"{method} {path}: HTTP {exc.code}: {text}") from None
        if len(raw) > MAX_REPLY_BYTES:
            raise RuntimeError(f"{method} {path}: reply larger than {MAX_REPLY_BYTES} bytes")
        reply = json.loads(raw)
        if not isinstance(reply, dict):
            raise RuntimeError(
                f"{method} {path}: expected a JSON object, got {type(reply).__name__}"
            )
        return reply


def screen(reply: dict) -> np.ndarray:
    """The RGB frame of a reply's base64 PNG."""
    png = reply.get("png")
    if not isinstance(png, str) or len(png) > MAX_PNG_BYTES * 4 // 3 + 4:
        raise RuntimeError("reply: no PNG screen (or one too large)")
    with Image.open(io.BytesIO(base64.b64decode(png, validate=True))) as img:
        return np.asarray(img.convert("RGB"))


Progress = Callable[[VisionAgent, dict, int], None]  # (the agent, the last reply, actions sent)


def play(
    client: Client,
    objective: str,
    seed: int,
    max_actions: int,
    level: int | None = None,
    progress: Progress | None = None,
) -> dict:
    """One episode of ``objective`` (one ``level`` of it, if given) from the home screen;
    ``progress`` hears of each reply."""
    agent = VisionAgent(objective, level)
    t0 = time.perf_counter()
    body = {"objective": objective, "start": "home", "seed": seed}
    if level is not None:
        body["level"] = level
    reply = client.call("POST", "/reset", body)
    record = reply.get("record")
    actions = 0
    while not reply.get("done"):
        if actions >= max_actions:
            agent.failure = agent.failure or f"stopped after {max_actions} actions (--max-actions)"
            break
        action = agent(screen(reply))
        actions += 1
        if action["type"] == "answer":
            reply = client.call("POST", "/answer", {"text": action["text"]})
        else:
            reply = client.call("POST", "/action", action)
        if progress is not None:
            progress(agent, reply, actions)
    agent.see(screen(reply))
    if progress is not None:  # the last screen: the last level won shows
        progress(agent, reply, actions)
    if not reply.get("done"):
        client.call("DELETE", "/session")
    out = {
        "objective": objective,
        "agent": "vision",
        "seed": seed,
        **agent.result(),
        "steps": reply.get("step"),
        "actions": reply.get("actions"),
        "elapsed_s": reply.get("elapsed_s"),
        "wall_s": round(time.perf_counter() - t0, 3),
        "record": record,
    }
    return out


class ProgressBar:
    """A tqdm bar on stderr over the levels won as the agent saw them (its total the level
    count read from a header, or 1 with ``--level``), with the actions sent and the
    episode's simulated time."""

    def __init__(self, objective: str, level: int | None) -> None:
        from tqdm import tqdm

        self.bar = tqdm(
            desc=objective if level is None else f"{objective} level {level}",
            total=1 if level is not None else None,
            unit="level",
            file=sys.stderr,
            mininterval=0.5,
        )

    def __call__(self, agent: VisionAgent, reply: dict, actions: int) -> None:
        if agent.level is None and agent.levels and self.bar.total != agent.levels:
            self.bar.total = agent.levels
        won = len(agent.won)
        if won != self.bar.n:
            self.bar.update(won - self.bar.n)
        elapsed = reply.get("elapsed_s")
        self.bar.set_postfix_str(
            f"{actions} actions"
            + (f", {elapsed:.0f} s" if isinstance(elapsed, int | float) else ""),
            refresh=False,
        )

    def close(self) -> None:
        self.bar.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m puzzlegym.agents.vision", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8765")
    parser.add_argument("--objective", required=True, help="e.g. MazePaint-Easy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--level", type=int, default=None, help="play this one level of the objective"
    )
    parser.add_argument("--session", default="vision", help="the X-Session name")
    parser.add_argument("--token", default=None, help="the server's bearer token, if it has one")
    parser.add_argument(
        "--max-actions", type=int, default=10_000, help="give up after this many actions"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    args = parser.parse_args(argv)
    bar = None
    try:
        parse_objective(args.objective)
        if not 1 <= args.max_actions <= 1_000_000:
            raise ValueError(f"--max-actions: expected 1..1000000, got {args.max_actions}")
        client = Client(args.url, args.session, args.token)
        if not args.quiet:
            bar = ProgressBar(args.objective, args.level)
        result = play(client, args.objective, args.seed, args.max_actions, args.level, bar)
    except (ValueError, RuntimeError, OSError) as exc:
        if bar is not None:
            bar.close()
        print(
            json.dumps(
                {
                    "objective": args.objective,
                    "agent": "vision",
                    "success": False,
                    "error": f"{type(exc).__name__}: {exc}",
                }
            )
        )
        return 1
    if bar is not None:
        bar.close()
    print(f"record: {result['record']}")
    print(json.dumps(result))
    return 0 if result["success"] else 2


if __name__ == "__main__":
    sys.exit(main())
