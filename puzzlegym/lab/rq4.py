"""RQ4: complete sessions under the rule card (K0/K1) and workflow control (P0/P1), and with
the optional controller that restarts after a certified dead end (paper D.5).

:func:`run_session` plays one objective with an agent over the stack ``TextChannel ->
RuleCard(K) -> WorkflowController(P) [-> DeadEndRestart] -> BlackBox`` and writes
``<out>/session.json`` (study, objective, cell, agent, seed, the agent's and the controllers'
action counts, LC, FGP, success) beside ``<out>/record/`` (the episode record; its agent is
named ``"<agent> <cell>"`` so the report's tables show each cell as a row).
:func:`summarize` gives per-cell means and the paper's matched contrasts (equations 4-6):
the rule card's effect under P0 and P1, workflow control's under K0 and K1, and their
interaction, as mean paired differences over (objective, seed) pairs.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import gymnasium as gym

from puzzlegym.agents import make_agent
from puzzlegym.base.errors import ConfigError, PuzzleGymError
from puzzlegym.base.fields import check_count
from puzzlegym.base.version import __version__
from puzzlegym.env import puzzle_env
from puzzlegym.env.loop import play
from puzzlegym.game.registry import parse_env_id
from puzzlegym.lab.documents import find_documents
from puzzlegym.wrappers import (
    RULE_CARD_CONDITIONS,
    WORKFLOW_CONDITIONS,
    BlackBox,
    DeadEndRestart,
    RuleCard,
    TextChannel,
    WorkflowController,
)

__all__ = [
    "CELLS",
    "STUDY",
    "cell_name",
    "find_sessions",
    "make_session_env",
    "run_rq4",
    "run_session",
    "summarize",
]

STUDY = "rq4"
SESSION_FILE = "session.json"
CELLS = tuple(f"{k}{p}" for k in RULE_CARD_CONDITIONS for p in WORKFLOW_CONDITIONS)
MAX_STEPS = 100_000


def cell_name(rule_card: str, workflow: str, restart: bool = False) -> str:
    """``"K1P0"``, or ``"K1P0+R"`` with the dead-end restart controller."""
    return f"{rule_card}{workflow}" + ("+R" if restart else "")


def make_session_env(
    env_id: str,
    rule_card: str = "K0",
    workflow: str = "P0",
    restart: bool = False,
    **env_kwargs: Any,
) -> gym.Env:
    """``gym.make(env_id, **env_kwargs)`` wrapped for a session of the given cell (the agent's
    view: a black box over the text channel)."""
    env: gym.Env = WorkflowController(
        RuleCard(TextChannel(gym.make(env_id, **env_kwargs)), rule_card), workflow
    )
    if restart:
        env = DeadEndRestart(env)
    return BlackBox(env)


def _find(env: gym.Env, kind: type) -> Any:
    while isinstance(env, gym.Wrapper):
        if isinstance(env, kind):
            return env
        env = env.env
    return None


def run_session(
    env_id: str,
    agent: str | Callable = "scripted",
    *,
    rule_card: str = "K0",
    workflow: str = "P0",
    restart: bool = False,
    seed: int = 0,
    out_dir: str | os.PathLike | None = None,
    max_steps: int | None = None,
    **env_kwargs: Any,
) -> dict:
    """One session (module docstring); returns the session document (written to
    ``out_dir/session.json`` when ``out_dir`` is given; an existing session is never
    overwritten)."""
    parse_env_id(env_id)
    check_count(max_steps, "max_steps", 1, MAX_STEPS, ConfigError, optional=True)
    cell = cell_name(rule_card, workflow, restart)
    agent_name = (
        agent if isinstance(agent, str) else getattr(agent, "__name__", type(agent).__name__)
    )
    out = None
    if out_dir is not None:
        out = Path(out_dir)
        if (out / SESSION_FILE).exists() or (out / "record").exists():
            raise PuzzleGymError(f"{out} already holds a session; records are never overwritten")
        out.mkdir(parents=True, exist_ok=True)
        env_kwargs["record_dir"] = str(out / "record")
    env = make_session_env(
        env_id, rule_card, workflow, restart, agent=f"{agent_name} {cell}", **env_kwargs
    )
    try:
        policy = (
            make_agent(agent, env.unwrapped, seed=seed) if isinstance(agent, str) else agent(env)
        )
        end = play(env, policy, max_steps=max_steps, seed=seed)
        steps = end.steps
        probe = puzzle_env(env, "run_session").probe()
        workflow_actions = _find(env, WorkflowController).controller_actions
        restarter = _find(env, DeadEndRestart)
        restarts = len(restarter.interventions) if restarter is not None else 0
        doc = {
            "study": STUDY,
            "puzzlegym_version": __version__,
            "env_id": env_id,
            "cell": cell,
            "rule_card": rule_card,
            "workflow": workflow,
            "restart_controller": restart,
            "agent": agent_name,
            "seed": seed,
            "agent_steps": steps,
            "actions": probe.actions,
            "controller_actions": workflow_actions + restarts,
            "workflow_actions": workflow_actions,
            "dead_end_restarts": restarts,
            "agent_actions": probe.actions - workflow_actions - restarts,
            "lc": probe.lc,
            "fgp": probe.fgp,
            "success": probe.success,
            "levels_won": list(probe.levels_won),
            "elapsed_s": probe.elapsed_s,
            "end": end.reason,
        }
    finally:
        env.close()
    if out is not None:
        tmp = out / (SESSION_FILE + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, out / SESSION_FILE)
    return doc


def run_rq4(
    objectives: Iterable[str],
    out_dir: str | os.PathLike,
    agent: str | Callable = "scripted",
    *,
    cells: Iterable[str] = CELLS,
    restart_cells: Iterable[str] = (),
    seeds: Iterable[int] = (0,),
    max_steps: int | None = None,
    progress: Callable[[dict], None] | None = None,
    **env_kwargs: Any,
) -> list[dict]:
    """Sessions for every objective x seed x cell (``"K0P0"`` ...; ``restart_cells`` adds
    the same cells with the dead-end restart controller), written to
    ``out_dir/rq4/<objective>/<cell>/seed<k>/``."""
    docs = []
    plan = [(c, False) for c in cells] + [(c, True) for c in restart_cells]
    for c, _ in plan:
        if c not in CELLS:
            raise ConfigError(f"cells: {c!r}; allowed: {', '.join(CELLS)}")
    for env_id in objectives:
        for seed in seeds:
            for c, restart in plan:
                where = (
                    Path(out_dir)
                    / STUDY
                    / env_id.split("/")[-1]
                    / cell_name(c[:2], c[2:], restart)
                    / f"seed{seed}"
                )
                doc = run_session(
                    env_id,
                    agent,
                    rule_card=c[:2],
                    workflow=c[2:],
                    restart=restart,
                    seed=seed,
                    out_dir=where,
                    max_steps=max_steps,
                    **env_kwargs,
                )
                docs.append(doc)
                if progress:
                    progress(doc)
    return docs


def find_sessions(root: str | os.PathLike) -> list[dict]:
    """Every RQ4 session document under ``root``."""
    return find_documents(root, SESSION_FILE, STUDY)


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def summarize(sessions: Iterable[dict]) -> dict[str, Any]:
    """``cells``: per cell and agent, sessions, mean LC and FGP (%), solved sessions, mean
    agent and controller actions; ``contrasts``: per agent, the matched effects on LC (in
    points; mean over (objective, seed) pairs present in both cells, with the pair count)."""
    sessions = list(sessions)
    by_cell: dict[tuple, list[dict]] = defaultdict(list)
    for s in sessions:
        by_cell[(s["agent"], s["cell"])].append(s)
    cells = []
    for (agent, cell), ss in sorted(by_cell.items()):
        cells.append(
            {
                "agent": agent,
                "cell": cell,
                "sessions": len(ss),
                "solved": sum(bool(s["success"]) for s in ss),
                "LC": _mean(100.0 * s["lc"] for s in ss),
                "FGP": _mean(100.0 * s["fgp"] for s in ss),
                "agent_actions": _mean(s["agent_actions"] for s in ss),
                "controller_actions": _mean(s["controller_actions"] for s in ss),
            }
        )

    def lc(agent: str, cell: str) -> dict:
        return {(s["env_id"], s["seed"]): 100.0 * s["lc"] for s in by_cell.get((agent, cell), [])}

    def effect(agent: str, hi: str, lo: str) -> tuple[float | None, int]:
        a, b = lc(agent, hi), lc(agent, lo)
        keys = sorted(set(a) & set(b))
        return _mean(a[k] - b[k] for k in keys), len(keys)

    contrasts = []
    for agent in sorted({s["agent"] for s in sessions}):
        rows = {
            "K1-K0 under P0": effect(agent, "K1P0", "K0P0"),
            "K1-K0 under P1": effect(agent, "K1P1", "K0P1"),
            "P1-P0 under K0": effect(agent, "K0P1", "K0P0"),
            "P1-P0 under K1": effect(agent, "K1P1", "K1P0"),
        }
        kp0, kp1 = rows["K1-K0 under P0"][0], rows["K1-K0 under P1"][0]
        rows["KxP interaction"] = (
            None if kp0 is None or kp1 is None else kp1 - kp0,
            min(rows["K1-K0 under P0"][1], rows["K1-K0 under P1"][1]),
        )
        for name, (value, pairs) in rows.items():
            contrasts.append({"agent": agent, "contrast": name, "delta_LC": value, "pairs": pairs})
    return {"cells": cells, "contrasts": contrasts}
