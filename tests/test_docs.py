"""The documentation site: the strict MkDocs build that scripts/test.sh runs fails when the
docs break (a link to a missing page, a missing anchor, a missing image, a rule card that
moved, an API object that does not exist), and the screenshots come from
scripts/docs_screens.py, one per registered game."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from puzzlegym.game import registry

ROOT = Path(__file__).resolve().parents[1]
SCREENS = ROOT / "docs" / "img" / "screens"


def site_copy(tmp_path: Path) -> Path:
    """The real mkdocs.yml and docs/ in a temporary folder, the sources beside them."""
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    for folder in ("puzzlegym", "envs", "solvers", "scripts"):
        (tmp_path / folder).symlink_to(ROOT / folder, target_is_directory=True)
    return tmp_path


def build(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(root / "site")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_the_docs_build_strictly(tmp_path):
    proc = build(site_copy(tmp_path))
    assert proc.returncode == 0, proc.stderr
    site = tmp_path / "site"
    assert (site / "games" / "maze-paint" / "index.html").is_file()
    page = (site / "games" / "maze-paint" / "index.html").read_text(encoding="utf-8")
    # the rule card is included from envs/maze_paint/card.md, not copied into the page
    card = (ROOT / "envs" / "maze_paint" / "card.md").read_text(encoding="utf-8").splitlines()[2]
    assert card in page
    reference = (site / "reference" / "evaluation" / "index.html").read_text(encoding="utf-8")
    assert 'id="puzzlegym.env.loop.play"' in reference
    assert ":func:" not in reference  # the docstrings' roles are rewritten as code
    assert not (site / "ruff.toml").exists()  # a tool's file in docs/, not a page


@pytest.mark.parametrize(
    "break_it, named",
    [
        (
            lambda d: append(d / "getting-started.md", "\n[gone](no-such-page.md)\n"),
            "no-such-page.md",
        ),
        (
            lambda d: append(d / "rl.md", "\n[gone](env-api.md#no-such-heading)\n"),
            "#no-such-heading",
        ),
        (
            lambda d: append(d / "games" / "index.md", "\n![gone](../img/screens/no-such.png)\n"),
            "no-such.png",
        ),
        (
            lambda d: append(
                d / "games" / "maze-paint.md", '\n--8<-- "envs/maze_paint/no-card.md"\n'
            ),
            "no-card.md",
        ),
        (
            lambda d: append(d / "reference" / "env.md", "\n::: puzzlegym.env.NoSuchThing\n"),
            "puzzlegym.env.NoSuchThing",
        ),
    ],
    ids=["page link", "anchor", "image", "included file", "API object"],
)
def test_broken_docs_fail_the_strict_build(tmp_path, break_it, named):
    root = site_copy(tmp_path)
    break_it(root / "docs")
    proc = build(root)
    assert proc.returncode != 0
    assert named in proc.stderr


def screens_script(out: Path, width: int) -> subprocess.CompletedProcess:
    script = ROOT / "scripts" / "docs_screens.py"
    command = [sys.executable, str(script), "--out", str(out), "--width", str(width)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_the_screenshots_script_renders_home_and_every_game(tmp_path):
    proc = screens_script(tmp_path, 160)
    assert proc.returncode == 0, proc.stderr
    stems = {"home"} | {g.package.rpartition(".")[2] for g in registry.builtin_games().values()}
    every = {"home"} | {g.package.rpartition(".")[2] for g in registry.games().values()}
    assert {p.stem for p in tmp_path.glob("*.png")} == every  # a plugin's game included
    for path in tmp_path.glob("*.png"):
        with Image.open(path) as image:
            assert (image.format, image.mode, image.size) == ("PNG", "P", (160, 112))
    # the committed screenshots are this script's output, one per game page
    assert {p.stem for p in SCREENS.glob("*.png")} == stems
    for stem in stems - {"home"}:
        page = ROOT / "docs" / "games" / f"{stem.replace('_', '-')}.md"
        assert f"../img/screens/{stem}.png" in page.read_text(encoding="utf-8"), page


def test_the_screenshots_script_rejects_a_bad_width(tmp_path):
    proc = screens_script(tmp_path, 5000)
    assert proc.returncode == 2
    assert "--width: expected 160..1280, got 5000" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_docstrings_are_rewritten_as_markdown():
    """The API reference's griffe extension: roles become code, doctests a fenced block,
    reStructuredText simple tables Markdown tables (pipes outside code escaped)."""
    spec = importlib.util.spec_from_file_location(
        "docs_griffe", ROOT / "scripts" / "docs_griffe.py"
    )
    docs_griffe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(docs_griffe)
    text = "\n".join(
        [
            "See :class:`~puzzlegym.env.probe.Probe` and :func:`play`. Use::",
            "",
            ">>> 1 + 1",
            "2",
            "",
            "=========  ==========",
            "``kind``   ``a | b``, or |L|",
            "           continued",
            "``x``      y",
            "=========  ==========",
        ]
    )
    assert docs_griffe.markdown_docstring(text).split("\n") == [
        "See `Probe` and `play`. Use:",
        "",
        "```pycon",
        ">>> 1 + 1",
        "2",
        "```",
        "",
        "",
        "| | |",
        "|---|---|",
        "| ``kind`` | ``a | b``, or \\|L\\| continued |",
        "| ``x`` | y |",
        "",
    ]


def _table_blocks(text: str):
    """``(line number, lines)`` of every Markdown table outside code fences: a row line
    followed by a separator line (``|---|---|``)."""
    lines, fenced, i = text.splitlines(), False, 0
    while i < len(lines):
        if lines[i].lstrip().startswith("```"):
            fenced = not fenced
        elif (
            not fenced
            and lines[i].lstrip().startswith("|")
            and i + 1 < len(lines)
            and set(lines[i + 1].replace(" ", "")) <= set("|-:")
            and "-" in lines[i + 1]
        ):
            j = i
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            yield i + 1, lines[i:j]
            i = j
            continue
        i += 1


def test_every_markdown_table_in_the_docs_renders_as_a_table():
    """Issue 43, item 2: Table 18's header cell ``|L_o|`` split its row, so every report's
    table18.md and the docs page rendered as a paragraph of pipes, and ``mkdocs --strict``
    passed anyway. Every table in docs/ (hand-written and generated) and in a report that
    ``puzzlegym report`` writes now renders as a table whose every row has the header's
    cells."""
    import re

    import markdown

    from puzzlegym.report.tables import markdown_table

    sources = {p: p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").rglob("*.md"))}
    sources[Path("generated")] = markdown_table(
        ["Agent", "NGAR", "|L_o|", "End"], [["a|b", 1.5, 3, "x\ny"]]
    )
    checked = 0
    for path, text in sources.items():
        for line, block in _table_blocks(text):
            columns = len(re.split(r"(?<!\\)\|", block[1].strip().strip("|")))
            html = markdown.markdown("\n".join(block), extensions=["tables"])
            where = f"{path}:{line}"
            assert html.startswith("<table>"), where
            heads = re.findall(r"<th[ >]", html)
            rows = re.findall(r"<tr>(.*?)</tr>", html, re.S)
            assert len(heads) == columns and len(rows) == len(block) - 1, where
            for row in rows[1:]:
                assert len(re.findall(r"<td[ >]", row)) == columns, where
            checked += 1
    assert checked > 50  # the docs hold many tables; a parser that found none checks nothing


def test_the_cli_page_names_every_agent_kind_and_no_page_names_a_removed_file():
    """Issue 43, item 7: docs/cli.md listed 4 agent kinds of the 7, and three pages named
    tests/data/full_frames_sha256.json after it moved into each game's package."""
    from puzzlegym.cli.args import AGENT_KINDS

    cli_page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert [k for k in AGENT_KINDS if f"`{k}`" not in cli_page] == []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for path in re.findall(
            r"`((?:tests|scripts|envs|puzzlegym|benchmarks|examples)/[\w./-]+)`", text
        ):
            if "<" not in path and "*" not in path:
                assert (ROOT / path).exists(), f"{page.name} names {path}, which does not exist"
