"""A griffe extension for the API reference (mkdocs.yml loads it for mkdocstrings): the code's
docstrings use a few reStructuredText habits that Markdown would show raw.

* Sphinx roles (``:class:`~puzzlegym.probe.Probe```, ``:func:`play```, ``:mod:`x```) become
  inline code of the name (the last dotted part where the target starts with ``~``);
* a paragraph of doctest lines (``>>> ...`` and their output, not indented) becomes a fenced
  ``pycon`` code block, as Google-style ``Examples:`` sections already are;
* a paragraph ending in ``::`` (a reStructuredText literal block follows) ends in ``:``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):`(~?)([^`]+)`")


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


def markdown_docstring(text: str) -> str:
    """``text`` with the reStructuredText habits above rewritten as Markdown."""
    text = ROLE.sub(_role, text)
    text = re.sub(r"(\S)::$", r"\1:", text, flags=re.M)
    return "\n".join(_fence_doctests(text.split("\n")))


class RestructuredTextHabits(griffe.Extension):
    """Rewrites every loaded object's docstring with :func:`markdown_docstring`."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)
