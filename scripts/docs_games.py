"""MkDocs hooks (mkdocs.yml ``hooks:``): the games' part of the site comes from the registry.

* The nav's **Games** section lists the games index, then one page per registered game in
  home-screen order, then the section's other pages (gallery, level science): mkdocs.yml
  names only the index and those others.
* A game's page is ``games/<package>.md`` with ``_`` as ``-`` (``games/maze-paint.md``) when the
  docs hold one; a game without one (a plugin) gets a page made from the game itself: its ids
  and tiers, the rule card, the level file format and a screenshot of level 1 rendered at
  build time.
* ``<!-- games-table -->`` in a page becomes the table of every registered game (tiers,
  levels, controls, dead ends, page).
"""

from __future__ import annotations

from typing import Any

GAMES_SECTION = "Games"
TABLE_MARK = "<!-- games-table -->"


def _games() -> dict:
    from puzzlegym.game.registry import games

    return games()


def page_of(game: Any) -> str:
    """The docs path of a game's page."""
    return f"games/{game.package.rpartition('.')[2].replace('_', '-')}.md"


def screenshot_of(game: Any) -> str:
    return f"img/screens/{game.package.rpartition('.')[2]}.png"


def game_page(game: Any) -> str:
    """The page of a game the docs have no page for, from the game's own parts."""
    tiers = ", ".join(f"{t} ({len(game.catalogue(t))} levels)" for t in game.tiers)
    ids = ", ".join(f"`{game.env_id(t)}`" for t in game.tiers)
    card = "\n".join(f"    {line}" if line else "" for line in game.rule_card.splitlines()[1:])
    lines = [
        f"# {game.title}",
        "",
        f"{ids}. Tiers: {tiers}. Package `{game.package}`.",
        "",
        f"![{game.title}, {game.tiers[0]}, level 1](../{screenshot_of(game)})",
        "",
        "## Rules",
        "",
        f'!!! quote "Rule card (`{game.package}/card.md`)"',
        card,
        "",
        "## Controls",
        "",
        f"{game.controls or 'See the rule card'}. The level screen's instruction line: "
        f"*{game.instruction}*",
    ]
    if game.level_format:
        lines += ["", game.level_format.strip()]
    return "\n".join(lines) + "\n"


def games_table(games: dict, here: str) -> str:
    """The Markdown table of ``games`` for the page at ``here`` (its links relative to it)."""
    up = "../" * here.count("/")
    rows = [
        "| game | tiers | levels | played with | can dead-end | page |",
        "|---|---|---|---|---|---|",
    ]
    for g in games.values():
        n = sum(len(g.catalogue(t)) for t in g.tiers)
        rows.append(
            f"| {g.title} | {', '.join(g.tiers)} | {n} | {g.controls or '–'} | "
            f"{'yes' if g.can_dead_end else 'no'} | [{g.title}]({up}{page_of(g)}) |"
        )
    return "\n".join(rows)


def games_nav(nav: list, games: dict) -> list:
    """``nav`` with its Games section's game pages from ``games`` (after the section's first
    entry, the index)."""
    out = []
    for entry in nav:
        if isinstance(entry, dict) and GAMES_SECTION in entry:
            items = list(entry[GAMES_SECTION])
            pages = [{g.title: page_of(g)} for g in games.values()]
            entry = {GAMES_SECTION: items[:1] + pages + items[1:]}
        out.append(entry)
    return out


def on_config(config, **_):
    config["nav"] = games_nav(config["nav"], _games())
    return config


def on_files(files, config, **_):
    from mkdocs.structure.files import File

    for game in _games().values():
        if files.get_file_from_path(page_of(game)) is None:
            files.append(File.generated(config, page_of(game), content=game_page(game)))
        if files.get_file_from_path(screenshot_of(game)) is None:
            files.append(File.generated(config, screenshot_of(game), content=_screenshot(game)))
    return files


def _screenshot(game: Any) -> bytes:
    import io

    import gymnasium as gym
    from PIL import Image

    env = gym.make(game.env_id(game.tiers[0]), start="board", level=1, render_mode="rgb_array")
    try:
        env.reset(seed=0)
        buf = io.BytesIO()
        Image.fromarray(env.render()).save(buf, format="PNG")
        return buf.getvalue()
    finally:
        env.close()


def on_page_markdown(markdown: str, page, **_):
    if TABLE_MARK in markdown:
        markdown = markdown.replace(TABLE_MARK, games_table(_games(), page.file.src_uri))
    return markdown
