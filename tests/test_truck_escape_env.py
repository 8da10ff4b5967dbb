"""Truck Escape through GUI actions: a click on a truck requests its departure, a blocked
truck is a rejected (not accepted) request, clicks that miss change nothing, the picture agrees
with the rules, board targets, the solver agent from the home screen, checkpoints."""

from __future__ import annotations

import json

import numpy as np
import pytest

from puzzlegym import Checkpoint
from puzzlegym.agents import SolverAgent
from puzzlegym.base.actions import Click, to_dict
from puzzlegym.base.errors import CheckpointError
from puzzlegym.envs.truck_escape import rules as R
from puzzlegym.envs.truck_escape import view as V
from puzzlegym.screen.layout import BOARD_AREA, LEVEL

from .conftest import LiveBoard, frame_hash

ID = "LongPuzzle/TruckEscape-Default"


def click(env, x, y):
    return env.step(to_dict(Click(x, y)))


def click_truck(env, i):
    b = env.unwrapped.suite.board
    return click(env, *V.click_point(b.level, i, BOARD_AREA))


def board_env(make_env, k=1):
    env = make_env(ID, start="board", level=k)
    env.reset(seed=0)
    return env, LiveBoard(env)


def test_blocked_truck_is_a_rejected_request_and_a_free_one_leaves(make_env, tmp_path):
    env = make_env(ID, start="board", level=1, record_dir=str(tmp_path / "rec"))
    env.reset(seed=0)
    b = LiveBoard(env)
    level, s0 = b.level, b.state
    free = R.legal_moves(level, s0)
    blocked = next(i for i in range(level.n_trucks) if i not in free)
    _, reward, _, _, info = click_truck(env, blocked)
    assert b.state == s0 and reward == 0.0
    assert info["accepted"] is False and info["feedback"] == R.BLOCKED_REASON
    _, reward, _, _, info = click_truck(env, free[0])
    assert b.state == R.State(level.full_mask & ~(1 << free[0]))
    assert info["accepted"] is True and info["feedback"] == ""
    assert reward == pytest.approx(1 / level.n_trucks)
    snap = env.unwrapped.evaluator.snapshots[-1]
    assert snap["details"] == {
        "trucks_removed": 1,
        "trucks_total": level.n_trucks,
        "trucks_free": len(R.legal_moves(level, b.state)),
    }
    assert snap["dead_end"] is False
    env.close()
    log = [json.loads(line) for line in (tmp_path / "rec" / "log.jsonl").read_text().splitlines()]
    actions = [e for e in log if e.get("kind") == "action"]
    assert [(e["accepted"], e["feedback"]) for e in actions] == [
        (False, R.BLOCKED_REASON),
        (True, ""),
    ]


def test_clicks_that_miss_and_other_gestures_change_nothing(make_env):
    env, b = board_env(make_env, 1)
    u = env.unwrapped
    level = b.level
    # take one truck away so that its cells are empty lot too
    gone = R.legal_moves(level, b.state)[0]
    click_truck(env, gone)
    s = b.state
    before = frame_hash(u.backend.observe(u.suite))
    empty = next(
        (r, c) for r in range(level.rows) for c in range(level.cols) if (r, c) not in level.occupant
    )
    grid = V.cell_rect(level, 0, 0, BOARD_AREA)
    last = V.cell_rect(level, level.rows - 1, level.cols - 1, BOARD_AREA)
    cab = V.click_point(level, gone, BOARD_AREA)
    other = next(i for i in range(level.n_trucks) if s.remaining >> i & 1)
    ox, oy = V.click_point(level, other, BOARD_AREA)
    misses = [
        {
            "type": "click",
            "x": V.cell_rect(level, *empty, BOARD_AREA).center[0],
            "y": V.cell_rect(level, *empty, BOARD_AREA).center[1],
        },
        {"type": "click", "x": cab[0], "y": cab[1]},  # where the truck that left stood
        {"type": "click", "x": grid.x - 5, "y": grid.y - 5},  # the curb
        {"type": "click", "x": last.x1, "y": last.y1},  # just past the last cell
        {"type": "click", "x": BOARD_AREA.x + 1, "y": BOARD_AREA.y + 1},
        {"type": "drag", "x0": ox, "y0": oy, "x1": ox + 150, "y1": oy},  # a drag on a truck
        {"type": "press_key", "key": "ArrowUp"},
        {"type": "press_key", "key": "Enter"},
        {"type": "scroll", "direction": "down"},
    ]
    for action in misses:
        obs, reward, _, _, info = env.step(action)
        assert b.state == s and reward == 0.0 and info["accepted"] is False, action
        assert frame_hash(obs) == before, action


def test_a_click_anywhere_on_a_truck_requests_it(make_env):
    env, b = board_env(make_env, 5)
    level = b.level
    for i in range(level.n_trucks):
        rect = V.truck_rect(level, i, BOARD_AREA)
        for x, y in ((rect.x, rect.y), (rect.x1 - 1, rect.y1 - 1), rect.center):
            assert V.truck_at(level, b.state, BOARD_AREA, x, y) == i
        assert (rect.w, rect.h) in {
            (level.trucks[i].length * rect.h, rect.h),
            (rect.w, level.trucks[i].length * rect.w),
        }
    # the tail corner of a free truck of length > 1 sends it off
    i = next(i for i in R.legal_moves(level, b.state) if level.trucks[i].length > 1)
    tail = V.cell_rect(level, *level.trucks[i].cells[-1], BOARD_AREA)
    click(env, tail.x + 1, tail.y1 - 2)
    assert not b.state.remaining >> i & 1 and b.state.remaining.bit_count() == level.n_trucks - 1


def test_picture_agrees_with_the_rules(make_env):
    env, b = board_env(make_env, 2)
    level = b.level
    obs = env.unwrapped.backend.observe(env.unwrapped.suite)

    def px(cell, frame):
        x, y = V.cell_rect(level, *cell, BOARD_AREA).center
        return tuple(int(v) for v in frame[y, x])

    for r in range(level.rows):
        for c in range(level.cols):
            occupied = (r, c) in level.occupant
            assert (px((r, c), obs) == V.CELL) != occupied, (r, c)
    # trucks that leave uncover their cells
    for i in R.legal_moves(level, b.state):
        obs, *_ = click_truck(env, i)
        for cell in level.trucks[i].cells:
            assert px(cell, obs) == V.CELL
    # neighbouring trucks never share a colour
    colours = V.truck_colours(level)
    for (r, c), i in level.occupant.items():
        for dr, dc in R.DELTAS.values():
            j = level.occupant.get((r + dr, c + dc))
            assert j is None or j == i or colours[i] != colours[j]


def test_each_heading_is_the_same_picture_turned(make_env):
    """A truck is painted facing right and turned by exact quarter turns."""
    from PIL import Image, ImageDraw

    def paint(facing, length=3, cell=60):
        w, h = (length * cell, cell) if facing in ("left", "right") else (cell, length * cell)
        img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        V._paint_truck(ImageDraw.Draw(img), img, (facing, length, cell, 2))
        return np.asarray(img)

    right = paint("right")
    assert np.array_equal(np.rot90(right, 1), paint("up"))
    assert np.array_equal(np.rot90(right, 2), paint("left"))
    assert np.array_equal(np.rot90(right, 3), paint("down"))
    # the cab (windshield) is at the front: right half holds the windshield colour, left does not
    ws = np.all(right[..., :3] == V.WINDSHIELD, axis=-1)
    assert ws[:, right.shape[1] // 2 :].any() and not ws[:, : right.shape[1] // 2].any()


def test_board_targets_one_click_per_truck(make_env):
    env, b = board_env(make_env, 3)
    u = env.unwrapped
    level = b.level
    targets = u.game.view.board_targets(level, b.state, b.ui, BOARD_AREA)
    assert len(targets) == level.n_trucks
    for i, t in enumerate(targets):
        assert isinstance(t, Click) and V.truck_at(level, b.state, BOARD_AREA, t.x, t.y) == i
    i = R.legal_moves(level, b.state)[-1]
    env.step(to_dict(targets[i]))
    after = u.game.view.board_targets(level, b.state, b.ui, BOARD_AREA)
    assert after[i] is None and b.state.remaining == level.full_mask & ~(1 << i)
    assert [t for k, t in enumerate(after) if k != i] == [
        t for k, t in enumerate(targets) if k != i
    ]


def test_solver_agent_clears_the_objective_with_one_click_per_truck(make_env, tmp_path):
    env = make_env(ID, record_dir=str(tmp_path / "rec"))
    agent = SolverAgent(env.unwrapped)
    obs, _ = env.reset(seed=0)
    board_clicks = rejected = 0
    for _ in range(1000):
        screen = env.unwrapped.suite.screen
        obs, _, term, trunc, info = env.step(agent())
        if screen == LEVEL:
            board_clicks += 1
            rejected += not info["accepted"]
        if term or trunc:
            break
    levels = env.unwrapped.game.load_catalogue("Default")
    assert (
        term and info["evaluator"]["success"] and info["evaluator"]["levels_won"] == [1, 2, 3, 4, 5]
    )
    assert board_clicks == sum(lv.n_trucks for lv in levels) and rejected == 0
    assert not any(s["dead_end"] for s in env.unwrapped.evaluator.snapshots)


def test_checkpoint_mid_level_restores_exactly(make_env, tmp_path):
    env, b = board_env(make_env, 4)
    u = env.unwrapped
    agent = SolverAgent(u)
    for _ in range(9):
        env.step(agent())
    blocked = next(
        i
        for i in range(b.level.n_trucks)
        if b.state.remaining >> i & 1 and not R.can_leave(b.level, b.state, i)
    )
    obs, *_ = click_truck(env, blocked)  # the feedback line is part of the checkpoint
    path = u.checkpoint().save(tmp_path / "ckpt.json")
    script = [agent() for _ in range(1)]
    live = [frame_hash(env.step(a)[0]) for a in script]
    for _ in range(6):
        a = agent()
        script.append(a)
        live.append(frame_hash(env.step(a)[0]))
    fresh = make_env(ID, start="board", level=4)
    obs2, info = fresh.reset(options={"checkpoint": Checkpoint.load(path)})
    assert np.array_equal(obs, obs2) and info["feedback"] == R.BLOCKED_REASON
    assert [frame_hash(fresh.step(a)[0]) for a in script] == live
    assert fresh.unwrapped.suite.board.state == b.state


def test_checkpoint_with_an_unreachable_board_is_rejected(make_env):
    env = make_env(ID, start="board", level=1)
    env.reset()
    b = env.unwrapped.suite.board
    good = env.unwrapped.checkpoint()
    level = b.level
    i = next(i for i in range(level.n_trucks) if level.blockers[i])  # a truck with a blocker
    payload = json.loads(json.dumps(good.payload))
    payload["suite"]["board"]["state"]["remaining"] = [k for k in range(level.n_trucks) if k != i]
    bad = Checkpoint(good.config, payload, good.catalogue, good.version)
    before = env.unwrapped.checkpoint().payload
    with pytest.raises(CheckpointError, match="payload is invalid"):
        env.reset(options={"checkpoint": bad})
    assert env.unwrapped.checkpoint().payload == before
