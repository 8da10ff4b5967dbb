"""The Code Execution CUA agent: the Native GUI Actions agent plus a Python sandbox (paper
Section 4.3, Appendix B.2).

Besides the GUI tools the model has ``screenshot`` (in this setting screenshots come on
request, not after every action; the screenshot shows the screen once all the calls of the
reply have run) and ``run_code`` (Python run in
:class:`~puzzlegym.sandbox.harness.Sandbox`, a confined process whose only way to the game is
a small GUI API over a pipe). A reply without tool calls whose text holds one fenced
```` ```python ```` block runs that block.

Steps for NGAR (``100·native/(native + other)``, the LongPuzzleBench paper's Appendix B.3),
one record line each:

* native: a game action, that is GUI input the game receives: a GUI tool call (click,
  double_click, drag, press_key, type_text, scroll, batch) and every such call the model's code
  makes (each its own step);
* other: every ``run_code`` call (one per run, whatever it does), a ``wait`` (a tool call or
  the code's ``wait()``) and the ``answer``;
* no step: a screenshot (the ``screenshot`` tool or the code's ``screenshot()``): recorded
  (``"native": null``), never counted, so looking at the screen cannot raise NGAR (nor lower
  it).

The code's GUI calls and screenshots share one budget per run (``code_gui_calls``). Malformed
calls (in replies or from code) are counted apart and are not steps. Unlike the paper, which
counts a code call that issues GUI input once and as non-native, each game action of the code
counts here as its own native step, so the run's computation and its inputs are both visible.
"""

from __future__ import annotations

import json
import re

from puzzlegym.agents.native import MAX_RECORD_TEXT, NativeAgent
from puzzlegym.agents.tools import CODE_TOOLS, ParsedCall
from puzzlegym.base.actions import Action, Batch, parse_action, to_dict
from puzzlegym.base.errors import ActionError
from puzzlegym.sandbox.harness import Sandbox, SandboxError, SandboxLimits

__all__ = ["CodeAgent"]

CODE_GUI_TYPES = ("click", "double_click", "drag", "press_key", "type_text", "scroll", "wait")
_FENCE = re.compile(r"```(?:python|py)[ \t]*\n(.*?)```", re.S)


def _code_action(doc: dict) -> Action:
    """A GUI request of the model's code as a validated action (no batch, no answer)."""
    if doc.get("type") not in CODE_GUI_TYPES:
        raise ActionError(
            f"GUI call type {doc.get('type')!r} is not part of the API; "
            f"allowed: {', '.join(CODE_GUI_TYPES)}"
        )
    action = parse_action(doc)
    assert not isinstance(action, Batch)
    return action


class CodeAgent(NativeAgent):
    setting = "code"
    tools = CODE_TOOLS

    def __init__(
        self,
        client,
        env_id: str,
        *,
        code_time_limit_s: float = 30.0,
        code_memory_mb: int = 1024,
        code_output_chars: int = 4000,
        code_gui_calls: int = 1000,
        **kwargs,
    ) -> None:
        self.sandbox = Sandbox(
            SandboxLimits(code_time_limit_s, code_memory_mb, code_output_chars, code_gui_calls)
        )
        self._code: ParsedCall | None = None  # the run in progress
        self._run_counts = {"gui": 0, "screenshots": 0}
        self._want_screenshot = False
        super().__init__(client, env_id, **kwargs)
        self.counts["code_runs"] = 0

    def describe(self) -> dict:
        return {**super().describe(), "sandbox": self.sandbox.describe()}

    def close(self) -> None:
        self.sandbox.close()
        super().close()

    def _prompt_extras(self) -> dict:
        lim = self.sandbox.limits
        return {
            "code_time_s": lim.time_s,
            "code_memory_mb": lim.memory_mb,
            "code_output_chars": lim.output_chars,
        }

    # ------------------------------------------------------------------ calls
    def _work(self) -> Action | None:
        if self._code is not None:
            action = self._drive()
            if action is not None:
                return action
        return super()._work()

    def _perform(self, call: ParsedCall) -> Action | None:
        if call.kind == "screenshot":
            self._turn("screenshot", native=None)  # an observation: no NGAR step
            self._result(call.id, "The screenshot follows.")
            self._want_screenshot = True
            return None
        if call.kind == "run_code":
            assert call.code is not None
            self.counts["code_runs"] += 1
            self._turn("run_code", native=False, detail={"code_chars": len(call.code)})
            self._run_counts = {"gui": 0, "screenshots": 0}
            try:
                self.sandbox.start_run(call.code)
            except SandboxError as exc:
                self._result(call.id, f"run_code could not run: {exc}")
                self._records.append(
                    {
                        "kind": "code",
                        "outcome": "failed",
                        "error": str(exc),
                        "code": call.code[:MAX_RECORD_TEXT],
                    }
                )
                return None
            self._code = call
            return self._drive()
        return super()._perform(call)

    def _completed(self, call: ParsedCall, info: dict) -> None:
        if call.kind != "code_gui":
            super()._completed(call, info)
            return
        self.sandbox.reply(
            True,
            {
                "accepted": bool(info.get("accepted")),
                "feedback": str(info.get("feedback") or ""),
                "elapsed_s": round(float(info.get("elapsed_s", 0.0)), 3),
            },
        )

    def _drive(self) -> Action | None:
        """Serve the run in progress until it asks for a GUI action (returned) or ends."""
        assert self._code is not None
        while True:
            event = self.sandbox.next_event()
            if event[0] == "screenshot":
                self._run_counts["screenshots"] += 1
                self._turn("screenshot", native=None, source="code")
                self.sandbox.send_frame(self._obs)
                continue
            if event[0] == "gui":
                try:
                    action = _code_action(event[1])
                except ActionError as exc:
                    self._malformed(str(event[1].get("type")), str(exc), source="code")
                    self.sandbox.reply(False, error=str(exc))
                    continue
                self._run_counts["gui"] += 1
                self._turn(
                    action.type,
                    native=action.type != "wait",  # a game action; a wait is none
                    source="code",
                    detail={"action": to_dict(action)},
                )
                self._inflight = ParsedCall(self._code.id, "code_gui", "code_gui", action=action)
                self._acted = True
                return action
            call, self._code = self._code, None
            self._code_done(call, event)
            return None

    def _code_done(self, call: ParsedCall, event: tuple) -> None:
        n, shots = self._run_counts["gui"], self._run_counts["screenshots"]
        stdout = ""
        if event[0] == "done":
            _, stdout, error = event
            text = (
                f"run_code finished: {n} GUI call(s), {shots} screenshot(s).\n"
                f"printed:\n{stdout or '(nothing)'}"
            )
            if error:
                text += f"\nerror:\n{error}"
            outcome = "error" if error else "ok"
        else:
            error = event[1]
            text = (
                f"run_code stopped: {error}. It had made {n} GUI call(s) and {shots} screenshot(s)."
            )
            outcome = "failed"
        self._result(call.id, text)
        self._records.append(
            {
                "kind": "code",
                "outcome": outcome,
                "gui_calls": n,
                "screenshots": shots,
                "error": (error or None) and str(error)[:MAX_RECORD_TEXT],
                "code": (call.code or "")[:MAX_RECORD_TEXT],
                "output": str(stdout or "")[:MAX_RECORD_TEXT],
            }
        )

    # ------------------------------------------------------------------ replies without tool calls
    def _no_tool_call(self, reply) -> None:
        blocks = _FENCE.findall(reply.content or "")
        if len(blocks) == 1 and blocks[0].strip():
            self._calls.append(
                {"id": None, "name": "run_code", "arguments": json.dumps({"code": blocks[0]})}
            )
            return
        super()._no_tool_call(reply)

    # ------------------------------------------------------------------ observations and memory
    def _wants_observation(self) -> bool:
        return self._want_screenshot

    def _finish_turn(self) -> None:
        super()._finish_turn()
        self._want_screenshot = False

    def _memory_applied(self) -> None:
        if self.memory.resets_sandbox:
            self.sandbox.reset()
