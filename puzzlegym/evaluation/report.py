"""``puzzlegym report RUN_DIR``: tables and plots from the episode records of a run.

Writes (default ``RUN_DIR/report/``):

* ``index.md`` — links everything below and shows the Markdown tables;
* ``table2.md/.csv`` — the paper's Table 2 layout (OSR, LC, FGP, LPR, H50, LC_hard, PER, NGAR
  per agent), plus SMR;
* ``table17.md/.csv`` — the denominators (n, S, PER and SMR counts, native/other steps, cells);
* ``table18.md/.csv`` — the paper's Table 18 layout: every episode's objective row;
* ``per_game.md/.csv`` — OSR / LC / FGP / LC_hard per agent and game;
* ``dead_ends.md/.csv`` — per-attempt dead-end statistics per agent and game;
* ``lc_heatmap.png`` (LC per objective and agent), ``cumulative_lc.png`` (game-macro LC over
  elapsed time), ``dead_end_delays.png`` (delays of recovered dead-end runs)
* the dead-end lab's tables when the run has their data (:mod:`puzzlegym.lab.tables`):
  ``rq2.md/.csv`` (takeover outcomes, the paper's Table 13 layout), ``rq1_capacity`` and
  ``rq1_coverage`` (move measures from the episode records), ``rq4_cells`` and
  ``rq4_contrasts`` (rule card x workflow sessions). RQ2 continuation records (beside an
  ``outcome.json``) start from a checkpoint: they feed the RQ2 table only, not the episode
  tables.

Every figure comes from the records alone (:mod:`puzzlegym.metrics`), so a run directory can
be copied elsewhere and reported again.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from puzzlegym import jsonio
from puzzlegym.errors import RecordError
from puzzlegym.evaluation import metrics
from puzzlegym.evaluation.records import is_superseded, read_json
from puzzlegym.lab.tables import is_takeover_record, lab_tables

TABLE2_COLUMNS = ("OSR", "LC", "FGP", "LPR", "H50", "LC_hard", "PER", "NGAR", "SMR")


# --------------------------------------------------------------------------- loading
def load_run(run_dir: str | os.PathLike) -> dict[str, Any]:
    """Every episode record under ``run_dir``, grouped by agent, with rows and figures."""
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
        if is_takeover_record(rec):
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
    lab = lab_tables(run, episodes)
    if not found and not lab:
        raise RecordError(
            f"run_dir: no episode records (manifest.json + log.jsonl) or lab outcomes under {run}"
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
        "lab": lab,
    }


# --------------------------------------------------------------------------- formatting
def fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def markdown_table(header: list[str], body: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def write_csv(path: Path, header: list[str], body: list[list[Any]]) -> None:
    buf = io.StringIO(newline="")
    w = csv.writer(buf)
    w.writerow(header)
    for row in body:
        w.writerow(["" if c is None else (round(c, 4) if isinstance(c, float) else c) for c in row])
    jsonio.write_atomic(path, buf.getvalue())


def table2(data: dict) -> tuple[list[str], list[list[Any]]]:
    header = ["Agent", "OSR↑", "LC↑", "FGP↑", "LPR↑", "H50↑", "LC_hard↑", "PER↓", "NGAR↑", "SMR↓"]
    body = [[a] + [data["figures"][a][k] for k in TABLE2_COLUMNS] for a in data["agents"]]
    return header, body


def table17(data: dict) -> tuple[list[str], list[list[Any]]]:
    header = ["Configuration", "n", "S", "PER", "SMR", "Native", "Other", "Cells"]
    n_obj = len({(e["game"], e["tier"]) for eps in data["episodes"].values() for e in eps})
    body = []
    for a in data["agents"]:
        f = data["figures"][a]
        native = (
            sum(r["n_native"] for r in data["rows"][a] if r["n_native"] is not None)
            if f["NGAR"] is not None
            else None
        )
        other = (
            sum(r["n_other"] for r in data["rows"][a] if r["n_other"] is not None)
            if f["NGAR"] is not None
            else None
        )
        body.append(
            [
                a,
                f["n"],
                f["S"],
                f["P"],
                f["M"],
                native if native is not None else "N/A",
                other if other is not None else "N/A",
                f"{f['cells']}/{n_obj}",
            ]
        )
    return header, body


def table18(data: dict) -> tuple[list[str], list[list[Any]]]:
    header = ["Agent", "Objective", "Seed", "S", "LC", "FGP", "P", "M", "NGAR", "|L_o|", "End"]
    body = []
    for a in data["agents"]:
        for e, r in zip(data["episodes"][a], data["rows"][a], strict=True):
            ng = None if r["n_native"] is None else metrics.ngar(r["n_native"], r["n_other"])
            body.append(
                [
                    a,
                    f"{r['game']} / {r['difficulty']}",
                    r["seed"],
                    r["solved"],
                    r["lc"],
                    r["fgp"],
                    r["premature_exit"],
                    r["mismatch"],
                    ng,
                    r["n_levels"],
                    e["end"],
                ]
            )
    return header, body


def usage_table(data: dict) -> tuple[list[str], list[list[Any]]]:
    """Model agents' requests and tokens (the paper's Table 7 layout, without prices)."""
    header = [
        "Agent",
        "Episodes",
        "Requests",
        "Input tokens",
        "Output tokens",
        "Mean latency (s)",
        "Retries",
        "Malformed calls",
        "Turns",
    ]
    body = []
    for a in data["agents"]:
        used = [e["usage"] for e in data["episodes"][a] if e.get("usage")]
        if not used:
            continue
        requests = sum(u["requests"] for u in used)
        latency = sum(u["latency_s"] for u in used)
        body.append(
            [
                a,
                len(used),
                requests,
                sum(u["prompt_tokens"] for u in used),
                sum(u["completion_tokens"] for u in used),
                latency / requests if requests else None,
                sum(u["retries"] for u in used),
                sum(u["malformed"] for u in used),
                sum(u["turns"] for u in used),
            ]
        )
    return header, body


def per_game_table(data: dict) -> tuple[list[str], list[list[Any]]]:
    header = ["Agent", "Game", "Objectives", "Episodes", "OSR", "LC", "FGP", "LC_hard", "LPR"]
    body = []
    for a in data["agents"]:
        for game, g in data["figures"][a]["per_game"].items():
            body.append(
                [
                    a,
                    game,
                    g["objectives"],
                    g["episodes"],
                    g["OSR"],
                    g["LC"],
                    g["FGP"],
                    g["LC_hard"],
                    g["LPR"],
                ]
            )
    return header, body


def dead_end_table(data: dict) -> tuple[list[str], list[list[Any]]]:
    header = [
        "Agent",
        "Game",
        "Attempts",
        "Dead-end attempts",
        "Share %",
        "Runs",
        "Recovered",
        "Mean delay",
        "Median delay",
    ]
    body = []
    for a in data["agents"]:
        de = data["figures"][a]["dead_ends"]
        for game, g in de["per_game"].items():
            body.append(
                [
                    a,
                    game,
                    g["attempts"],
                    g["dead_end_attempts"],
                    g["dead_end_share"],
                    g["runs"],
                    g["recovered"],
                    g["mean_delay"],
                    g["median_delay"],
                ]
            )
        o = de["overall"]
        body.append(
            [
                a,
                "all (game-macro)",
                o["attempts"],
                o["dead_end_attempts"],
                o["dead_end_share"],
                o["runs"],
                o["recovered"],
                o["mean_delay"],
                None,
            ]
        )
    return header, body


# --------------------------------------------------------------------------- plots
def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_lc_heatmap(data: dict, path: Path) -> None:
    plt = _plt()
    objectives = list(
        dict.fromkeys((e["game"], e["tier"]) for a in data["agents"] for e in data["episodes"][a])
    )
    agents = data["agents"]
    grid = [[float("nan")] * len(objectives) for _ in agents]
    for i, a in enumerate(agents):
        acc = defaultdict(list)
        for e in data["episodes"][a]:
            acc[(e["game"], e["tier"])].append(100.0 * e["lc"])
        for j, o in enumerate(objectives):
            if acc[o]:
                grid[i][j] = sum(acc[o]) / len(acc[o])
    fig, ax = plt.subplots(figsize=(max(4.0, 1.0 + 1.1 * len(objectives)), 1.2 + 0.6 * len(agents)))
    im = ax.imshow(grid, vmin=0, vmax=100, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(objectives)), [f"{g}\n{t}" for g, t in objectives], fontsize=8)
    ax.set_yticks(range(len(agents)), agents)
    for i in range(len(agents)):
        for j in range(len(objectives)):
            v = grid[i][j]
            if v == v:
                ax.text(
                    j,
                    i,
                    f"{v:.0f}",
                    ha="center",
                    va="center",
                    color="white" if v < 60 else "black",
                    fontsize=9,
                )
    fig.colorbar(im, ax=ax, label="LC (%)")
    ax.set_title("Level completion per objective (mean over seeds)")
    fig.tight_layout()
    jsonio.write_atomic(path, lambda tmp: fig.savefig(tmp, dpi=110, metadata={"Software": None}))
    plt.close(fig)


CUMULATIVE_HEADROOM = 1.05  # the x-axis runs this far past the last episode's end
LC_YLIM = (-3.0, 103.0)  # lines at 0 % and 100 % stay clear of the frame


def cumulative_lc_times(data: dict) -> tuple[list[float], float, float]:
    """The sample times of the cumulative-LC plot, the x-axis end and the budget: the axis
    ends a little after the last episode ended (LC no longer changes after that), never past
    the budget; the samples are an even grid plus every win time, so each step is exact."""
    eps = [e for a in data["agents"] for e in data["episodes"][a]]
    budget = max((e["budget_s"] or 0.0 for e in eps), default=3600.0) or 3600.0
    last = max((e.get("elapsed_s") or 0.0 for e in eps), default=0.0)
    last = max([last, *(t for e in eps for t, _lv in e["win_times"])])
    x_end = min(budget, CUMULATIVE_HEADROOM * last) if last > 0 else budget
    grid = {x_end * k / 400 for k in range(401)}
    wins = {t for e in eps for t, _lv in e["win_times"] if t <= x_end}
    return sorted(grid | wins), x_end, budget


def plot_cumulative_lc(data: dict, path: Path) -> tuple[tuple[float, float], tuple[float, float]]:
    """Write the plot; returns its x and y limits."""
    plt = _plt()
    times, x_end, budget = cumulative_lc_times(data)
    fig, ax = plt.subplots(figsize=(7, 4))
    styles = ("-", "--", "-.", ":")
    for i, a in enumerate(data["agents"]):
        ax.step(
            times,
            metrics.lc_over_time(data["episodes"][a], times),
            where="post",
            label=a,
            linestyle=styles[i % len(styles)],
            linewidth=2,
            clip_on=False,
            zorder=3 + i,
        )
    cut = f"; axis ends at {x_end:.0f} s, the budget is {budget:.0f} s" if x_end < budget else ""
    ax.set_xlabel(f"elapsed time (s){cut}")
    ax.set_ylabel("LC (%), game-macro")
    ax.set_ylim(*LC_YLIM)
    ax.set_xlim(0, x_end)
    ax.set_title("Cumulative level completion over elapsed time")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    limits = (tuple(float(v) for v in ax.get_xlim()), tuple(float(v) for v in ax.get_ylim()))
    jsonio.write_atomic(path, lambda tmp: fig.savefig(tmp, dpi=110, metadata={"Software": None}))
    plt.close(fig)
    return limits  # type: ignore[return-value]


def plot_dead_end_delays(data: dict, path: Path) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    series = {}
    for a in data["agents"]:
        for game, g in data["figures"][a]["dead_ends"]["per_game"].items():
            if g["delays"]:
                series[f"{a} / {game}"] = g["delays"]
    if series:
        ax.boxplot(list(series.values()), vert=False)
        ax.set_yticks(range(1, len(series) + 1), list(series))
        ax.set_xlabel("moves from the fatal move to the undo/restart that leaves the dead end")
    else:
        ax.text(
            0.5,
            0.5,
            "no recovered dead-end runs in this run",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
        ax.set_axis_off()
    ax.set_title("Dead-end delays (recovered runs)")
    fig.tight_layout()
    jsonio.write_atomic(path, lambda tmp: fig.savefig(tmp, dpi=110, metadata={"Software": None}))
    plt.close(fig)


# --------------------------------------------------------------------------- the report
def write_report(
    run_dir: str | os.PathLike,
    out_dir: str | os.PathLike | None = None,
    title: str | None = None,
    note: str | None = None,
) -> Path:
    data = load_run(run_dir)
    for problem in data["damaged"] + data["torn"]:
        print(f"puzzlegym report: warning: {problem}", file=sys.stderr)
    out = Path(out_dir) if out_dir is not None else Path(run_dir) / "report"
    out.mkdir(parents=True, exist_ok=True)
    tables = {}
    if data["agents"]:
        tables = {
            "table2": ("Table 2 layout: main results (%, H50 in levels)", table2(data)),
            "per_game": ("Per game (mean over the game's objectives)", per_game_table(data)),
            "table17": ("Table 17 layout: denominators", table17(data)),
            "dead_ends": ("Per-attempt dead-end statistics", dead_end_table(data)),
            "table18": ("Table 18 layout: every episode", table18(data)),
        }
        usage = usage_table(data)
        if usage[1]:
            tables["usage"] = ("Model requests and tokens", usage)
    for name, caption, header, body in data["lab"]:
        tables[name] = (caption, (header, body))
    md = {}
    for name, (caption, (header, body)) in tables.items():
        md[name] = markdown_table(header, body)
        jsonio.write_atomic(out / f"{name}.md", f"# {caption}\n\n{md[name]}")
        write_csv(out / f"{name}.csv", header, body)
    if data["agents"]:
        plot_lc_heatmap(data, out / "lc_heatmap.png")
        plot_cumulative_lc(data, out / "cumulative_lc.png")
        plot_dead_end_delays(data, out / "dead_end_delays.png")
    jsonio.write_atomic(
        out / "summary.json",
        json.dumps(
            {
                a: {k: v for k, v in f.items() if k != "dead_ends"}
                for a, f in data["figures"].items()
            },
            indent=2,
            sort_keys=True,
        )
        + "\n",
    )

    meta = data["meta"]
    kw = meta.get("env_kwargs", {})
    lines = [f"# {title or 'Evaluation report'}", ""]
    if note:
        lines += [note, ""]
    if meta:
        lines += [
            f"- puzzlegym {meta.get('puzzlegym_version')}, "
            f"catalogue `{str(meta.get('catalogue_sha256'))[:12]}…`",
            f"- agents: {', '.join(data['agents'] or meta.get('agents', []))}; "
            f"seeds: {', '.join(map(str, meta.get('seeds', [])))}",
            f"- objectives: {len(meta.get('objectives', []))} "
            f"({', '.join(o.split('/')[-1] for o in meta.get('objectives', []))})",
            f"- protocol: start at the home screen, budget {kw.get('budget_s')} s on the "
            f"{kw.get('clock')} clock, "
            f"backend {kw.get('backend')}"
            + (
                f", harness step cap {meta['max_steps']}"
                if meta.get("max_steps")
                else ", no action limit"
            ),
            "",
        ]
    if data["agents"]:
        lines += [
            "Metrics follow the LongPuzzleBench paper's Appendix B.3: per objective, averaged over "
            "a game's "
            "objectives, then",
            "equally over the games present. PER and SMR pool episodes. `–`: undefined or not "
            "applicable",
            "(LPR when nothing was reached, LC_hard without tiers above a game's easiest, NGAR "
            "outside the",
            "code-execution setting).",
            "",
            "## Main results (Table 2 layout)",
            "",
            md["table2"],
            "## Per game",
            "",
            md["per_game"],
            "## Plots",
            "",
            "- [Level completion per objective](lc_heatmap.png)",
            "- [Cumulative LC over elapsed time](cumulative_lc.png)",
            "- [Dead-end delays](dead_end_delays.png)",
            "",
            "![LC heatmap](lc_heatmap.png)",
            "",
            "![Cumulative LC](cumulative_lc.png)",
            "",
            "![Dead-end delays](dead_end_delays.png)",
            "",
            "## Denominators (Table 17 layout)",
            "",
            md["table17"],
            "## Dead ends",
            "",
            md["dead_ends"],
            *(["## Model requests and tokens", "", md["usage"]] if "usage" in md else []),
        ]
    for name, caption, _header, _body in data["lab"]:
        lines += [f"## {caption}", "", md[name]]
    lines += ["## Tables", ""]
    if data["agents"]:
        lines += [
            "- [Table 2 layout](table2.md) ([csv](table2.csv))",
            "- [Per game](per_game.md) ([csv](per_game.csv))",
            "- [Table 17 layout](table17.md) ([csv](table17.csv))",
            "- [Table 18 layout: every episode](table18.md) ([csv](table18.csv))",
            "- [Dead ends](dead_ends.md) ([csv](dead_ends.csv))",
            *(
                ["- [Model requests and tokens](usage.md) ([csv](usage.csv))"]
                if "usage" in md
                else []
            ),
        ]
    lines += [f"- [{name}]({name}.md) ([csv]({name}.csv))" for name, *_ in data["lab"]]
    lines += ["- [summary.json](summary.json)", ""]
    if data["errors"]:
        lines += ["## Episodes that failed", ""]
        lines += [
            f"- {e['agent']} {e['env_id']} seed {e['seed']}: {e['error']}" for e in data["errors"]
        ]
        lines.append("")
    if data["damaged"] or data["torn"]:
        lines += ["## Damaged files", ""]
        lines += [f"- {d}" for d in data["damaged"] + data["torn"]]
        lines.append("")
    jsonio.write_atomic(out / "index.md", "\n".join(lines))
    return out


# --------------------------------------------------------------------------- level science
def levels_markdown(rows: list[dict], formats: dict[str, str] | None = None) -> str:
    """``docs/levels.md``: the per-level table and the per-tier means with the N_step check,
    then, when ``formats`` is given (game name -> its ``format.md`` text, see
    :func:`level_formats`), a "Level file formats" section with each game's text (its
    headings nested under the section: the highest becomes ``###``)."""
    from puzzlegym.evaluation.levels import (
        PLAYOUT_MAX_MOVES,
        PLAYOUT_MOVES_PER_STEP,
        PLAYOUTS,
        stats_table,
    )

    check = nstep_by_tier(rows)
    lines = [
        "# Level science",
        "",
        "Generated by `puzzlegym levels stats --write docs/levels.md` (do not edit by hand).",
        "",
        "For every catalogue level: the solver-optimal length N_step (moves), the number of "
        "reachable",
        "states (`≥` marks a lower bound where the enumeration stopped at the cap), the mean "
        "branching",
        "factor B̄ over the states expanded in full (n/a when the cap stopped the very first",
        "expansion: an open Color Connect board has more paths than the cap), and the share of",
        "reachable states that are dead ends (states from which no solved state is reachable; n/a",
        "when the enumeration was capped). States are counted up to each solver's symmetry",
        "(`puzzlegym.solvers.canonical_key`: Nut and Bolt bolts as a multiset, Bolt Unscrew's "
        "loose",
        "screws interchangeable; other games' states as they are); B̄ counts every legal move of a",
        "representative state. Per-tier means are over the levels where the figure is known.",
        "",
        f"Random play: {PLAYOUTS} playouts per level from the start, each move drawn uniformly "
        "from the",
        f"legal moves (the first {PLAYOUT_MAX_MOVES:,} of them where a board has more: "
        "Color Connect's",
        "paths; seeded by the level id), until the board is solved, certified unsolvable, or",
        f"{PLAYOUT_MOVES_PER_STEP} × N_step moves are played. *Random-play dead ends* is the "
        "share of playouts that reached",
        "a certified dead end; *hidden dead ends* is, among those, the share whose first "
        "unsolvable",
        "board still had a legal move, so the visible sign of a lost board (no move left) was not",
        "there yet. In Bolt Unscrew a legal move exists exactly when a free anchor does: these "
        "dead",
        "ends arrived while free holes remained (`puzzlegym.evaluation.levels.playout_dead_ends`).",
        "",
        "## Per tier",
        "",
        "| game | tier | levels | mean N_step | min–max N_step | mean B̄ | mean dead-end share "
        "| mean random-play dead ends | mean hidden dead ends |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (game, tier), t in check["tiers"].items():
        share = "n/a" if t["dead_end_share"] is None else f"{t['dead_end_share']:.2%}"
        dead = "n/a" if t["playout_dead_rate"] is None else f"{t['playout_dead_rate']:.2%}"
        hidden = (
            "n/a" if t["hidden_dead_end_share"] is None else f"{t['hidden_dead_end_share']:.2%}"
        )
        lines.append(
            f"| {game} | {tier} | {t['levels']} | {t['mean_n_step']:.1f} | "
            f"{t['min_n_step']}–{t['max_n_step']} "
            f"| {'n/a' if t['mean_branching'] is None else format(t['mean_branching'], '.2f')} "
            f"| {share} | {dead} | {hidden} |"
        )
    lines += [
        "",
        "## Check: within each game, mean N_step does not fall from one tier to the next",
        "",
    ]
    for game, ok in check["games"].items():
        ladder = [(t, v["mean_n_step"]) for (g, t), v in check["tiers"].items() if g == game]
        falls = [
            f"{a} {x:.1f} → {b} {y:.1f}"
            for (a, x), (b, y) in zip(ladder, ladder[1:], strict=False)
            if y < x
        ]
        lines.append(f"- {game}: " + ("OK" if ok else "FAILS (" + "; ".join(falls) + ")"))
    lines += ["", "## Every level", "", stats_table(rows), ""]
    if formats:
        lines += ["## Level file formats", ""]
        for text in formats.values():
            lines += [nest_headings(text.strip(), 3), ""]
    return "\n".join(lines)


def _mean_known(values) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def level_formats(games: list[str] | None = None) -> dict[str, str]:
    """Game name -> the Markdown of its level file format (``Game.level_format``, from the
    game package's ``format.md``), for the registered games (or those named), in home-screen
    order; games without one are left out."""
    from puzzlegym.registry import games as registered

    return {
        name: g.level_format
        for name, g in registered().items()
        if g.level_format and (games is None or name in games)
    }


def nest_headings(markdown: str, top: int) -> str:
    """``markdown`` with its headings shifted so the highest becomes level ``top`` (a
    standalone ``# Title`` document and one already written with ``### Title`` nest the same
    way), leaving fenced code blocks alone."""
    lines = markdown.splitlines()
    fenced, levels = False, []
    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            levels.append(len(line) - len(line.lstrip("#")))
    shift = top - min(levels) if levels else 0
    out, fenced = [], False
    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            line = "#" * max(1, len(line) - len(line.lstrip("#")) + shift) + line.lstrip("#")
        out.append(line)
    return "\n".join(out)


def nstep_by_tier(rows: list[dict]) -> dict[str, Any]:
    """Per-tier means of a ``levels.stats``-style row list (tiers in row order) and, per game,
    whether the mean N_step never falls from one tier to the next."""
    tiers: dict[tuple[str, str], dict] = {}
    acc: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        acc[(r["game"], r["tier"])].append(r)
    for key, rs in acc.items():
        ns = [r["n_step"] for r in rs]
        shares = [r["dead_end_share"] for r in rs if r.get("dead_end_share") is not None]
        tiers[key] = {
            "levels": len(rs),
            "mean_n_step": sum(ns) / len(ns),
            "min_n_step": min(ns),
            "max_n_step": max(ns),
            "mean_branching": _mean_known(r.get("branching") for r in rs),
            "dead_end_share": sum(shares) / len(shares) if len(shares) == len(rs) else None,
            "playout_dead_rate": _mean_known(r.get("playout_dead_rate") for r in rs),
            "hidden_dead_end_share": _mean_known(r.get("hidden_dead_end_share") for r in rs),
        }
    games: dict[str, bool] = {}
    for game in dict.fromkeys(k[0] for k in tiers):
        means = [t["mean_n_step"] for (g, _), t in tiers.items() if g == game]
        games[game] = all(b >= a for a, b in zip(means, means[1:], strict=False))
    return {"tiers": tiers, "games": games}


def cmd(args) -> int:
    """``puzzlegym report RUN_DIR``."""
    out = write_report(args.run_dir, args.out, title=args.title, note=getattr(args, "note", None))
    print(f"report: {out / 'index.md'}")
    return 0


def write_levels_doc(rows: list[dict], path: str | os.PathLike) -> bool:
    """Write ``levels_markdown`` of ``rows`` (with the level formats of the games in them) to
    ``path``; True when every game passes the check."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = levels_markdown(rows, level_formats(sorted({r["game"] for r in rows})))
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return all(nstep_by_tier(rows)["games"].values())
