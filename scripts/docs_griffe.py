"""A griffe extension for the API reference (mkdocs.yml loads it for mkdocstrings): the code's
docstrings use a few reStructuredText habits that Markdown would show raw.

* Sphinx roles (``:class:`~puzzlegym.env.probe.Probe```, ``:func:`play```, ``:mod:`x```) become
  inline code of the name (the last dotted part where the target starts with ``~``);
* a paragraph of doctest lines (``>>> ...`` and their output, not indented) becomes a fenced
  ``pycon`` code block, as Google-style ``Examples:`` sections already are;
* a paragraph ending in ``::`` (a reStructuredText literal block follows) ends in ``:``;
* a reStructuredText simple table (columns under ``====  ====`` borders, a row continued on
  lines whose first column is blank) becomes a Markdown table.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):`(~?)([^`]+)`")
BORDER = re.compile(r"^=+( +=+)+$")
CODE = re.compile(r"(`+).+?\1")


def _role(match: re.Match) -> str:
    short, target = match.groups()
    return f"`{target.rsplit('.', 1)[-1] if short else target}`"


def _fence_doctests(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith(">>>"):
            out.append(lines[i])
            i += 1
            continue
        block = []
        while i < len(lines) and lines[i].strip():
            block.append(lines[i])
            i += 1
        out += ["```pycon", *block, "```"]
    return out


def _table_rows(lines: list[str], starts: list[int]) -> list[list[str]]:
    rows: list[list[str]] = []
    for line in lines:
        ends = [*starts[1:], None]
        cells = [line[a:b].strip() for a, b in zip(starts, ends, strict=True)]
        if rows and not cells[0]:
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells, strict=True)]
        elif any(cells):
            rows.append(cells)
    return rows


def _cell(text: str) -> str:
    """A table cell's text with its pipes escaped, except inside code (where Markdown
    tables do not split)."""
    out, last = [], 0
    for span in CODE.finditer(text):
        out += [text[last : span.start()].replace("|", "\\|"), span.group()]
        last = span.end()
    return "".join([*out, text[last:].replace("|", "\\|")])


def _simple_tables(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not BORDER.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        starts = [m.start() for m in re.finditer(r"=+", lines[i])]
        end = next((j for j in range(i + 1, len(lines)) if BORDER.match(lines[j])), None)
        if end is None:  # not a table after all
            out.append(lines[i])
            i += 1
            continue
        rows = _table_rows(lines[i + 1 : end], starts)
        out += ["", "|" + " |" * len(starts), "|" + "---|" * len(starts)]
        out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
        out.append("")
        i = end + 1
    return out


def markdown_docstring(text: str) -> str:
    """``text`` with the reStructuredText habits above rewritten as Markdown."""
    text = ROLE.sub(_role, text)
    text = re.sub(r"(\S)::$", r"\1:", text, flags=re.M)
    return "\n".join(_simple_tables(_fence_doctests(text.split("\n"))))


class RestructuredTextHabits(griffe.Extension):
    """Rewrites every loaded object's docstring with :func:`markdown_docstring`."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)
