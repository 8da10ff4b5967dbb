"""``puzzlegym report RUN_DIR``: the tables and plots of a run written as files.

Writes (default ``RUN_DIR/report/``):

* ``index.md`` — links everything below and shows the Markdown tables;
* ``report.json`` — the report's title and note (:func:`refresh_report` writes it again with
  them after ``puzzlegym view``);
* ``table2.md/.csv`` — the paper's Table 2 layout (OSR, LC, FGP, LPR, H50, LC_hard, PER, NGAR
  per agent), plus SMR;
* ``table17.md/.csv`` — the denominators (n, S, PER and SMR counts, native/other steps, cells);
* ``table18.md/.csv`` — the paper's Table 18 layout: every episode's objective row, and a
  link to the episode's viewer page where ``puzzlegym view`` wrote one;
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

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from puzzlegym.base import jsonio
from puzzlegym.base.errors import RecordError, counted
from puzzlegym.base.schema import Obj, Str, check, optional
from puzzlegym.record.files import VIEW_PAGE, read_json
from puzzlegym.report.load import Section, load_run
from puzzlegym.report.plots import plot_cumulative_lc, plot_dead_end_delays, plot_lc_heatmap
from puzzlegym.report.tables import (
    dead_end_table,
    markdown_table,
    per_game_table,
    table2,
    table17,
    table18,
    usage_table,
    write_csv,
)

__all__ = ["write_report"]


OPTIONS_FILE = "report.json"  # the report's own options (title, note), beside its index.md
MAX_OPTION_CHARS = 10_000


def refresh_report(run_dir: str | os.PathLike, sections: Sequence[Section] = ()) -> Path | None:
    """Write ``run_dir``'s report again where ``puzzlegym report`` wrote it by default
    (``RUN_DIR/report``), with its own title and note, so its links reach the episode pages
    that ``puzzlegym view`` wrote since; None when there is no such report. The order of
    ``report`` and ``view`` then does not matter."""
    out = Path(run_dir) / "report"
    if not (out / OPTIONS_FILE).is_file() or not (out / "index.md").is_file():
        return None
    options = read_json(out / OPTIONS_FILE, "report's options")
    shape = Obj({"title": optional(Str(MAX_OPTION_CHARS)), "note": optional(Str(MAX_OPTION_CHARS))})
    check(options, shape, f"{out / OPTIONS_FILE}", RecordError)
    return write_report(run_dir, out, options["title"], options["note"], sections)


def write_report(
    run_dir: str | os.PathLike,
    out_dir: str | os.PathLike | None = None,
    title: str | None = None,
    note: str | None = None,
    sections: Sequence[Section] = (),
) -> Path:
    """Write the report of ``run_dir`` into ``out_dir`` (default ``RUN_DIR/report``), with the
    tables of ``sections``; returns the output directory."""
    data = load_run(run_dir, sections)
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
            "table18": ("Table 18 layout: every episode", table18(data, out)),
        }
        usage = usage_table(data)
        if usage[1]:
            tables["usage"] = ("Model requests and tokens", usage)
    for name, caption, header, body in data["sections"]:
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

    # what refresh_report needs to write this report again (after `puzzlegym view`)
    jsonio.write_atomic(
        out / OPTIONS_FILE, json.dumps({"title": title, "note": note}, indent=2) + "\n"
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
            "a game's objectives, then",
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
            *(
                [
                    "A line *outside the objective* pools the attempts an agent played in "
                    "another game or tier than its episode's objective (a random agent wanders "
                    "from the home screen); they count in no objective's figures.",
                    "",
                ]
                if any(f["dead_ends"].get("outside") for f in data["figures"].values())
                else []
            ),
            *(["## Model requests and tokens", "", md["usage"]] if "usage" in md else []),
        ]
    for name, caption, _header, _body in data["sections"]:
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
    lines += [f"- [{name}]({name}.md) ([csv]({name}.csv))" for name, *_ in data["sections"]]
    lines += ["- [summary.json](summary.json)", ""]
    if data["agents"]:
        header, body = tables["table18"][1]
        viewed = sum(1 for row in body if "Page" in header and row[-1])
        n = len(body)
        index = Path(run_dir) / VIEW_PAGE
        lines += [
            "## Episode pages",
            "",
            f"{viewed} of {counted(n, 'episode')} "
            + ("has" if n == 1 else "have")
            + " a viewer page"
            + (" (linked in [Table 18](table18.md))" if viewed else "")
            + "; `puzzlegym view RUN_DIR` writes them (frames, actions, the timeline, dead "
            "ends, model turns)"
            + (
                f", with [an index of them]({os.path.relpath(index, out)})."
                if index.is_file()
                else "."
            ),
            "",
        ]
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
