"""The dead-end lab's checkpoints: finding D (certified dead end) and N (solvable control)
boards, their files and certificates, the controller's hand-over (restore and prefix replay
give the same pixels), and state hints that tell the truth on both classes in both games
that dead-end."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

from puzzlegym import lab, solvers
from puzzlegym.base.errors import CheckpointError, ConfigError
from puzzlegym.env.checkpoint import Checkpoint
from puzzlegym.lab import checkpoints as files
from puzzlegym.lab.controller import Controller
from puzzlegym.lab.find import move_actions
from puzzlegym.screen.labels import label
from puzzlegym.wrappers import HINT_MESSAGES, BlackBox, StateHint, TextChannel


@pytest.fixture(scope="module")
def found():
    """One D/N pair per dead-end game: Bolt Unscrew Hard off the solver's path, Nut and Bolt
    Hard from random play."""
    bolt = lab.find_on_solution("LongPuzzle/BoltUnscrew-Hard", 1, count=1)
    nut = lab.find_in_random_play("LongPuzzle/NutAndBolt-Hard", 1, count=1)
    return {"BoltUnscrew": bolt, "NutAndBolt": nut}


def by_class(ckpts, cls):
    return next(c for c in ckpts if c.certificate["class"] == cls)


ALL = [(game, cls) for game in ("BoltUnscrew", "NutAndBolt") for cls in ("D", "N")]


@pytest.mark.parametrize("game,cls", ALL)
def test_found_checkpoints_are_what_their_certificates_say(found, game, cls):
    ckpt = by_class(found[game], cls)
    cert = files.certificate_of(ckpt)
    other = by_class(found[game], "N" if cls == "D" else "D").certificate
    # D and N are matched by level and depth, and name each other
    assert (cert["game"], cert["tier"], cert["level"], cert["depth"]) == (
        other["game"],
        other["tier"],
        other["level"],
        other["depth"],
    )
    assert cert["match"] == files.checkpoint_name(by_class(found[game], "N" if cls == "D" else "D"))
    env = gym.make(
        ckpt.config["env_id"], **{k: v for k, v in ckpt.config.items() if k in ("start", "level")}
    )
    obs, info = env.reset(options={"checkpoint": ckpt})
    board = env.unwrapped.suite.board
    verdict = solvers.certify(board.level, board.state)
    assert verdict == {"D": "dead_end", "N": "solvable"}[cls] == cert["verdict"]
    assert info["screen"] == "level" and not board.solved and len(board.history) == cert["depth"]
    assert files.frame_digest(obs) == cert["frame_sha256"]
    assert cert["legal_moves"] == len(list(board.game.rules.legal_moves(board.level, board.state)))
    if cls == "N":  # the verified remaining solution solves the board from here
        state = board.state
        for move in cert["solution"]:
            state = board.game.rules.apply(board.level, state, tuple(move))
        assert board.game.rules.is_solved(board.level, state)
    else:
        assert cert["solution"] is None and cert["fatal_move"] is not None
    env.close()


def test_dead_ends_off_the_solution_path_hide_behind_free_anchors(found):
    d = by_class(found["BoltUnscrew"], "D").certificate
    assert d["details"]["free_anchors"] > 0 and not d["visible"] and d["legal_moves"] > 0


@pytest.mark.parametrize("game,cls", ALL)
def test_restore_and_prefix_replay_hand_over_the_same_pixels(found, game, cls):
    ckpt = by_class(found[game], cls)
    controller = Controller(ckpt)
    restored, replayed = controller.make_env(), controller.make_env()
    obs_r, _ = controller.restore(restored)
    obs_p, _ = Controller(ckpt).replay(replayed)
    assert obs_r.tobytes() == obs_p.tobytes()
    # and the game goes on identically from both: a legal move, or a rejected click on a dead board
    board = restored.unwrapped.suite.board
    legal = list(board.game.rules.legal_moves(board.level, board.state))
    actions = move_actions(restored, legal[0]) if legal else [{"type": "click", "x": 640, "y": 450}]
    for action in actions:
        a = restored.step(action)
        b = replayed.step(action)
        assert a[0].tobytes() == b[0].tobytes() and a[1:4] == b[1:4]
    assert (
        restored.unwrapped.checkpoint().payload["suite"]
        == replayed.unwrapped.checkpoint().payload["suite"]
    )
    restored.close()
    replayed.close()


@pytest.mark.parametrize("game,cls", ALL)
@pytest.mark.parametrize("condition", ["A", "B", "C"])
def test_state_hints_are_truthful_at_takeover_and_stay(found, game, cls, condition):
    ckpt = by_class(found[game], cls)
    env = BlackBox(StateHint(TextChannel(Controller(ckpt).make_env()), condition))
    obs, info = env.reset(options={"checkpoint": ckpt})
    text = obs["text"]
    dead, alive = HINT_MESSAGES["dead_end"], HINT_MESSAGES["solvable"]
    recovery = HINT_MESSAGES["recovery"].format(label=label("restart"))
    if condition == "A":
        assert dead not in text and alive not in text and "State information" not in text
    else:
        assert (dead in text) == (cls == "D") and (alive in text) == (cls == "N")
    assert (recovery in text) == (condition == "C" and cls == "D")
    # the named control exists on the screen under that label
    assert label("restart") == "Restart" and "restart" in env.unwrapped.suite.targets()
    # the certificate and verdict stay out of what the agent gets; the pixels are untouched
    assert "evaluator" not in info and "certificate" not in json.dumps(info)
    assert np.array_equal(obs["screen"], env.unwrapped._frame)
    # the message stays after the takeover (also after a restart)
    x, y = env.unwrapped.suite.targets()["restart"].center
    obs2, *_ = env.step({"type": "click", "x": x, "y": y})
    assert obs2["text"].split("\n")[2:] == text.split("\n")[2:]
    # a new episode (plain reset, no takeover) clears it
    obs3, _ = env.reset(seed=0)
    assert "State information" not in obs3["text"]
    env.close()


def test_checkpoint_files_carry_their_certificate_and_are_never_overwritten(found, tmp_path):
    ckpt = by_class(found["BoltUnscrew"], "D")
    path = files.save(ckpt, tmp_path)
    assert path.name == files.checkpoint_name(ckpt) + files.SUFFIX
    with pytest.raises(CheckpointError, match="never overwritten"):
        files.save(ckpt, tmp_path)
    loaded = files.load(path)
    assert loaded.certificate == json.loads(json.dumps(ckpt.certificate))
    assert Checkpoint.load(path).certificate == loaded.certificate  # an ordinary checkpoint file
    rows = files.list_checkpoints(tmp_path)
    assert len(rows) == 1 and rows[0]["class"] == "D" and rows[0]["file"] == path.name
    # tampering with the certificate is detected
    doc = json.loads(path.read_text())
    doc["certificate"]["class"] = "N"
    bad = tmp_path / ("tampered" + files.SUFFIX)
    bad.write_text(json.dumps(doc))
    with pytest.raises(CheckpointError, match="certificate does not match"):
        files.load(bad)
    assert "error" in next(r for r in files.list_checkpoints(tmp_path) if r["file"] == bad.name)


@pytest.mark.parametrize(
    "change,field",
    [
        (lambda c: c.update({"class": "X"}), "certificate.class"),
        (lambda c: c.update({"verdict": "solvable"}), "certificate.verdict"),
        (lambda c: c["prefix"].append({"type": "teleport"}), "certificate.prefix"),
        (lambda c: c["prefix"].append({"type": "answer", "text": "x"}), "certificate.prefix"),
        (lambda c: c.update({"level": 0}), "level"),
        (lambda c: c.pop("frame_sha256"), "certificate.frame_sha256"),
        (lambda c: c.update({"secret": 1}), "certificate.secret"),
        (lambda c: c.update({"source": {"kind": "guess"}}), "certificate.source.kind"),
    ],
)
def test_bad_certificates_are_rejected_naming_the_field(found, change, field):
    cert = json.loads(json.dumps(by_class(found["BoltUnscrew"], "D").certificate))
    change(cert)
    with pytest.raises(CheckpointError, match=field.replace(".", r"\.")):
        files.check_certificate(cert)


def test_a_prefix_that_does_not_reproduce_the_board_is_refused(found):
    ckpt = by_class(found["BoltUnscrew"], "D")
    cert = json.loads(json.dumps(ckpt.certificate))
    cert["prefix"] = cert["prefix"][:-1] + [{"type": "wait"}]
    wrong = Checkpoint(ckpt.config, ckpt.payload, ckpt.catalogue, ckpt.version, cert)
    with pytest.raises(CheckpointError, match="does not reproduce"):
        Controller(wrong).replay(Controller(wrong).make_env())


def test_random_play_finder_checks_its_bounds():
    with pytest.raises(ConfigError, match="max_playouts"):
        lab.find_in_random_play("LongPuzzle/NutAndBolt-Hard", 1, max_playouts=0)


def test_a_certificate_written_with_the_earlier_name_step_reads_as_actions(found):
    cert = json.loads(json.dumps(by_class(found["BoltUnscrew"], "D").certificate))
    old = {("step" if k == "actions" else k): v for k, v in cert.items()}
    assert "actions" not in old and files.check_certificate(old) == cert
