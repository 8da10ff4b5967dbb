"""The model client against a hostile chat-completions server: a real local HTTP server
(written here, so it can send what no well-behaved server would) serves bodies that are not
JSON or are empty, choices that are not a list of messages, usage counters that are strings,
NaN, 10**40 or negative, tool arguments with a 5,000-digit integer or 30,000 nested brackets,
batch members whose type is a list or an object, a reply trickled byte by byte (finite and
endless), and a 401 whose message echoes the key.

Each has an exact outcome: a malformed reply is a server fault, counted and retried, then the
request fails with ModelError (the episode ends failed and unscored, with a readable record);
a malformed tool call goes back to the model as an error and the episode goes on; the key is
in no record line, log or stderr; ``eval`` and ``report`` of a run holding such episodes work.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from puzzlegym.agents import client as client_module
from puzzlegym.agents.client import ChatClient, ModelError
from puzzlegym.agents.history import MAX_MESSAGE_CHARS, WINDOW_CHARS
from puzzlegym.agents.replies import MAX_REPLY_VALUES
from puzzlegym.cli import main
from puzzlegym.evaluation.runner import run_episode
from puzzlegym.record.files import AGENT_LOG, read_log
from tests.memory import peak_memory

MAZE = "LongPuzzle/MazePaint-Easy"
KEY = "sk-hostile-server-0123456789-abcdef-KEY"
TRICKLE_CAP_S = 60.0  # an "endless" trickle stops by itself after this long


def completion(
    calls: list[dict] | None = None, content: str | None = "", usage: str | None = None
) -> bytes:
    """A valid chat completion (``usage`` as raw JSON text, so it may hold NaN or 10**40)."""
    message: dict = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": f"c{i}", "type": "function", "function": c} for i, c in enumerate(calls)
        ]
    doc = json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
    )
    usage = usage if usage is not None else '{"prompt_tokens": 10, "completion_tokens": 2}'
    return (doc[:-1] + f', "usage": {usage}}}').encode()


def tool(name: str, arguments) -> dict:
    return {
        "name": name,
        "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
    }


ANSWER = {"body": completion([tool("answer", {"text": "stop"})])}
VALID = {"body": completion(content="hello")}


class HostileServer(ThreadingHTTPServer):
    """Replies from a script per model name: {"status", "body", "trickle_s", "endless"}."""

    daemon_threads = True

    def __init__(self, script: dict[str, list[dict]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = {m: list(turns) for m, turns in script.items()}
        self.requests: list[dict] = []
        self.hangups = 0  # replies the client stopped reading before the server was done
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server: HostileServer = self.server  # type: ignore[assignment]
        with server.lock:
            server.requests.append(body)
            turns = server.script.get(body["model"], [])
            turn = turns.pop(0) if turns else ANSWER
        data = turn.get("body", b"")
        self.send_response(turn.get("status", 200))
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(10**6 if turn.get("endless") else len(data)))
        self.end_headers()
        try:
            if turn.get("trickle_s"):
                t0 = time.monotonic()
                i = 0
                while (
                    i < len(data) or turn.get("endless")
                ) and time.monotonic() - t0 < TRICKLE_CAP_S:
                    self.wfile.write(data[i : i + 1] if i < len(data) else b" ")
                    self.wfile.flush()
                    i += 1
                    time.sleep(turn["trickle_s"])
            else:
                self.wfile.write(data)
        except OSError:  # the client hung up (its deadline)
            with server.lock:
                server.hangups += 1


@contextmanager
def hostile(script: dict[str, list[dict]]):
    server = HostileServer(script)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


MALFORMED = {
    "not JSON": (b"<html>Bad gateway</html>", "the body is not JSON"),
    "empty": (b"", "the body is empty"),
    "choices a string": (b'{"choices": "abc"}', "choices: Input should be a valid list"),
    "choices [null]": (b'{"choices": [null]}', "choices.0: Input should be a valid dictionary"),
    "message null": (
        b'{"choices": [{"message": null}]}',
        "choices.0.message: Input should be a valid dictionary",
    ),
    "usage a string": (
        completion(content="x", usage='{"prompt_tokens": "12", "completion_tokens": 1}'),
        "usage.prompt_tokens: Input should be a valid integer",
    ),
    "usage NaN": (
        completion(content="x", usage='{"prompt_tokens": NaN, "completion_tokens": 1}'),
        "usage.prompt_tokens: Input should be a valid integer",
    ),
    "usage 10**40": (
        completion(content="x", usage=f'{{"prompt_tokens": 1, "completion_tokens": {10**40}}}'),
        "usage.completion_tokens: Input should be a valid integer",
    ),
    "usage negative": (
        completion(content="x", usage='{"prompt_tokens": -5, "completion_tokens": 1}'),
        "usage.prompt_tokens: Input should be greater than or equal to 0",
    ),
    "a JSON list": (b"[1, 2, 3]", "the body is a JSON list, not an object"),
    "deep nesting": (
        b'{"choices": ' + b"[" * 30_000 + b"]" * 30_000 + b"}",
        "the body is not JSON (nested too deeply)",
    ),
}


# --------------------------------------------------------------------------- the client
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_reply_is_a_counted_server_fault_retried_then_a_model_error(case):
    body, message = MALFORMED[case]
    with hostile({"m": [{"body": body}, {"body": body}, {"body": body}, VALID]}) as server:
        client = ChatClient("m", server.url, KEY, max_retries=2, backoff_s=0.0)
        with pytest.raises(ModelError) as err:
            client.complete([{"role": "user", "content": "hi"}])
        assert f"request failed (malformed) after 2 retries: {message}" in str(err.value)
        assert client.totals.by_status == {"malformed": 3} and client.totals.failures == 1
        reply = client.complete([{"role": "user", "content": "again"}])  # the next one is fine
        assert reply.content == "hello" and reply.retries == 0 and reply.prompt_tokens == 10
        assert len(server.requests) == 4  # bounded: three attempts, then one


def test_a_fault_then_a_good_reply_records_the_fault():
    with hostile({"m": [{"body": b"{]"}, {"status": 503, "body": b"busy"}, VALID]}) as server:
        client = ChatClient("m", server.url, KEY, max_retries=3, backoff_s=0.0)
        reply = client.complete([{"role": "user", "content": "hi"}])
    assert reply.content == "hello" and reply.retries == 2
    assert [f["kind"] for f in reply.faults] == ["malformed", "503"]
    assert reply.faults[0]["detail"].startswith("the body is not JSON")


def test_timeout_is_a_deadline_for_the_whole_request_not_for_each_read():
    valid = completion(content="slow but valid")
    with hostile(
        {
            "m": [
                {"body": valid, "trickle_s": 0.05},
                {"body": b"", "trickle_s": 0.05, "endless": True},
            ]
        }
    ) as server:
        client = ChatClient("m", server.url, KEY, timeout_s=1.0, max_retries=0)
        # every byte comes well within the timeout, the whole reply takes len(valid) * 0.05 s
        assert len(valid) * 0.05 > 10
        with pytest.raises(ModelError, match=r"request failed \(timeout\) after 0 retries"):
            client.complete([{"role": "user", "content": "hi"}])
        with pytest.raises(ModelError, match=r"request failed \(timeout\) after 0 retries"):
            client.complete([{"role": "user", "content": "hi"}])  # endless
        for _ in range(400):  # the server notices a hang-up at its next byte or two
            if server.hangups == 2:
                break
            time.sleep(0.05)
        hangups = server.hangups
    assert client.totals.by_status == {"timeout": 2}
    assert hangups == 2  # the client ended both, not the server's own cap


def test_a_401_that_echoes_the_key_is_masked(caplog):
    caplog.set_level(logging.DEBUG)
    body = json.dumps(
        {"error": {"message": f"Incorrect API key provided: {KEY}. Check it.\n\x1b[31m"}}
    ).encode()
    with hostile({"m": [{"status": 401, "body": body}]}) as server:
        client = ChatClient("m", server.url, KEY, max_retries=3, backoff_s=0.0)
        with pytest.raises(ModelError) as err:
            client.complete([{"role": "user", "content": "hi"}])
    text = str(err.value)
    assert KEY not in text and "Incorrect API key provided: …-KEY. Check it." in text
    assert "\x1b" not in text and "after 0 retries" in text  # a 401 is not retried
    assert KEY not in caplog.text


# --------------------------------------------------------------------------- episodes
def play(
    tmp_path: Path, turns: list[dict], name: str, **options
) -> tuple[dict | None, Exception | None, list[dict], list[dict]]:
    """One episode against the hostile server: (result or None, the error, agent.jsonl lines,
    the requests the server received)."""
    out = tmp_path / name
    result = error = None
    with hostile({"m": turns}) as server:
        try:
            result = run_episode(
                MAZE,
                "openai:m",
                level=1,
                start="board",
                clock="sim",
                out_dir=out,
                gif=False,
                agent_options={"base_url": server.url, "api_key": KEY, "backoff_s": 0.0, **options},
            )
        except ModelError as exc:
            error = exc
        requests = server.requests
    lines = read_log(out / "record", AGENT_LOG)  # strict: every line is valid JSON
    text = "".join(
        p.read_text() for p in out.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl")
    )
    assert KEY not in text
    return result, error, lines, requests


@pytest.mark.parametrize("case", ["not JSON", "usage NaN", "usage 10**40", "message null"])
def test_an_episode_whose_server_keeps_sending_malformed_replies_fails_with_a_clean_record(
    tmp_path, case
):
    body, message = MALFORMED[case]
    result, error, lines, requests = play(tmp_path, [{"body": body}] * 2, "ep", max_retries=1)
    assert result is None and isinstance(error, ModelError) and len(requests) == 2
    assert lines[0]["kind"] == "config" and lines[-1]["kind"] == "error"
    assert (
        lines[-1]["error"].startswith("ModelError: model 'm' at ") and message in lines[-1]["error"]
    )


HUGE = "1" + "0" * 4999
BAD_CALLS = {
    "a 5,000-digit integer": (
        tool("click", f'{{"x": {HUGE}, "y": 1}}'),
        "click.x: expected an integer 0..1279 (a pixel of the screenshot), "
        "got <a number of 5000 digits>",
    ),
    "30,000 nested brackets": (
        tool("click", "[" * 30_000 + "]" * 30_000),
        "click: arguments are not valid JSON (nested too deeply)",
    ),
    "an object with a 5,000-digit integer": (
        None,
        "click: arguments hold a value that is not JSON this harness accepts",
    ),
    "a batch member whose type is a list": (
        tool("batch", {"actions": [{"type": ["click"], "x": 1, "y": 1}]}),
        "action(batch).actions[0].type: unknown action type ['click']",
    ),
    "a batch member whose type is an object": (
        tool("batch", {"actions": [{"type": {"a": 1}, "x": 1, "y": 1}]}),
        "action(batch).actions[0].type: unknown action type {'a': 1}",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_CALLS))
def test_a_malformed_tool_call_goes_back_to_the_model_and_the_episode_goes_on(tmp_path, case):
    call, message = BAD_CALLS[case]
    if call is None:  # arguments sent as an object, holding the huge number itself
        raw = completion([{"name": "click", "arguments": {"x": 1, "y": 2}}]).replace(
            b'"x": 1', f'"x": {HUGE}'.encode()
        )
        turn = {"body": raw}
    else:
        turn = {"body": completion([call])}
    result, error, lines, requests = play(tmp_path, [turn, ANSWER], "ep")
    assert error is None and result is not None and result["model"]["malformed"] == 1
    (bad,) = [r for r in lines if r["kind"] == "malformed"]
    assert message in bad["error"]
    tool_results = [m["content"] for m in requests[1]["messages"] if m["role"] == "tool"]
    assert (
        len(tool_results) == 1
        and tool_results[0].startswith("error: ")
        and message in tool_results[0]
    )


def test_puzzlegym_run_reports_a_hostile_server_as_a_clear_error_with_the_key_masked(tmp_path):
    body = json.dumps({"error": {"message": f"bad key {KEY}"}}).encode()
    with hostile(
        {"m": [{"body": MALFORMED["usage NaN"][0]}, {"status": 401, "body": body}]}
    ) as server:
        env = {**os.environ, "OPENAI_API_KEY": KEY}
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "puzzlegym",
                "run",
                MAZE,
                "--agent",
                "openai:m",
                "--base-url",
                server.url,
                "--level",
                "1",
                "--out",
                str(tmp_path / "ep"),
                "--no-gif",
                "--max-retries",
                "3",
                "--timeout-s",
                "3",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert (
        "request failed (401) after 1 retries: bad key …-KEY" in proc.stderr
        and KEY not in proc.stderr
    )
    lines = read_log(tmp_path / "ep" / "record", AGENT_LOG)
    assert lines[-1]["kind"] == "error" and KEY not in json.dumps(lines)


def test_eval_and_report_of_a_run_with_such_episodes_work(tmp_path, capsys):
    script = {
        "nan": [{"body": MALFORMED["usage NaN"][0]}] * 2,
        "huge": [{"body": MALFORMED["usage 10**40"][0]}] * 2,
        "deep": [{"body": completion([tool("click", "[" * 30_000 + "]" * 30_000)])}, ANSWER],
        "good": [ANSWER],
    }
    run = tmp_path / "run"
    with hostile(script) as server:
        code = main(
            [
                "eval",
                "--agents",
                "openai:nan,openai:huge,openai:deep,openai:good",
                "--objectives",
                "MazePaint-Easy",
                "--seeds",
                "0",
                "--run-dir",
                str(run),
                "--quiet",
                "--base-url",
                server.url,
                "--max-retries",
                "1",
            ]
        )
    out = capsys.readouterr().out
    assert code == 1  # two episodes failed
    assert (
        "episode failed: openai:nan/native/M1" in out
        and "episode failed: openai:huge/native/M1" in out
    )
    for agent in ("nan", "huge", "deep", "good"):
        read_log(
            run / "episodes" / f"openai_{agent}_native_M1" / "MazePaint-Easy" / "seed0" / "record",
            AGENT_LOG,
        )
    assert main(["report", str(run)]) == 0
    failed = (run / "report" / "index.md").read_text().split("## Episodes that failed")[1]
    assert "openai:nan/native/M1" in failed and "openai:huge/native/M1" in failed
    assert "openai:deep/native/M1" not in failed and "openai:good/native/M1" not in failed
    table2 = (run / "report" / "table2.md").read_text()
    assert "| openai:deep" in table2 and "| openai:nan" not in table2
    capsys.readouterr()


def test_agent_log_lines_always_read_back(tmp_path):
    from puzzlegym.record.files import AgentLog

    log = AgentLog(tmp_path)
    log.write(
        {
            "kind": "request",
            "prompt_tokens": float("nan"),
            "completion_tokens": 10**40,
            "latency_s": float("inf"),
            "nested": [{"n": -(10**31)}],
            "ok": 10**29,
        },
        3,
        1.5,
    )
    log.close()
    (line,) = read_log(tmp_path, AGENT_LOG)
    assert line == {  # a count that is not one reads back as null, other values as text
        "kind": "request",
        "prompt_tokens": None,
        "completion_tokens": None,
        "latency_s": None,
        "nested": [{"n": "<an integer of more than 30 digits>"}],
        "ok": 10**29,
        "actions": 3,
        "t": 1.5,
    }


# --------------------------------------------------------------------------- amplification
def test_history_is_bounded_in_characters_whatever_the_replies_hold(tmp_path):
    """Issue 29 item 8, the attack: 13 replies of 4 MB of text, each with a ``wait`` call (a
    valid step, so the episode goes on), then an answer. Before, every later request carried
    all of them (0, 4, 8, ... 48 MB)."""
    big = "A" * (4 << 20)
    turns = [{"body": completion([tool("wait", {})], content=big)}] * 13 + [ANSWER]
    result, error, lines, requests = play(tmp_path, turns, "ep")
    assert error is None and result is not None and len(requests) == 14
    sizes = [len(json.dumps(r)) for r in requests]
    kept = [
        m["content"] for m in requests[-1]["messages"] if m["role"] == "assistant" and m["content"]
    ]
    note = f"\n[... {len(big) - MAX_MESSAGE_CHARS} more characters not kept]"
    assert kept and all(k == big[:MAX_MESSAGE_CHARS] + note for k in kept)
    # the window holds the newest units that fit in WINDOW_CHARS (plus the head, screenshots)
    assert len(kept) == WINDOW_CHARS // (MAX_MESSAGE_CHARS + len(note) + 200)
    assert max(sizes) < WINDOW_CHARS + 1_000_000 and sizes[-1] == max(sizes[-5:])


def test_a_reply_padded_with_millions_of_empty_lists_is_refused_before_it_is_built():
    """Issue 29 item 9, the attack: a 31 MB reply whose extra field holds 10 million empty
    lists (ignored fields are parsed too). Before, parsing it took peak memory from ~100 MB to
    ~940 MB; now the text is counted before anything is built."""
    pad = b'"pad": [' + b"[]," * 10_400_000 + b"[]]"
    body = completion(content="x")[:-1] + b", " + pad + b"}"
    assert len(body) > 31_000_000
    with hostile({"m": [{"body": body}]}) as server:
        client = ChatClient("m", server.url, KEY, max_retries=0)
        with peak_memory() as peak, pytest.raises(ModelError) as err:
            client.complete([{"role": "user", "content": "hi"}])
    assert f"the body is not JSON (too many values (more than {MAX_REPLY_VALUES}))" in str(
        err.value
    )
    # what the client held: the body once as bytes and once as text; no list was built
    assert peak.bytes < 3 * len(body)


# --------------------------------------------------------------------------- as a new user
def test_eval_of_a_model_without_a_base_url_or_key_is_refused_at_once(tmp_path):
    """Before: ``eval --agents openai:foo`` without ``--base-url`` retried for 16 s, then
    reported a gaierror at "(default)". Now nothing starts, and the message says what to set."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlegym", "eval", "--agents", "openai:foo"]
        + ["--objectives", "MazePaint-Easy", "--seeds", "0", "--run-dir", str(tmp_path / "run")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        "puzzlegym: error: base_url: none was given (no --base-url, no OPENAI_BASE_URL), so "
        "requests would go to the default https://api.openai.com/v1, and no key is set "
        "(OPENAI_API_KEY): give --base-url http://HOST:PORT/v1 for your own server, or set "
        "OPENAI_API_KEY for https://api.openai.com/v1"
    )
    assert not (tmp_path / "run").exists()


def test_a_host_that_does_not_resolve_fails_at_once_naming_the_url(monkeypatch):
    """With a key but no base URL the default is used, and the error says so; a name that does
    not resolve (``.invalid`` never does) is not retried."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setattr(client_module, "DEFAULT_BASE_URL", "http://api.example.invalid/v1")
    client = ChatClient("foo", None, KEY, max_retries=3, backoff_s=0.0)
    with pytest.raises(ModelError) as err:
        client.complete([{"role": "user", "content": "hi"}])
    assert str(err.value).startswith(
        "model 'foo' at http://api.example.invalid/v1 (the default: no --base-url or "
        "OPENAI_BASE_URL was set): request failed (connection) after 0 retries: "
        "cannot resolve host 'api.example.invalid' ("
    )
    assert client.totals.by_status == {"connection": 1}  # one attempt, no retry
