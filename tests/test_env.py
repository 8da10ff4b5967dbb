"""The Gymnasium env: API checks, objective play through GUI actions, determinism,
rejections that leave the episode unchanged, reward and budget."""

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from puzzlegym.agents import SolverAgent
from puzzlegym.base.errors import ActionError, ConfigError, PuzzleGymError, UnknownKeywordError
from puzzlegym.game.registry import games

from .conftest import ALL_IDS, frame_hash


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_gymnasium_check_env(env_id):
    env = gym.make(env_id)
    check_env(env.unwrapped)
    env.close()


def test_registered_ids():
    assert {
        "LongPuzzle/MazePaint-Easy",
        "LongPuzzle/MazePaint-Medium",
        "LongPuzzle/MazePaint-Hard",
    } <= set(gym.registry)


def play(env, agent=None, limit=5000):
    agent = agent or SolverAgent(env.unwrapped)
    obs, info = env.reset(seed=0)
    hashes, total = [frame_hash(obs)], 0.0
    for _ in range(limit):
        obs, reward, term, trunc, info = env.step(agent())
        hashes.append(frame_hash(obs))
        total += reward
        if term or trunc:
            return hashes, total, term, trunc, info
    raise AssertionError("episode did not end")


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_solver_agent_solves_every_catalogue_level_from_home(make_env, env_id):
    env = make_env(env_id)
    _, total, term, trunc, info = play(env)
    n = len(env.unwrapped.game.load_catalogue(env.unwrapped.tier))
    ev = info["evaluator"]
    assert term and not trunc
    assert ev["success"] and ev["lc"] == 1.0 and ev["fgp"] == 1.0
    assert ev["levels_won"] == list(range(1, n + 1))
    # potential shaping telescopes: one unit per level won
    assert total == pytest.approx(n)
    # one attempt per level, each ended by its win, no restarts
    attempts = env.unwrapped.evaluator.attempts
    assert [(a["level"], a["end"]) for a in attempts] == [(k, "won") for k in range(1, n + 1)]


# one objective per game (its first tier)
FIRST_TIER_IDS = [g.env_id(g.tiers[0]) for g in games().values()]


@pytest.mark.parametrize("env_id", FIRST_TIER_IDS)
def test_solver_episode_frames_are_deterministic(make_env, env_id):
    """The same objective played twice by the solver agent from the home screen gives the
    same frame after every action (and most of its actions show a new frame: the check is
    not of one still picture)."""
    a = play(make_env(env_id))[0]
    b = play(make_env(env_id))[0]
    assert a == b and len(set(a)) > len(a) // 2


def test_random_actions_are_deterministic(make_env):
    runs = []
    for _ in range(2):
        env = make_env()
        obs, _ = env.reset(seed=7)
        hashes = []
        for _ in range(150):
            obs, *_ = env.step(env.action_space.sample())
            hashes.append(frame_hash(obs))
        runs.append(hashes)
    assert runs[0] == runs[1]


def test_rejected_action_leaves_episode_unchanged(make_env):
    env = make_env(start="board")
    obs, _ = env.reset(seed=0)
    before = env.unwrapped.checkpoint().payload
    for bad in (
        {"type": "click", "x": 5000, "y": 1},
        {"type": "press_key", "key": "F1"},
        {
            "type": "batch",
            "actions": [
                {"type": "drag", "x0": 600, "y0": 400, "x1": 700, "y1": 400},
                {"type": "nope"},
            ],
        },
        "left",
    ):
        with pytest.raises(ActionError):
            env.step(bad)
    assert env.unwrapped.checkpoint().payload == before
    assert frame_hash(env.unwrapped.backend.observe(env.unwrapped.suite)) == frame_hash(obs)


def test_rule_rejected_move_keeps_board_and_shows_neutral_feedback(make_env):
    env = make_env(start="board")
    env.reset(seed=0)
    u = env.unwrapped
    board = u.suite.board
    rules = u.game.rules
    blocked = [
        m
        for m in ("up", "down", "left", "right")
        if m not in rules.legal_moves(board.level, board.state)
    ]
    assert blocked, "the start cell of level 1 has at least one wall neighbour"
    state = board.state
    action = u.game.view.actions_for_move(
        board.level,
        state,
        None,
        blocked[0],
        __import__("puzzlegym.screen.layout", fromlist=["x"]).BOARD_AREA,
    )[0]
    _, reward, *_, info = env.step(action)
    assert u.suite.board.state == state
    assert info["feedback"] == "The ball cannot roll that way"
    assert info["accepted"] is False  # a rejected move is not accepted
    assert reward == 0.0


def test_bad_config_is_rejected():
    with pytest.raises(ConfigError, match="start: 'middle'"):
        gym.make("LongPuzzle/MazePaint-Easy", start="middle")
    with pytest.raises(
        ConfigError,
        match=r"level: expected an integer 1\.\.10 or None \(a level of MazePaint-Easy\), got 11",
    ):
        gym.make("LongPuzzle/MazePaint-Easy", level=11)
    with pytest.raises(ConfigError, match="backend"):
        gym.make("LongPuzzle/MazePaint-Easy", backend="vnc")
    with pytest.raises(ConfigError, match="reward"):
        gym.make("LongPuzzle/MazePaint-Easy", reward="dense")
    with pytest.raises(gym.error.Error):
        gym.make("LongPuzzle/MazePaint-Impossible")


def test_an_unknown_keyword_is_a_config_error_and_pythons_type_error():
    """Clients probe for optional keywords and drop one on Python's own TypeError (TorchRL's
    GymEnv passes frameskip): the refusal is both that TypeError and a ConfigError naming it,
    through gym.make (which re-raises a TypeError as ``type(e)(message)``)."""
    with pytest.raises(UnknownKeywordError) as caught:
        gym.make("LongPuzzle/MazePaint-Easy", frameskip=4)
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, ConfigError)
    message = str(caught.value)
    assert message.startswith(
        "frameskip: not a keyword argument of puzzlegym envs "
        "(unexpected keyword argument 'frameskip'); allowed: backend, start, level,"
    )
    # issue 43, item 7: the id's game and tier are not keywords, so no message shows them
    assert message.endswith("with kwargs ({'frameskip': 4})") and "'game'" not in message
    for name in ("game", "tier"):  # nor can a keyword make another game under this id
        with pytest.raises(UnknownKeywordError, match=f"^{name}: not a keyword argument of "):
            gym.make("LongPuzzle/MazePaint-Easy", **{name: "BoltUnscrew"})


def test_a_fresh_process_makes_an_env_without_importing_puzzlegym():
    """A Ray task or a subprocess that never imports puzzlegym: Gymnasium 1.x loads no env
    plugins, so the bare id is unknown there; the ``puzzlegym:`` prefix makes gym.make import
    puzzlegym (which registers every id) first."""
    code = (
        "import sys, gymnasium as gym\n"
        "try:\n"
        "    gym.make('LongPuzzle/MazePaint-Easy')\n"
        "except gym.error.Error as exc:\n"
        "    print('bare:', type(exc).__name__)\n"
        "assert 'puzzlegym' not in sys.modules\n"
        "env = gym.make('puzzlegym:LongPuzzle/MazePaint-Easy', start='board', level=1)\n"
        "obs, info = env.reset(seed=0)\n"
        "print('prefixed:', env.spec.id, obs.shape, info['screen'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    ).stdout.splitlines()
    assert out == [
        "bare: NamespaceNotFound",
        "prefixed: LongPuzzle/MazePaint-Easy (900, 1280, 3) level",
    ]


def test_step_after_end_and_before_reset_raise(make_env):
    env = make_env()
    with pytest.raises(PuzzleGymError, match="call reset"):
        env.unwrapped.step({"type": "wait"})
    env.reset()
    _, _, term, _, _ = env.step({"type": "answer", "text": "I give up"})
    assert term
    with pytest.raises(PuzzleGymError, match="episode is over"):
        env.step({"type": "wait"})
    assert env.unwrapped.evaluator.answered == "I give up"
    assert not env.unwrapped.evaluator.success


def test_budget_truncates_on_the_sim_clock(make_env):
    env = make_env(budget_s=5, action_cost_s=1.0)
    env.reset()
    flags = [env.step({"type": "wait"})[3] for _ in range(5)]
    assert flags == [False, False, False, False, True]
    assert env.unwrapped.clock.elapsed_s == 5


def test_batch_counts_each_action_and_returns_one_observation(make_env):
    env = make_env()
    env.reset()
    card = env.unwrapped.suite.targets()["game:MazePaint"].center
    tier = (640, 256)
    obs, _, _, _, info = env.step(
        {
            "type": "batch",
            "actions": [
                {"type": "click", "x": card[0], "y": card[1]},
                {"type": "click", "x": tier[0], "y": tier[1]},
            ],
        }
    )
    assert info["actions"] == 2 and info["step"] == 1 and info["elapsed_s"] == 2.0
    assert info["screen"] == "level" and info["evaluator"]["level"] == 1


def test_single_level_mode_and_board_start(make_env):
    env = make_env("LongPuzzle/MazePaint-Hard", level=4, start="board")
    _, _, term, _, info = play(env)
    assert term and info["evaluator"]["levels_won"] == [4]
    assert env.unwrapped.evaluator.lc == 1.0
    assert (
        env.unwrapped.instruction
        == "Complete level 4 of Maze Paint at Hard difficulty in the Game Suite."
    )
    # from home, a single-level objective re-enters the tier at that level
    env = make_env("LongPuzzle/MazePaint-Hard", level=4)
    env.reset()
    u = env.unwrapped
    u.suite.choose_game("MazePaint")
    u.suite.enter_tier("Hard")
    assert u.suite.board.index == 3


def test_sparse_reward(make_env):
    env = make_env(reward="sparse", level=1, start="board")
    _, total, term, _, _ = play(env)
    assert term and total == 1.0


def test_generated_levels_are_seeded_and_solved(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy", levels="generated", level=1, start="board")
    env.reset(seed=11)
    a = env.unwrapped.suite.board.level
    env.reset(seed=11)
    assert env.unwrapped.suite.board.level == a
    env.reset(seed=12)
    assert env.unwrapped.suite.board.level != a
    catalogue = env.unwrapped.game.load_catalogue("Easy")
    assert a not in catalogue
    _, _, term, _, info = play(env)
    assert term and info["evaluator"]["success"]


def test_info_separates_public_and_evaluator_fields(make_env):
    env = make_env(start="board")
    _, info = env.reset()
    public = set(info) - {"evaluator"}
    assert public == {
        "step",
        "actions",
        "elapsed_s",
        "budget_s",
        "accepted",
        "screen",
        "feedback",
        "instruction",
        "pressed",
    }
    assert info["evaluator"]["potential"] == 0.0 and info["evaluator"]["level"] == 1
    assert (
        info["instruction"]
        == "Complete all levels of Maze Paint at Easy difficulty in the Game Suite."
    )


def test_observation_is_fresh_uint8_array(make_env):
    env = make_env(render_mode="rgb_array")
    obs, _ = env.reset()
    assert obs.shape == (900, 1280, 3) and obs.dtype == np.uint8
    obs2, *_ = env.step({"type": "wait"})
    assert obs2 is not obs and np.array_equal(obs, obs2)
    obs2[0, 0] = 1
    assert not np.shares_memory(obs2, env.render())


def test_each_reset_writes_its_own_record(make_env, tmp_path):
    from puzzlegym.record.files import read_log

    env = make_env(record_dir=str(tmp_path / "rec"))
    env.reset(seed=0)
    env.step({"type": "wait"})
    env.reset(seed=1)
    env.step({"type": "wait"})
    env.step({"type": "wait"})
    first = [r for r in read_log(tmp_path / "rec") if r["kind"] == "action"]
    second = [r for r in read_log(tmp_path / "rec-2") if r["kind"] == "action"]
    assert len(first) == 1 and len(second) == 2
    import json

    assert json.loads((tmp_path / "rec-2" / "manifest.json").read_text())["seed"] == 1
