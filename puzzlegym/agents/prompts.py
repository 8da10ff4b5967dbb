"""Every text the model agents send a model, in one place: the system prompt of each setting
(with the rule card under K1), the task message, the texts around screenshots and tool
results, and the failure-summary request of memory condition M2.

The prompts carry no game rules (unless the rule card is asked for), no strategy and nothing
private: the instruction is the env's public instruction, everything else is about the
interface.
"""

from __future__ import annotations

from puzzlegym.base.actions import GAME_KEYS, MAX_BATCH_LENGTH, SCREEN_HEIGHT, SCREEN_WIDTH

__all__ = [
    "COMPLETION_PREFIX",
    "SETTING_NAMES",
    "memory_note",
    "no_tool_call",
    "observation_text",
    "summary_request",
    "system_prompt",
    "task_message",
]

COMPLETION_PREFIX = "BENCHMARK COMPLETED"
SETTING_NAMES = {"native": "Native GUI Actions", "code": "Code Execution CUA"}

_BASE = """\
You are playing the Game Suite, an application of puzzle games shown on a screen.
You see the screen only in screenshots and change it only with the GUI tools.

What you may use: what the screenshots show and the text the tools return. The game's source,
files, hidden state and scores are not available to you, and you must not look for them.

How to act:
- Act by calling tools. You may call several tools in one reply; they run in order.
- Coordinates are integer pixels of the screenshot you see ({width}x{height}): x counts from 0 at
  the left edge to {xmax}, y from 0 at the top edge to {ymax}.
- press_key takes a single letter a-z or A-Z, or one of: {keys}.
- batch performs 1 to {batch} actions in order; each counts as one action.
{observation}
How to play:
- Start at the home screen: choose the game and the difficulty named in your task through the
  visible interface, and check on the screen that they are selected before you play.
- Work out the rules from what the screen shows. Use the visible Undo or Restart controls when
  you need them. Neither repeated failure nor elapsed time is a reason to stop.
- When the screen shows that the whole objective is complete, call answer with a text that
  starts with "{done}" and names what on the screen shows it. Calling answer ends the
  episode in every case.
"""

_NATIVE_OBSERVATION = "- After your tools have run you receive a new screenshot.\n"

_CODE_OBSERVATION = """\
- Screenshots are not sent after each action: call the screenshot tool to look at the screen.
- run_code runs Python in your own sandbox: a persistent session (names you define stay for
  later calls) with the standard library, and numpy and Pillow when they are installed. It has
  no network and no access to the game except this GUI API, in screen pixels of the full
  {sw}x{sh} screen:
    click(x, y), double_click(x, y), drag(x0, y0, x1, y1), key(name), type_text(text),
    scroll(direction), wait()  -> {{"accepted": bool, "feedback": str}}
    screenshot() -> Screenshot with .width, .height, .pixel(x, y) -> (r, g, b), .rgb (bytes),
                    .to_numpy() (needs numpy), .to_pil() (needs Pillow)
  Each run may compute for at most {time_s:g} s and use at most {memory_mb} MB of memory; what it
  prints (up to {output} characters) and any error are returned to you.
"""


def system_prompt(
    setting: str,
    width: int,
    height: int,
    *,
    rule_card: str | None = None,
    code_time_s: float = 30.0,
    code_memory_mb: int = 1024,
    code_output_chars: int = 4000,
) -> str:
    """The system prompt of ``setting`` ("native" or "code") for screenshots of width×height;
    ``rule_card`` (K1) is appended under its own heading."""
    if setting == "code":
        observation = _CODE_OBSERVATION.format(
            sw=SCREEN_WIDTH,
            sh=SCREEN_HEIGHT,
            time_s=code_time_s,
            memory_mb=code_memory_mb,
            output=code_output_chars,
        )
    else:
        observation = _NATIVE_OBSERVATION
    text = _BASE.format(
        width=width,
        height=height,
        xmax=width - 1,
        ymax=height - 1,
        keys=", ".join(GAME_KEYS),
        batch=MAX_BATCH_LENGTH,
        observation=observation,
        done=COMPLETION_PREFIX,
    )
    if rule_card:
        text += "\nRules of the game in your task:\n" + rule_card.strip() + "\n"
    return text


def task_message(instruction: str, setting: str) -> str:
    return f"{instruction}\nSetting: {SETTING_NAMES[setting]}. The screen now shows the Game Suite."


def observation_text(width: int, height: int, why: str = "after your last actions") -> str:
    return f"Screenshot ({width}x{height}) {why}."


def no_tool_call(setting: str) -> str:
    extra = " or a single ```python block to run" if setting == "code" else ""
    return f"Your reply contained no tool call. Act by calling one of the tools{extra}."


def summary_request() -> str:
    return (
        "The level has just been restarted. Before you continue, write notes on your previous "
        "attempt at this level for your next attempt; they will replace the history of that "
        "attempt. Use two sections: 'Failure experience' (what you did, what happened, and why you "
        "think the attempt failed) and 'Next attempt' (the board you see now and the plan you will "
        "follow). Reply with the notes only, without calling a tool."
    )


def memory_note(summary: str) -> str:
    return (
        "Your notes on your previous attempt at this level (written by you after the restart):\n"
        + summary
    )
