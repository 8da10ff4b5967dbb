"""The sameness checks of a game's JAX twin (``envs/<game>/twin.py``) against its Python
rules and view on the level screen, used by every tests/test_twin_<game>.py (the env-level
check, the twin env against the Python board env, is ``puzzlegym.jax.sameness``).

The twin plays many random index sequences at once (``vmap`` over sequences, ``lax.scan``
over steps, compiled once per :class:`TwinCheck`: one padding, one table of ``table``
levels, which each sequence picks its row of with ``Twin.select``, so twins with ragged
level tables, such as Rush Hour's cluster tables, play as the others do); the Python side
then plays each sequence through a real :class:`~puzzlegym.suite.shell.Suite` (board
targets as GUI clicks through the gesture recognizer, Restart and Undo as clicks on the
level screen's buttons) and compares, before every action: the rules state and the
selection (``Twin.to_python``), the planes (``Game.planes.encode``), the mask (each index
tried through ``Suite.would_change``, as ``BoardActions`` tries it; the view's computed
``target_changes`` must equal the tried board targets), the potential and the solved flag.

An index sequence is masked random play: at each step, with probability 0.9 an index the
twin's mask allows, otherwise any index (a rejected move, a click on nothing). Both sides
play the same indices, so a mask that differs fails at once. A solved level restarts (the
twin's ``init``; the suite opens the level again).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from puzzlegym import solvers
from puzzlegym.base.actions import Click
from puzzlegym.game import Game
from puzzlegym.game.splits import level_targets
from puzzlegym.game.twin import Twin
from puzzlegym.screen.input import GestureRecognizer, action_events
from puzzlegym.screen.layout import BOARD_AREA, header_buttons
from puzzlegym.suite.shell import Suite, gesture_changes

ANY_INDEX = 0.1  # the share of steps that take any index, masked or not
# XLA's CPU backend without its costly optimisations: the same results (the twins compute in
# integers, and their one division is IEEE either way), a compile in half the time
QUICK_COMPILE = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}


@dataclass
class Played:
    """What the twin did over ``(sequences, steps)``: the state before each action (a
    pytree), its planes, mask, potential and solved flag, the action, and whether it solved
    the level."""

    states: Any
    planes: np.ndarray
    mask: np.ndarray
    potential: np.ndarray
    solved: np.ndarray
    actions: np.ndarray
    won: np.ndarray


class TwinCheck:
    """A twin bound to ``levels`` (their padding; ``targets`` board targets, default the
    most any of them has; ``steps`` bounds Undo's history) with its sequence player
    compiled once (``batch`` sequences at a time on a table of ``table`` levels, default
    ``len(levels)``): :meth:`play` any levels of that padding, then :meth:`compare` the
    Python side."""

    def __init__(
        self,
        game: Game,
        twin: Twin,
        levels: list,
        steps: int,
        batch: int,
        table: int | None = None,
        targets: int | None = None,
    ) -> None:
        self.game, self.steps, self.batch = game, steps, batch
        self.table = len(levels) if table is None else table
        self.shape = tuple(int(v) for v in game.planes.shape(levels))
        if targets is None:
            targets = max(level_targets(game, level) for level in levels)
        self.twin = twin.bind(twin.sizes_for(levels), targets, steps)
        self.buttons = ("restart", "undo") if game.has_undo else ("restart",)
        sequences = jax.vmap(self._sequence, in_axes=(None, 0, 0, 0, 0))
        self._play = jax.jit(sequences, compiler_options=QUICK_COMPILE)

    def fits(self, level: Any) -> bool:
        """Whether ``level`` fits this check's padding, targets and planes."""
        sizes = self.twin.sizes_for([level])
        return (
            all(v <= self.twin.sizes[k] for k, v in sizes.items())
            and level_targets(self.game, level) <= self.twin.n_targets
            and self.game.planes.fits(level, self.shape)
        )

    # -- the twin side (traced) --------------------------------------------------------------
    def _mask(self, lv: Any, state: Any) -> Any:
        twin = self.twin
        parts = [twin.target_mask(lv, state), twin.restartable(lv, state)[None]]
        if self.game.has_undo:
            parts.append(twin.undoable(lv, state)[None])
        return jnp.concatenate(parts)

    def _sequence(self, stacked: Any, row: Any, forced: Any, pick: Any, masked: Any) -> Any:
        twin, k = self.twin, self.twin.n_targets
        lv = twin.select(stacked, row)

        def step(state: Any, draw: Any) -> Any:
            script, u, use_mask = draw
            mask = self._mask(lv, state)
            allowed = jnp.where(use_mask & jnp.any(mask), mask, True)
            rank = jnp.floor(u * jnp.sum(allowed)).astype(jnp.int32)
            action = jnp.argmax(jnp.cumsum(allowed) > rank).astype(jnp.int32)
            action = jnp.where(script >= 0, script, action)
            choices = [twin.target(lv, state, jnp.minimum(action, k - 1)), twin.restart(lv, state)]
            if self.game.has_undo:
                choices.append(twin.undo(lv, state))
            new = choices[0]
            for i, choice in enumerate(choices[1:], start=1):  # index k + i - 1: button i - 1
                new = jax.tree.map(
                    lambda x, y, i=i: jnp.where(action == k + i - 1, x, y), choice, new
                )
            won = (action < k) & twin.solved(lv, new)
            new = jax.tree.map(lambda a, b: jnp.where(won, a, b), twin.init(lv), new)
            record = (
                state,
                twin.planes(lv, state, self.shape),
                mask,
                twin.potential(lv, state),
                twin.solved(lv, state),
                action,
                won,
            )
            return new, record

        _, record = jax.lax.scan(step, twin.init(lv), (forced, pick, masked))
        return record

    def play(
        self, levels: list, per_level: int, seed: int, scripts: dict | None = None
    ) -> tuple[list, Played]:
        """``per_level`` sequences of :attr:`steps` actions from each of ``levels``: the level
        of each sequence and what the twin did. ``scripts`` maps a level's position in
        ``levels`` to index lists that some of its sequences play first (one each, in order:
        e.g. its solution, half of it), random play following."""
        stacked = self.stack(levels)
        rng = np.random.default_rng(seed)
        rows = np.repeat(np.arange(len(levels), dtype=np.int32), per_level)
        forced = np.full((len(rows), self.steps), -1, dtype=np.int32)
        for i, indices in (scripts or {}).items():
            for j, script in enumerate(indices[:per_level]):
                forced[i * per_level + j, : len(script)] = script[: self.steps]
        pick = rng.random((len(rows), self.steps), dtype=np.float32)
        masked = rng.random((len(rows), self.steps)) >= ANY_INDEX
        n = len(rows)
        chunks = []
        for start in range(0, n, self.batch):  # batches of one size: one compile
            part = [a[start : start + self.batch] for a in (rows, forced, pick, masked)]
            pad = self.batch - len(part[0])
            part = [np.concatenate([a, np.repeat(a[:1], pad, axis=0)]) for a in part]
            chunks.append(jax.device_get(self._play(stacked, *part)))
        out = jax.tree.map(lambda *xs: np.concatenate(xs)[:n], *chunks)
        return [levels[i] for i in rows], Played(*out)

    def stack(self, levels: list) -> Any:
        """The twin's table of ``levels`` (at most :attr:`table`; padded with copies of the
        last, so every table has the compiled shape)."""
        assert 1 <= len(levels) <= self.table, (len(levels), self.table)
        encoded = [self.twin.encode(level) for level in levels]
        return self.twin.stack(encoded + encoded[-1:] * (self.table - len(levels)))

    def solution(self, level: Any, moves: list | None = None) -> list[int]:
        """The board-target indices that play the rules ``moves`` (default: the solver's
        solution) from the level's start (each move's GUI actions,
        ``GameView.actions_for_move``, found among the targets)."""
        game = self.game
        if moves is None:
            moves = list(solvers.solve(level).moves)
        suite = Suite({game.name: game}, lambda g, t: [level, level])
        suite.open_level(game.name, level.tier, 0)
        out = []
        for move in moves:
            b = suite.board
            assert b is not None
            targets = game.view.board_targets(level, b.state, b.ui, BOARD_AREA)
            for click in game.view.actions_for_move(level, b.state, b.ui, move, BOARD_AREA):
                out.append(targets.index(click))
                for g in _gestures(click):
                    suite.handle(g)
        return out

    # -- the Python side ---------------------------------------------------------------------
    def compare(self, levels: list, played: Played) -> Counter:
        """Play every sequence through the suite, comparing before each action; returns how
        many actions were compared (``"steps"``) and of which kind: ``"changed"`` (the mask
        allowed it), ``"unchanged"``, ``"restart"``, ``"undo"`` (pressed with something to
        restart or undo) and ``"won"``."""
        rules, view = self.game.rules, self.game.view
        buttons = header_buttons(self.game.has_undo)
        presses = [Click(*buttons[name].center) for name in self.buttons]
        k, seen = self.twin.n_targets, Counter()
        for n, level in enumerate(levels):
            suite = Suite({self.game.name: self.game}, lambda g, t, level=level: [level, level])
            suite.open_level(self.game.name, level.tier, 0)
            states = jax.tree.map(lambda x, n=n: x[n], played.states)
            for t in range(self.steps):
                where = f"{level.id}, sequence {n}, step {t}"
                b = suite.board
                assert b is not None, where
                twin_state = jax.tree.map(lambda x, t=t: x[t], states)
                assert self.twin.to_python(level, twin_state) == (b.state, b.ui), where
                expected = self.game.planes.encode(level, b.state, b.ui, self.shape)
                assert np.array_equal(played.planes[n, t], expected), where
                targets = view.board_targets(level, b.state, b.ui, BOARD_AREA)
                controls = suite.targets()
                tried = [c is not None and _changes(suite, controls, c) for c in targets]
                assert view.target_changes(level, b.state, b.ui) == tried, where
                tried += [False] * (k - len(tried))
                tried += [_changes(suite, controls, c) for c in presses]
                assert played.mask[n, t].tolist() == tried, where
                assert played.potential[n, t] == np.float32(rules.potential(level, b.state)), where
                assert bool(played.solved[n, t]) == rules.is_solved(level, b.state), where
                action = int(played.actions[n, t])
                click = presses[action - k] if action >= k else None
                if action < len(targets):
                    click = targets[action]
                seen["steps"] += 1
                seen["changed" if tried[action] else "unchanged"] += 1
                if action >= k and tried[action]:
                    seen[self.buttons[action - k]] += 1
                for g in _gestures(click) if click is not None else ():
                    suite.handle(g)
                board = suite.board
                assert board is not None, where
                won = action < k and rules.is_solved(level, board.state)
                assert bool(played.won[n, t]) == won, where
                if won:
                    seen["won"] += 1
                    suite.open_level(self.game.name, level.tier, 0)
        return seen


_GESTURES: dict[Click, list] = {}


def _gestures(click: Click) -> list:
    """The gestures a click makes (a fresh recognizer, as BoardActions has it)."""
    if click not in _GESTURES:
        recognizer = GestureRecognizer()
        _GESTURES[click] = [g for e in action_events(click, 0) for g in recognizer.feed(e)]
    return _GESTURES[click]


def _changes(suite: Suite, controls: dict, click: Click) -> bool:
    """Whether the click would change anything: each of its gestures tried on the suite
    (``Suite.would_change``, with the screen's ``controls`` found once)."""
    return any(gesture_changes(suite.screen, controls, suite.board, g) for g in _gestures(click))


def generated_levels(game: Game) -> list:
    """Training levels of every tier of ``game`` as ``puzzlegym.game.splits.TrainingLevels``
    gives them (the game package's test data, ``generated_levels.json``: levels 0 and 1 of the
    unbounded split from seed 0, stored because some tiers take a minute to generate), each
    loaded through the game's strict ``level_from_json``."""
    doc = json.loads((resources.files(game.package) / "generated_levels.json").read_text("utf-8"))
    levels = doc["levels"]
    return [game.level_from_json(level) for tier in game.tiers for level in levels[tier]]
