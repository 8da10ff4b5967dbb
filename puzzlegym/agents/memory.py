"""Memory conditions (RQ3, the LongPuzzleBench paper's Appendix D.4): what a model agent
keeps of an attempt when the level is restarted.

* **M0**: the history is cleared; the next request holds the system prompt, the task and the
  screenshot after the restart.
* **M1**: the history is kept (the window policy of :mod:`.history` still applies).
* **M2**: the model is asked for a failure summary of the attempt (its history, the screenshot
  after the restart and :func:`~puzzlegym.agents.prompts.summary_request`); the history is
  replaced by that summary, cut so the new history has at most as many text characters as the
  history M1 sends in the next request (:meth:`History.window_text_chars`; images count
  zero, screenshots the window omits count as their placeholder).

After the restart every condition accumulates history as usual. A restart is the agent's own
press of the level screen's Restart control, which the env reports publicly
(``info["pressed"]``). In the Code Execution setting M0 and M2 also start a fresh sandbox
session, since its variables are memory too. Each application is returned as a record line.
"""

from __future__ import annotations

from collections.abc import Callable

from puzzlegym.agents.history import History, text_chars
from puzzlegym.agents.prompts import memory_note, summary_request
from puzzlegym.base.errors import ConfigError

__all__ = ["CONDITIONS", "Memory"]

CONDITIONS = ("M0", "M1", "M2")


class Memory:
    def __init__(self, condition: str = "M1") -> None:
        if condition not in CONDITIONS:
            raise ConfigError(
                f"memory: {condition!r} is not a memory condition; allowed: {', '.join(CONDITIONS)}"
            )
        self.condition = condition
        self.restarts = 0

    @property
    def resets_sandbox(self) -> bool:
        return self.condition != "M1"

    def on_restart(
        self,
        history: History,
        observation: dict,
        summarize: Callable[[list[dict]], str],
    ) -> dict:
        """Apply the condition to ``history`` at a restart (before ``observation``, the
        screenshot after the restart, is added to it). Returns the record line."""
        self.restarts += 1
        size = history.window_text_chars(then=observation)
        rec = {
            "kind": "memory",
            "condition": self.condition,
            "restart": self.restarts,
            "units_before": len(history),
            "m1_chars": size,
        }
        if self.condition == "M1":
            rec["kept_chars"] = size
            return rec
        if self.condition == "M0":
            history.clear()
            rec["kept_chars"] = 0
            return rec
        request = history.messages() + [observation, {"role": "user", "content": summary_request()}]
        summary = summarize(request).strip()
        note = memory_note("")
        kept = summary[: max(0, size - len(note))]
        history.clear()
        if kept:  # (a history too small to hold any of the summary stays empty)
            history.new_unit({"role": "user", "content": memory_note(kept)})
        rec.update(
            summary_chars=len(summary),
            kept_chars=text_chars(history.units[0]) if history.units else 0,
            truncated=len(kept) < len(summary),
        )
        return rec
