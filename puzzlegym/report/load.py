"""Loading a run for the report: every episode record under a run directory, grouped by agent,
with its rows (:mod:`puzzlegym.record.metrics`) and figures, the failed and damaged episodes,
and the tables of any :class:`Section` (a tool above the report, such as the dead-end lab,
that adds tables of its own and claims the records that are not objective episodes).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from puzzlegym.base.errors import RecordError
from puzzlegym.record import metrics
from puzzlegym.record.files import is_superseded, read_json

__all__ = ["Section", "Table", "load_run"]

# (name, caption, header, body): written as name.md and name.csv, shown in index.md
Table = tuple[str, str, list[str], list[list[Any]]]


class Section(Protocol):
    """Extra tables of a run (the dead-end lab's: :data:`puzzlegym.lab.tables.LAB_SECTION`)."""

    def claims(self, record_dir: Path) -> bool:
        """Whether an episode record is the section's own (not an episode of an objective)."""

    def tables(self, run_dir: Path, episodes: dict[str, list[dict]]) -> list[Table]:
        """The section's tables with data for the run and its scored episodes (by agent)."""


def load_run(run_dir: str | os.PathLike, sections: Sequence[Section] = ()) -> dict[str, Any]:
    """Every episode record under ``run_dir``, grouped by agent, with rows and figures, and
    the tables of ``sections`` (records a section claims are its own, not episodes)."""
    run = Path(run_dir)
    if not run.exists():
        raise RecordError(f"run_dir: {run} does not exist")
    if not run.is_dir():
        raise RecordError(f"run_dir: {run} is not a directory")
    errors, damaged = [], []
    failed_dirs = set()
    for res in sorted(run.rglob("result.json")):
        if is_superseded(res, run):
            continue
        try:
            doc = read_json(res, "episode result")
        except RecordError as exc:  # reported, and the rest of the run still counts
            damaged.append(str(exc))
            continue
        if isinstance(doc, dict) and "error" in doc:
            failed_dirs.add(res.parent.resolve())
            errors.append(
                {
                    "dir": str(res.parent),
                    "agent": doc.get("agent"),
                    "env_id": doc.get("env_id"),
                    "seed": doc.get("seed"),
                    "error": doc["error"],
                }
            )
    episodes: dict[str, list[dict]] = defaultdict(list)
    found = False
    for rec in metrics.find_records(run):
        if any(section.claims(rec) for section in sections):
            continue
        found = True
        ep = metrics.episode_from_record(rec)
        # an episode stopped by a harness, provider or environment failure is not scored
        # (paper B.1); it is listed under the failed episodes instead
        if rec.resolve().parent in failed_dirs:
            continue
        if ep["restored"]:  # continues a checkpoint: not a whole objective run, not scored
            errors.append(
                {
                    "dir": str(rec),
                    "agent": ep["agent"],
                    "env_id": ep["env_id"],
                    "seed": ep["seed"],
                    "error": "restored from a checkpoint: not an objective run (not scored)",
                }
            )
            continue
        if ep.get("agent_error"):
            errors.append(
                {
                    "dir": str(rec),
                    "agent": ep["agent"],
                    "env_id": ep["env_id"],
                    "seed": ep["seed"],
                    "error": ep["agent_error"],
                }
            )
            continue
        episodes[str(ep["agent"] or "unknown")].append(ep)
    extra = [table for section in sections for table in section.tables(run, dict(episodes))]
    if not found and not extra:
        raise RecordError(
            f"run_dir: no episode records (manifest.json + log.jsonl) or section data (lab "
            f"outcomes) under {run}"
        )
    if found and not episodes:
        raise RecordError(
            f"run_dir: no scored episode records under {run}: every episode failed ("
            + "; ".join(f"{e['agent']} {e['env_id']}: {e['error']}" for e in errors[:3])
            + ")"
        )
    torn = [
        f"{ep['dir']}: log line {ep['torn_line']} is torn (the writer was killed mid-line)"
        for eps in episodes.values()
        for ep in eps
        if ep.get("torn_line")
    ]
    meta = {}
    if (run / "run.json").exists():
        meta = read_json(run / "run.json", "run description")  # damaged: a RecordError naming it
        if not isinstance(meta, dict) or not all(
            isinstance(meta.get(k, []), list) for k in ("agents", "objectives", "seeds")
        ):
            raise RecordError(
                f"{run / 'run.json'}: the run description is not a puzzlegym eval run.json "
                "(an object whose agents, objectives and seeds are lists)"
            )
    order = list(meta.get("agents", [])) if meta else []
    agents = [a for a in order if a in episodes] + sorted(a for a in episodes if a not in order)
    obj_order = {e: i for i, e in enumerate(meta.get("objectives", []))}
    rows: dict[str, list[dict]] = {}
    figures: dict[str, dict] = {}
    for agent in agents:
        eps = sorted(
            episodes[agent],
            key=lambda e: (
                obj_order.get(e["env_id"], len(obj_order)),
                e["game"],
                e["tier"],
                e["seed"] if e["seed"] is not None else -1,
            ),
        )
        episodes[agent] = eps
        rows[agent] = [metrics.episode_row(e) for e in eps]
        fig = metrics.aggregate(rows[agent])
        fig["dead_ends"] = metrics.dead_end_stats(eps)
        fig["cells"] = len({(e["game"], e["tier"]) for e in eps})
        figures[agent] = fig
    return {
        "run_dir": str(run),
        "meta": meta,
        "agents": agents,
        "episodes": dict(episodes),
        "rows": rows,
        "figures": figures,
        "errors": errors,
        "damaged": damaged,
        "torn": torn,
        "sections": extra,
    }
