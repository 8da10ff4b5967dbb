"""Rush Hour's view: drags along a vehicle's axis settle on the nearest cell and stop before
obstacles; drags that miss (no vehicle, across the axis, too short) and clicks do nothing;
board targets; the picture (target car, exit, cars and trucks)."""

from __future__ import annotations

import pytest

from puzzlegym.base.actions import Drag
from puzzlegym.envs.rush_hour import rules as R
from puzzlegym.envs.rush_hour import view as V
from puzzlegym.game import ViewOutcome
from puzzlegym.screen.input import Gesture, swipe_direction
from puzzlegym.screen.layout import BOARD_AREA
from puzzlegym.screen.render import Canvas

VIEW = V.RushHourView()
# A target car (row 2, cols 0-1); B vertical car (col 2, rows 1-2); C truck (row 3, cols 0-2);
# D vertical truck (col 5, rows 3-5); a wall at (0, 4).
LEVEL = R.Level.from_notation(
    "ooooxoooBoooAABoooCCCooDoooooDoooooD",
    id="view",
    tier="Easy",
)
S0 = R.initial_state(LEVEL)
CELL = V.layout(LEVEL, BOARD_AREA).cell


def drag(x0, y0, x1, y1) -> Gesture:
    return Gesture("drag", x=x1, y=y1, x0=x0, y0=y0, swipe=swipe_direction(x1 - x0, y1 - y0))


def drag_vehicle(state, vehicle, dx, dy, grab=None):
    rect = V.vehicle_rect(LEVEL, vehicle, state.positions[vehicle], BOARD_AREA)
    x0, y0 = grab or rect.center
    return VIEW.on_gesture(LEVEL, state, None, drag(x0, y0, x0 + dx, y0 + dy), BOARD_AREA)


def test_geometry_fits_the_board_area():
    grid = V.grid_rect(LEVEL, BOARD_AREA)
    assert CELL == (686 - 2 * (16 + V.FRAME)) // 6 == 103  # the shared size rule: the height fills
    board = V.board_rect(LEVEL, BOARD_AREA)
    assert (board.x - BOARD_AREA.x) - (BOARD_AREA.x1 - board.x1) in (0, 1)  # frame + exit centred
    assert (
        BOARD_AREA.x + 16 <= grid.x - V.FRAME and grid.x1 + V.FRAME + V.EXIT_W <= BOARD_AREA.x1 - 16
    )
    assert BOARD_AREA.y + 16 <= grid.y - V.FRAME and grid.y1 + V.FRAME <= BOARD_AREA.y1 - 16
    assert V.cell_at(LEVEL, BOARD_AREA, grid.x, grid.y) == (0, 0)
    assert V.cell_at(LEVEL, BOARD_AREA, grid.x1 - 1, grid.y1 - 1) == (5, 5)
    assert V.cell_at(LEVEL, BOARD_AREA, grid.x - 1, grid.y) is None
    assert V.vehicle_at(LEVEL, S0, (3, 5)) == 3 and V.vehicle_at(LEVEL, S0, (0, 0)) is None


def test_drag_along_the_axis_settles_on_the_nearest_cell():
    s1 = R.apply(LEVEL, S0, (1, 0))  # B up: the target car's row is open
    assert drag_vehicle(s1, 0, CELL, 0) == ViewOutcome(move=(0, 1))
    assert drag_vehicle(s1, 0, CELL * 14 // 10, 3) == ViewOutcome(move=(0, 1))  # 1.4 cells -> 1
    assert drag_vehicle(s1, 0, CELL * 16 // 10, -3) == ViewOutcome(move=(0, 2))  # 1.6 cells -> 2
    assert drag_vehicle(s1, 0, CELL * 4, 0) == ViewOutcome(move=(0, 4))
    # grabbing the car by its rear cell works the same
    rect = V.vehicle_rect(LEVEL, 0, 0, BOARD_AREA)
    assert drag_vehicle(s1, 0, CELL * 2, 0, grab=(rect.x + 5, rect.y + 5)) == ViewOutcome(
        move=(0, 2)
    )
    # the truck slides left/right, the vertical truck up
    assert drag_vehicle(S0, 2, CELL * 2, 0) == ViewOutcome(move=(2, 2))
    assert drag_vehicle(S0, 3, 0, -CELL * 2) == ViewOutcome(move=(3, 1))


def test_drag_stops_before_obstacles_and_edges():
    # B up past the top edge: stops at row 0
    assert drag_vehicle(S0, 1, 0, -CELL * 3) == ViewOutcome(move=(1, 0))
    # the truck right past the vertical truck D (col 5): stops at cols 2-4
    assert drag_vehicle(S0, 2, CELL * 5, 0) == ViewOutcome(move=(2, 2))
    # D up past the wall? the wall is at col 4; D (col 5) goes up to row 0
    assert drag_vehicle(S0, 3, 0, -CELL * 6) == ViewOutcome(move=(3, 0))
    # the target car is blocked by B at once: nothing moves, a neutral line says so
    assert drag_vehicle(S0, 0, CELL * 3, 0) == ViewOutcome(feedback=R.BLOCKED_REASON)
    # B down is blocked by the truck C
    assert drag_vehicle(S0, 1, 0, CELL * 2) == ViewOutcome(feedback=R.BLOCKED_REASON)
    # a wall stops a slide: a horizontal car in row 0 right of nothing, left of the wall
    walled = R.Level.from_notation("BBooxoooooooAAoooo" + "o" * 18, tier="Easy")
    s = R.initial_state(walled)
    rect = V.vehicle_rect(walled, 1, 0, BOARD_AREA)
    out = VIEW.on_gesture(
        walled, s, None, drag(*rect.center, rect.center[0] + CELL * 4, rect.center[1]), BOARD_AREA
    )
    assert out == ViewOutcome(move=(1, 2))


def test_gestures_that_miss_do_nothing():
    grid = V.grid_rect(LEVEL, BOARD_AREA)
    empty = (grid.x + 4 * CELL + CELL // 2, grid.y + 5 * CELL + CELL // 2)  # cell (5, 4) is empty
    assert (
        VIEW.on_gesture(LEVEL, S0, None, drag(*empty, empty[0] - CELL * 2, empty[1]), BOARD_AREA)
        == ViewOutcome()
    )
    # outside the grid
    out = VIEW.on_gesture(
        LEVEL,
        S0,
        None,
        drag(BOARD_AREA.x + 3, BOARD_AREA.y + 3, BOARD_AREA.x + 300, BOARD_AREA.y + 3),
        BOARD_AREA,
    )
    assert out == ViewOutcome()
    # across the axis: a vertical car dragged sideways, a horizontal truck dragged down
    assert drag_vehicle(S0, 1, CELL * 2, 0) == ViewOutcome(feedback=V.ACROSS_HINT)
    assert drag_vehicle(S0, 2, 0, CELL * 2) == ViewOutcome(feedback=V.ACROSS_HINT)
    # diagonal: not a clear swipe along the axis
    assert drag_vehicle(S0, 2, CELL * 2, CELL * 2) == ViewOutcome(feedback=V.ACROSS_HINT)
    # too short to reach the next cell, or too short to be a drag at all
    assert drag_vehicle(S0, 2, CELL * 4 // 10, 0) == ViewOutcome()
    assert drag_vehicle(S0, 2, 10, 0) == ViewOutcome()
    # clicks and keys do nothing
    x, y = V.vehicle_rect(LEVEL, 2, 0, BOARD_AREA).center
    assert VIEW.on_gesture(LEVEL, S0, None, Gesture("click", x, y), BOARD_AREA) == ViewOutcome()
    assert (
        VIEW.on_gesture(LEVEL, S0, None, Gesture("key", value="ArrowRight"), BOARD_AREA)
        == ViewOutcome()
    )


def test_actions_for_moves_perform_the_move():
    for move in R.legal_moves(LEVEL, S0):
        (action,) = VIEW.actions_for_move(LEVEL, S0, None, move, BOARD_AREA)
        assert isinstance(action, Drag)
        out = VIEW.on_gesture(
            LEVEL, S0, None, drag(action.x0, action.y0, action.x1, action.y1), BOARD_AREA
        )
        assert out == ViewOutcome(move=move)


def test_board_targets_cover_every_vehicle_position():
    targets = VIEW.board_targets(LEVEL, S0, None, BOARD_AREA)
    spans = [LEVEL.span(i) for i in range(LEVEL.n_vehicles)]
    assert len(targets) == sum(spans) == 5 + 5 + 4 + 4
    k = 0
    for i, span in enumerate(spans):
        lo, hi = R.slide_range(LEVEL, S0, i)
        for q in range(span):
            t = targets[k]
            k += 1
            if q == S0.positions[i]:
                assert t is None
                continue
            out = VIEW.on_gesture(LEVEL, S0, None, drag(t.x0, t.y0, t.x1, t.y1), BOARD_AREA)
            settled = min(hi, max(lo, q))
            if settled == S0.positions[i]:
                assert out.move is None and out.feedback == R.BLOCKED_REASON
            else:
                assert out == ViewOutcome(move=(i, settled))  # stops before what is in the way
    # the same length in another state; the drags start where the vehicles now stand
    s1 = R.apply(LEVEL, S0, (2, 2))
    moved = VIEW.board_targets(LEVEL, s1, None, BOARD_AREA)
    assert len(moved) == len(targets)
    truck = moved[10:14]  # vehicle 2's four positions
    assert truck[2] is None and truck[0].x0 == V.vehicle_rect(LEVEL, 2, 2, BOARD_AREA).center[0]


def test_ui_state_is_null():
    assert VIEW.ui_from_json(VIEW.ui_to_json(VIEW.initial_ui(LEVEL, S0))) is None
    with pytest.raises(ValueError, match="null"):
        VIEW.ui_from_json(3)


def pixel(frame, x, y):
    return tuple(int(v) for v in frame[y, x])


def test_picture_shows_target_exit_walls_and_vehicle_kinds():
    canvas = Canvas()
    canvas.render(VIEW.widgets(LEVEL, S0, None, BOARD_AREA))
    frame = canvas.frame
    grid = V.grid_rect(LEVEL, BOARD_AREA)
    # the target car is red, with a white arrow on its roof
    t = V.vehicle_rect(LEVEL, 0, 0, BOARD_AREA)
    assert pixel(frame, t.x + 15, t.y + CELL // 2) == V.TARGET_RED
    assert pixel(frame, t.x + CELL, t.y + CELL // 2) == V.TARGET_MARK
    # the exit: the frame is open (green) right of the target row, not in the other rows
    ex = grid.x1 + V.FRAME // 2
    assert pixel(frame, ex, grid.y + 2 * CELL + CELL // 2) == V.EXIT
    assert pixel(frame, ex, grid.y + 1 * CELL + CELL // 2) == V.FRAME_FILL
    # the wall cell is dark, an empty cell is floor
    assert pixel(frame, grid.x + 4 * CELL + CELL // 2 + 1, grid.y + CELL // 2) in (
        V.WALL,
        V.WALL_HATCH,
    )
    assert pixel(frame, grid.x + 4 * CELL + CELL // 2, grid.y + 5 * CELL + CELL // 2) == V.FLOOR
    # no two vehicles share a colour on this board; no other vehicle is red
    colours = {
        pixel(frame, *V.vehicle_rect(LEVEL, i, p, BOARD_AREA).center)
        for i, p in enumerate(S0.positions)
    }
    assert len(colours) == 4 and V.TARGET_RED not in colours - {pixel(frame, *t.center)}
    # a truck is drawn differently from a car of the same colour and axis (ribs on the box)
    car = R.Level.from_notation("ooooooooooooAAooooBBoooo" + "o" * 12, tier="Easy")
    truck = R.Level.from_notation("ooooooooooooAAooooBBBooo" + "o" * 12, tier="Easy")
    a, b = Canvas(), Canvas()
    a.render(VIEW.widgets(car, R.initial_state(car), None, BOARD_AREA))
    b.render(VIEW.widgets(truck, R.initial_state(truck), None, BOARD_AREA))
    r = V.vehicle_rect(car, 1, 0, BOARD_AREA)
    assert (a.frame[r.y : r.y1, r.x : r.x1] != b.frame[r.y : r.y1, r.x : r.x1]).any()
