"""The lab's studies from a plain configuration (the ``study`` section of the Hydra
experiments ``configs/experiment/rq2.yaml`` and ``rq4.yaml``, run by
``examples/run_hydra.py``). Unknown keys are rejected by name."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from puzzlegym.base.errors import ConfigError
from puzzlegym.lab import checkpoints as files
from puzzlegym.lab import rq2, rq4
from puzzlegym.lab.find import find_in_random_play, find_on_solution

__all__ = ["run_study"]

_RQ2_KEYS = {
    "name",
    "checkpoints",
    "find",
    "conditions",
    "agent",
    "backend",
    "clock",
    "limits",
    "handover",
}
_FIND_KEYS = {"env_id", "level", "source", "count", "seed"}
_RQ4_KEYS = {
    "name",
    "objectives",
    "cells",
    "restart_cells",
    "seeds",
    "agent",
    "max_steps",
    "env_kwargs",
}


def _check_keys(where: str, doc: Any, allowed: set[str]) -> dict:
    if not isinstance(doc, dict):
        raise ConfigError(f"{where}: expected a mapping, got {doc!r}")
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise ConfigError(
            f"{where}.{unknown[0]}: unknown key; allowed: {', '.join(sorted(allowed))}"
        )
    return doc


def _find_checkpoints(specs: list, out: Path) -> Path:
    target = out / "checkpoints"
    for i, spec in enumerate(specs):
        spec = _check_keys(f"study.find[{i}]", spec, _FIND_KEYS)
        source = spec.get("source", "random")
        if source not in ("random", "solution"):
            raise ConfigError(f"study.find[{i}].source: {source!r}; allowed: random, solution")
        finder = find_on_solution if source == "solution" else find_in_random_play
        for ckpt in finder(
            spec["env_id"],
            int(spec["level"]),
            count=int(spec.get("count", 2)),
            seed=int(spec.get("seed", 0)),
        ):
            files.save(ckpt, target)
    return target


def run_study(study: dict, out_dir: str | os.PathLike) -> dict:
    """Run the study ``study["name"]`` (``"rq2"`` or ``"rq4"``) into ``out_dir``; returns a
    summary (RQ2: the aggregated outcome rows; RQ4: per-cell means and contrasts)."""
    if not isinstance(study, dict) or study.get("name") not in (rq2.STUDY, rq4.STUDY):
        raise ConfigError(f"study.name: expected {rq2.STUDY!r} or {rq4.STUDY!r}")
    out = Path(out_dir)
    if study["name"] == rq2.STUDY:
        _check_keys("study", study, _RQ2_KEYS)
        ckpt_dir = (
            Path(study["checkpoints"])
            if study.get("checkpoints")
            else _find_checkpoints(list(study.get("find") or []), out)
        )
        paths = sorted(ckpt_dir.glob("*" + files.SUFFIX))
        if not paths:
            raise ConfigError(
                f"study.checkpoints: no lab checkpoints ({files.SUFFIX}) in {ckpt_dir}"
            )
        docs = rq2.run_rq2(
            paths,
            out,
            study.get("agent", "scripted"),
            conditions=tuple(study.get("conditions") or ("A", "B", "C")),
            backend=study.get("backend", "native"),
            limits=rq2.Limits(**(study.get("limits") or {})),
            clock=study.get("clock", "env"),
            handover=study.get("handover", "restore"),
        )
        return {
            "study": rq2.STUDY,
            "out": str(out),
            "checkpoints": len(paths),
            "continuations": len(docs),
            "outcomes": rq2.aggregate(docs),
        }
    _check_keys("study", study, _RQ4_KEYS)
    docs = rq4.run_rq4(
        list(study.get("objectives") or []),
        out,
        study.get("agent", "scripted"),
        cells=tuple(study.get("cells") or rq4.CELLS),
        restart_cells=tuple(study.get("restart_cells") or ()),
        seeds=tuple(int(s) for s in (study.get("seeds") or (0,))),
        max_steps=study.get("max_steps"),
        **(study.get("env_kwargs") or {}),
    )
    return {"study": rq4.STUDY, "out": str(out), "sessions": len(docs), **rq4.summarize(docs)}
