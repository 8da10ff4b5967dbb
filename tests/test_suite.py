"""The Game Suite shell through GUI actions: navigation, unlock, re-entry, restart, menu,
and what the evaluator records."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlegym.agents import SolverAgent
from puzzlegym.base.errors import ActionError
from puzzlegym.suite.view import suite_widgets


def click(env, target):
    x, y = env.unwrapped.suite.targets()[target].center
    return env.step({"type": "click", "x": x, "y": y})


def solve_current_level(env):
    agent = SolverAgent(env.unwrapped)
    while env.unwrapped.suite.screen == "level":
        env.step(agent())


def test_home_difficulty_level_navigation(make_env):
    env = make_env("LongPuzzle/MazePaint-Medium")
    env.reset()
    s = env.unwrapped.suite
    from puzzlegym.game.registry import games
    from puzzlegym.screen.layout import CARDS_PER_PAGE

    first_page = {f"game:{name}" for name in list(games())[:CARDS_PER_PAGE]}
    paged = {"page:next"} if len(games()) > CARDS_PER_PAGE else set()
    assert s.screen == "home" and set(s.targets()) == first_page | paged
    click(env, "game:MazePaint")
    assert s.screen == "difficulty" and set(s.targets()) == {
        "tier:Easy",
        "tier:Medium",
        "tier:Hard",
        "back",
    }
    click(env, "back")
    assert s.screen == "home"
    click(env, "game:MazePaint")
    _, _, _, _, info = click(env, "tier:Medium")
    assert s.screen == "level" and s.board.index == 0 and info["evaluator"]["level"] == 1
    assert set(s.targets()) == {"menu", "restart"}  # no Undo in Maze Paint


def test_sequential_unlock_and_reentry_at_first_unsolved_level(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy")
    env.reset()
    s = env.unwrapped.suite
    click(env, "game:MazePaint")
    click(env, "tier:Easy")
    solve_current_level(env)
    assert s.screen == "level_complete" and env.unwrapped.evaluator.levels_won == [1]
    assert set(s.targets()) == {"next", "menu"}
    click(env, "menu")
    click(env, "game:MazePaint")
    click(env, "tier:Easy")
    assert s.board.index == 1  # re-entry at the first unsolved level
    solve_current_level(env)
    click(env, "next")
    assert s.board.index == 2


def test_restart_resets_board_and_is_recorded(make_env):
    env = make_env(start="board")
    env.reset()
    u = env.unwrapped
    agent = SolverAgent(u)
    env.step(agent())
    env.step(agent())
    assert u.suite.board.potential > 0
    _, reward, _, _, info = click(env, "restart")
    assert u.suite.board.state == u.game.rules.initial_state(u.suite.board.level)
    assert reward < 0 and info["evaluator"]["potential"] == 0.0
    kinds = [e["kind"] for e in u.evaluator.events]
    assert kinds == ["level_reached", "restart", "attempt"]
    assert [s["cause"] for s in u.evaluator.snapshots] == ["ready", "move", "move", "restart"]
    # max potential stays as the best seen on the level (FGP credit)
    assert u.evaluator.fgp > 0


def test_other_difficulty_is_a_setting_mismatch_and_earns_no_credit(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy")
    env.reset()
    u = env.unwrapped
    click(env, "game:MazePaint")
    click(env, "tier:Hard")
    assert u.evaluator.mismatch
    snap = u.evaluator.snapshots[-1]
    assert (snap["tier"], snap["level"]) == ("Hard", 1)
    assert u.evaluator.fgp == 0.0 and u.evaluator.results[0].reached is False


def test_fgp_uses_best_potential_on_the_unfinished_level(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy")
    env.reset()
    u = env.unwrapped
    agent = SolverAgent(u)
    while u.evaluator.levels_won != [1, 2]:
        env.step(agent())
    env.step(agent())  # Next
    env.step(agent())  # one slide on level 3
    p3 = u.suite.board.potential
    assert 0 < p3 < 1
    assert u.evaluator.lc == pytest.approx(2 / 10)
    assert u.evaluator.fgp == pytest.approx((2 + p3) / 10)


def test_snapshots_carry_the_dead_end_certificate_and_state(make_env):
    env = make_env(start="board")
    env.reset()
    snap = env.unwrapped.evaluator.snapshots[-1]
    assert snap["dead_end"] is False
    assert set(snap) >= {"actions", "t", "game", "tier", "level", "potential", "solved", "state"}


# --------------------------------------------------------------------------- Hypothesis

coords = st.tuples(st.integers(0, 1279), st.integers(0, 899))
gui_actions = st.one_of(
    coords.map(lambda p: {"type": "click", "x": p[0], "y": p[1]}),
    st.tuples(coords, coords).map(
        lambda p: {"type": "drag", "x0": p[0][0], "y0": p[0][1], "x1": p[1][0], "y1": p[1][1]}
    ),
    st.tuples(
        st.integers(40, 1239),
        st.integers(124, 809),
        st.sampled_from([(0, -90), (0, 90), (-90, 0), (90, 0)]),
    ).map(
        lambda p: {
            "type": "drag",
            "x0": p[0],
            "y0": p[1],
            "x1": min(max(p[0] + p[2][0], 0), 1279),
            "y1": min(max(p[1] + p[2][1], 0), 899),
        }
    ),
    st.sampled_from(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Enter", "a"]).map(
        lambda k: {"type": "press_key", "key": k}
    ),
    st.just({"type": "wait"}),
    st.just({"type": "scroll", "direction": "down"}),
    # malformed ones: must raise ActionError and change nothing
    st.just({"type": "click", "x": 1280, "y": 0}),
    st.just({"type": "press_key", "key": "F12"}),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(gui_actions, min_size=1, max_size=60), st.sampled_from(["home", "board"]))
def test_random_gui_sequences_only_raise_documented_rejections(make_env, actions, start):
    env = make_env("LongPuzzle/MazePaint-Easy", start=start)
    env.reset()
    u = env.unwrapped
    best = {}
    for action in actions:
        before = u.checkpoint().payload
        try:
            _, reward, term, trunc, info = env.step(action)
        except ActionError:
            assert u.checkpoint().payload == before
            continue
        s = u.suite
        assert s.screen in ("home", "difficulty", "level", "level_complete", "objective_complete")
        if s.board is not None:
            b = s.board
            if b.game is u.game:  # Maze Paint's own invariants
                assert b.state.painted & ~b.level.full_mask == 0
                assert b.state.painted >> b.state.ball & 1
            assert (s.screen == "level_complete") == b.game.rules.is_solved(b.level, b.state)
            assert 0.0 <= b.potential <= 1.0
            key = (b.game.name, b.tier, b.index)
            best[key] = max(best.get(key, 0.0), b.potential)
        for i, r in u.evaluator.results.items():
            assert r.max_potential >= best.get(("MazePaint", "Easy", i), 0.0) - 1e-12
        assert 0.0 <= u.evaluator.fgp <= 1.0 and u.evaluator.lc <= u.evaluator.fgp
        if term or trunc:
            break


class _Calls:
    """A suite listener that lists the calls it gets."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return lambda board, *args: self.calls.append(name)


def test_objective_complete_screen_and_reentry_after_all_levels():
    """A level's win shows the banner with Next; the win that completes the difficulty goes
    straight to the objective-complete screen, after the win is reported."""
    from puzzlegym import solvers
    from puzzlegym.game.registry import get_game
    from puzzlegym.screen.input import Gesture
    from puzzlegym.suite.shell import Suite

    game = get_game("MazePaint")
    listener = _Calls()
    suite = Suite({"MazePaint": game}, lambda g, t: game.load_catalogue(t)[:2], listener)
    suite.choose_game("MazePaint")
    suite.enter_tier("Easy")
    swipes = {"up": (0, -100), "down": (0, 100), "left": (-100, 0), "right": (100, 0)}
    for k in range(2):
        for move in solvers.solve(suite.board.level).moves:
            dx, dy = swipes[move]  # a swipe anywhere on the board rolls the ball
            suite.handle(Gesture("drag", 640 + dx, 450 + dy, 640, 450, move))
        if k == 0:
            assert suite.screen == "level_complete" and set(suite.targets()) == {"next", "menu"}
            nx, ny = suite.targets()["next"].center
            suite.handle(Gesture("click", nx, ny))
    assert listener.calls[-3:] == ["board_settled", "level_won", "left_level"]
    assert suite.screen == "objective_complete" and suite.board is None
    assert set(suite.targets()) == {"menu"}
    labels = [w.key[0] for w in suite_widgets(suite) if w.id in ("title", "body")]
    assert labels == ["Objective complete", "Every level of Maze Paint at Easy difficulty is done."]
    mx, my = suite.targets()["menu"].center
    suite.handle(Gesture("click", mx, my))
    suite.choose_game("MazePaint")
    suite.enter_tier("Easy")
    assert suite.screen == "objective_complete"  # re-entering a finished difficulty


def test_attempts_are_recorded_with_their_end(make_env):
    env = make_env(start="board")
    env.reset()
    u = env.unwrapped
    agent = SolverAgent(u)
    env.step(agent())
    click(env, "restart")
    assert u.evaluator.attempts == [
        {
            "game": "MazePaint",
            "tier": "Easy",
            "level": 1,
            "start_actions": 0,
            "moves": 1,
            "undos": 0,
            "dead_end": False,
            "runs": [],
            "end": "restart",
            "end_actions": 2,
        }
    ]
    agent = SolverAgent(u)
    while u.suite.screen == "level":
        env.step(agent())
    assert [a["end"] for a in u.evaluator.attempts] == ["restart", "won"]
    assert u.evaluator.attempt is None
