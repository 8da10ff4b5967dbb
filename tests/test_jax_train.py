"""``puzzlegym train agent=jax_ppo`` (puzzlegym.jax.train) end to end on MazePaint-Easy's
twin: the SB3 path's run directory, a run killed for real (SIGKILL) and resumed to the same
figures as the unbroken run, the trained policy's held-out success in the Python env and in
the twin agreeing, the policy file playing the GUI through ``puzzlegym run --agent
jax:PATH``, and bad settings named before anything runs. One tiny configuration for every
run, so each function compiles once in this process."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

from puzzlegym import cli  # noqa: E402
from puzzlegym.jax.policy import arrays  # noqa: E402
from puzzlegym.jax.train import CHECKPOINT  # noqa: E402
from tests.mutations import ODD_VALUES, key_paths, replaced  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
UPDATES = 60  # of 64 steps: 8 envs x 8 steps
TINY = (
    "agent=jax_ppo",
    "env=maze_paint_easy",
    f"agent.timesteps={64 * UPDATES}",
    "agent.episodes=2",
    "agent.checkpoint_every=64",  # a checkpoint after every update: the kill lands mid-run
    f"agent.curve_every={64 * 20}",
    "agent.progress=false",
    "agent.protocol.num_levels=20",
    "agent.protocol.train_levels=2",
    "agent.heldout_generated=30",
    "agent.ppo.num_envs=8",
    "agent.ppo.num_steps=8",
    "agent.ppo.num_epochs=1",
    "agent.ppo.num_minibatches=2",
    "agent.network.features=16",
)
FILES = {
    "config.json",
    "progress.csv",
    "curve.csv",
    "checkpoint.npz",
    "policy.npz",
    "curve.png",
    "result.json",
}
TIMES = ("train_s", "train_fps", "compile_s", "curve_s", "total_s", "resumed_at")
WAIT_S = 900  # the killed run's first checkpoint (compiling on a loaded 2-core machine)


def train(out: Path, *extra: str) -> dict:
    """``puzzlegym train TINY --out out``, in this process; its last line, parsed."""
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert cli.main(["train", *TINY, *extra, "--out", str(out)]) == 0
    return json.loads(buf.getvalue().strip().splitlines()[-1])


def refused(args: list[str], capsys) -> str:
    """The error ``puzzlegym ARGS`` stops with (exit code 2), without its prefix."""
    capsys.readouterr()
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("puzzlegym: error: ")
    return err[len("puzzlegym: error: ") :]


def figures(result: dict) -> dict:
    """A result without its times (what a resumed run must reproduce)."""
    out = {k: v for k, v in result.items() if k not in TIMES}
    out["curve"] = [{k: v for k, v in row.items() if k != "elapsed_s"} for row in result["curve"]]
    return out


def progress(out: Path) -> list[list[str]]:
    """progress.csv's rows without the elapsed time (its last column)."""
    return [line.split(",")[:-1] for line in (out / "progress.csv").read_text().splitlines()]


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory):
    out = tmp_path_factory.mktemp("jax_run") / "run"
    line = train(out)
    return out, line, json.loads((out / "result.json").read_text())


def test_the_run_directory_is_the_sb3_paths(unbroken):
    out, line, result = unbroken
    assert {p.name for p in out.iterdir()} - {".lock"} == FILES
    for key in ("heldout_success", "train_success", "random_success", "random_masked_success"):
        assert 0.0 <= line[key] <= 1.0
    assert line["timesteps"] == result["timesteps"] == 64 * UPDATES
    for phase in ("random_uniform", "random_masked", "trained", "trained_greedy"):
        assert len(result[phase]["test"]["per_level"]) == 10  # the Easy catalogue
        assert len(result[phase]["train"]["per_level"]) == 2
        assert "dead_ends" in result[phase]["test"]
    assert [row["timesteps"] for row in result["curve"]] == [1280, 2560, 3840]
    held = result["generated"]
    assert held["set"]["levels"] == len(held["trained"]["per_level"]) == 30
    assert held["set"]["start_level"] == 1_000_000 and held["set"]["candidates"] >= 30
    # Maze Paint Easy's 20 training seeds are 20 distinct boards: 20 rows trained on
    assert result["training_split"] == {
        "num_levels": 20,
        "start_level": 0,
        "distinct_training": True,
        "rows": 20,
        "dead_end": "none",  # no oracle, so no count of dead ends
    }
    assert held["set"]["training_distinct"] == 20
    for player in ("trained", "random_masked"):
        figures = held[player]
        assert figures["ci"][0] <= figures["success"] <= figures["ci"][1]
        assert set(figures["per_level"]) <= {0.0, 0.5, 1.0}  # shares of 2 episodes
    assert line["heldout_generated_success"] == held["trained"]["success"]
    assert line["random_masked_generated_ci"] == held["random_masked"]["ci"]
    assert len(progress(out)) == 1 + UPDATES
    header, _ = arrays.load(out / "checkpoint.npz", CHECKPOINT)
    assert header["book"]["updates"] == UPDATES
    assert json.loads((out / "config.json").read_text())["algo"] == "jax_ppo"


def test_the_twin_and_the_python_env_measure_the_same_success(unbroken):
    _, _, result = unbroken
    agree = result["agreement"]
    # sampled, 2 episodes a level: each figure inside its interval, the report of whether
    # the intervals meet true to them (their meeting is chance at 2 episodes)
    assert agree["python_ci"][0] <= agree["python"] <= agree["python_ci"][1]
    assert agree["twin_ci"][0] <= agree["twin"] <= agree["twin_ci"][1]
    assert agree["overlap"] == intervals_meet(agree)
    # greedy: deterministic in both, so level by level the same outcome
    assert agree["greedy_python"] == agree["greedy_twin"]


def test_a_killed_run_resumes_to_the_unbroken_runs_figures(unbroken, tmp_path):
    ref_out, _, ref = unbroken
    out = tmp_path / "killed"
    log = open(tmp_path / "killed.log", "wb")
    child = subprocess.Popen(
        [sys.executable, "-m", "puzzlegym", "train", *TINY, "--out", str(out)],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + WAIT_S
        while not (out / "checkpoint.npz").exists():
            assert child.poll() is None, (tmp_path / "killed.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "no checkpoint within the wait"
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=60)
        log.close()
    header, _ = arrays.load(out / "checkpoint.npz", CHECKPOINT)
    assert 1 <= header["book"]["updates"] < UPDATES  # killed in the middle of training
    assert not (out / "result.json").exists()
    line = train(out, "--resume")
    resumed = json.loads((out / "result.json").read_text())
    assert resumed["resumed_at"] == [64 * header["book"]["updates"]]
    assert figures(resumed) == figures(ref)
    assert progress(out) == progress(ref_out)
    assert {k: v for k, v in line.items() if k not in ("seconds", "train_fps")} == {
        k: v for k, v in json.loads(json.dumps(figures_line(ref))).items()
    }


def figures_line(result: dict) -> dict:
    from puzzlegym.training.results import summary

    return {k: v for k, v in summary(result).items() if k not in ("seconds", "train_fps")}


def test_a_finished_or_differently_configured_run_is_not_resumed(unbroken, tmp_path, capsys):
    out, _, _ = unbroken
    assert "holds a finished run" in refused(
        ["train", *TINY, "--out", str(out), "--resume"], capsys
    )
    other = tmp_path / "other"
    other.mkdir()
    config = json.loads((out / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**config, "seed": 5}))
    message = refused(["train", *TINY, "--out", str(other), "--resume"], capsys)
    assert "configured differently (seed)" in message
    none = str(tmp_path / "none")
    assert "holds no run to resume" in refused(["train", *TINY, "--out", none, "--resume"], capsys)
    message = refused(["train", *TINY, "--resume"], capsys)
    assert message.startswith("--resume: name the run directory")


def test_the_policy_plays_the_gui_through_puzzlegym_run(unbroken, tmp_path, capsys):
    out, _, result = unbroken
    policy = out / "policy.npz"
    buf = io.StringIO()
    args = ["run", "LongPuzzle/MazePaint-Easy", "--agent", f"jax:{policy}", "--start", "board"]
    budget = result["test_levels"][0]["budget_actions"]
    with redirect_stdout(buf):
        code = cli.main(
            [
                *args,
                "--level",
                "1",
                "--budget-s",
                str(budget - 0.5),
                "--json",
                "--no-gif",
                "--out",
                str(tmp_path / "play"),
            ]
        )
    assert code == 0
    played = json.loads(buf.getvalue().strip().splitlines()[-1])
    assert played["agent"] == f"jax:{policy}"
    assert 1 <= played["actions"] <= budget  # board actions became GUI actions, one each
    assert played["success"] in (True, False)
    # from the home screen (the default start): it navigates to level 1 and plays it
    home = ["run", "LongPuzzle/MazePaint-Easy", "--agent", f"jax:{policy}", "--json", "--no-gif"]
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = cli.main([*home, "--max-steps", "12", "--out", str(tmp_path / "home")])
    assert code == 0
    played = json.loads(buf.getvalue().strip().splitlines()[-1])
    assert played["actions"] == 12  # the home card, the tier, then moves on level 1
    missing = [*args[:3], f"jax:{tmp_path / 'missing.npz'}", "--json"]
    assert "no policy file" in refused(missing, capsys)


def intervals_meet(doc: dict) -> bool:
    """Whether a figure's two 95 % intervals (``python_ci``, ``twin_ci``) have a point in
    common."""
    (a, b), (c, d) = doc["python_ci"], doc["twin_ci"]
    return max(a, c) <= min(b, d)


def test_the_agreement_example_measures_both_envs(unbroken):
    """examples/jax_policy_agreement.py (run in this process, on the run's shapes: no new
    compile). Greedy, both envs are deterministic: level by level the same outcome (the
    claim that holds with any number of episodes). Sampled, 2 episodes a level: each
    figure is a share of its episodes inside its own interval and the example reports
    whether the intervals meet as they do (whether they meet is chance at 2 episodes; the
    example's command runs 100 or more)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "jax_policy_agreement", ROOT / "examples" / "jax_policy_agreement.py"
    )
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out, _, _ = unbroken
    greedy = example.agreement(str(out / "policy.npz"), episodes=2, greedy=True)
    assert greedy["greedy"] and len(greedy["python_per_level"]) == 10
    assert greedy["python_per_level"] == greedy["twin_per_level"]
    assert set(greedy["twin_per_level"]) <= {0.0, 1.0}  # deterministic: all or none
    doc = example.agreement(str(out / "policy.npz"), episodes=2)
    assert not doc["greedy"]
    assert len(doc["python_per_level"]) == len(doc["twin_per_level"]) == 10
    for side in ("python", "twin"):
        assert set(doc[f"{side}_per_level"]) <= {0.0, 0.5, 1.0}  # shares of 2 episodes
        assert doc[side] == round(float(np.mean(doc[f"{side}_per_level"])), 4)
        assert doc[f"{side}_ci"][0] <= doc[side] <= doc[f"{side}_ci"][1]
    assert doc["overlap"] == intervals_meet(doc)


def test_the_gui_agent_plays_each_level_as_the_twin_does(unbroken):
    """JaxAgent (what --agent jax:PATH builds) on the raw env, GUI actions from the board,
    greedy: level by level the twin's greedy outcome."""
    import gymnasium as gym

    from puzzlegym.env.loop import play
    from puzzlegym.jax.policy.policy import JaxAgent, Policy

    out, _, result = unbroken
    policy = Policy.load(out / "policy.npz")
    won = []
    for level in result["test_levels"]:
        env = gym.make(
            "LongPuzzle/MazePaint-Easy",
            start="board",
            level=level["index"],
            budget_s=level["budget_actions"] - 0.5,
        )
        try:
            agent = JaxAgent(env.unwrapped, policy, greedy=True)
            play(env, agent, seed=0)
            won.append(float(env.unwrapped.probe().success))
        finally:
            env.close()
    assert won == result["agreement"]["greedy_twin"]


def test_the_gui_agent_plays_the_whole_objective_from_the_home_screen(unbroken):
    """From the home screen, as the solver agent plays: the home card, the difficulty, level 1,
    Next after each win, level after level. Greedy, it wins the levels in order as long as
    the twin's greedy play wins each (stopped on a level once its budget is spent there)."""
    import gymnasium as gym

    from puzzlegym.env.loop import play
    from puzzlegym.env.probe import LEVEL
    from puzzlegym.jax.policy.policy import JaxAgent, Policy

    out, _, result = unbroken
    policy = Policy.load(out / "policy.npz")
    budgets = [t["budget_actions"] for t in result["test_levels"]]
    env = gym.make("LongPuzzle/MazePaint-Easy")  # start="home", the whole objective
    moves: dict[int, int] = {}
    try:
        base = env.unwrapped
        agent = JaxAgent(base, policy, greedy=True)

        def counted(obs, info):
            probe = base.probe()
            if probe.screen == LEVEL:
                moves[probe.board.number] = moves.get(probe.board.number, 0) + 1
            return agent(obs, info)

        def spent(step) -> bool:
            probe = base.probe()
            return (
                probe.screen == LEVEL
                and moves.get(probe.board.number, 0) >= budgets[probe.board.number - 1]
            )

        play(env, counted, stop=spent, seed=0)
        probe = base.probe()
    finally:
        env.close()
    greedy = result["agreement"]["greedy_twin"]
    leading = next((k for k, won in enumerate(greedy) if won < 1.0), len(greedy))
    assert probe.levels_won == tuple(range(1, leading + 1))
    assert sorted(moves) == list(range(1, min(leading + 1, len(greedy)) + 1))
    assert probe.success == (leading == len(greedy))


def _played_in_both_backends(out, result) -> dict:
    """The run's policy file as the GUI agent, greedy, on catalogue level 1 within its budget,
    in the in-process env and in a real Chromium page: per backend its success, actions, the
    hash of every frame it was shown, and its search's unsynced count (None without search)."""
    import gymnasium as gym

    from puzzlegym.env.loop import play
    from puzzlegym.jax.policy.policy import JaxAgent, Policy

    policy = Policy.load(out / "policy.npz")
    level = result["test_levels"][0]
    played = {}
    for backend in ("native", "browser"):
        env = gym.make(
            "LongPuzzle/MazePaint-Easy",
            backend=backend,
            start="board",
            level=level["index"],
            budget_s=level["budget_actions"] - 0.5,
        )
        try:
            agent = JaxAgent(env.unwrapped, policy, greedy=True)
            frames = []

            def watched(obs, info, agent=agent, frames=frames):
                frames.append(hashlib.sha256(obs.tobytes()).hexdigest())
                return agent(obs, info)

            play(env, watched, seed=0)
            probe = env.unwrapped.probe()
            unsynced = agent.search.unsynced if agent.search is not None else None
            played[backend] = (float(probe.success), probe.actions, frames, unsynced)
        finally:
            env.close()
    return played


@pytest.mark.browser
def test_the_gui_agent_plays_in_chromium_as_the_twin_does(unbroken):
    """The same agent on the browser backend (a real Chromium page): the GUI actions it
    answers reach the game through the page, frame for frame as in the in-process env, and
    level 1 ends as the twin's greedy play ends."""
    out, _, result = unbroken
    played = _played_in_both_backends(out, result)
    assert len(played["native"][2]) == played["native"][1] >= 1  # a frame before each action
    assert played["browser"] == played["native"]
    assert played["browser"][0] == result["agreement"]["greedy_twin"][0]


@pytest.mark.parametrize(
    "override, message",
    [
        ("wrappers=rl", "^wrappers=rl: jax_ppo trains on the twin"),
        ("agent.ppo.num_envs=0", "^agent.ppo.num_envs: "),
        ("+agent.ppo.momentum=1", "^agent.ppo.momentum: unknown key"),
        ("agent.network.kind=rnn", "^agent.network.kind: "),
        ("agent.timesteps=0", "^agent.timesteps: "),
        ("+agent.n_envs=4", "^agent.n_envs: unknown key"),
        ("agent.protocol.budget_multiple=0.5", "^agent.protocol.budget_multiple: "),
        ("env.kwargs.backend=browser", "^env.kwargs.backend: jax_ppo trains on the twin"),
        ("agent.heldout_generated_start=4", "^agent.heldout_generated_start: the held-out seeds"),
        ("agent.heldout_generated=-1", "^agent.heldout_generated: "),
        ("agent.distinct_training=maybe", "^agent.distinct_training: expected true or false"),
        ("agent.dead_end=sometimes", "^agent.dead_end: 'sometimes' is not allowed"),
        ("agent.dead_end_penalty=-1", "^agent.dead_end_penalty: "),
    ],
)
def test_bad_settings_are_named_before_anything_runs(override, message, tmp_path, capsys):
    assert re.match(
        message, refused(["train", *TINY, override, "--out", str(tmp_path / "run")], capsys)
    )
    assert not (tmp_path / "run").exists()


def test_resuming_an_empty_directory_is_refused_naming_it(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    message = refused(["train", "--out", str(tmp_path / "run"), "--resume"], capsys)
    assert message.startswith("resume: ") and "holds no run to resume" in message


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda book: {"updates": 0}, "book: missing key(s) progress"),
        (lambda book: {**book, "updates": "x"}, "book.updates: expected an integer 0..60"),
        (lambda book: {**book, "resumed_at": 5}, "book.resumed_at: expected a list"),
        (lambda book: {**book, "updates": 3}, "book.progress: 60 rows for 3 updates"),
    ],
)
def test_a_damaged_book_is_refused_before_resuming(unbroken, tmp_path, capsys, change, field):
    """Issue 45, item 6: ``{"updates": 0}`` raised KeyError ``resumed_at``, ``"updates": "x"``
    a ValueError and ``"resumed_at": 5`` a TypeError. The whole book is checked first."""
    ref_out, _, _ = unbroken
    header, leaves = arrays.load(ref_out / "checkpoint.npz", CHECKPOINT)
    out = tmp_path / "run"
    out.mkdir()
    (out / "config.json").write_bytes((ref_out / "config.json").read_bytes())
    arrays.save(out / "checkpoint.npz", leaves, {**header, "book": change(header["book"])})
    message = refused(["train", *TINY, "--out", str(out), "--resume"], capsys)
    assert message.startswith(f"resume: {out / 'checkpoint.npz'}: book") and field in message
    assert {p.name for p in out.iterdir()} - {".lock"} == {"config.json", "checkpoint.npz"}


def test_any_mutation_of_a_book_is_accepted_whole_or_refused_naming_its_field(unbroken):
    """The class closed for training books: the unbroken run's book with one value replaced
    (at any key path) is either still a book both trainers could resume from or one
    ConfigError naming ``book.<path>``; never another exception."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from puzzlegym.base.errors import ConfigError
    from puzzlegym.jax.train import PROGRESS_COLUMNS
    from puzzlegym.training.book import check_book, jax_book

    out, _, _ = unbroken
    header, _ = arrays.load(out / "checkpoint.npz", CHECKPOINT)
    book, shape = header["book"], jax_book(UPDATES, len(PROGRESS_COLUMNS))
    assert check_book(book, shape, "ckpt") == book

    where = [p for p in key_paths(book, items=3) if p]
    odd = st.sampled_from(ODD_VALUES)

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(path=st.sampled_from(where), value=odd)
    def one(path, value):
        doc = replaced(book, path, value)
        try:
            check_book(doc, shape, "ckpt")
        except ConfigError as exc:
            assert str(exc).startswith("resume: ckpt: book"), exc

    one()


def test_checkpoints_are_bounded_numbers_only(unbroken):
    out, _, _ = unbroken
    _, leaves = arrays.load(out / "checkpoint.npz", CHECKPOINT)
    assert all(isinstance(x, np.ndarray) and x.dtype.kind in "biuf" for x in leaves)


def test_training_stops_at_the_first_curve_point_reaching_the_stop(tmp_path):
    """``agent.stop_train_success``: on Truck Escape the tiny run's train success is 0 at
    its first curve point (20 updates) and 1 at the second (40 of its 60 updates), so a stop
    of 0.5 ends training at the second point, where the run is tested and its state saved."""
    common = [a for a in TINY if not a.startswith("env=")] + ["env=truck_escape_default"]
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = cli.main(
            ["train", *common, "agent.stop_train_success=0.5", "--out", str(tmp_path / "run")]
        )
    assert code == 0
    line = json.loads(buf.getvalue().strip().splitlines()[-1])
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    curve = result["curve"]
    assert [row["timesteps"] for row in curve] == [64 * 20, 64 * 40]
    assert curve[0]["train_success"] < 0.5 <= curve[1]["train_success"]
    assert result["stopped_early"] is True
    assert line["timesteps"] == result["timesteps"] == 64 * 40
    progress_rows = (tmp_path / "run" / "progress.csv").read_text().splitlines()
    assert len(progress_rows) == 1 + 40  # the header and the 40 updates trained
    header, _ = arrays.load(tmp_path / "run" / "checkpoint.npz", CHECKPOINT)
    assert header["book"]["updates"] == 40  # the state it stopped at, saved


@pytest.mark.parametrize(
    "override, message",
    [
        ("agent.stop_train_success=1.5", "^agent.stop_train_success: expected a share"),
        ("agent.stop_train_success=0", "^agent.stop_train_success: expected a share"),
        ("agent.curve_every=null", "^agent.stop_train_success: needs the learning curve"),
    ],
)
def test_a_bad_stop_is_named_before_anything_runs(override, message, tmp_path, capsys):
    extra = [] if "stop" in override else ["agent.stop_train_success=0.9"]
    args = ["train", *TINY, override, *extra, "--out", str(tmp_path / "run")]
    assert re.match(message, refused(args, capsys))
    assert not (tmp_path / "run").exists()


def test_a_dead_end_intervention_trains_and_every_evaluation_plays_without_it():
    """agent.dead_end=restart: PPO steps the twin with the oracle; train success, the
    catalogue and the generated held-out set are measured on twins without it."""
    from puzzlegym.jax.train import JaxTrainConfig, _Learner, jax_protocol

    protocol = jax_protocol("LongPuzzle/NutAndBolt-Medium", num_levels=4, train_levels=2)
    learner = _Learner(
        JaxTrainConfig(protocol=protocol, dead_end="restart", heldout_generated=2, progress=False)
    )
    assert learner.env.spec.dead_end == "restart" and learner.learner.env is learner.env
    assert int(np.sum(np.asarray(learner.params.dead_count))) > 0
    for evaluator in (learner.train_eval, learner.test_eval, learner.held_eval):
        assert evaluator.env.spec.dead_end == "none"


PLANNER = (
    "agent=jax_planner",
    "env=maze_paint_easy",
    "agent.timesteps=128",
    "agent.episodes=2",
    "agent.checkpoint_every=64",
    "agent.curve_every=64",
    "agent.progress=false",
    "agent.protocol.num_levels=20",
    "agent.protocol.train_levels=2",
    "agent.heldout_generated=4",
    "agent.planner.num_envs=8",
    "agent.planner.num_steps=8",
    "agent.planner.num_simulations=4",
    "agent.planner.num_minibatches=2",
    "agent.network.features=16",
    "agent.network.hidden=[]",
)


@pytest.fixture(scope="module")
def planner_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("planner") / "run"
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert cli.main(["train", *PLANNER, "--out", str(out)]) == 0
    return out, buf.getvalue(), json.loads((out / "result.json").read_text())


def test_the_planner_trains_on_the_protocol_and_its_search_plays_the_gui(
    planner_run, tmp_path, capsys
):
    """``puzzlegym train agent=jax_planner``: the same run directory and protocol as PPO, its
    twin figures with search beside the network alone and search on an untrained network,
    a policy file that carries its search, and the GUI agent (``--agent jax:PATH``) whose
    search over the twin of the board shown plays each level as the twin's greedy search."""
    import gymnasium as gym

    from puzzlegym.env.loop import play
    from puzzlegym.jax.policy.policy import JaxAgent, Policy

    out, printed, result = planner_run
    assert "with search (4 simulations a move) in the twin" in printed
    assert result["config"]["algo"] == "jax_planner" and "ppo" not in result["config"]
    assert result["policy"] == "jax_planner:mlp" and result["timesteps"] == 128
    assert set(FILES) <= {p.name for p in out.iterdir()}
    header = (out / "progress.csv").read_text().splitlines()[0].split(",")
    assert "search_value" in header and "policy_loss" in header
    assert set(result["twin"]) == {
        "trained",
        "trained_greedy",
        "trained_network",
        "trained_network_greedy",
    }
    held = result["generated"]
    assert {"trained", "random_masked", "trained_network", "search_untrained"} <= set(held)
    assert len(held["set"]["budget_actions"]) == held["set"]["levels"] == 4  # their own budgets
    policy = Policy.load(out / "policy.npz")
    assert policy.info["search"]["num_simulations"] == 4
    greedy_search = result["twin"]["trained_greedy"]["test"]["per_level"]
    won = []
    for level in result["test_levels"][:3]:
        env = gym.make(
            "LongPuzzle/MazePaint-Easy",
            start="board",
            level=level["index"],
            budget_s=level["budget_actions"] - 0.5,
        )
        try:
            agent = JaxAgent(env.unwrapped, policy, greedy=True)
            play(env, agent, seed=0)
            won.append(float(env.unwrapped.probe().success))
            assert agent.search is not None and agent.search.unsynced == 0
        finally:
            env.close()
    assert won == greedy_search[:3]
    # PPO's section is no key of the planner's config: refused, naming it
    bad = ["train", *PLANNER, "agent.ppo.num_envs=8", "--out", str(tmp_path / "bad")]
    assert refused(bad, capsys).startswith("agent.ppo.num_envs: not a key of the training config")


def test_a_config_reads_the_learner_its_algo_names():
    from puzzlegym.base.errors import ConfigError
    from puzzlegym.jax.train import config_from_mapping, jax_protocol

    proto = jax_protocol("LongPuzzle/MazePaint-Easy", num_levels=20, train_levels=2)
    planner = config_from_mapping(proto, {"algo": "jax_planner", "planner": {"num_envs": 8}}, 3)
    assert planner.learner.num_envs == 8 and planner.steps_per_update == 8 * 16
    assert planner.to_dict()["planner"]["num_envs"] == 8 and "ppo" not in planner.to_dict()
    for doc, message in (
        ({"algo": "jax_planner", "ppo": {"num_envs": 8}}, "^ppo: algo jax_planner reads planner"),
        ({"algo": "dqn"}, "^algo: 'dqn' is not allowed"),
        ({"algo": "jax_planner", "planner": {"num_simulations": 0}}, "^planner.num_simulations: "),
    ):
        with pytest.raises(ConfigError, match=message):
            config_from_mapping(proto, doc, 0)


@pytest.mark.browser
def test_the_planners_search_plays_in_chromium_as_in_process(planner_run):
    """The planner's GUI agent on the browser backend (a real Chromium page): its search over
    the twin of the board shown answers the same GUI actions, frame for frame, as in the
    in-process env, and level 1 ends as the twin's greedy search ends."""
    out, _, result = planner_run
    played = _played_in_both_backends(out, result)
    assert played["native"][3] == 0  # every search ran on the board shown
    assert played["browser"] == played["native"]
    assert played["browser"][0] == result["twin"]["trained_greedy"]["test"]["per_level"][0]
