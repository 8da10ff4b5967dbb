"""A scripted chat-completions server: speaks the OpenAI-compatible protocol the model agents
use and replays scripted model turns, for tests and for dry runs of ``puzzlegym eval``.

    python -m puzzlegym.service.scripted_model --demo LongPuzzle/MazePaint-Easy --port 8000
    puzzlegym eval --agents openai:scripted --base-url http://127.0.0.1:8000/v1 ...

A script is ``{"model": "scripted", "turns": [...]}``, or ``{"models": {"alpha": [...],
"beta": [...]}}`` for several models (each request gets the next turn of the model it names,
so agents running in parallel each follow their own script). The turns:

* ``{"tool_calls": [{"name": "click", "arguments": {"x": 10, "y": 20}}], "content": "..."}``:
  a reply with tool calls (``arguments`` an object, or a string sent as it is, e.g. malformed
  JSON);
* ``{"content": "..."}``: a text reply;
* any turn with ``"reasoning": "..."``: the reply's ``reasoning_content`` (as reasoning
  servers return it);
* ``{"status": 429}`` (or 500, 503, ...): an error response of that status;
* any turn with ``"delay_s": 2.5``: the server waits that long before answering (a client
  with a shorter timeout times out and its retry gets the next turn).

Past the last turn every request gets ``answer("script exhausted")``. Token usage in replies is
an estimate (text characters / 4, plus 256 per image). The server keeps each request it
received, images replaced by their size and SHA-256, in :attr:`ScriptedModel.requests` (the
last :data:`MAX_KEPT`), so tests can read exactly what an agent sent.

``--demo ENV_ID`` writes its own script: the solver agent (which reads the evaluator's
privileged state: this is the script's author, not an agent under evaluation) plays the
objective from the home screen, and every GUI action it makes becomes one scripted tool call
(Native GUI Actions), or, with ``--setting code``, a ``screenshot`` call and one ``run_code``
turn that performs them all.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from puzzlegym.base import jsonio
from puzzlegym.base.fields import check_count, check_number
from puzzlegym.service.http import Reply, RequestError, make_server, serve_until_interrupted

__all__ = ["MAX_KEPT", "ScriptedModel", "demo_script", "make_scripted_server"]

MAX_KEPT = 2000
MAX_TURNS = 100_000
MAX_DELAY_S = 600.0
MAX_REQUEST_BYTES = 64 * 1024 * 1024
EXHAUSTED = {"tool_calls": [{"name": "answer", "arguments": {"text": "script exhausted"}}]}


def _check_turns(turns: Any, where: str) -> list[dict]:
    if not isinstance(turns, list):
        raise ValueError(f"{where}: expected a list of turns")
    if len(turns) > MAX_TURNS:
        raise ValueError(f"{where}: {len(turns)} turns; at most {MAX_TURNS}")
    for i, turn in enumerate(turns):
        at = f"{where}[{i}]"
        if not isinstance(turn, dict):
            raise ValueError(f"{at}: expected an object")
        unknown = sorted(set(turn) - {"tool_calls", "content", "reasoning", "status", "delay_s"})
        if unknown:
            raise ValueError(
                f"{at}: unknown field {unknown[0]!r}; allowed: tool_calls, content, reasoning, "
                "status, delay_s"
            )
        if not isinstance(turn.get("reasoning", ""), str):
            raise ValueError(f"{at}.reasoning: expected a string")
        check_number(turn.get("delay_s", 0), f"{at}.delay_s", 0, MAX_DELAY_S, what="seconds")
        check_count(
            turn.get("status"), f"{at}.status", 400, 599, optional=True, what="an HTTP error status"
        )
        for j, call in enumerate(turn.get("tool_calls") or []):
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                raise ValueError(f"{at}.tool_calls[{j}]: expected an object with a name")
    return turns


def _check_script(script: Any) -> dict[str, list[dict]]:
    """The script as {model: turns} (see the module docstring)."""
    if (
        isinstance(script, dict)
        and isinstance(script.get("models"), dict)
        and "turns" not in script
    ):
        return {
            str(m): _check_turns(t, f"script.models[{m!r}]") for m, t in script["models"].items()
        }
    if not isinstance(script, dict) or "turns" not in script:
        raise ValueError(
            'script: expected {"model": ..., "turns": [...]} or {"models": {name: [...]}}'
        )
    return {str(script.get("model", "scripted")): _check_turns(script["turns"], "script.turns")}


def _strip_images(body: Any) -> Any:
    """The request as kept: image data replaced by its size and hash."""
    if isinstance(body, dict):
        if body.get("type") == "image_url":
            url = str((body.get("image_url") or {}).get("url", ""))
            raw = url.split(",", 1)[-1].encode()
            return {
                "type": "image_url",
                "bytes": len(raw),
                "sha256": hashlib.sha256(raw).hexdigest(),
            }
        return {k: _strip_images(v) for k, v in body.items()}
    if isinstance(body, list):
        return [_strip_images(v) for v in body]
    return body


def _usage(body: dict, message: dict) -> dict:
    chars = images = 0
    for m in body.get("messages") or []:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "image_url":
                    images += 1
                elif isinstance(part, dict):
                    chars += len(str(part.get("text", "")))
    prompt = chars // 4 + 256 * images
    completion = max(1, len(json.dumps(message)) // 4)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


class ScriptedModel:
    """The scripts, their positions and the requests received (thread-safe)."""

    def __init__(self, script: dict) -> None:
        self.scripts = _check_script(script)
        self.model = next(iter(self.scripts), "scripted")
        self.index = dict.fromkeys(self.scripts, 0)
        self.requests: list[dict] = []
        self._lock = threading.Lock()

    def next_turn(self, body: dict) -> tuple[int, dict]:
        model = str(body.get("model", ""))
        if model not in self.scripts:
            raise RequestError(
                404, f"model {model!r} is not scripted; scripted: {', '.join(self.scripts)}"
            )
        with self._lock:
            self.requests.append(_strip_images(body))
            del self.requests[:-MAX_KEPT]
            i = self.index[model]
            self.index[model] += 1
        turns = self.scripts[model]
        return i, (turns[i] if i < len(turns) else EXHAUSTED)

    def reply(self, i: int, turn: dict, body: dict) -> dict:
        calls = []
        for j, call in enumerate(turn.get("tool_calls") or []):
            args = call.get("arguments", {})
            calls.append(
                {
                    "id": f"call_{i}_{j}",
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": args if isinstance(args, str) else json.dumps(args),
                    },
                }
            )
        message: dict[str, Any] = {"role": "assistant", "content": turn.get("content")}
        if turn.get("reasoning"):
            message["reasoning_content"] = turn["reasoning"]
        if calls:
            message["tool_calls"] = calls
        return {
            "id": f"chatcmpl-scripted-{i}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", self.model)),
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
            ],
            "usage": _usage(body, message),
        }


def make_scripted_server(script: dict, host: str = "127.0.0.1", port: int = 0):
    """A threaded server replaying ``script``; ``server.scripted`` is its :class:`ScriptedModel`."""
    scripted = ScriptedModel(script)

    def completions(_session: str, body: Any) -> Reply:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise RequestError(400, "body: expected a chat-completions request with 'messages'")
        i, turn = scripted.next_turn(body)
        if turn.get("delay_s"):
            time.sleep(float(turn["delay_s"]))  # a client that gave up meanwhile gets nothing
        status = turn.get("status")
        if status is not None:
            kind = "rate_limit_exceeded" if status == 429 else "server_error"
            return Reply.json(
                {"error": {"message": f"scripted status {status}", "type": kind, "code": status}},
                status,
            )
        return Reply.json(scripted.reply(i, turn, body))

    def models(_session: str, _body: Any) -> Reply:
        return Reply.json(
            {"object": "list", "data": [{"id": m, "object": "model"} for m in scripted.scripts]}
        )

    routes: dict[tuple[str, str], Callable[[str, Any], Reply]] = {
        ("POST", "/v1/chat/completions"): completions,
        ("GET", "/v1/models"): models,
    }
    server = make_server(host, port, routes, max_body_bytes=MAX_REQUEST_BYTES)
    server.scripted = scripted  # type: ignore[attr-defined]
    return server


# --------------------------------------------------------------------------- demo scripts
def demo_script(
    env_id: str,
    *,
    setting: str = "native",
    image_width: int = 1280,
    level: int | None = None,
    max_actions: int = 5000,
) -> dict:
    """A script that plays ``env_id`` from the home screen (see the module docstring)."""
    import gymnasium as gym

    from puzzlegym.agents import SolverAgent
    from puzzlegym.agents.prompts import COMPLETION_PREFIX
    from puzzlegym.agents.screenshots import ScreenEncoder
    from puzzlegym.env.loop import play
    from puzzlegym.game.registry import register_envs

    register_envs()

    enc = ScreenEncoder("png", image_width)
    kwargs: dict[str, Any] = {} if level is None else {"level": level}
    env = gym.make(env_id, start="home", **kwargs)
    try:
        actions: list[dict] = []
        solver = SolverAgent(env.unwrapped)

        def policy(obs, info):
            actions.append(solver(obs, info))
            return actions[-1]

        play(env, policy, max_steps=max_actions, seed=0)
    finally:
        env.close()
    gui = [a for a in actions if a["type"] != "answer"]

    def image_args(a: dict) -> dict:
        out = {k: v for k, v in a.items() if k != "type"}
        for fx, fy in (("x", "y"), ("x0", "y0"), ("x1", "y1")):
            if fx in out:
                out[fx], out[fy] = enc.to_image(out[fx], out[fy])
        return out

    turns: list[dict] = []
    if setting == "native":
        for i, a in enumerate(gui, 1):
            turns.append(
                {
                    "content": f"Step {i} of {len(gui)}.",
                    "tool_calls": [{"name": a["type"], "arguments": image_args(a)}],
                }
            )
    else:
        lines = ["shot = screenshot()", "print('screen', shot.width, shot.height)"]
        names = {"press_key": "key"}
        for a in gui:
            args = [repr(v) for k, v in a.items() if k != "type"]
            lines.append(f"{names.get(a['type'], a['type'])}({', '.join(args)})")
        lines.append(f"print('played', {len(gui)}, 'actions')")
        turns.append(
            {
                "content": "Let me look first.",
                "tool_calls": [{"name": "screenshot", "arguments": {}}],
            }
        )
        turns.append(
            {
                "content": "",
                "tool_calls": [
                    {"name": "run_code", "arguments": {"code": "\n".join(lines) + "\n"}}
                ],
            }
        )
    turns.append(
        {
            "content": "",
            "tool_calls": [
                {
                    "name": "answer",
                    "arguments": {
                        "text": f"{COMPLETION_PREFIX}: the screen says the objective is complete"
                    },
                }
            ],
        }
    )
    return {"model": "scripted", "turns": turns}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m puzzlegym.service.scripted_model",
        description=" ".join(__doc__.split("\n\n")[0].split()),
    )
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--script", help="a script file (JSON)")
    src.add_argument(
        "--demo",
        metavar="ENV_ID",
        help="write a script that plays this objective (e.g. LongPuzzle/MazePaint-Easy)",
    )
    parser.add_argument(
        "--setting",
        default="native",
        choices=["native", "code"],
        help="--demo: the setting the script is for",
    )
    parser.add_argument(
        "--image-width",
        type=int,
        default=1280,
        help="--demo: the agent's --image-width (tool-call coordinates)",
    )
    parser.add_argument("--level", type=int, default=None, help="--demo: one level only")
    parser.add_argument(
        "--write-script", default=None, metavar="PATH", help="also save the script as JSON"
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port (printed)")
    args = parser.parse_args(argv)
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            script = json.load(fh)
    else:
        script = demo_script(
            args.demo, setting=args.setting, image_width=args.image_width, level=args.level
        )
    if args.write_script:
        jsonio.write_atomic(args.write_script, json.dumps(script, indent=1))
    server = make_scripted_server(script, args.host, args.port)
    host, port = server.server_address[:2]
    scripts = server.scripted.scripts
    print(
        f"scripted models {', '.join(f'{m!r} ({len(t)} turns)' for m, t in scripts.items())} at "
        f"http://{host}:{port}/v1",
        flush=True,
    )
    return serve_until_interrupted(server)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
