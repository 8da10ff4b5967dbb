"""Agents. Every agent acts only through GUI actions.

An agent is any callable ``agent(obs, info) -> action``.

* :class:`SolverAgent` (``solver.py``) plans with the exact solver on the evaluator's
  (privileged) state and acts through the game view's GUI actions from the home screen;
* :class:`RandomAgent` (``random.py``) samples the env's action space;
* model agents (``openai:MODEL``): :class:`~puzzlegym.agents.native.NativeAgent` (Native GUI
  Actions) and :class:`~puzzlegym.agents.code.CodeAgent` (Code Execution CUA) talk to any
  OpenAI-compatible chat-completions server (``client.py``), see only pixels and public text,
  and keep a history (``history.py``) under a memory condition (``memory.py``);
* :class:`ScriptedAgent` (``scripted.py``) is the dead-end lab's deterministic stand-in for a
  model: greedy by visible progress, and it acts on a state hint in the text channel;
* :func:`navigation_click` (``navigation.py``) is the click towards the objective's next
  level that the agents and the workflow controller share;
* :func:`make_agent` (``factory.py``) builds them by name or imports ``module:callable``.
"""

from puzzlegym.agents.factory import agent_label, make_agent
from puzzlegym.agents.random import RandomAgent
from puzzlegym.agents.scripted import ScriptedAgent
from puzzlegym.agents.solver import SolverAgent
from puzzlegym.env.navigation import navigation_click

__all__ = [
    "RandomAgent",
    "ScriptedAgent",
    "SolverAgent",
    "agent_label",
    "make_agent",
    "navigation_click",
]
