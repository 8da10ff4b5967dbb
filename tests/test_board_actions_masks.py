"""BoardActions' computed masks (``GameView.target_changes`` and the suite's decision of a
press) equal the masks found by trying every index, over random play of every id, on every
screen (home, difficulty, level, level complete, objective complete)."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlegym import solvers
from puzzlegym.base.actions import to_dict
from puzzlegym.game.registry import env_ids, parse_env_id
from puzzlegym.wrappers import make_sb3_env

STEPS = 100


def computes(env_id: str) -> bool:
    game, _ = parse_env_id(env_id)
    return getattr(game.view, "target_changes", None) is not None


@pytest.mark.parametrize("env_id", env_ids())
def test_computed_masks_equal_tried_masks_over_random_play(env_id):
    env = make_sb3_env(env_id, actions="board", observation="board", start="board")
    try:
        rng = np.random.default_rng(sum(map(ord, env_id)))
        env.reset(seed=0)
        screens = set()

        def check(step):
            tried = env.get_wrapper_attr("tried_masks")()
            mask = env.get_wrapper_attr("action_masks")()
            assert mask.tolist() == tried.tolist(), f"step {step}"
            probe = env.unwrapped.probe()
            screens.add(probe.screen)
            if probe.board is not None and probe.screen == "level":  # the targets, memo or not
                fresh = probe.board.board_targets()
                targets = env.get_wrapper_attr("targets")()
                assert targets[: len(fresh)] == fresh, f"step {step}"
            return tried

        # level 1 solved by the solver's GUI actions: the level-complete screen (or, for a
        # tier of one level, the objective-complete screen) and their buttons
        board = env.unwrapped.probe().board
        for move in solvers.solve(board.level).moves:
            check("solution")
            for action in env.unwrapped.probe().board.actions_for_move(move):
                over = env.unwrapped.step(to_dict(action))[2]
        check("solved")
        if over:  # the tier's only level: the objective is complete
            env.reset()
        for step in range(STEPS):
            tried = check(step)
            # mostly masked play; now and then any index (a wait, a rejected move)
            choices = np.flatnonzero(tried) if rng.random() < 0.9 else np.arange(len(tried))
            _, _, terminated, truncated, _ = env.step(int(rng.choice(choices)))
            if terminated or truncated:
                env.reset()
        assert {"level", "home"} <= screens
        assert screens & {"level_complete", "objective_complete"}
    finally:
        env.close()


def test_the_computed_mask_is_used_and_can_disagree(monkeypatch):
    """The check can fail: a view whose target_changes lies gives a mask the tried one
    does not."""
    env_id = "LongPuzzle/MazePaint-Easy"
    assert computes(env_id)
    game, _ = parse_env_id(env_id)
    env = make_sb3_env(env_id, actions="board", observation="board", start="board", level=1)
    try:
        env.reset(seed=0)
        tried = env.get_wrapper_attr("tried_masks")()
        monkeypatch.setattr(
            type(game.view), "target_changes", lambda self, level, state, ui: [True] * 4
        )
        env.step(int(np.flatnonzero(tried)[0]))  # a new screen version: no memo
        tried = env.get_wrapper_attr("tried_masks")()
        lied = env.get_wrapper_attr("action_masks")()
        assert lied[:4].all() and not tried[:4].all()
    finally:
        env.close()
