"""Evaluator bookkeeping on a scripted board whose dead-end certificate the test controls:
attempts, dead-end runs (fatal move, delay, recovery), LC/FGP."""

from dataclasses import dataclass, field

import pytest

from puzzlegym.record.evaluator import Evaluator, Objective


@dataclass
class FakeGame:
    name: str = "Fake"
    dead: set = field(default_factory=set)  # states that are dead ends
    describe = None

    def dead_end(self, level, state):
        return state in self.dead

    def state_to_json(self, level, state):
        return state


@dataclass
class FakeBoard:
    game: FakeGame
    state: int = 0
    tier: str = "Hard"
    index: int = 0
    level: object = None

    @property
    def potential(self):
        return min(self.state, 9) / 10

    @property
    def solved(self):
        return self.state == 10


class Stamp:
    """The env's side of the evaluator's stamps: the action count (advanced by the test)."""

    def __init__(self):
        self.step = 0

    def __call__(self):
        return self.step, 0.0


def scripted():
    game = FakeGame(dead={3, 4, 5})
    board = FakeBoard(game)
    ev = Evaluator(Objective("Fake", "Hard", (0, 1)), stamp=Stamp())
    return ev, board


def move(ev, board, state):
    ev.stamp.step += 1
    board.state = state
    ev.board_settled(board, ("m", state))


def test_dead_end_run_recovered_by_undo_counts_the_fatal_move():
    ev, b = scripted()
    ev.level_ready(b)
    move(ev, b, 1)
    move(ev, b, 3)  # fatal
    move(ev, b, 4)
    move(ev, b, 5)
    ev.stamp.step += 1
    b.state = 4
    ev.undone(b)  # still dead: the run goes on
    ev.stamp.step += 1
    b.state = 1
    ev.undone(b)  # solvable again
    a = ev.attempt
    assert a["dead_end"] and a["moves"] == 4 and a["undos"] == 2
    assert a["runs"] == [
        {"fatal_actions": 2, "fatal_move": ("m", 3), "delay": 3, "recovered_by": "undo"}
    ]


def test_restart_closes_the_run_and_opens_a_new_attempt():
    ev, b = scripted()
    ev.level_ready(b)
    move(ev, b, 3)
    move(ev, b, 4)
    b.state = 0
    ev.restarted(b)
    assert len(ev.attempts) == 1
    closed = ev.attempts[0]
    assert closed["end"] == "restart"
    assert closed["runs"] == [
        {"fatal_actions": 1, "fatal_move": ("m", 3), "delay": 2, "recovered_by": "restart"}
    ]
    assert ev.attempt["moves"] == 0 and not ev.attempt["dead_end"]
    move(ev, b, 3)
    ev.finish()
    assert ev.attempts[-1]["end"] == "episode_end"
    assert ev.attempts[-1]["runs"][0]["recovered_by"] == "attempt_end"
    assert ev.summary()["dead_end_attempts"] == 2


def test_lc_fgp_keep_credit_and_best_potential():
    ev, b = scripted()
    ev.level_ready(b)
    move(ev, b, 7)
    move(ev, b, 2)
    assert ev.fgp == pytest.approx(0.7 / 2)
    move(ev, b, 10)
    ev.level_won(b)
    b2 = FakeBoard(b.game, index=1)
    ev.level_ready(b2)
    move(ev, b2, 6)
    assert ev.lc == 0.5 and ev.fgp == pytest.approx((1 + 0.6) / 2)
    assert ev.levels_won == [1] and not ev.success
    assert ev.progress(b2) == pytest.approx(1.6)
