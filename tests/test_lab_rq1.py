"""RQ1 move measures from episode records: Bolt Unscrew capacity classes and Maze Paint
coverage classes, on scripted episodes whose every move is known."""

from __future__ import annotations

import pytest

from puzzlegym import solvers
from puzzlegym.envs.bolt_unscrew import rules as BU
from puzzlegym.envs.maze_paint import rules as MP
from puzzlegym.lab import rq1
from puzzlegym.lab.find import move_actions, play_moves
from puzzlegym.lab.tables import LAB_SECTION
from puzzlegym.report.write import write_report
from puzzlegym.wrappers.action import SWIPES


def test_bolt_unscrew_moves_are_classed_by_the_free_anchors_they_leave(make_env, tmp_path):
    env = make_env(
        "LongPuzzle/BoltUnscrew-Hard",
        start="board",
        level=1,
        record_dir=str(tmp_path / "rec"),
        agent="script",
    )
    env.reset(seed=0)
    board = env.unwrapped.suite.board
    level, state = board.level, board.state
    assert BU.free_anchors(level, state) == 2
    # 1. a solution move that frees a board
    frees = next(m for m in solvers.solve(level, state).moves[:1])
    after = BU.apply(level, state, frees)
    assert after.remaining != state.remaining
    # 2. a move that frees nothing and makes the level unsolvable, with a free anchor left
    fatal = next(
        m
        for m in BU.legal_moves(level, after)
        if BU.apply(level, after, m).remaining == after.remaining
        and solvers.certify(level, BU.apply(level, after, m)) == "dead_end"
    )
    lost = BU.apply(level, after, fatal)
    # 3. then fill the last free anchor without freeing a board: the paper's deadlock
    last = next(
        m
        for m in BU.legal_moves(level, lost)
        if BU.apply(level, lost, m).remaining == lost.remaining
        and BU.free_anchors(level, BU.apply(level, lost, m)) == 0
    )
    end = BU.apply(level, lost, last)
    assert (
        BU.free_anchors(level, after) == 2
        and BU.free_anchors(level, lost) == 1
        and BU.free_anchors(level, end) == 0
    )
    assert BU.deadlock_certificate(level, end) and not BU.deadlock_certificate(level, lost)
    play_moves(env, [frees, fatal, last])
    env.step({"type": "click", "x": 5, "y": 5})  # no move: not in the measures
    env.close()
    moves = rq1.record_moves(tmp_path / "rec")
    assert moves["agent"] == "script" and moves["coverage"] == []
    got = [
        (m["class"], m["free_before"], m["free_after"], m["fatal"], m["hidden_fatal"])
        for m in moves["capacity"]
    ]
    assert got == [
        ("frees a board", 2, 2, False, False),
        ("fills an anchor", 2, 1, True, True),
        ("creates the deadlock", 1, 0, False, False),
    ]
    s = rq1.capacity_summary(moves["capacity"])
    assert s["moves"] == 3 and s["one_free"] == 1 and s["one_free_deadlock"] == 1
    assert (
        s["fatal"] == 1
        and s["hidden_fatal"] == 1
        and s["frees a board %"] == pytest.approx(100 / 3)
    )


def swipe(env, direction):
    from puzzlegym.envs.maze_paint.view import cell_rect
    from puzzlegym.screen.layout import BOARD_AREA

    board = env.unwrapped.suite.board
    x, y = cell_rect(board.level, board.state.ball, BOARD_AREA).center
    dx, dy = SWIPES[direction]
    return {"type": "drag", "x0": x, "y0": y, "x1": x + dx, "y1": y + dy}


def test_maze_paint_moves_are_productive_zero_progress_invalid_or_revisiting(make_env, tmp_path):
    env = make_env(
        "LongPuzzle/MazePaint-Easy", start="board", level=1, record_dir=str(tmp_path / "rec")
    )
    env.reset(seed=0)
    board = env.unwrapped.suite.board
    level, s0 = board.level, board.state
    blocked = next(d for d in MP.DIRECTIONS if d not in MP.legal_moves(level, s0))
    first = MP.legal_moves(level, s0)[0]
    back = {"up": "down", "down": "up", "left": "right", "right": "left"}[first]
    # the oracle: states and painted counts from the rules
    states = [s0]
    for d in (first, back, first):
        states.append(MP.apply(level, states[-1], d))
    painted = [bin(s.painted & level.full_mask).count("1") for s in states]
    plan = [blocked, first, back, first]
    for d in plan:
        env.step(swipe(env, d))
    env.close()
    moves = rq1.record_moves(tmp_path / "rec")["coverage"]
    kinds = [m["kind"] for m in moves]
    expected = ["invalid"] + [
        "productive" if painted[i + 1] > painted[i] else "zero-progress" for i in range(3)
    ]
    assert kinds == expected and expected[1] == "productive"
    seen, revisits = {s0}, []
    for s in states[1:]:
        revisits.append(s in seen)
        seen.add(s)
    assert [m["revisit"] for m in moves[1:]] == revisits and revisits[2] == (
        painted[2] == painted[1]
    )
    n = level.n_paintable  # each move sits in the coverage fifth of the board before it
    assert [m["bin"] for m in moves] == [min(4, 5 * p // n) for p in [painted[0], *painted[:3]]]
    assert all(m["won"] is False for m in moves)
    rows = {r["coverage"]: r for r in rq1.coverage_summary(moves)}
    assert (
        rows["all"]["attempted"] == 4 and rows["all"]["invalid"] == 1 and rows["all"]["valid"] == 3
    )


def test_the_report_shows_the_rq1_tables(make_env, tmp_path):
    for env_id, k in (("LongPuzzle/BoltUnscrew-Easy", 1), ("LongPuzzle/MazePaint-Easy", 1)):
        env = make_env(
            env_id,
            start="board",
            level=k,
            record_dir=str(tmp_path / env_id.split("/")[1]),
            agent="solver",
        )
        env.reset(seed=0)
        board = env.unwrapped.suite.board
        for move in solvers.solve(board.level, board.state).moves:
            for action in move_actions(env, move):
                env.step(action)
        env.close()
    out = write_report(tmp_path, sections=[LAB_SECTION])
    capacity = (out / "rq1_capacity.md").read_text()
    coverage = (out / "rq1_coverage.md").read_text()
    assert "| solver | BoltUnscrew | 6 |" in capacity  # Easy level 1: six moves, none fatal
    assert "| solver | MazePaint | won | all |" in coverage
