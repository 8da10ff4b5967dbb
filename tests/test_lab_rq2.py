"""RQ2: the outcome computation on scripted timelines and scripted runs (a restart at action 3
is timely, one at action 11 is not), the runner's records, and the report's table."""

from __future__ import annotations

import json

import pytest

from puzzlegym import lab
from puzzlegym.base.errors import ConfigError, PuzzleGymError
from puzzlegym.lab import rq2
from puzzlegym.lab.rq2 import Limits, compute_outcomes
from puzzlegym.lab.tables import LAB_SECTION
from puzzlegym.report.write import write_report

WHERE = ("BoltUnscrew", "Hard", 1)


def snap(i, t, dead, cause="move", level=1):
    return {
        "kind": "snapshot",
        "i": i,
        "t": t,
        "game": "BoltUnscrew",
        "tier": "Hard",
        "level": level,
        "cause": cause,
        "dead_end": dead,
        "solved": False,
    }


def event(kind, i, t, level=1):
    return {"kind": kind, "i": i, "t": t, "game": "BoltUnscrew", "tier": "Hard", "level": level}


def actions(n, dt=1.0):
    return [
        {"kind": "action", "i": i, "t": i * dt, "accepted": True, "screen": "level"}
        for i in range(1, n + 1)
    ]


def restart_at(k, dt=1.0):
    """A D continuation: rejected clicks, a restart at action k, then moves: solvable, won."""
    return actions(20, dt) + [
        event("rejected", 1, dt),
        event("restart", k, k * dt),
        snap(k, k * dt, False, cause="restart"),
        snap(k + 2, (k + 2) * dt, False),
        event("level_won", k + 4, (k + 4) * dt),
        snap(k + 4, (k + 4) * dt, False),
    ]


def test_a_restart_at_action_3_is_timely_and_one_at_action_11_is_not():
    early = compute_outcomes(restart_at(3), "D", WHERE)
    late = compute_outcomes(restart_at(11), "D", WHERE)
    assert early["timely_restart"] is True and early["first_recovery"] == {
        "i": 3,
        "t": 3.0,
        "how": "restart",
    }
    assert late["timely_restart"] is False and late["first_recovery"]["i"] == 11
    for out in (early, late):  # both recover and win within the window; no new dead end
        assert (
            out["verified_recovery"] is True
            and out["same_level_win"] is True
            and out["recurrence"] is False
        )
        assert out["rejected_moves"] == 1 and out["actions"] == 20


def test_timely_also_needs_the_first_120_seconds_and_results_need_the_window():
    slow = compute_outcomes(restart_at(3, dt=50.0), "D", WHERE)  # action 3 at 150 s
    assert slow["timely_restart"] is False
    assert slow["verified_recovery"] is True and slow["recovery_t"] == 150.0
    assert slow["same_level_win"] is False  # action 7 at 350 s: after the 300 s window
    assert (
        compute_outcomes(restart_at(3, dt=50.0), "D", WHERE, Limits(window_s=400))["same_level_win"]
        is True
    )


def test_recurrence_is_a_new_dead_end_after_the_recovery():
    timeline = actions(12) + [
        event("restart", 2, 2.0),
        snap(2, 2.0, False, "restart"),
        snap(5, 5.0, False),
        snap(9, 9.0, True),
    ]
    out = compute_outcomes(timeline, "D", WHERE)
    assert out["verified_recovery"] and out["recurrence"] is True and out["recurrence_t"] == 9.0
    assert out["same_level_win"] is False


def test_other_recoveries_and_what_does_not_count():
    undo = actions(5) + [event("undo", 2, 2.0), snap(2, 2.0, False, "undo")]
    assert compute_outcomes(undo, "D", WHERE)["first_recovery"]["how"] == "undo"
    still_dead_undo = actions(5) + [event("undo", 2, 2.0), snap(2, 2.0, True, "undo")]
    assert compute_outcomes(still_dead_undo, "D", WHERE)["first_recovery"] is None
    reentry = actions(6) + [
        event("left_level", 1, 1.0),
        event("level_reached", 3, 3.0),
        snap(3, 3.0, False, "ready"),
    ]
    assert compute_outcomes(reentry, "D", WHERE)["first_recovery"]["how"] == "re-entry"
    other_level = actions(6) + [
        event("restart", 2, 2.0, level=2),
        snap(2, 2.0, False, "restart", level=2),
    ]
    out = compute_outcomes(other_level, "D", WHERE)
    assert out["first_recovery"] is None and out["verified_recovery"] is False
    n = compute_outcomes(
        restart_at(3), "N", WHERE
    )  # on N a restart is a false alarm; no recovery endpoint
    assert (
        n["timely_restart"] is True and n["verified_recovery"] is None and n["recurrence"] is None
    )
    with pytest.raises(ConfigError):
        compute_outcomes([], "X", WHERE)
    with pytest.raises(ConfigError, match="limits.timely_actions"):
        Limits(timely_actions=0)


# ---------------------------------------------------------------------- scripted runs
@pytest.fixture(scope="module")
def bolt_pair():
    return {
        c.certificate["class"]: c
        for c in lab.find_on_solution("LongPuzzle/BoltUnscrew-Hard", 1, count=1)
    }


def restarter(k):
    """An agent that waits, then clicks Restart at its k-th action."""

    def factory(env):
        calls = []

        def policy(obs, info):
            calls.append(1)
            if len(calls) == k:
                x, y = env.unwrapped.suite.targets()["restart"].center
                return {"type": "click", "x": x, "y": y}
            return {"type": "wait"}

        return policy

    factory.__name__ = f"restart_at_{k}"
    return factory


@pytest.mark.parametrize("k,timely", [(3, True), (11, False)])
def test_scripted_restarts_through_the_runner(bolt_pair, tmp_path, k, timely):
    limits = Limits(window_s=30, max_actions=15)
    doc = rq2.run_takeover(
        bolt_pair["D"], "A", restarter(k), out_dir=tmp_path / "run", limits=limits
    )
    out = doc["outcomes"]
    assert out["timely_restart"] is timely and out["first_recovery"] == {
        "i": k,
        "t": float(k),
        "how": "restart",
    }
    assert out["verified_recovery"] is True and out["recovery_t"] == float(k)
    assert out["same_level_win"] is False and out["actions"] == 15 and doc["end"] == "max_actions"
    assert (
        doc["hint"] == ""
        and doc["verdict_at_takeover"] == "dead_end"
        and doc["agent"] == f"restart_at_{k}"
    )
    saved = json.loads((tmp_path / "run" / "outcome.json").read_text())
    assert saved == json.loads(json.dumps(doc))
    assert (tmp_path / "run" / "record" / "log.jsonl").exists()
    with pytest.raises(PuzzleGymError, match="never overwritten"):
        rq2.run_takeover(bolt_pair["D"], "A", restarter(k), out_dir=tmp_path / "run", limits=limits)


def test_the_scripted_agent_under_a_b_c_and_the_report_table(bolt_pair, tmp_path):
    limits = Limits(window_s=120)
    paths = [lab.save(c, tmp_path / "ckpt") for c in bolt_pair.values()]
    docs = rq2.run_rq2(paths, tmp_path / "run", "scripted", limits=limits)
    got = {(d["class"], d["condition"]): d["outcomes"] for d in docs}
    assert sorted(got) == [("D", "A"), ("D", "B"), ("D", "C"), ("N", "A"), ("N", "B")]
    assert not got[("D", "A")]["timely_restart"] and not got[("D", "A")]["verified_recovery"]
    for cond in ("B", "C"):
        assert got[("D", cond)]["timely_restart"] and got[("D", cond)]["verified_recovery"]
    assert got[("D", "C")]["first_recovery"] == {"i": 1, "t": 1.0, "how": "restart"}
    assert not got[("N", "A")]["timely_restart"] and not got[("N", "B")]["timely_restart"]
    rows = {
        (r["class"], r["condition"]): r for r in rq2.aggregate(rq2.find_outcomes(tmp_path / "run"))
    }
    assert rows[("D", "B")]["n"] == 1 and rows[("N", "A")]["verified_recovery"] is None
    report = write_report(tmp_path / "run", sections=[LAB_SECTION])
    table = (report / "rq2.md").read_text()
    assert "| BoltUnscrew | D | A | 1 | 0/1 (0.0%) | 0/1 (0.0%) |" in table
    assert "| BoltUnscrew | D | B | 1 | 1/1 (100.0%) | 1/1 (100.0%) |" in table
    assert not (report / "table2.md").exists()  # continuations are not episodes of an objective
    assert "rq2.md" in (report / "index.md").read_text()
