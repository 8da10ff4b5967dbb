"""Metrics (product spec §6, paper B.3) on hand-computed examples, on hand-written records, on
scripted episodes, and against the paper's own Table 18 -> Table 2 aggregation."""

import json

import pytest

from puzzlegym.metrics import (
    aggregate,
    dead_end_stats,
    episode_from_record,
    episode_row,
    h50,
    h50_curve,
    is_hard_tier,
    lc_over_time,
    lpr,
    macro,
)


def row(game, diff, solved, lc, fgp, n, p=0, m=0, **extra):
    return {
        "game": game,
        "difficulty": diff,
        "solved": solved,
        "lc": lc,
        "fgp": fgp,
        "premature_exit": p,
        "mismatch": m,
        "n_levels": n,
        **extra,
    }


# --------------------------------------------------------------------------- hand-computed
def test_game_macro_weighting_objectives_within_a_game_then_games_equally():
    rows = [
        row("A", "Easy", 1, 100.0, 100.0, 10),
        row("A", "Hard", 0, 50.0, 60.0, 10),
        row("B", "Easy", 0, 0.0, 20.0, 4),
    ]
    out = aggregate(rows)
    # per game: A OSR 50, LC 75, FGP 80; B OSR 0, LC 0, FGP 20 -> equal weight per game
    assert out["OSR"] == pytest.approx(25.0)  # a flat mean over objectives would be 33.3
    assert out["LC"] == pytest.approx(37.5)
    assert out["FGP"] == pytest.approx(50.0)
    assert out["LC_hard"] == pytest.approx(50.0)  # only A/Hard is above its game's easiest tier
    assert out["per_game"]["A"]["LC"] == pytest.approx(75.0)
    assert out["games"] == ["A", "B"]
    assert (out["n"], out["S"], out["objectives"]) == (3, 1, 3)


def test_several_episodes_of_one_objective_average_before_the_game_mean():
    rows = [
        row("A", "Easy", 1, 100.0, 100.0, 2),
        row("A", "Easy", 0, 50.0, 75.0, 2),  # second seed of A/Easy
        row("A", "Hard", 0, 0.0, 10.0, 2),
        row("B", "Default", 1, 100.0, 100.0, 5),
    ]
    out = aggregate(rows)
    # A: Easy OSR 50, LC 75, FGP 87.5; Hard 0/0/10 -> A 25 / 37.5 / 48.75; B 100/100/100
    assert out["OSR"] == pytest.approx(62.5)
    assert out["LC"] == pytest.approx(68.75)
    assert out["FGP"] == pytest.approx(74.375)
    assert out["LC_hard"] == pytest.approx(0.0)  # B's single tier is excluded


def test_hard_tiers_are_the_tiers_above_each_games_easiest():
    assert is_hard_tier("Nut", "medium") and is_hard_tier("Nut", "nightmare")
    assert not is_hard_tier("Nut", "easy")
    assert not is_hard_tier("Truck", "default")
    assert is_hard_tier("MazePaint", "Medium") and not is_hard_tier("MazePaint", "Easy")


def test_lpr_pools_episodes_and_is_undefined_when_nothing_was_reached():
    a = [
        row("A", "Easy", 0, 20.0, 20.0, 10, levels_reached=3),
        row("A", "Easy", 0, 10.0, 10.0, 10, levels_reached=2),
    ]
    assert lpr([*map(_norm, a)]) == pytest.approx(100.0 * 3 / 5)
    nothing = [row("B", "Easy", 0, 0.0, 0.0, 10, levels_reached=0)]
    assert lpr([*map(_norm, nothing)]) is None
    # overall: B is undefined and left out (not counted as zero)
    assert aggregate(a + nothing)["LPR"] == pytest.approx(60.0)
    assert aggregate(nothing)["LPR"] is None
    assert aggregate([row("A", "Easy", 0, 0.0, 0.0, 10)])["LPR"] is None  # reach unknown


def _norm(r):
    from puzzlegym.metrics import normalise_row

    return normalise_row(r)


def test_h50_on_ten_level_objectives_with_ten_plus():
    rows = [
        row("A", "Easy", 1, 100.0, 100.0, 10),
        row("A", "Hard", 0, 30.0, 30.0, 10),
        row("B", "Easy", 0, 0.0, 0.0, 3),  # not a ten-level objective: ignored
    ]
    rows = [_norm(r) for r in rows]
    curve = h50_curve(rows)
    assert curve[0] == 1.0 and curve[3] == 1.0 and curve[4] == 0.5 and curve[10] == 0.5
    assert h50(rows) == "10+"  # S(10) = 0.5
    rows2 = [
        _norm(r)
        for r in [
            row("A", "Easy", 0, 40.0, 40.0, 10),
            row("A", "Hard", 0, 20.0, 20.0, 10),
            row("A", "Hard", 0, 60.0, 60.0, 10),
        ]
    ]
    # S(k): Easy 1[4>=k]; Hard mean(1[2>=k], 1[6>=k]) -> S(3) = (1 + .5)/2, S(5) = (0 + .5)/2
    assert h50(rows2) == 4
    assert h50([_norm(row("B", "Easy", 1, 100.0, 100.0, 3))]) is None


def test_per_smr_pool_episodes_and_ngar_pools_steps():
    rows = [
        row("A", "Easy", 0, 0.0, 0.0, 10, p=1, m=0, n_native=30, n_other=10),
        row("A", "Hard", 0, 0.0, 0.0, 10, p=0, m=1, n_native=0, n_other=60),
        row("B", "Easy", 1, 100.0, 100.0, 3, p=0, m=0, n_native=10, n_other=0),
        row("B", "Hard", 0, 0.0, 0.0, 3, p=1, m=1, n_native=0, n_other=0),
    ]
    out = aggregate(rows)
    assert out["PER"] == pytest.approx(50.0) and out["SMR"] == pytest.approx(50.0)
    assert out["NGAR"] == pytest.approx(100.0 * 40 / 110)
    assert aggregate([row("A", "Easy", 0, 0.0, 0.0, 10)])["NGAR"] is None


def test_macro_leaves_out_undefined_values_and_games():
    assert macro({("A", "x"): 10.0, ("A", "y"): None, ("B", "x"): None}) == 10.0
    assert macro({("A", "x"): None}) is None


# --------------------------------------------------------------------------- the paper
# Table 18 rows (S, LC, FGP, P, M, |L_o|) of three configurations and their Table 2 lines
# (OSR, LC, FGP, H50, LC_hard, PER), transcribed from the paper.
TABLE18 = {
    "GPT-6-Astra / Code Execution CUA": """
        Bolt easy 1 100.0 100.0 0 0 8 | Bolt hard 0 50.0 60.7 0 0 8
        Color easy 1 100.0 100.0 0 0 10 | Color hard 1 100.0 100.0 0 0 10
        Maze easy 1 100.0 100.0 0 0 10 | Maze hard 1 100.0 100.0 0 0 10
        Maze medium 1 100.0 100.0 0 0 10 | Nut easy 1 100.0 100.0 0 0 3
        Nut extreme 1 100.0 100.0 0 0 3 | Nut hard 1 100.0 100.0 0 0 3
        Nut medium 1 100.0 100.0 0 0 3 | Nut nightmare 1 100.0 100.0 0 0 1
        Rush easy 1 100.0 100.0 0 0 10 | Rush hard 1 100.0 100.0 0 0 10
        Rush medium 1 100.0 100.0 0 0 10 | Truck default 1 100.0 100.0 0 0 5""",
    "GPT-6-Luna / Code Execution CUA": """
        Bolt easy 1 100.0 100.0 0 0 8 | Bolt hard 0 0.0 3.6 1 0 8
        Color easy 0 50.0 56.7 1 0 10 | Color hard 0 40.0 40.0 1 0 10
        Maze easy 1 100.0 100.0 0 0 10 | Maze hard 0 20.0 25.8 1 0 10
        Maze medium 0 90.0 98.3 1 0 10 | Nut easy 0 0.0 25.0 1 0 3
        Nut extreme 0 0.0 3.2 1 0 3 | Nut hard 0 33.3 40.5 1 0 3
        Nut medium 0 33.3 33.3 1 0 3 | Nut nightmare 0 0.0 12.5 1 0 1
        Rush easy 1 100.0 100.0 0 0 10 | Rush hard 0 60.0 62.3 1 0 10
        Rush medium 0 40.0 46.7 1 0 10 | Truck default 1 100.0 100.0 0 0 5""",
    "GPT-5.6-Terra / Native GUI Actions": """
        Bolt easy 1 100.0 100.0 0 0 8 | Bolt hard 0 12.5 17.9 1 0 8
        Color easy 0 50.0 56.7 1 0 10 | Color hard 0 20.0 28.0 1 0 10
        Maze easy 1 100.0 100.0 0 0 10 | Maze hard 0 30.0 34.8 1 0 10
        Maze medium 0 40.0 46.9 1 0 10 | Nut easy 1 100.0 100.0 0 0 3
        Nut extreme 0 0.0 9.0 1 0 3 | Nut hard 0 0.0 6.1 1 0 3
        Nut medium 1 100.0 100.0 0 0 3 | Nut nightmare 0 0.0 13.9 1 0 1
        Rush easy 1 100.0 100.0 0 0 10 | Rush hard 0 40.0 42.2 1 0 10
        Rush medium 1 100.0 100.0 0 0 10 | Truck default 1 100.0 100.0 0 0 5""",
}
TABLE2 = {  # OSR, LC, FGP, H50, LC_hard, PER
    "GPT-6-Astra / Code Execution CUA": (91.7, 95.8, 96.7, "10+", 90.0, 0.0),
    "GPT-6-Luna / Code Execution CUA": (36.1, 57.5, 61.2, 6, 32.3, 75.0),
    "GPT-5.6-Terra / Native GUI Actions": (48.3, 61.3, 64.7, 5, 32.5, 56.2),
}


def parse_table18(text):
    rows = []
    for cell in text.replace("\n", "|").split("|"):
        if not cell.strip():
            continue
        game, diff, s, lc, fgp, p, m, n = cell.split()
        rows.append(row(game, diff, int(s), float(lc), float(fgp), int(n), p=int(p), m=int(m)))
    return rows


@pytest.mark.parametrize("config", sorted(TABLE18))
def test_aggregate_reproduces_the_papers_table2_from_its_table18_rows(config):
    rows = parse_table18(TABLE18[config])
    assert len(rows) == 16
    out = aggregate(rows)
    osr, lc, fgp, h, lc_hard, per = TABLE2[config]
    assert out["games"] == ["Bolt", "Color", "Maze", "Nut", "Rush", "Truck"]
    assert round(out["OSR"], 1) == osr
    assert round(out["LC"], 1) == lc
    assert round(out["FGP"], 1) == fgp
    assert out["H50"] == h
    assert round(out["LC_hard"], 1) == lc_hard
    assert out["PER"] == pytest.approx(per, abs=0.051)


# --------------------------------------------------------------------------- records
def write_record(tmp_path, lines, targets=3, result=None, name="rec"):
    d = tmp_path / name
    d.mkdir()
    manifest = {
        "env_id": "LongPuzzle/Fake-Hard",
        "config": {"level": None, "clock": "sim", "budget_s": 3600.0},
        "targets": list(range(1, targets + 1)),
        "seed": 0,
        "agent": "scripted",
    }
    if result is not None:
        manifest["result"] = result
    (d / "manifest.json").write_text(json.dumps(manifest))
    with open(d / "log.jsonl", "w") as fh:
        for rec in lines:
            fh.write(json.dumps(rec) + "\n")
    return d


def ev(kind, t, level, tier="Hard", game="Fake", **extra):
    return {
        "kind": kind,
        "t": t,
        "actions": int(t),
        "game": game,
        "tier": tier,
        "level": level,
        **extra,
    }


def snap(t, level, potential, tier="Hard", game="Fake"):
    return ev(
        "snapshot",
        t,
        level,
        tier,
        game,
        potential=potential,
        solved=potential == 1.0,
        dead_end=False,
    )


def test_a_won_level_keeps_credit_across_retries_and_fgp_credits_where_the_episode_stops(tmp_path):
    lines = [
        ev("level_reached", 1, 1),
        snap(1, 1, 0.0),
        snap(2, 1, 0.5),
        snap(3, 1, 1.0),
        ev("level_won", 3, 1),
        ev("level_reached", 4, 2),
        snap(4, 2, 0.0),
        snap(5, 2, 0.4),
        ev("restart", 6, 2),
        snap(6, 2, 0.0),
        snap(7, 2, 0.2),
        ev("left_level", 8, 2),
        # the player goes back to level 1 and does worse: its credit stays
        ev("level_reached", 9, 1),
        snap(9, 1, 0.0),
        ev("restart", 10, 1),
        snap(10, 1, 0.0),
        {"kind": "action", "t": 11, "actions": 11, "action": {"type": "wait"}, "accepted": False},
    ]
    ep = episode_from_record(write_record(tmp_path, lines))
    assert ep["won"] == [1] and ep["reached"] == [1, 2]
    assert ep["lc"] == pytest.approx(1 / 3)
    # level 1 won -> 1; level 2 stopped at best 0.4 (max over retries); level 3 never reached -> 0
    assert ep["fgp"] == pytest.approx((1.0 + 0.4 + 0.0) / 3)
    assert ep["success"] is False and ep["mismatch"] is False and ep["premature_exit"] is False
    assert ep["end"] == "stopped" and ep["finished"] is False  # no result in the manifest
    assert ep["win_times"] == [[3.0, 1]]
    r = episode_row(ep)
    assert (r["levels_won"], r["levels_reached"]) == (1, 2)
    assert lc_over_time([ep], [2.0, 3.0]) == pytest.approx([0.0, 100 / 3])


def test_snapshots_of_other_tiers_give_no_credit_and_flag_mismatch_an_empty_answer_is_premature(
    tmp_path,
):
    lines = [
        ev("level_reached", 1, 1, tier="Easy"),
        snap(1, 1, 0.0, tier="Easy"),
        snap(2, 1, 1.0, tier="Easy"),
        ev("level_won", 2, 1, tier="Easy"),
        {"kind": "answer", "t": 3, "actions": 3, "text": "All levels complete", "success": False},
    ]
    ep = episode_from_record(write_record(tmp_path, lines, result={"truncated": False}))
    assert ep["mismatch"] is True and ep["won"] == [] and ep["lc"] == 0.0 and ep["fgp"] == 0.0
    assert ep["premature_exit"] is True and ep["end"] == "answer"


def test_dead_end_statistics_per_attempt():
    def attempt(game, dead, runs):
        return {"kind": "attempt", "game": game, "dead_end": dead, "runs": runs}

    eps = [
        {
            "attempts": [
                attempt(
                    "A",
                    True,
                    [{"delay": 3, "recovered_by": "undo"}, {"delay": 1, "recovered_by": "restart"}],
                ),
                attempt("A", False, []),
                attempt("A", True, [{"delay": 5, "recovered_by": "attempt_end"}]),
                attempt("A", False, []),
                attempt("B", False, []),
            ]
        }
    ]
    st = dead_end_stats(eps)
    a = st["per_game"]["A"]
    assert (a["attempts"], a["dead_end_attempts"], a["runs"], a["recovered"]) == (4, 2, 3, 2)
    assert (
        a["dead_end_share"] == 50.0
        and a["delays"] == [3, 1]
        and a["mean_delay"] == 2
        and a["median_delay"] == 2
    )
    assert st["per_game"]["B"]["dead_end_share"] == 0.0
    assert st["overall"]["dead_end_share"] == 25.0  # games equally: (50 + 0) / 2
    assert st["overall"]["mean_delay"] == 2  # B has no recovered run


def test_dead_end_statistics_keep_play_outside_the_objective_on_its_own_line():
    def attempt(game, tier, dead, runs):
        return {"kind": "attempt", "game": game, "tier": tier, "dead_end": dead, "runs": runs}

    eps = [
        {
            "attempts": [attempt("A", "Easy", False, [])],
            "outside_attempts": [
                attempt("B", "Hard", True, [{"delay": 4, "recovered_by": "restart"}]),
                attempt("A", "Hard", False, []),
                attempt("B", "Hard", False, []),
            ],
        }
    ]
    st = dead_end_stats(eps)
    assert set(st["per_game"]) == {"A"} and st["per_game"]["A"]["attempts"] == 1
    assert st["overall"]["dead_end_share"] == 0.0 and st["overall"]["attempts"] == 1
    out = st["outside"]
    assert out["games"] == ["A-Hard", "B-Hard"]
    assert (out["attempts"], out["dead_end_attempts"], out["runs"], out["recovered"]) == (
        3,
        1,
        1,
        1,
    )
    assert out["delays"] == [4] and out["dead_end_share"] == pytest.approx(100 / 3)
    assert dead_end_stats([{"attempts": eps[0]["attempts"]}])["outside"] is None


# --------------------------------------------------------------------------- scripted env episodes
def _click(env, name):
    x, y = env.unwrapped.suite.targets()[name].center
    return {"type": "click", "x": x, "y": y}


def _episode(tmp_path, name, script, env_id="LongPuzzle/MazePaint-Easy"):
    import gymnasium as gym

    env = gym.make(env_id, record_dir=str(tmp_path / name), agent="scripted")
    env.reset(seed=0)
    try:
        for item in script:
            action = _click(env, item) if isinstance(item, str) else item
            _obs, _r, term, trunc, _info = env.step(action)
            if term or trunc:
                break
        summary = env.unwrapped.evaluator.summary()
    finally:
        env.close()
    return episode_from_record(tmp_path / name), summary


def test_premature_exit_and_setting_mismatch_detected_on_scripted_episodes(tmp_path):
    # plays MazePaint Medium (the objective is Easy), then claims completion
    wrong, summ = _episode(
        tmp_path,
        "wrong",
        ["game:MazePaint", "tier:Medium", {"type": "answer", "text": "All levels complete"}],
    )
    assert wrong["mismatch"] is True and summ["mismatch"] is True
    assert (
        wrong["premature_exit"] is True and wrong["success"] is False and wrong["end"] == "answer"
    )
    # enters the right tier, then gives up without a win
    quits, _ = _episode(
        tmp_path, "quits", ["game:MazePaint", "tier:Easy", {"type": "answer", "text": "I give up"}]
    )
    assert (
        quits["mismatch"] is False and quits["premature_exit"] is True and quits["reached"] == [1]
    )
    # stays in scope and stops without answering (a harness stop): neither
    stays, _ = _episode(tmp_path, "stays", ["game:MazePaint", "tier:Easy"])
    assert (
        stays["mismatch"] is False
        and stays["premature_exit"] is False
        and stays["end"] == "stopped"
    )
    out = aggregate(episode_row(e) for e in (wrong, quits, stays))
    assert out["PER"] == pytest.approx(200 / 3) and out["SMR"] == pytest.approx(100 / 3)
    assert out["LPR"] == 0.0  # level 1 reached twice, never won
