"""Model agents against a real local chat-completions server (``puzzlegym.service.scripted_model``)
that replays scripted model turns: a Maze Paint level played from scripted tool calls with
malformed turns, 429/503 and a timeout on the way; the Code Execution sandbox's limits; the
memory conditions' histories; NGAR of a scripted Code Execution episode through ``eval`` and
``report``."""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path

import gymnasium as gym
import pytest

from puzzlegym.agents import SolverAgent, make_agent
from puzzlegym.agents.client import ChatClient, ModelError, mask_secret, mask_url
from puzzlegym.agents.history import OMITTED_IMAGE, History, text_chars
from puzzlegym.agents.prompts import summary_request
from puzzlegym.agents.screenshots import ScreenEncoder
from puzzlegym.agents.tools import CODE_TOOLS, NATIVE_TOOLS, ToolError, parse_call, tool_schemas
from puzzlegym.base.errors import ConfigError
from puzzlegym.cli import main
from puzzlegym.evaluation.runner import run_episode
from puzzlegym.metrics import aggregate, episode_from_record, episode_row
from puzzlegym.record.files import AGENT_LOG, read_log
from puzzlegym.sandbox.harness import Sandbox, SandboxLimits
from puzzlegym.service.scripted_model import demo_script
from tests.conftest import scripted

MAZE = "LongPuzzle/MazePaint-Easy"
SECRET = "sk-test-0123456789-SECRET-abcdef"


def call(name: str, **arguments) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def solver_actions(level: int = 1, start: str = "home") -> tuple[list[dict], dict]:
    """The solver's GUI actions for one Maze Paint Easy level, and the suite's named targets
    on its board (the script author may look; the agent may not)."""
    env = gym.make(MAZE, level=level, start=start)
    try:
        agent = SolverAgent(env.unwrapped)
        obs, info = env.reset(seed=0)
        actions, done = [], False
        while not done:
            action = agent(obs, info)
            actions.append(action)
            obs, _, term, trunc, info = env.step(action)
            done = term or trunc
        board = gym.make(MAZE, level=level, start="board")
        board.reset(seed=0)
        targets = {k: r.center for k, r in board.unwrapped.suite.targets().items()}
        board.close()
        return actions, targets
    finally:
        env.close()


def agent_lines(out: Path) -> list[dict]:
    return read_log(out / "record", AGENT_LOG)


# --------------------------------------------------------------------------- tools and screenshots
def test_screenshot_coordinates_map_back_to_screen_pixels():
    half = ScreenEncoder("jpeg", 640, 70)
    assert half.size == (640, 450)
    assert half.to_screen(0, 0) == (1, 1) and half.to_screen(639, 449) == (1279, 899)
    full = ScreenEncoder("png", 1280)
    assert full.to_screen(17, 33) == (17, 33) and full.to_image(17, 33) == (17, 33)
    for p in ((0, 0), (1279, 899), (640, 450), (1021, 321)):
        back = half.to_screen(*half.to_image(*p))
        assert abs(back[0] - p[0]) <= 2 and abs(back[1] - p[1]) <= 2
    with pytest.raises(ConfigError, match="image_width"):
        ScreenEncoder("png", 100)
    with pytest.raises(ConfigError, match="image_format"):
        ScreenEncoder("gif")


def test_tool_calls_parse_strictly_and_errors_name_the_field():
    enc = ScreenEncoder("png", 640)
    names = [t["function"]["name"] for t in tool_schemas(640, 450)]
    assert sorted(names) == sorted(NATIVE_TOOLS)
    assert sorted(t["function"]["name"] for t in tool_schemas(640, 450, code=True)) == sorted(
        CODE_TOOLS
    )

    def parse(name, args, allowed=NATIVE_TOOLS):
        raw = args if isinstance(args, str) else json.dumps(args)
        return parse_call({"id": "c1", "name": name, "arguments": raw}, enc, allowed)

    assert parse("click", {"x": 639, "y": 0}).action.x == 1279
    batch = parse(
        "batch",
        {
            "actions": [
                {"type": "drag", "x0": 0, "y0": 0, "x1": 10, "y1": 0},
                {"type": "press_key", "key": "ArrowUp"},
            ]
        },
    )
    assert batch.kind == "gui" and batch.action.actions[0].x1 == 21
    assert parse("answer", {"text": "BENCHMARK COMPLETED"}).kind == "answer"
    assert parse("wait", "").kind == "wait"
    cases = [
        (
            "click",
            {"x": 640, "y": 3},
            "click.x: expected an integer 0..639 (a pixel of the screenshot), got 640",
        ),
        ("click", {"x": "5", "y": 3}, "click.x: expected an integer"),
        ("click", {"x": 5}, "missing field 'y'"),
        ("click", {"x": 5, "y": 5, "button": "left"}, "unexpected field 'button'"),
        ("click", '{"x": 5,', "not valid JSON"),
        ("click", "[1, 2]", "must be a JSON object"),
        ("press_key", {"key": "F5"}, "'F5' is not an allowed key"),
        ("teleport", {}, "unknown tool 'teleport'"),
        ("screenshot", {}, "unknown tool 'screenshot'"),  # a code-setting tool
        ("batch", {"actions": []}, "a batch holds 1..64"),
        ("batch", {"actions": [{"type": "answer"}]}, "cannot be inside a batch"),
    ]
    for name, args, message in cases:
        with pytest.raises(
            ToolError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")
        ):
            parse(name, args)
    code = parse("run_code", {"code": "print(1)"}, CODE_TOOLS)
    assert code.kind == "run_code" and code.code == "print(1)"
    with pytest.raises(ToolError, match="run_code.code"):
        parse("run_code", {"code": ""}, CODE_TOOLS)


def test_history_window_keeps_the_last_turns_and_screenshots():
    h = History("system", "task", turns=3, images=2)
    for i in range(5):
        h.new_unit({"role": "assistant", "content": f"turn {i}"})
        h.add(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"shot {i}"},
                    {"type": "image_url", "image_url": {"url": f"data:{i}"}},
                ],
            }
        )
    msgs = h.messages()
    assert [m["content"] for m in msgs[:2]] == ["system", "task"]
    assert [m["content"] for m in msgs[2::2]] == ["turn 2", "turn 3", "turn 4"]
    images = [
        p
        for m in msgs
        for p in (m["content"] if isinstance(m["content"], list) else [])
        if p["type"] == "image_url"
    ]
    assert [p["image_url"]["url"] for p in images] == ["data:3", "data:4"]
    assert msgs[3]["content"][1] == {"type": "text", "text": OMITTED_IMAGE}
    assert h.window_text_chars() == text_chars(msgs[2:])
    # what no request can send again is not kept: 4 units (window + 1), 3 screenshots
    assert len(h.units) == 4
    assert (
        sum(
            p.get("type") == "image_url"
            for u in h.units
            for m in u
            for p in m["content"]
            if isinstance(m["content"], list)
        )
        == 3
    )
    with pytest.raises(ConfigError, match="history_images"):
        History("s", "t", images=0)


def test_model_agent_options_are_validated_before_anything_starts(make_env):
    env = make_env(MAZE)
    with pytest.raises(ConfigError, match="agent option 'bogus' is unknown"):
        make_agent("openai:m", env, options={"bogus": 1})
    with pytest.raises(ConfigError, match="setting: 'visual'"):
        make_agent("openai:m", env, options={"setting": "visual"})
    with pytest.raises(ConfigError, match="memory: 'M3'"):
        make_agent("openai:m", env, options={"memory": "M3"})
    with pytest.raises(ConfigError, match="code_memory_mb: only applies with setting 'code'"):
        make_agent("openai:m", env, options={"code_memory_mb": 512})
    with pytest.raises(ConfigError, match="needs a model name"):
        make_agent("openai:", env)
    with pytest.raises(ConfigError, match="model agents .* only"):
        make_agent("solver", env, options={"setting": "code"})
    with pytest.raises(ConfigError, match="base_url"):
        make_agent("openai:m", env, options={"base_url": "ftp://x"})


def test_keys_and_urls_are_masked():
    assert (
        mask_secret(SECRET) == "…cdef"
        and mask_secret("short") == "***"
        and mask_secret(None) == "(none)"
    )
    assert (
        mask_url("https://user:pw@api.example.org:8443/v1?token=abc")
        == "https://api.example.org:8443/v1"
    )


# --------------------------------------------------------------------------- the client
def test_client_retries_429_5xx_and_timeouts_a_bounded_number_of_times():
    turns = [
        {"status": 429},
        {"status": 503},
        {"delay_s": 1.0, "content": "too late"},
        {"content": "hello"},
        {"status": 500},
        {"status": 500},
        {"status": 500},
        {"status": 400},
    ]
    with scripted({"model": "m", "turns": turns}) as (model, url):
        client = ChatClient("m", url, SECRET, timeout_s=0.3, max_retries=3, backoff_s=0.01)
        reply = client.complete(
            [{"role": "user", "content": "a prompt of forty characters, give or take"}]
        )
        assert reply.content == "hello" and reply.retries == 3 and reply.prompt_tokens > 0
        assert client.totals.to_json()["retries"] == 3 and client.totals.requests == 1
        few = ChatClient("m", url, SECRET, max_retries=1, backoff_s=0.01)
        with pytest.raises(ModelError, match=r"\(500\) after 1 retries"):
            few.complete([{"role": "user", "content": "x"}])  # 500, retried once: 500
        with pytest.raises(ModelError, match=r"\(400\) after 1 retries") as err:
            few.complete([{"role": "user", "content": "x"}])  # 500, retried once: 400 is final
        assert SECRET not in str(err.value) and few.totals.failures == 2
        assert model.index["m"] == 8  # bounded: no request beyond the retries allowed


# --------------------------------------------------------------------------- native agent
def test_native_agent_completes_a_maze_paint_level_from_scripted_turns(tmp_path, caplog):
    demo = demo_script(MAZE, level=1, image_width=640)["turns"]
    turns = [
        {"status": 429},
        {"content": "I will start by looking at the screen."},  # no tool call
        call("click", x=900, y=10),  # off the 640x450 screenshot
        {"tool_calls": [{"name": "click", "arguments": '{"x": 1,'}]},  # malformed JSON
        call("teleport", to="level 10"),  # no such tool
        {"status": 503},
        # after the client's timeout, which leaves ordinary replies room on a loaded machine
        # (at 0.6 s one timed out there, and its retry took the next turn)
        {"delay_s": 4.0, "content": "this reply comes after the client's timeout"},
        *demo,
    ]
    out = tmp_path / "native"
    caplog.set_level(logging.DEBUG)
    with scripted({"model": "scripted", "turns": turns}) as (model, url):
        result = run_episode(
            MAZE,
            "openai:scripted",
            level=1,
            out_dir=out,
            gif=False,
            agent_options={
                "base_url": url,
                "api_key": SECRET,
                "image_width": 640,
                "timeout_s": 2.0,
                "backoff_s": 0.01,
            },
        )
        requests = model.requests
    assert result["success"] and result["agent"] == "openai:scripted/native/M1"
    assert result["model"]["malformed"] == 4 and result["model"]["retries"] == 3
    lines = agent_lines(out)
    assert sum(r["kind"] == "malformed" for r in lines) == 4
    assert sum(r.get("retries", 0) for r in lines if r["kind"] == "request") == 3
    assert sum(r["kind"] == "turn" for r in lines) == len(demo) - 1  # every GUI call of the level
    assert not any("native" in r for r in lines if r["kind"] == "turn")  # NGAR: code setting only
    ep = episode_from_record(out / "record")
    assert ep["success"] and ep["usage"]["malformed"] == 4 and ep["n_native"] is None

    # every malformed turn was answered with a message naming the problem
    def last_texts(req):
        return [m["content"] for m in req["messages"][-3:] if isinstance(m["content"], str)]

    sent = json.dumps(requests)
    assert "Your reply contained no tool call" in sent
    assert "click.x: expected an integer 0..639 (a pixel of the screenshot), got 900" in sent
    assert "arguments are not valid JSON" in sent and "unknown tool 'teleport'" in sent
    assert any("(a pixel of the screenshot)" in t for req in requests for t in last_texts(req))
    # black box: nothing private, no key, in what the model received or in the records and logs
    for private in ("evaluator", "potential", "dead_end", "levels_won"):
        assert private not in sent
    files = "".join(
        p.read_text(errors="replace")
        for p in out.rglob("*")
        if p.is_file() and p.suffix in (".json", ".jsonl")
    )
    assert SECRET not in files and SECRET not in caplog.text
    assert (
        lines[0]["kind"] == "config"
        and lines[0]["api_key"] == "…cdef"
        and lines[0]["base_url"] == url
    )
    # the first request: system prompt, task (the public instruction), the home screen
    first = requests[0]["messages"]
    assert first[0]["role"] == "system" and "BENCHMARK COMPLETED" in first[0]["content"]
    assert "Complete level 1 of Maze Paint at Easy difficulty" in first[1]["content"]
    assert (
        first[2]["content"][1]["type"] == "image_url"
        and "640x450" in first[2]["content"][0]["text"]
    )


def test_rule_card_goes_into_the_system_prompt_under_k1(tmp_path):
    with scripted({"model": "m", "turns": [call("answer", text="stop")]}) as (model, url):
        run_episode(
            MAZE,
            "openai:m",
            level=1,
            out_dir=tmp_path / "k1",
            gif=False,
            agent_options={"base_url": url, "rule_card": True},
        )
        system = model.requests[0]["messages"][0]["content"]
    assert (
        "Rules of the game in your task" in system
        and "Roll the ball up, down, left or right" in system
    )
    assert (
        json.loads((tmp_path / "k1" / "result.json").read_text())["agent"]
        == "openai:m/native/M1/K1"
    )


# --------------------------------------------------------------------------- the sandbox
@pytest.fixture
def sandbox(sandbox_available):
    box = Sandbox(SandboxLimits(time_s=1.0, memory_mb=512, gui_calls=3))
    yield box
    box.close()


def run_code(box: Sandbox, code: str, frame=None) -> tuple:
    box.start_run(code)
    gui = []
    while True:
        event = box.next_event()
        if event[0] == "gui":
            gui.append(event[1])
            box.reply(True, {"accepted": True, "feedback": "ok"})
        elif event[0] == "screenshot":
            import numpy as np

            box.send_frame(np.full((900, 1280, 3), 7, np.uint8) if frame is None else frame)
        else:
            return event, gui


def test_sandbox_keeps_a_session_and_serves_the_gui_api(sandbox):
    (kind, out, err), gui = run_code(sandbox, "x = 41\nprint(click(3, 4))")
    assert (
        kind == "done"
        and err is None
        and "'accepted': True" in out
        and gui == [{"type": "click", "x": 3, "y": 4}]
    )
    (_, out, err), _ = run_code(
        sandbox, "s = screenshot()\nprint(x + 1, s.width, s.height, s.pixel(5, 5))"
    )
    assert out.strip() == "42 1280 900 (7, 7, 7)"
    (_, out, err), gui = run_code(
        sandbox,
        "for i in range(5):\n    try:\n        wait()\n    except GUIError as e:\n        print(e)",
    )
    assert len(gui) == 3 and out.count("GUI call limit") == 2  # the per-run limit


def test_sandbox_enforces_its_limits_and_cannot_reach_the_env(sandbox, tmp_path, monkeypatch):
    import puzzlegym

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    private = tmp_path / "record.jsonl"
    private.write_text("evaluator snapshot")
    package = Path(puzzlegym.__file__).parent
    # no Python-level guard: each route is shut by the kernel (nothing in the mount namespace,
    # seccomp's EPERM), whatever the code does to its own interpreter
    denied = {
        "import puzzlegym.env": "ModuleNotFoundError: No module named 'puzzlegym'",
        "from puzzlegym import solvers": "ModuleNotFoundError: No module named 'puzzlegym'",
        f"open({str(package / 'env.py')!r}).read()": "FileNotFoundError",
        f"open({str(package.parent / 'envs' / 'maze_paint' / 'levels' / 'Easy.json')!r}).read()": (
            "FileNotFoundError"
        ),
        f"open({str(private)!r}).read()": "FileNotFoundError",
        "open('/tmp/outside.txt', 'w')": "FileNotFoundError",
        "import socket; socket.create_connection(('127.0.0.1', 80), timeout=1)": (
            "PermissionError: [Errno 1] Operation not permitted"
        ),
        "import subprocess; subprocess.run(['true'])": (
            "PermissionError: [Errno 1] Operation not permitted"
        ),
        # system() cannot spawn its shell: it answers exit status 127 and runs nothing
        "import os\nif os.system('true') == 127 << 8: raise OSError('no shell ran')": (
            "OSError: no shell ran"
        ),
    }
    for code, message in denied.items():
        (kind, _out, err), _ = run_code(sandbox, code)
        assert kind == "done" and err and message in err, (code, err)
    (_, out, _), _ = run_code(sandbox, "import os; print(' '.join(os.listdir('/')))")
    shown_root = set(out.split())
    assert "sandbox" in shown_root and not shown_root & {"etc", "home", "tmp", "opt", "work"}
    (_, out, _), _ = run_code(
        sandbox,
        "import os; print(sorted(k for k in os.environ if 'KEY' in k))\n"
        "open('own.txt', 'w').write('mine'); print(open('own.txt').read())",
    )
    assert out.split() == ["[]", "mine"]
    (_, _, err), _ = run_code(sandbox, "block = bytearray(1024 * 1024 * 1024)")
    assert "MemoryError" in err
    (kind, reason), _ = run_code(sandbox, "print('spinning')\nwhile True:\n    pass")
    assert kind == "failed" and "time limit" in reason
    (kind, out, err), _ = run_code(sandbox, "print('x' in dir())")  # a fresh session
    assert kind == "done" and out.strip() == "False"
    assert sandbox.sessions == 2


def test_sandbox_has_no_network_even_below_python(sandbox):
    assert sandbox.isolation == "bwrap"  # an empty network namespace
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    try:
        code = (
            f"try:\n    import socket; socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
            "except Exception as e:\n    print(type(e).__name__)"
        )
        (_, out, _), _ = run_code(sandbox, code)
        listener.settimeout(0.2)
        with pytest.raises(TimeoutError):
            listener.accept()
        assert out.strip() == "PermissionError"
    finally:
        listener.close()


# --------------------------------------------------------------------------- memory (RQ3)
def memory_run(
    tmp_path: Path, condition: str, setting: str = "native"
) -> tuple[list[dict], list[dict]]:
    """Two moves, Restart, then (M2) the summary turn, and an answer; returns the requests the
    server received and the agent's record lines."""
    actions, targets = solver_actions(level=1, start="board")
    moves = [a for a in actions if a["type"] == "drag"][:2]
    restart = targets["restart"]
    if setting == "native":
        turns = [
            {
                "content": f"move {i}",
                "tool_calls": [
                    {"name": "drag", "arguments": {k: v for k, v in m.items() if k != "type"}}
                ],
            }
            for i, m in enumerate(moves)
        ]
        turns.append(
            {
                "content": "start over",
                "tool_calls": [{"name": "click", "arguments": {"x": restart[0], "y": restart[1]}}],
            }
        )
    else:
        turns = [
            call("run_code", code="x = 41"),
            call("run_code", code=f"click({restart[0]}, {restart[1]})"),
        ]
    if condition == "M2":
        turns.append(
            {"content": "Failure experience: " + "I filled the corridor too early. " * 400}
        )
    turns.append(call("run_code", code="print(x + 1)") if setting == "code" else call("wait"))
    turns.append(call("answer", text="stop"))
    with scripted({"model": "m", "turns": turns}) as (model, url):
        run_episode(
            MAZE,
            "openai:m",
            level=1,
            start="board",
            clock="sim",
            out_dir=tmp_path / condition / setting,
            gif=False,
            agent_options={"base_url": url, "memory": condition, "setting": setting},
        )
        requests = model.requests
    return requests, agent_lines(tmp_path / condition / setting)


def test_memory_conditions_produce_the_specified_histories(tmp_path):
    m0, lines0 = memory_run(tmp_path, "M0")
    m1, lines1 = memory_run(tmp_path, "M1")
    m2, lines2 = memory_run(tmp_path, "M2")
    after = -2  # the request right after the restart (the last one answers)
    # M0: system prompt, task, the screenshot after the restart: nothing of the attempt
    assert [m["role"] for m in m0[after]["messages"]] == ["system", "user", "user"]
    assert "after the restart" in m0[after]["messages"][2]["content"][0]["text"]
    # M1: the attempt is still there (its three moves and their results)
    roles1 = [m["role"] for m in m1[after]["messages"]]
    assert roles1.count("assistant") == 3 and roles1.count("tool") == 3
    assert [m["content"] for m in m1[after]["messages"] if m["role"] == "assistant"] == [
        "move 0",
        "move 1",
        "start over",
    ]
    # M2: a summary request (no tool may be called), then the history replaced by the summary, cut
    # to the text size of the history M1 sends at that moment
    summary_req, acting = m2[-3], m2[after]
    assert (
        summary_req["tool_choice"] == "none"
        and summary_req["messages"][-1]["content"] == summary_request()
    )
    assert [m["role"] for m in acting["messages"]] == ["system", "user", "user", "user"]
    note = acting["messages"][2]["content"]
    assert (
        note.startswith("Your notes on your previous attempt")
        and "Failure experience: I filled" in note
    )
    m1_history = m1[after]["messages"][2:-1]  # M1's window without the screenshot after the restart
    assert len(note) == text_chars(m1_history)
    (mem2,) = [r for r in lines2 if r["kind"] == "memory"]
    assert mem2["m1_chars"] == text_chars(m1_history) == mem2["kept_chars"] and mem2["truncated"]
    assert [r["condition"] for r in lines0 + lines1 if r["kind"] == "memory"] == ["M0", "M1"]
    assert [r["purpose"] for r in lines2 if r["kind"] == "request"].count("summary") == 1


def test_memory_m0_also_starts_a_fresh_sandbox_session_in_the_code_setting(
    tmp_path, sandbox_available
):
    m0, _ = memory_run(tmp_path, "M0", setting="code")
    m1, _ = memory_run(tmp_path, "M1", setting="code")

    def last_result(requests):
        return [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"][-1]

    assert "NameError" in last_result(m0)
    assert "printed:\n42" in last_result(m1)


# --------------------------------------------------------------------------- NGAR through eval
def ngar_script(level1: list[dict]) -> list[dict]:
    """A Code Execution episode whose steps are counted by hand (see the test)."""
    card, tier, *drags = level1
    drag_calls = "\n".join(f"drag({d['x0']}, {d['y0']}, {d['x1']}, {d['y1']})" for d in drags)
    return [
        call("click", x=card["x"], y=card["y"]),  # native 1
        call("screenshot"),  # an observation: no step
        call(
            "run_code",
            code=(  # other 1; screenshot() no step, click native 2
                "s = screenshot()\n"
                f"click({tier['x']}, {tier['y']})\n"
                # malformed, no step
                "try:\n    click(5000, 1)\nexcept GUIError as e:\n    print('refused:', e)\n"
                "try:\n    import puzzlegym\nexcept ImportError as e:\n    print(e)\n"
            ),
        ),
        call("wait"),  # other 2
        {
            "content": "No tool call, but a block:\n```python\nprint('fenced', 6 * 7)\n```\n"
        },  # run: other 3
        call("run_code", code="def broken(:"),  # other 4 (a SyntaxError is a result too)
        call("run_code", code=drag_calls),  # other 5; each drag native: 3 .. 2 + len(drags)
        # then the script is exhausted: answer("script exhausted"), other 6
    ]


def test_eval_runs_model_agents_in_parallel_and_the_report_fills_ngar(
    tmp_path, capsys, sandbox_available
):
    actions, _ = solver_actions(level=1, start="home")
    level1 = [a for a in actions if a["type"] != "answer"]
    n_drags = len(level1) - 2
    script = {"models": {"alpha": ngar_script(level1), "beta": [call("answer", text="I give up")]}}
    run = tmp_path / "run"
    with scripted(script) as (model, url):
        code = main(
            [
                "eval",
                "--agents",
                "openai:alpha,openai:beta",
                "--objectives",
                "MazePaint-Easy",
                "--seeds",
                "0",
                "--workers",
                "2",
                "--run-dir",
                str(run),
                "--quiet",
                "--base-url",
                url,
                "--setting",
                "code",
                "--memory",
                "M1",
                "--code-time-limit-s",
                "20",
            ]
        )
        sent = json.dumps(model.requests)
    assert code == 0
    native, other = 2 + n_drags, 6
    expected = 100.0 * native / (native + other)
    meta = json.loads((run / "run.json").read_text())
    assert meta["agents"] == ["openai:alpha/code/M1", "openai:beta/code/M1"]
    assert meta["env_kwargs"]["clock"] == "wall" and meta["agent_options"]["setting"] == "code"
    rec = run / "episodes" / "openai_alpha_code_M1" / "MazePaint-Easy" / "seed0" / "record"
    ep = episode_from_record(rec)
    assert (ep["n_native"], ep["n_other"]) == (native, other)
    assert ep["won"] == [1] and ep["end"] == "answer" and ep["premature_exit"]
    assert ep["usage"]["malformed"] == 1
    assert aggregate([episode_row(ep)])["NGAR"] == pytest.approx(expected)
    assert (
        "refused: action(click).x: expected an integer 0..1279 (a pixel on the screen), got 5000"
        in sent
    )
    assert "No module named 'puzzlegym'" in sent and "SyntaxError" in sent and "fenced 42" in sent
    beta = episode_from_record(
        run / "episodes" / "openai_beta_code_M1" / "MazePaint-Easy" / "seed0" / "record"
    )
    assert (beta["n_native"], beta["n_other"]) == (0, 1)

    assert main(["report", str(run)]) == 0
    table2 = (run / "report" / "table2.md").read_text()
    row = next(line for line in table2.splitlines() if line.startswith("| openai:alpha/code/M1"))
    assert f"| {expected:.1f} |" in row
    table17 = (run / "report" / "table17.md").read_text()
    assert f"| {native} | {other} |" in table17
    assert "openai:alpha/code/M1" in (run / "report" / "usage.md").read_text()
    # the model agents' records replay like any other (wall-clock times included)
    assert main(["replay", str(run)]) == 0
    capsys.readouterr()


def test_screenshots_and_waits_cannot_raise_ngar(tmp_path, sandbox_available):
    """Issue 29 item 7, the attack: no game action at all, but a code loop of ``screenshot()``
    (ended by the run's one call budget), a loop of ``wait()``, screenshot tool calls. Before,
    each screenshot was a native step and NGAR came out near 100."""
    turns = [
        call(
            "run_code",
            code=(
                "for _ in range(5):\n"
                "    wait()\n"
                "n = 0\n"
                "try:\n"
                "    while n < 10_000:\n"
                "        screenshot()\n"
                "        n += 1\n"
                "except GUIError as e:\n"
                "    print(n, e)\n"
            ),
        ),
        {"tool_calls": [{"name": "screenshot", "arguments": {}}] * 3},
        call("answer", text="done"),
    ]
    out = tmp_path / "ep"
    with scripted({"model": "m", "turns": turns}) as (model, url):
        run_episode(
            MAZE,
            "openai:m",
            level=1,
            start="board",
            clock="sim",
            out_dir=out,
            gif=False,
            agent_options={"base_url": url, "setting": "code", "code_gui_calls": 40},
        )
        sent = json.dumps(model.requests)
    assert "35 GUI call limit: at most 40 GUI calls (screenshots included) per run" in sent
    ep = episode_from_record(out / "record")
    # other: run_code, 5 waits, answer; the 35 + 3 screenshots are no steps
    assert (ep["n_native"], ep["n_other"]) == (0, 7)
    assert aggregate([episode_row(ep)])["NGAR"] == 0.0
    turns_logged = [r for r in read_log(out / "record", AGENT_LOG) if r["kind"] == "turn"]
    shots = [r for r in turns_logged if r["tool"] == "screenshot"]
    assert len(shots) == 38 and all(r["native"] is None for r in shots)


def test_an_episode_stopped_by_the_model_server_is_recorded_and_not_scored(tmp_path, capsys):
    run = tmp_path / "run"
    with scripted(
        {"models": {"good": [call("answer", text="stop")], "bad": [{"status": 401}]}}
    ) as (_, url):
        code = main(
            [
                "eval",
                "--agents",
                "openai:good,openai:bad",
                "--objectives",
                "MazePaint-Easy",
                "--seeds",
                "0",
                "--run-dir",
                str(run),
                "--quiet",
                "--base-url",
                url,
            ]
        )
    assert code == 1
    assert "episode failed: openai:bad/native/M1" in capsys.readouterr().out
    lines = read_log(
        run / "episodes" / "openai_bad_native_M1" / "MazePaint-Easy" / "seed0" / "record", AGENT_LOG
    )
    assert lines[-1]["kind"] == "error" and "(401)" in lines[-1]["error"]
    assert main(["report", str(run)]) == 0
    index = (run / "report" / "index.md").read_text()
    assert "openai:bad/native/M1" in index.split("## Episodes that failed")[1]
    assert "| openai:bad" not in (run / "report" / "table2.md").read_text()


def test_hydra_entry_point_runs_a_model_agent_from_its_config(tmp_path):
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    with scripted({"model": "m", "turns": [call("answer", text="stop")]}) as (model, url):
        proc = subprocess.run(
            [
                sys.executable,
                str(root / "examples" / "run_hydra.py"),
                f"hydra.run.dir={tmp_path / 'hydra'}",
                f"out_dir={tmp_path / 'episode'}",
                "gif=false",
                "env.kwargs.level=1",
                "agent=openai",
                "agent.name=openai:m",
                f"agent.options.base_url={url}",
                "agent.options.memory=M0",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        assert len(model.requests) == 1
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["agent"] == "openai:m/native/M0" and result["model"]["requests"] == 1


def test_tool_calls_past_the_per_reply_limit_are_refused_after_the_results_of_those_that_ran(
    tmp_path,
):
    from puzzlegym.agents.client import MAX_TOOL_CALLS

    many = {"tool_calls": [{"name": "wait", "arguments": {}} for _ in range(MAX_TOOL_CALLS + 2)]}
    with scripted({"model": "m", "turns": [many, call("answer", text="stop")]}) as (model, url):
        result = run_episode(
            MAZE,
            "openai:m",
            level=1,
            start="board",
            clock="sim",
            out_dir=tmp_path / "many",
            gif=False,
            agent_options={"base_url": url},
        )
        messages = model.requests[-1]["messages"]
    assert (
        result["actions"] == MAX_TOOL_CALLS + 1 and result["model"]["malformed"] == 1
    )  # 16 waits, the answer
    roles = [m["role"] for m in messages]
    first = roles.index("assistant")
    assert roles[first + 1 : first + 1 + MAX_TOOL_CALLS] == ["tool"] * MAX_TOOL_CALLS
    assert "2 more were not run" in messages[first + 1 + MAX_TOOL_CALLS]["content"]
