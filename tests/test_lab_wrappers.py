"""The intervention wrappers of the diagnostic studies: what each one visibly does, that the
game's pixels are never touched, and that they pass Gymnasium's checks."""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from puzzlegym import solvers
from puzzlegym.agents import SolverAgent
from puzzlegym.base.errors import ConfigError
from puzzlegym.lab.find import move_actions
from puzzlegym.record.files import read_log
from puzzlegym.screen.layout import LEVEL
from puzzlegym.wrappers import (
    BlackBox,
    DeadEndRestart,
    RuleCard,
    StateHint,
    TextChannel,
    WorkflowController,
)


def screen_of(env):
    return env.unwrapped._frame


# ---------------------------------------------------------------------- TextChannel sections
def test_text_channel_sections_follow_the_note_and_are_checked(make_env):
    env = TextChannel(make_env("LongPuzzle/MazePaint-Easy", start="board", level=1))
    env.set_text("a note")
    env.set_section("Rules", "roll the ball")
    env.set_section("State information", "fine")
    obs, _ = env.reset(seed=0)
    assert obs["text"].split("\n")[2:] == [
        "Note: a note",
        "Rules: roll the ball",
        "State information: fine",
    ]
    env.set_section("Rules", None)
    assert "Rules" not in env.compose({}) and env.section("State information") == "fine"
    for bad in ("", "a:b", "x" * 41, "line\nbreak"):
        with pytest.raises(ConfigError, match="section name"):
            env.set_section(bad, "text")
    with pytest.raises(ConfigError, match="needs a TextChannel"):
        RuleCard(make_env("LongPuzzle/MazePaint-Easy"), "K1")


# ---------------------------------------------------------------------- RuleCard
@pytest.mark.parametrize(
    "env_id",
    ["LongPuzzle/BoltUnscrew-Hard", "LongPuzzle/NutAndBolt-Easy", "LongPuzzle/MazePaint-Easy"],
)
def test_rule_card_k1_shows_the_games_card_and_k0_nothing(make_env, env_id):
    k1 = RuleCard(TextChannel(make_env(env_id)), "K1")
    k0 = RuleCard(TextChannel(make_env(env_id)), "K0")
    obs1, _ = k1.reset(seed=0)
    obs0, _ = k0.reset(seed=0)
    card = k1.unwrapped.game.rule_card.strip()
    assert "Rules:\n" + card in obs1["text"] and len(obs1["text"]) < 2048
    assert "Rules" not in obs0["text"]
    assert np.array_equal(obs1["screen"], obs0["screen"])  # the pixels are the game's
    obs1b, *_ = k1.step({"type": "wait"})
    assert card in obs1b["text"]
    with pytest.raises(ConfigError, match="condition"):
        RuleCard(TextChannel(make_env(env_id)), "K2")


# ---------------------------------------------------------------------- WorkflowController
class MovesOnly:
    """Plays the solver's moves and fails the test if it ever sees anything but a target
    board: under P1 it makes no navigation action."""

    def __init__(self, env):
        self.env = env.unwrapped
        self.solver = SolverAgent(env)
        self.calls = 0

    def __call__(self, obs, info):
        self.calls += 1
        suite = self.env.suite
        assert suite.screen == LEVEL and self.env.evaluator.is_target(suite.board), suite.screen
        return self.solver(obs, info)


def test_p1_reaches_every_level_of_an_objective_with_no_agent_navigation(make_env, tmp_path):
    env = WorkflowController(
        TextChannel(make_env("LongPuzzle/BoltUnscrew-Easy", record_dir=str(tmp_path / "rec"))), "P1"
    )
    agent = MovesOnly(env)
    obs, info = env.reset(seed=0)
    assert info["screen"] == LEVEL  # the controller entered the game
    terminated = truncated = False
    while not (terminated or truncated):
        obs, _r, terminated, truncated, info = env.step(agent(obs, info))
    ev = env.unwrapped.evaluator
    assert terminated and ev.success and ev.levels_won == list(range(1, 9))
    # entry: game card + difficulty; advancement: Next after each of the first seven wins
    assert env.controller_actions == 2 + 7
    env.close()
    notes = [
        r
        for r in read_log(tmp_path / "rec")
        if r["kind"] == "intervention" and r["wrapper"] == "WorkflowController"
    ]
    assert [n.get("purpose") for n in notes[1:]] == ["entry", "entry"] + ["advance"] * 7
    actions = {r["actions"]: r for r in read_log(tmp_path / "rec") if r["kind"] == "action"}
    assert len(actions) == env.unwrapped.actions and all(n["actions"] in actions for n in notes[1:])


def test_p0_leaves_navigation_to_the_agent(make_env):
    env = WorkflowController(make_env("LongPuzzle/BoltUnscrew-Easy"), "P0")
    obs, info = env.reset(seed=0)
    assert info["screen"] == "home" and env.controller_actions == 0
    env.step({"type": "wait"})
    assert env.unwrapped.suite.screen == "home" and env.controller_actions == 0


# ---------------------------------------------------------------------- DeadEndRestart
def fatal_move(board):
    rules = board.game.rules
    return next(
        m
        for m in rules.legal_moves(board.level, board.state)
        if solvers.certify(board.level, rules.apply(board.level, board.state, m)) == "dead_end"
    )


def test_dead_end_restart_restarts_right_after_a_certified_dead_end(make_env, tmp_path):
    env = DeadEndRestart(
        make_env(
            "LongPuzzle/BoltUnscrew-Hard", start="board", level=1, record_dir=str(tmp_path / "rec")
        )
    )
    obs, _ = env.reset(seed=0)
    start = obs.copy()
    board = env.unwrapped.suite.board
    initial = board.state
    actions = move_actions(env, fatal_move(board))
    for action in actions[:-1]:
        env.step(action)
    assert env.interventions == []
    obs, reward, terminated, truncated, info = env.step(actions[-1])
    board = env.unwrapped.suite.board
    assert board.state == initial and not board.history  # restarted
    assert env.interventions == [
        {"actions": env.unwrapped.actions, "game": "BoltUnscrew", "tier": "Hard", "level": 1}
    ]
    assert obs.tobytes() == start.tobytes()  # the restarted board, as drawn by the game
    assert info["evaluator"]["dead_end"] is False
    env.close()
    log = read_log(tmp_path / "rec")
    assert [r["kind"] for r in log if r["kind"] in ("restart", "intervention")] == [
        "restart",
        "intervention",
    ]


def test_dead_end_restart_leaves_solvable_boards_alone(make_env):
    env = DeadEndRestart(make_env("LongPuzzle/BoltUnscrew-Hard", start="board", level=1))
    env.reset(seed=0)
    board = env.unwrapped.suite.board
    move = solvers.solve(board.level, board.state).moves[0]
    for action in move_actions(env, move):
        env.step(action)
    assert env.interventions == [] and len(env.unwrapped.suite.board.history) == 1


# ---------------------------------------------------------------------- StateHint basics
def test_state_hint_conditions_and_the_gymnasium_checker(make_env):
    with pytest.raises(ConfigError, match="condition"):
        StateHint(TextChannel(make_env("LongPuzzle/BoltUnscrew-Hard")), "D")
    env = BlackBox(
        StateHint(TextChannel(make_env("LongPuzzle/BoltUnscrew-Hard", start="board", level=1)), "B")
    )
    obs, info = env.reset(seed=0)  # a plain reset is no takeover: no sentence
    assert "State information" not in obs["text"] and env.env.verdict is None
    assert env.env.take_over() == "The board in play can still be completed by forward moves."
    assert env.env.verdict == "solvable" and "verdict" not in json.dumps(info)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version.*")
        check_env(env)


def test_the_full_session_stack_passes_the_checker(make_env):
    from puzzlegym.lab.rq4 import make_session_env

    env = make_session_env("LongPuzzle/MazePaint-Easy", "K1", "P1", True, level=1)
    obs, info = env.reset(seed=0)
    assert info["screen"] == LEVEL and "Rules:" in obs["text"] and "evaluator" not in info
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version.*")
        check_env(env)
    env.close()
    assert isinstance(gym.make("LongPuzzle/MazePaint-Easy").observation_space, gym.spaces.Box)
