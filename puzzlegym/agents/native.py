"""The Native GUI Actions agent: a multimodal model sees the screenshot and acts only with
coordinate GUI actions (paper Section 4, Appendix B.2).

``agent(obs, info) -> action`` like every agent. Each call first reports the result of the
action the agent returned last (the tool result: accepted, the public feedback line, the time
used), then works through the model's reply, one tool call per action, and asks the model
again when the reply is used up: system prompt (with the rule card under K1), task message
(the env's public instruction), and the history window (:mod:`.history`) with a screenshot
after every reply that acted (:mod:`.screenshots`).

* A malformed or out-of-range tool call, a reply with no tool call, or tool calls past the
  per-reply limit are returned to the model as error messages and counted; they never end the
  episode.
* The agent reads only pixels and the public info (``puzzlegym.wrappers.BlackBox``): it is
  given the env id, never the env, and drops ``info["evaluator"]`` before looking at info.
* Memory conditions (:mod:`.memory`) apply when the env reports the agent's own press of
  Restart (``info["pressed"]``).
* A model that keeps replying without acting cannot stall the episode: after
  ``max_idle_requests`` requests without an action, or past the budget on the wall clock, the
  harness performs a ``wait`` so the env's clock and deadline move on.

Everything the agent does is returned by :meth:`drain_records` as record lines (the runner
writes them to the episode record's ``agent.jsonl``): its configuration, each model request
(latency, tokens, retries), each step, each malformed call, each memory application.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from puzzlegym.agents.client import ChatClient, Reply
from puzzlegym.agents.history import WINDOW_CHARS, History, image_message
from puzzlegym.agents.memory import Memory
from puzzlegym.agents.prompts import no_tool_call, observation_text, system_prompt, task_message
from puzzlegym.agents.screenshots import ScreenEncoder
from puzzlegym.agents.tools import NATIVE_TOOLS, ParsedCall, ToolError, parse_call, tool_schemas
from puzzlegym.base.actions import Action, Wait, flatten, to_dict
from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count
from puzzlegym.game.registry import parse_env_id
from puzzlegym.wrappers.blackbox import BlackBox

__all__ = ["NativeAgent"]

MAX_IDLE_REQUESTS = 1000
MAX_RECORD_TEXT = 4000


class NativeAgent:
    """A model playing through native GUI actions (module docstring)."""

    setting = "native"
    tools: tuple[str, ...] = NATIVE_TOOLS

    def __init__(
        self,
        client: ChatClient,
        env_id: str,
        *,
        memory: str = "M1",
        rule_card: bool = False,
        image_format: str = "png",
        image_width: int = 1280,
        image_quality: int = 85,
        history_turns: int | None = 40,
        history_images: int = 2,
        max_idle_requests: int = 20,
        wall_clock: bool = True,
    ) -> None:
        game, tier = parse_env_id(env_id)
        check_count(max_idle_requests, "max_idle_requests", 1, MAX_IDLE_REQUESTS, ConfigError)
        if not isinstance(rule_card, bool):
            raise ConfigError(f"rule_card: expected true or false, got {rule_card!r}")
        self.client = client
        self.env_id = env_id
        self.rule_card = game.rule_card if rule_card else None
        self.encoder = ScreenEncoder(image_format, image_width, image_quality)
        self.memory = Memory(memory)
        self.max_idle_requests = max_idle_requests
        self.wall_clock = wall_clock
        self._history_window = (history_turns, history_images)
        History(
            "", "", turns=history_turns, images=history_images
        )  # validate now, not at the first step
        self.history: History | None = None
        self.name = f"openai:{client.model}"
        self._calls: deque = deque()  # raw tool calls of the reply in progress
        self._inflight: ParsedCall | None = None  # the call whose action the env is performing
        self._turn_open = False
        self._notes: list[str] = []  # user messages for the end of the current turn
        self._acted = False  # an action was performed since the last observation
        self._restart = False
        self._obs: Any = None
        self._info: dict = {}
        self._t_info = time.monotonic()
        self._records: list[dict] = []
        self.counts = {
            "native": 0,
            "other": 0,
            "observations": 0,
            "malformed": 0,
            "harness_waits": 0,
            "restarts": 0,
        }
        self._records.append({"kind": "config", **self.describe()})

    # ------------------------------------------------------------------ description
    def describe(self) -> dict:
        turns, images = self._history_window
        return {
            "setting": self.setting,
            "memory": self.memory.condition,
            "rule_card": self.rule_card is not None,
            "image_format": self.encoder.format,
            "image_size": list(self.encoder.size),
            "image_quality": self.encoder.quality if self.encoder.format == "jpeg" else None,
            "history_turns": turns,
            "history_images": images,
            "history_chars": WINDOW_CHARS,
            "max_idle_requests": self.max_idle_requests,
            **self.client.describe(),
        }

    def drain_records(self) -> list[dict]:
        """The record lines since the last call, every string masked for the key (the model's
        text, tool calls and code come from the server)."""
        out, self._records = self._records, []
        return [_redacted(rec, self.client.redact) for rec in out]

    def redact(self, text: str) -> str:
        """``text`` masked for the key (for anything else the runner writes)."""
        return self.client.redact(text)

    def summary(self) -> dict:
        return {
            "setting": self.setting,
            "memory": self.memory.condition,
            **self.counts,
            **self.client.totals.to_json(),
        }

    def close(self) -> None:
        self.client.close()

    # ------------------------------------------------------------------ the agent
    def __call__(self, obs: Any, info: dict) -> dict:
        info = BlackBox.public(dict(info or {}))  # never the evaluator's section
        self._obs, self._info, self._t_info = obs, info, time.monotonic()
        if "restart" in (info.get("pressed") or ()):
            self._restart = True
        if self.history is None:
            self._start(info)
        elif self._inflight is not None:
            call, self._inflight = self._inflight, None
            self._completed(call, info)
        return to_dict(self._next_action())

    def _start(self, info: dict) -> None:
        turns, images = self._history_window
        system = system_prompt(
            self.setting, *self.encoder.size, rule_card=self.rule_card, **self._prompt_extras()
        )
        self.history = History(
            system,
            task_message(str(info.get("instruction", "")), self.setting),
            turns=turns,
            images=images,
        )
        self.history.new_unit(self._observation("at the start"))

    def _prompt_extras(self) -> dict:
        return {}

    def _observation(self, why: str = "after your last actions") -> dict:
        return image_message(
            observation_text(*self.encoder.size, why), self.encoder.data_url(self._obs)
        )

    def _next_action(self) -> Action:
        idle = 0
        while True:
            action = self._work()
            if action is not None:
                return action
            if self._turn_open:
                self._finish_turn()
            if idle >= self.max_idle_requests or self._past_deadline():
                reason = (
                    "deadline" if self._past_deadline() else f"{idle} requests without an action"
                )
                self.counts["harness_waits"] += 1
                self._records.append({"kind": "harness_wait", "reason": reason})
                return Wait()
            self._ask()
            idle += 1

    def _past_deadline(self) -> bool:
        if not self.wall_clock:
            return False
        elapsed = float(self._info.get("elapsed_s", 0.0)) + time.monotonic() - self._t_info
        return elapsed >= float(self._info.get("budget_s", float("inf")))

    # ------------------------------------------------------------------ model requests
    def _ask(self) -> None:
        assert self.history is not None
        schemas = tool_schemas(*self.encoder.size, code=self.setting == "code")
        reply = self.client.complete(self.history.messages(), schemas)
        self._record_request(reply, "act")
        self.history.new_unit(reply.message)
        self._turn_open = True
        self._calls = deque(reply.tool_calls)
        if not reply.tool_calls:
            self._no_tool_call(reply)
        if reply.dropped_tool_calls:
            self._malformed(
                "(reply)",
                f"{reply.dropped_tool_calls} tool calls past the first {len(reply.tool_calls)} "
                "were not run",
            )
            # said after the results of the calls that ran (tool results must follow their calls)
            self._notes.append(
                f"Only the first {len(reply.tool_calls)} tool calls of a reply run; "
                f"{reply.dropped_tool_calls} more were not run."
            )

    def _no_tool_call(self, reply: Reply) -> None:
        self._malformed("(none)", "the reply contained no tool call")
        assert self.history is not None
        self.history.add({"role": "user", "content": no_tool_call(self.setting)})

    def _record_request(self, reply: Reply, purpose: str) -> None:
        self._records.append(
            {
                "kind": "request",
                "purpose": purpose,
                "latency_s": round(reply.latency_s, 3),
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "retries": reply.retries,
                "finish_reason": reply.finish_reason,
                "tool_calls": [c["name"] for c in reply.tool_calls],
                # the failed attempts (malformed replies, timeouts, 5xx) retried
                "faults": reply.faults,
                # what the model said (the episode viewer shows it), each text cut
                "content": reply.content[:MAX_RECORD_TEXT],
                "reasoning": reply.reasoning[:MAX_RECORD_TEXT],
                "calls": [
                    {"name": c["name"], "arguments": c["arguments"][:MAX_RECORD_TEXT]}
                    for c in reply.tool_calls
                ],
            }
        )

    def _summarize(self, messages: list[dict]) -> str:
        # the tools stay declared (the history holds tool calls) but the model may not call one
        schemas = tool_schemas(*self.encoder.size, code=self.setting == "code")
        reply = self.client.complete(messages, schemas, tool_choice="none")
        self._record_request(reply, "summary")
        return reply.content

    # ------------------------------------------------------------------ working through a reply
    def _work(self) -> Action | None:
        """Perform the next call of the reply in progress; None when nothing is left to do."""
        while self._calls:
            raw = self._calls.popleft()
            try:
                call = parse_call(raw, self.encoder, self.tools)
            except ToolError as exc:
                self._malformed(raw.get("name") or "(unnamed)", str(exc))
                self._result(raw.get("id"), f"error: {exc}")
                continue
            action = self._perform(call)
            if action is not None:
                return action
        return None

    def _perform(self, call: ParsedCall) -> Action | None:
        """Start ``call``: the action for the env, or None if it was handled here."""
        assert call.action is not None
        self._turn(call.name, native=call.kind == "gui", detail={"action": to_dict(call.action)})
        self._inflight = call
        self._acted = True
        return call.action

    def _completed(self, call: ParsedCall, info: dict) -> None:
        """The env performed ``call``'s action: give the model its result."""
        n = len(flatten(call.action)) if call.action is not None else 0
        self._result(call.id, _result_text(n, info))

    def _finish_turn(self) -> None:
        """The reply is used up: memory at a restart, then the observation for the next request."""
        assert self.history is not None
        self._turn_open = False
        for note in self._notes:
            self.history.add({"role": "user", "content": note})
        self._notes = []
        if self._restart:
            self._restart = False
            self.counts["restarts"] += 1
            observation = self._observation("after the restart")
            rec = self.memory.on_restart(self.history, observation, self._summarize)
            self._records.append(rec)
            self._memory_applied()
            self.history.add(observation)
            self._acted = False
            return
        if self._wants_observation():
            self.history.add(self._observation())
        self._acted = False

    def _wants_observation(self) -> bool:
        return self._acted

    def _memory_applied(self) -> None:
        """Hook: the memory condition was just applied (the code agent resets its sandbox)."""

    # ------------------------------------------------------------------ bookkeeping
    def _result(self, call_id: str | None, text: str) -> None:
        assert self.history is not None
        self._records.append({"kind": "result", "text": text[:MAX_RECORD_TEXT]})
        if call_id:
            self.history.add({"role": "tool", "tool_call_id": call_id, "content": text})
        else:
            self.history.add({"role": "user", "content": text})

    def _turn(
        self, tool: str, *, native: bool | None, detail: dict | None = None, source: str = "tool"
    ) -> None:
        """Record one tool call (or call of the model's code): an NGAR step, native (a game
        action) or other, or (``native=None``) no step at all (an observation)."""
        key = "observations" if native is None else "native" if native else "other"
        self.counts[key] += 1
        rec = {"kind": "turn", "tool": tool, "source": source, **(detail or {})}
        if self.setting == "code":
            rec["native"] = native  # NGAR applies to the Code Execution setting only
        self._records.append(rec)

    def _malformed(self, tool: str, error: str, source: str = "tool") -> None:
        self.counts["malformed"] += 1
        self._records.append(
            {"kind": "malformed", "tool": tool, "source": source, "error": error[:MAX_RECORD_TEXT]}
        )


def _redacted(value: Any, redact) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redacted(v, redact) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redacted(v, redact) for v in value]
    return value


def _result_text(n_actions: int, info: dict) -> str:
    accepted = "yes" if info.get("accepted") else "no"
    feedback = info.get("feedback") or "(none)"
    elapsed = float(info.get("elapsed_s", 0.0))
    budget = float(info.get("budget_s", 0.0))
    return (
        f"performed {n_actions} action(s); accepted: {accepted}; feedback line: {feedback}; "
        f"time used {elapsed:.0f} s of {budget:.0f} s"
    )
