"""``puzzlegym report``: the tables (Table 2 / 17 / 18 layouts, per game, dead ends), the
plots and index.md; the level-science table and its N_step check over the catalogue."""

import csv
import json
import shutil

import pytest

from puzzlegym import solvers
from puzzlegym.cli import main
from puzzlegym.evaluation.eval import run_eval
from puzzlegym.game.registry import builtin_games, games
from puzzlegym.levels.doc import (
    level_formats,
    levels_markdown,
    nest_headings,
    nstep_by_tier,
    write_levels_doc,
)
from puzzlegym.report.load import load_run
from puzzlegym.report.write import write_report


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    run = tmp_path_factory.mktemp("run")
    run_eval(
        ["solver", "random"],
        ["LongPuzzle/MazePaint-Easy", "LongPuzzle/MazePaint-Medium"],
        [0],
        run,
        workers=1,
        max_steps=300,
        progress=False,
    )
    return run


def test_report_writes_tables_plots_and_an_index_that_links_them(run_dir):
    out = write_report(run_dir)
    index = (out / "index.md").read_text()
    for name in ("table2", "table17", "table18", "per_game", "dead_ends"):
        assert (out / f"{name}.md").exists() and (out / f"{name}.csv").exists()
        assert f"({name}.md)" in index and f"({name}.csv)" in index
    for png in ("lc_heatmap.png", "cumulative_lc.png", "dead_end_delays.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"({png})" in index
    with open(out / "table2.csv") as fh:
        t2 = {r["Agent"]: r for r in csv.DictReader(fh)}
    # the solver clears both objectives (MazePaint Easy in 99 actions, Medium in fewer than 300)
    assert (
        t2["solver"]["OSR↑"] == "100.0"
        and t2["solver"]["LC↑"] == "100.0"
        and t2["solver"]["H50↑"] == "10+"
    )
    assert t2["solver"]["NGAR↑"] == "" and t2["solver"]["LC_hard↑"] == "100.0"
    with open(out / "table18.csv") as fh:
        t18 = list(csv.DictReader(fh))
    assert [(r["Agent"], r["Objective"]) for r in t18] == [
        ("solver", "MazePaint / Easy"),
        ("solver", "MazePaint / Medium"),
        ("random", "MazePaint / Easy"),
        ("random", "MazePaint / Medium"),
    ]
    assert all(r["|L_o|"] == "10" for r in t18)


def test_load_run_figures_agree_with_the_rows(run_dir):
    data = load_run(run_dir)
    assert data["agents"] == ["solver", "random"]
    solver = data["figures"]["solver"]
    assert (solver["n"], solver["S"], solver["cells"]) == (2, 2, 2)
    random_lc = sum(r["lc"] for r in data["rows"]["random"]) / 2
    assert data["figures"]["random"]["LC"] == pytest.approx(random_lc)  # one game: plain mean


def test_index_names_the_agents_of_records_beside_the_eval_run(run_dir, tmp_path):
    """A served agent's records under the run (as scripts/vision_baselines.py writes them)
    are reported beside the eval's agents, and the index's agents line says so."""
    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    record = next(
        p.parent
        for p in sorted(run.rglob("manifest.json"))
        if json.loads(p.read_text())["agent"] == "solver"
    )
    served = run / "vision" / "episode-000001"
    shutil.copytree(record, served)
    manifest = json.loads((served / "manifest.json").read_text())
    (served / "manifest.json").write_text(json.dumps({**manifest, "agent": "http:vision"}))
    out = write_report(run, tmp_path / "out")
    assert load_run(run)["agents"] == ["solver", "random", "http:vision"]
    assert "- agents: solver, random, http:vision; seeds: 0" in (out / "index.md").read_text()


def test_nstep_check_on_hand_rows():
    rows = [
        {"game": "A", "tier": "Easy", "n_step": 4, "branching": 2.0, "dead_end_share": 0.0},
        {"game": "A", "tier": "Easy", "n_step": 6, "branching": 2.0, "dead_end_share": 0.5},
        {"game": "A", "tier": "Hard", "n_step": 5, "branching": 3.0, "dead_end_share": None},
        {"game": "B", "tier": "Easy", "n_step": 9, "branching": 1.0, "dead_end_share": 0.0},
        {"game": "B", "tier": "Hard", "n_step": 8, "branching": 1.0, "dead_end_share": 0.0},
    ]
    check = nstep_by_tier(rows)
    assert (
        check["tiers"][("A", "Easy")]["mean_n_step"] == 5.0
        and check["tiers"][("A", "Easy")]["dead_end_share"] == 0.25
    )
    assert check["tiers"][("A", "Hard")]["dead_end_share"] is None
    assert check["games"] == {"A": True, "B": False}


@pytest.mark.parametrize("name", list(games()))
def test_catalogue_nstep_does_not_fall_from_one_tier_to_the_next(name):
    game = games()[name]
    rows = [
        {"game": name, "tier": tier, "n_step": solvers.solve(level).length}
        for tier in game.tiers
        for level in game.load_catalogue(tier)
    ]
    means = {k[1]: v["mean_n_step"] for k, v in nstep_by_tier(rows)["tiers"].items()}
    assert nstep_by_tier(rows)["games"][name], f"{name}: mean N_step per tier {means}"


def test_levels_stats_write(tmp_path, capsys):
    path = tmp_path / "levels.md"
    assert main(["levels", "stats", "--game", "MazePaint", "--write", str(path)]) == 0
    text = path.read_text()
    assert "| MazePaint | Easy | 10 |" in text and "- MazePaint: OK" in text
    assert text.count("| MazePaint |") == 3 + 30  # per-tier rows + every level


def _row(game, tier, n):
    return {
        "game": game,
        "tier": tier,
        "index": 1,
        "id": f"{game}-{tier}",
        "n_step": n,
        "optimal": True,
        "states": 10,
        "states_complete": True,
        "branching": 2.0,
        "dead_end_share": 0.0,
    }


def test_levels_doc_ends_with_each_games_level_format(tmp_path):
    """A game package's format.md (Game.level_format) closes docs/levels.md, its headings
    nested under "Level file formats", code blocks untouched; games without one add nothing."""
    formats = level_formats()
    # every game that ships a format.md, the built-in games each
    assert list(formats) == [n for n, g in games().items() if g.level_format]
    assert set(builtin_games()) <= set(formats)
    assert formats["RushHour"] == games()["RushHour"].level_format
    path = tmp_path / "levels.md"
    assert write_levels_doc([_row("RushHour", "Easy", 3), _row("RushHour", "Hard", 30)], path)
    head, sep, tail = path.read_text(encoding="utf-8").partition("## Level file formats\n")
    assert sep and "| RushHour | Easy | 1 | 3 |" in head and "- RushHour: OK" in head
    assert tail.startswith("\n### Rush Hour\n") and "#### The 36-character notation" in tail
    assert '"vehicles": [' in tail and "\n# IBBxoo\n" in tail  # fenced blocks are not demoted
    assert level_formats(["NoSuchGame"]) == {}
    assert "Level file formats" not in levels_markdown(
        [_row("MazePaint", "Easy", 8)], level_formats(["NoSuchGame"])
    )
    # every game's format nests with its title at ### (whatever level it was written at)
    for text in formats.values():
        first = next(line for line in nest_headings(text, 3).splitlines() if line.startswith("#"))
        assert first.startswith("### ")
    assert (
        nest_headings("### T\n\ntext\n#### Sub\n```\n# code\n```", 3)
        == "### T\n\ntext\n#### Sub\n```\n# code\n```"
    )
    assert (
        nest_headings("# T\n## Sub", 3) == "### T\n#### Sub"
        and nest_headings("plain", 3) == "plain"
    )


def test_cumulative_lc_plot_spans_the_episodes_and_shows_a_line_at_zero(run_dir, tmp_path):
    """Issue 25 (9): the x-axis ends just after the last episode (it used the whole 3600 s
    budget, so 6 % of the range held the lines) and the y-axis keeps a line at 0 % (the
    random agent's) off the frame."""
    from puzzlegym.report.plots import CUMULATIVE_HEADROOM, plot_cumulative_lc

    data = load_run(run_dir)
    eps = [e for a in data["agents"] for e in data["episodes"][a]]
    last = max(e["elapsed_s"] for e in eps)
    assert 0 < last < 3600 and all(e["budget_s"] == 3600 for e in eps)
    (x0, x1), (y0, y1) = plot_cumulative_lc(data, tmp_path / "lc.png")
    assert (x0, x1) == (0.0, pytest.approx(CUMULATIVE_HEADROOM * last))
    assert last / x1 > 0.9  # the episodes fill the axis
    assert y0 < 0.0 and y1 > 100.0  # 0 % and 100 % lines are inside the frame, not on it
    assert (tmp_path / "lc.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def wandering_run(tmp_path_factory):
    """The random agent on Maze Paint Easy from the home screen: in 1,500 actions it plays
    Maze Paint Hard, Nut and Bolt Hard (a certified dead end there), Rush Hour Medium and
    Truck Escape, and never a level of its objective."""
    run = tmp_path_factory.mktemp("wander")
    run_eval(["random"], ["LongPuzzle/MazePaint-Easy"], [0], run, budget_s=1500, progress=False)
    return run


def test_an_objectives_figures_keep_to_it_and_play_outside_it_is_its_own_line(wandering_run):
    """Issue 33, item 4: no dead-end or RQ1 row of another game or tier counts for the
    objective; the attempts elsewhere are one labelled line."""
    from puzzlegym.lab.tables import LAB_SECTION

    out = write_report(wandering_run, sections=[LAB_SECTION])
    (ep,) = load_run(wandering_run)["episodes"]["random"]
    assert {(a["game"], a["tier"]) for a in ep["attempts"]} <= {("MazePaint", "Easy")}
    assert {(a["game"], a["tier"]) for a in ep["outside_attempts"]} == {
        ("MazePaint", "Hard"),
        ("NutAndBolt", "Hard"),
        ("RushHour", "Medium"),
        ("TruckEscape", "Default"),
    }
    with open(out / "dead_ends.csv") as fh:
        games = [r["Game"] for r in csv.DictReader(fh)]
    label = (
        "outside the objective "
        "(MazePaint-Hard, NutAndBolt-Hard, RushHour-Medium, TruckEscape-Default)"
    )
    assert games == ["all (game-macro)", label]
    with open(out / "dead_ends.csv") as fh:
        outside = list(csv.DictReader(fh))[1]
    assert (outside["Attempts"], outside["Dead-end attempts"], outside["Runs"]) == ("7", "1", "1")
    with open(out / "rq1_coverage.csv") as fh:
        assert {r["Game"] for r in csv.DictReader(fh)} == {"outside the objective (MazePaint-Hard)"}
    index = (out / "index.md").read_text()
    assert "A line *outside the objective* pools the attempts" in index
    assert "0 of 1 episode has a viewer page;" in index


def test_the_report_links_each_episodes_viewer_page(wandering_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(wandering_run, run)
    record = next(p.parent for p in run.rglob("manifest.json"))
    assert main(["view", str(run), "--quiet"]) == 0
    out = write_report(run)
    with open(out / "table18.csv") as fh:
        (row,) = list(csv.DictReader(fh))
    assert row["Page"] == f"../{record.relative_to(run)}/view.html"
    assert (out / row["Page"]).is_file()
    assert f"[view](../{record.relative_to(run)}/view.html)" in (out / "table18.md").read_text()
    index = (out / "index.md").read_text()
    assert "1 of 1 episode has a viewer page (linked in [Table 18](table18.md))" in index
    assert "[an index of them](../view.html)" in index
