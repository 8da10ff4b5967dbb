"""MkDocs hooks (mkdocs.yml ``hooks:``) for the documentation site.

Pages written by programs cite "the paper" and its tables the way a run's own report does,
with no link: the same text is written to run directories outside the site. Those pages are
docs/baselines/ (``puzzlegym report``), docs/rl-baselines.md, docs/rl-baselines-sb3.md,
docs/rl-dead-ends.md and docs/rl-demo.md (the RL benchmarks) and docs/levels.md
(``puzzlegym levels stats``). On the site, such a page gets one line under its title
naming the paper and linking docs/paper.md, where its full citation is. Hand-written pages
link the paper themselves.
"""

from __future__ import annotations

import re

GENERATED = (
    "baselines/",
    "rl-baselines.md",
    "rl-baselines-sb3.md",
    "rl-dead-ends.md",
    "rl-demo.md",
    "levels.md",
)
CITES = re.compile(r"\bpaper\b|\b(?:Table|Figure) \d", re.IGNORECASE)
TITLE = re.compile(r"^# .*$", re.MULTILINE)


def on_page_markdown(markdown: str, page, config, files) -> str:
    src = page.file.src_uri
    if not src.startswith(GENERATED) or not CITES.search(markdown) or "paper.md" in markdown:
        return markdown
    link = "../" * src.count("/") + "paper.md"
    note = f'\n\n*"The paper" on this page is [LongPuzzleBench]({link}) (Zhang et al., 2026).*'
    title = TITLE.search(markdown)
    at = title.end() if title else 0
    return markdown[:at] + note + markdown[at:]
