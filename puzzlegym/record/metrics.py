"""The benchmark metrics, as the LongPuzzleBench paper defines them (its Appendix B.3).

Two entry points:

* :func:`episode_from_record` reads one episode record (``manifest.json`` + ``log.jsonl``) and
  rebuilds the episode's outcome from the logged events alone (the same fold the live
  evaluator uses, :mod:`puzzlegym.record.outcome`), so a record whose process was
  killed mid-way still counts; :func:`episode_row` turns it into a
  per-objective row.
* :func:`aggregate` takes plain per-objective rows (one row per episode; several rows with
  the same game and difficulty are several episodes of that objective) and returns the
  Table-2-style figures. Published per-objective results (the paper's Table 18) go through
  the same function.

A row is a mapping with

========================  =====================================================================
``game``                  game name (``"MazePaint"``, or the paper's ``"Maze"``)
``difficulty``            tier (``"Easy"``, ``"hard"``, ...)
``solved``                1 if every target level was won, else 0
``lc``, ``fgp``           level completion and fine-grained progress of the episode, in percent
``premature_exit``        1 if the agent ended the episode itself without success
``mismatch``              1 if the snapshots show play in another game or difficulty
``n_levels``              number of target levels |L_o|
``levels_won``            (optional) target levels won; default ``round(lc * n_levels / 100)``
``levels_reached``        (optional) target levels reached; needed for LPR
``n_native``/``n_other``  (optional) NGAR steps, native / other (Code Execution CUA only)
``hard``                  (optional) whether the tier counts for LC_hard (default: see
                          :func:`is_hard_tier`)
========================  =====================================================================

Weighting (game-macro): every completion metric (OSR, LC, FGP, LC_hard, LPR) is computed per
objective (the mean over its episodes; LPR pools them), averaged equally over the objectives of
each game, then equally over the games present. H50 averages over the ten-level objectives;
PER, SMR and NGAR pool episodes (steps for NGAR) in scope. All figures are percentages
except H50 (levels, ``"10+"`` when at least half the episodes clear all ten).
"""

from __future__ import annotations

import os
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from puzzlegym.record.events import EpisodeEnded, event_from_record, freeze
from puzzlegym.record.files import AGENT_LOG, is_superseded, read_log, read_manifest
from puzzlegym.record.outcome import Outcome, fold

# The tier ladder used when a game is not registered here (e.g. the paper's rows): a tier
# counts for LC_hard when it is above the easiest one; single-tier games ("Default") never do.
__all__ = [
    "TIER_LADDER",
    "aggregate",
    "aggregate_records",
    "dead_end_stats",
    "episode_from_record",
    "episode_row",
    "find_records",
    "h50",
    "h50_curve",
    "is_hard_tier",
    "lc_over_time",
    "lpr",
    "macro",
    "ngar",
    "normalise_row",
]

TIER_LADDER = ("easy", "medium", "hard", "extreme", "nightmare")
TEN = 10  # H50 uses the objectives with exactly ten target levels


# --------------------------------------------------------------------------- helpers
def is_hard_tier(game: str, tier: str) -> bool:
    """True when ``tier`` is above the easiest tier of ``game`` (LC_hard's scope).

    A registered game uses its own tier order (``Game.tiers[0]`` is the easiest, a single-tier
    game has no hard tier); otherwise the ladder Easy < Medium < Hard < Extreme < Nightmare is
    used and tiers outside it (e.g. Truck Escape's "Default") are excluded.
    """
    try:
        from puzzlegym.game.registry import games

        registered = games().get(game)
    except Exception:  # pragma: no cover - registry import problems
        registered = None
    if registered is not None and tier in registered.tiers:
        return len(registered.tiers) > 1 and tier != registered.tiers[0]
    t = tier.lower()
    return t in TIER_LADDER and t != TIER_LADDER[0]


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def macro(per_objective: Mapping[tuple[str, str], float | None]) -> float | None:
    """Game-macro average of per-objective values keyed by ``(game, difficulty)``: the mean
    over each game's objectives, then the mean over games. ``None`` values (undefined) are
    left out; a game with no defined objective is left out; ``None`` if nothing is defined.

    Args:
        per_objective: a value (or None) per ``(game, difficulty)``.

    Returns:
        The mean over games of each game's mean, or None.

    Examples:
        >>> macro({("MazePaint", "Easy"): 50.0, ("MazePaint", "Hard"): 100.0,
        ...        ("RushHour", "Easy"): 0.0})
        37.5
        >>> macro({("MazePaint", "Easy"): None}) is None
        True
    """
    by_game: dict[str, list[float]] = defaultdict(list)
    for (game, _tier), value in per_objective.items():
        if value is not None:
            by_game[game].append(value)
    return _mean(_mean(v) for v in by_game.values())


def _flag(value: Any) -> int:
    if isinstance(value, str):
        return 1 if value.strip().lower() in ("1", "true", "yes", "y") else 0
    return 1 if value else 0


def normalise_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row with every field present and typed (see the module docstring)."""
    n = int(row["n_levels"])
    if n <= 0:
        raise ValueError(f"row {row!r}: n_levels must be positive")
    lc = float(row["lc"])
    fgp = float(row["fgp"])
    won = row.get("levels_won")
    won = int(round(lc * n / 100.0)) if won is None else int(won)
    reached = row.get("levels_reached")
    out: dict[str, Any] = {
        "game": str(row["game"]),
        "difficulty": str(row["difficulty"]),
        "solved": _flag(row["solved"]),
        "lc": lc,
        "fgp": fgp,
        "premature_exit": _flag(row.get("premature_exit", 0)),
        "mismatch": _flag(row.get("mismatch", 0)),
        "n_levels": n,
        "levels_won": won,
        "levels_reached": None if reached is None else int(reached),
        "n_native": None if row.get("n_native") is None else int(row["n_native"]),
        "n_other": None if row.get("n_other") is None else int(row["n_other"]),
    }
    hard = row.get("hard")
    out["hard"] = (
        is_hard_tier(out["game"], out["difficulty"]) if hard is None else bool(_flag(hard))
    )
    for key in ("agent", "seed", "setting"):
        if key in row:
            out[key] = row[key]
    return out


# --------------------------------------------------------------------------- metrics
def lpr(rows: Iterable[Mapping[str, Any]]) -> float | None:
    """Level pass rate of the episodes of one objective: Σ won / Σ reached, in percent;
    ``None`` (undefined) when no target level was reached or reach counts are unknown.

    Examples:
        >>> lpr([{"levels_won": 10, "levels_reached": 10}, {"levels_won": 3, "levels_reached": 4}])
        92.85714285714286
        >>> lpr([{"levels_won": 0, "levels_reached": None}]) is None
        True
    """
    rows = list(rows)
    if any(r.get("levels_reached") is None for r in rows):
        return None
    reached = sum(r["levels_reached"] for r in rows)
    if reached == 0:
        return None
    return 100.0 * sum(r["levels_won"] for r in rows) / reached


def h50_curve(rows: Iterable[Mapping[str, Any]]) -> list[float] | None:
    """S(k) for k = 0..10 over the ten-level objectives (None if there are none): the mean
    over those objectives of the share of their episodes that won at least k levels."""
    by_obj: dict[tuple[str, str], list[int]] = defaultdict(list)
    for r in rows:
        if r["n_levels"] == TEN:
            by_obj[(r["game"], r["difficulty"])].append(r["levels_won"])
    if not by_obj:
        return None
    return [
        sum(sum(1 for d in ds if d >= k) / len(ds) for ds in by_obj.values()) / len(by_obj)
        for k in range(TEN + 1)
    ]


def h50(rows: Iterable[Mapping[str, Any]]) -> int | str | None:
    """The 50% level horizon: max k with S(k) ≥ 0.5, ``"10+"`` when S(10) ≥ 0.5."""
    curve = h50_curve(rows)
    if curve is None:
        return None
    best = max(k for k, s in enumerate(curve) if s >= 0.5 - 1e-12)
    return "10+" if best == TEN else best


def ngar(n_native: int, n_other: int) -> float | None:
    """100·N_native / (N_native + N_other); None without turns.

    Examples:
        >>> ngar(3, 1), ngar(0, 0)
        (75.0, None)
    """
    total = n_native + n_other
    return None if total == 0 else 100.0 * n_native / total


def aggregate(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The Table-2-style figures of a set of per-objective rows (one per episode).

    Returns ``OSR``, ``LC``, ``FGP``, ``LPR``, ``H50``, ``LC_hard``, ``PER``, ``SMR``, ``NGAR``
    (percentages; None when undefined or not applicable; H50 in levels or ``"10+"``), the
    counts ``n`` (episodes), ``S`` (successful episodes), ``P`` (premature exits), ``M``
    (mismatches), ``objectives``, ``games``, and ``per_game``: OSR/LC/FGP/LC_hard/LPR of each
    game (the mean over its objectives).

    Args:
        rows: one row per episode (the fields of :func:`normalise_row`).

    Raises:
        ValueError: no rows, or an objective's rows disagree on ``n_levels``.

    Examples:
        >>> won = {"game": "MazePaint", "difficulty": "Easy", "n_levels": 10, "solved": 1,
        ...        "lc": 100.0, "fgp": 100.0, "levels_won": 10, "levels_reached": 10}
        >>> lost = {**won, "solved": 0, "lc": 30.0, "fgp": 45.0, "levels_won": 3,
        ...         "levels_reached": 4}
        >>> figures = aggregate([won, lost])
        >>> [figures[k] for k in ("OSR", "LC", "FGP", "H50", "n", "S")]
        [50.0, 65.0, 72.5, '10+', 2, 1]
        >>> round(figures["LPR"], 2)  # 13 of the 14 levels reached were won
        92.86
    """
    rows = normalised = [normalise_row(r) for r in rows]
    if not rows:
        raise ValueError("aggregate: no rows")
    by_obj: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in normalised:
        by_obj[(r["game"], r["difficulty"])].append(r)
    for key, rs in by_obj.items():
        if len({r["n_levels"] for r in rs}) != 1:
            raise ValueError(f"aggregate: objective {key} has rows with different n_levels")

    osr_o = {k: _mean(100.0 * r["solved"] for r in rs) for k, rs in by_obj.items()}
    lc_o = {k: _mean(r["lc"] for r in rs) for k, rs in by_obj.items()}
    fgp_o = {k: _mean(r["fgp"] for r in rs) for k, rs in by_obj.items()}
    lpr_o = {k: lpr(rs) for k, rs in by_obj.items()}
    hard_o = {k: v for k, v in lc_o.items() if by_obj[k][0]["hard"]}

    counted = [r for r in rows if r["n_native"] is not None and r["n_other"] is not None]
    n = len(rows)
    per_game = {}
    for game in dict.fromkeys(k[0] for k in by_obj):
        keys = [k for k in by_obj if k[0] == game]
        per_game[game] = {
            "objectives": len(keys),
            "episodes": sum(len(by_obj[k]) for k in keys),
            "OSR": _mean(osr_o[k] for k in keys),
            "LC": _mean(lc_o[k] for k in keys),
            "FGP": _mean(fgp_o[k] for k in keys),
            "LC_hard": _mean(hard_o[k] for k in keys if k in hard_o),
            "LPR": _mean(lpr_o[k] for k in keys),
        }
    return {
        "OSR": macro(osr_o),
        "LC": macro(lc_o),
        "FGP": macro(fgp_o),
        "LPR": macro(lpr_o),
        "H50": h50(rows),
        "LC_hard": macro(hard_o),
        "PER": 100.0 * sum(r["premature_exit"] for r in rows) / n,
        "SMR": 100.0 * sum(r["mismatch"] for r in rows) / n,
        "NGAR": ngar(sum(r["n_native"] for r in counted), sum(r["n_other"] for r in counted))
        if counted
        else None,
        "n": n,
        "S": sum(r["solved"] for r in rows),
        "P": sum(r["premature_exit"] for r in rows),
        "M": sum(r["mismatch"] for r in rows),
        "objectives": len(by_obj),
        "games": list(per_game),
        "per_game": per_game,
    }


# --------------------------------------------------------------------------- records
def _objective_of(manifest: dict) -> tuple[str, str]:
    env_id = (
        manifest["env_id"] if "env_id" in manifest else manifest["objective"]
    )  # "objective": older records
    name, _, tier = env_id.split("/")[-1].partition("-")
    return name, tier


def _targets_of(manifest: dict, game: str, tier: str) -> list[int]:
    """Target levels (1-based) of a record: the manifest's ``targets`` if present, else the
    config's single level, else every level of the tier (from the result or the registry)."""
    if manifest.get("targets"):
        return [int(t) for t in manifest["targets"]]
    level = (manifest.get("config") or {}).get("level")
    if level is not None:
        return [int(level)]
    result = manifest.get("result") or {}
    if result.get("levels"):
        return sorted(int(k) for k in result["levels"])
    from puzzlegym.game.registry import get_game

    return list(range(1, len(get_game(game).catalogue(tier)) + 1))


def episode_from_record(directory: str | os.PathLike) -> dict[str, Any]:
    """One episode's outcome rebuilt from its record's log (evaluator events and snapshots).

    Works on a record whose process died (no final result in the manifest): what was logged
    counts, the episode's end is then ``"stopped"``. Fields: ``dir``, ``agent``, ``seed``,
    ``env_id``, ``game``, ``tier``, ``targets``, ``n_levels``, ``won``/``reached`` (1-based
    target levels), ``best`` (max potential per reached level), ``success``, ``lc``, ``fgp``
    (fractions), ``mismatch``, ``answered``, ``premature_exit``, ``end`` (``complete``,
    ``answer``, ``timeout`` or ``stopped``), ``elapsed_s``, ``actions``, ``win_times``
    (``[t, level]`` of target wins), ``attempts`` (closed attempts on the objective's game
    and tier), ``outside_attempts`` (closed attempts anywhere else: play outside the
    objective, kept apart so that an objective's figures are its own), ``n_native``,
    ``n_other`` (None unless the agent's turns carry ``native``: Code Execution CUA turns in
    ``agent.jsonl``, or action lines), ``usage`` (a model agent's totals from ``agent.jsonl``:
    requests, tokens, latency, retries, malformed calls; None for other agents),
    ``agent_error`` (why a model agent's episode stopped, if it failed), ``finished``
    (manifest has a result), ``torn_line`` (a torn last log line that was dropped, or None),
    ``restored`` (the episode continues a checkpoint: the manifest's ``restored``; such an
    episode is no objective run and is never scored).
    A damaged manifest or log line raises :class:`~puzzlegym.base.errors.RecordError` naming file
    and line.
    """
    d = Path(directory)
    manifest = read_manifest(d)
    log = read_log(d)
    game, tier = _objective_of(manifest)
    targets = _targets_of(manifest, game, tier)
    outcome = Outcome.start(game, tier, targets)
    native = other = 0
    annotated = False
    for number, rec in enumerate(log, 1):
        outcome = fold(outcome, event_from_record(rec, f"{d / 'log.jsonl'} line {number}"))
        if rec.get("kind") == "action" and "native" in rec:
            annotated = True
            native += rec["native"] is True
            other += rec["native"] is False
    result = manifest.get("result")
    if isinstance(result, dict):
        outcome = fold(outcome, EpisodeEnded(outcome.actions, outcome.elapsed_s, freeze(result)))

    usage, agent_error, agent_turns = _agent_usage(d)
    if agent_turns is not None:
        annotated = True
        native += agent_turns[0]
        other += agent_turns[1]
    o = outcome
    return {
        "dir": str(d),
        "agent": manifest.get("agent"),
        "seed": manifest.get("seed"),
        "env_id": manifest.get("env_id", manifest.get("objective")),
        "clock": (manifest.get("config") or {}).get("clock"),
        "budget_s": (manifest.get("config") or {}).get("budget_s"),
        "game": game,
        "tier": tier,
        "targets": targets,
        "n_levels": len(targets),
        "won": o.levels_won,
        "reached": sorted(o.reached),
        "best": {str(k): v for k, v in sorted(o.best.items())},
        "success": o.success,
        "lc": o.lc,
        "fgp": o.fgp,
        "mismatch": o.mismatch,
        "answered": o.answered,
        # an answer without success while budget remained (the env only accepts answers
        # before the deadline) is a premature exit, whatever the answer claims
        "premature_exit": o.premature_exit,
        "end": o.end,
        "elapsed_s": o.elapsed_s,
        "actions": o.actions,
        "win_times": [[t, level] for t, level in o.win_times],
        "attempts": [a.to_record() for a in o.attempts if (a.game, a.tier) == (game, tier)],
        "outside_attempts": [a.to_record() for a in o.attempts if (a.game, a.tier) != (game, tier)],
        "n_native": native if annotated else None,
        "n_other": other if annotated else None,
        "usage": usage,
        "agent_error": agent_error,
        "finished": result is not None,
        "torn_line": log.torn_line,
        "restored": manifest.get("restored") is not None,
    }


def _agent_usage(d: Path) -> tuple[dict | None, str | None, tuple[int, int] | None]:
    """A model agent's totals from ``agent.jsonl`` (requests, tokens, latency, retries,
    malformed calls, turns; None without that log), why it stopped (its error line, or
    None) and its (native, other) turn counts for NGAR (None unless its turns say). A turn
    is one tool call of the model (``kind: "turn"``; earlier logs wrote ``"step"``)."""
    agent_error = None
    native = other = 0
    annotated = False
    agent_lines = read_log(d, AGENT_LOG)
    usage: dict[str, Any] = {
        "requests": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "latency_s": 0.0,
        "retries": 0,
        "malformed": 0,
        "turns": 0,
    }
    for rec in agent_lines:
        kind = rec.get("kind")
        if kind in ("turn", "step"):
            usage["turns"] += 1
            if "native" in rec:  # true: a game action; false: another step; null: no step
                annotated = True
                native += rec["native"] is True
                other += rec["native"] is False
        elif kind == "request":
            usage["requests"] += 1
            usage["prompt_tokens"] += int(rec.get("prompt_tokens") or 0)
            usage["completion_tokens"] += int(rec.get("completion_tokens") or 0)
            usage["latency_s"] += float(rec.get("latency_s") or 0.0)
            usage["retries"] += int(rec.get("retries") or 0)
        elif kind == "malformed":
            usage["malformed"] += 1
        elif kind == "config":
            usage.update(
                setting=rec.get("setting"), memory=rec.get("memory"), model=rec.get("model")
            )
        elif kind == "error":
            agent_error = rec.get("error")

    return usage if agent_lines else None, agent_error, (native, other) if annotated else None


def episode_row(ep: Mapping[str, Any]) -> dict[str, Any]:
    """The per-objective row (percentages) of an episode from :func:`episode_from_record`."""
    return {
        "agent": ep.get("agent"),
        "seed": ep.get("seed"),
        "game": ep["game"],
        "difficulty": ep["tier"],
        "solved": int(ep["success"]),
        "lc": 100.0 * ep["lc"],
        "fgp": 100.0 * ep["fgp"],
        "premature_exit": int(ep["premature_exit"]),
        "mismatch": int(ep["mismatch"]),
        "n_levels": ep["n_levels"],
        "levels_won": len(ep["won"]),
        "levels_reached": len(ep["reached"]),
        "n_native": ep.get("n_native"),
        "n_other": ep.get("n_other"),
    }


def find_records(root: str | os.PathLike) -> list[Path]:
    """Every episode record directory (holding ``manifest.json`` and ``log.jsonl``) under root,
    except the superseded episodes a resumed run kept aside."""
    root = Path(root)
    return sorted(
        p.parent
        for p in root.rglob("manifest.json")
        if (p.parent / "log.jsonl").exists() and not is_superseded(p, root)
    )


def aggregate_records(directories: Iterable[str | os.PathLike]) -> dict[str, Any]:
    """:func:`aggregate` over episode records, plus their dead-end statistics."""
    # an episode restored from a checkpoint continues another one: not an objective run
    eps = [e for e in (episode_from_record(d) for d in directories) if not e["restored"]]
    out = aggregate(episode_row(e) for e in eps)
    out["dead_ends"] = dead_end_stats(eps)
    return out


# --------------------------------------------------------------------------- dead ends
def _dead_end_counts(attempts: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The per-game dead-end counts of closed attempts (see :func:`dead_end_stats`)."""
    per_game: dict[str, dict[str, Any]] = {}
    for a in attempts:
        g = per_game.setdefault(
            a["game"],
            {
                "attempts": 0,
                "dead_end_attempts": 0,
                "runs": 0,
                "recovered": 0,
                "unrecovered": 0,
                "delays": [],
            },
        )
        g["attempts"] += 1
        g["dead_end_attempts"] += bool(a.get("dead_end"))
        for run in a.get("runs", []):
            g["runs"] += 1
            if run.get("recovered_by") in ("undo", "restart"):
                g["recovered"] += 1
                g["delays"].append(int(run["delay"]))
            else:
                g["unrecovered"] += 1
    for g in per_game.values():
        g["dead_end_share"] = (
            100.0 * g["dead_end_attempts"] / g["attempts"] if g["attempts"] else None
        )
        g["mean_delay"] = statistics.mean(g["delays"]) if g["delays"] else None
        g["median_delay"] = statistics.median(g["delays"]) if g["delays"] else None
    return per_game


def dead_end_stats(episodes: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Per-attempt dead-end statistics (closed attempts from the records).

    An attempt is one try at a level (ready board to restart / leaving / win / episode end).
    For each game of the episodes' objectives (their attempts on the objective's game and
    tier): ``attempts``, ``dead_end_attempts`` (attempts that reached a certified dead end),
    ``dead_end_share`` (%), ``runs`` (dead-end runs: from the fatal move to the move, undo or
    restart that leaves the unsolvable board, or the end of the attempt), ``recovered`` (runs
    left by an undo or a restart), ``delays`` (moves of each recovered run, counting the
    fatal move), ``mean_delay``, ``median_delay``. ``overall`` averages the share and the
    mean delay equally over games (games with attempts / with recovered runs). ``outside``
    pools the attempts played outside the episodes' objectives (another game or tier, such
    as a random agent's wandering from the home screen) with the same counts and ``games``
    (the games and tiers they were in, as ``Game-Tier``), or is None when there were none:
    it is never part of the per-game figures or ``overall``.
    """
    episodes = list(episodes)
    per_game = _dead_end_counts(a for ep in episodes for a in ep.get("attempts", []))
    outside_attempts = [a for ep in episodes for a in ep.get("outside_attempts", [])]
    outside = None
    if outside_attempts:
        pooled = _dead_end_counts({**a, "game": "outside"} for a in outside_attempts)["outside"]
        outside = {
            **pooled,
            "games": sorted({f"{a['game']}-{a['tier']}" for a in outside_attempts}),
        }
    overall = {
        "attempts": sum(g["attempts"] for g in per_game.values()),
        "dead_end_attempts": sum(g["dead_end_attempts"] for g in per_game.values()),
        "runs": sum(g["runs"] for g in per_game.values()),
        "recovered": sum(g["recovered"] for g in per_game.values()),
        "dead_end_share": _mean(g["dead_end_share"] for g in per_game.values()),
        "mean_delay": _mean(g["mean_delay"] for g in per_game.values()),
    }
    return {"per_game": per_game, "overall": overall, "outside": outside}


# --------------------------------------------------------------------------- LC over time
def lc_over_time(episodes: Iterable[Mapping[str, Any]], times: Iterable[float]) -> list[float]:
    """Game-macro LC (%) reached by each elapsed time ``t`` (target wins with time ≤ t)."""
    eps = list(episodes)
    out = []
    for t in times:
        per_obj: dict[tuple[str, str], list[float]] = defaultdict(list)
        for e in eps:
            wins = sum(1 for tw, _lv in e["win_times"] if tw <= t)
            per_obj[(e["game"], e["tier"])].append(100.0 * wins / e["n_levels"])
        out.append(macro({k: _mean(v) for k, v in per_obj.items()}) or 0.0)
    return out
