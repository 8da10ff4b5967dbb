"""The run's index page: every episode of a run (agent, objective, seed, LC, FGP, outcome,
actions, dead-end spans) linking to its page, and the episodes that failed or could not be
viewed. A static HTML file, no script."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

from puzzlegym.view.page import icon_href

__all__ = ["index_page"]

_STYLE = """
body { font: 14px/1.4 system-ui, "DejaVu Sans", sans-serif; margin: 16px 24px; color: #1d2533; }
h1 { font-size: 18px; } table { border-collapse: collapse; }
th, td { padding: 3px 10px; border-bottom: 1px solid #dde; text-align: left; }
th { background: #243047; color: #f3f5f9; position: sticky; top: 0; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.failed td { color: #b3261e; } .meta { color: #556; }
"""

COLUMNS = ("Agent", "Objective", "Seed", "LC", "FGP", "Outcome", "Actions", "Dead ends", "Page")


def _pct(value: Any) -> str:
    return "–" if value is None else f"{100.0 * value:.1f}"


def index_page(title: str, rows: Iterable[dict[str, Any]]) -> str:
    """The index's HTML. A row has ``agent``, ``env_id``, ``seed``, ``lc``, ``fgp`` (fractions),
    ``end`` (the outcome), ``actions``, ``spans`` (dead-end spans), ``href`` (the page,
    relative to the index, or None) and ``error`` (why there is no page, or None)."""
    e = html.escape
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">",
        f"<title>{e(title)} — puzzlegym view</title>",
        f'<link rel="icon" href="{icon_href()}">',
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        '<p class="meta">One page per episode record (frames replayed from the record, the '
        "timeline, the model's turns); made by <code>puzzlegym view</code>.</p>",
        "<table><thead><tr>" + "".join(f"<th>{c}</th>" for c in COLUMNS) + "</tr></thead><tbody>",
    ]
    rows = list(rows)
    for r in rows:
        link = (
            f'<a href="{e(r["href"])}">view</a>'
            if r.get("href")
            else e(str(r.get("error") or "no page"))
        )
        cls = ' class="failed"' if r.get("error") else ""
        cells = [
            e(str(r.get("agent"))),
            e(str(r.get("env_id"))),
            e(str(r.get("seed"))),
            _pct(r.get("lc")),
            _pct(r.get("fgp")),
            e(str(r.get("end") or "–")),
            "–" if r.get("actions") is None else str(r["actions"]),
            "–" if r.get("spans") is None else str(r["spans"]),
            link,
        ]
        numeric = {2, 3, 4, 6, 7}
        out.append(
            f"<tr{cls}>"
            + "".join(
                f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>"
                for i, c in enumerate(cells)
            )
            + "</tr>"
        )
    n = len(rows)
    out += [
        "</tbody></table>",
        f'<p class="meta">{n} episode{"" if n == 1 else "s"}</p>',
        "</body></html>",
        "",
    ]
    return "\n".join(out)
