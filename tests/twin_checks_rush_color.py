"""Shared checks of the games' JAX twins (``envs/<game>/twin.py``) against the Python rules and
view, used by tests/test_twin_<game>.py.

The twin plays many index sequences at once (one jitted, vmapped ``lax.scan``): at each step
it records its mask (board targets, then Restart), planes, potential, solved flag and state,
then performs an index drawn from its own mask (or the next index of a given prefix, such as
the solver's solution). The Python side then plays the same indices on the rules and the
view, as the suite does (a target's gestures through the view, its move through the rules,
``after_move``; Restart back to the level's start), and at every step the twin's record must
equal the Python board's: the mask equals both the tried mask (each target's gestures asked
of ``gesture_changes``) and the view's computed ``target_changes``, the planes
``Game.planes.encode``, the potential ``rules.potential`` rounded to ``float32``, the solved
flag ``rules.is_solved`` and ``to_python`` the rules state and the ui.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial
from types import SimpleNamespace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from puzzlegym import solvers
from puzzlegym.env.probe import BOARD_AREA, LEVEL
from puzzlegym.game import Game, Rejected
from puzzlegym.game.twin import Twin
from puzzlegym.screen.input import GestureRecognizer, action_events
from puzzlegym.suite.shell import gesture_changes


@lru_cache(maxsize=65536)
def gestures(action: Any) -> tuple:
    """The gestures ``action`` makes on its own (as BoardActions finds them)."""
    recognizer = GestureRecognizer()
    return tuple(g for e in action_events(action, 0) for g in recognizer.feed(e))


@dataclass
class Board:
    """One level played on the Python rules and view, as the suite plays its board."""

    game: Game
    level: Any
    state: Any = None
    ui: Any = None
    _targets: tuple | None = None  # ((state, ui), board_targets) of the last call

    def __post_init__(self) -> None:
        self.restart()

    @property
    def undoable(self) -> bool:
        return False

    def restart(self) -> None:
        self.state = self.game.rules.initial_state(self.level)
        self.ui = self.game.view.initial_ui(self.level, self.state)

    def targets(self) -> list:
        key = (self.state, self.ui)
        if self._targets is None or self._targets[0] != key:
            found = self.game.view.board_targets(self.level, self.state, self.ui, BOARD_AREA)
            self._targets = (key, found)
        return self._targets[1]

    def tried_mask(self, k: int) -> list[bool]:
        """Each target's would-change, tried through ``gesture_changes``; then Restart."""
        board = SimpleNamespace(
            game=self.game, level=self.level, state=self.state, ui=self.ui, undoable=False
        )
        out = [
            a is not None and any(gesture_changes(LEVEL, {}, board, g) for g in gestures(a))
            for a in self.targets()
        ]
        out += [False] * (k - len(out))
        initial = self.game.rules.initial_state(self.level)
        restart = self.state != initial or self.ui != self.game.view.initial_ui(self.level, initial)
        return [*out, restart]

    def computed_mask(self, k: int) -> list[bool]:
        out = [bool(v) for v in self.game.view.target_changes(self.level, self.state, self.ui)]
        return out + [False] * (k - len(out))

    def perform(self, index: int, k: int) -> None:
        """Index ``index`` of BoardActions' order: a board target, or Restart (``k``)."""
        if index == k:
            self.restart()
            return
        found = self.targets()
        if index >= len(found) or found[index] is None:
            return
        view, rules = self.game.view, self.game.rules
        for gesture in gestures(found[index]):
            outcome = view.on_gesture(self.level, self.state, self.ui, gesture, BOARD_AREA)
            ui = outcome.ui
            if outcome.move is not None:
                result = rules.apply(self.level, self.state, outcome.move)
                if not isinstance(result, Rejected):
                    self.state = result
                    ui = view.after_move(self.level, self.state, ui)
            self.ui = ui


def solution_indices(game: Game, level: Any) -> list[int]:
    """The solver's solution of ``level`` from its start as board-target indices."""
    board = Board(game, level)
    out: list[int] = []
    for move in solvers.solve(level).moves:
        for action in game.view.actions_for_move(level, board.state, board.ui, move, BOARD_AREA):
            index = board.targets().index(action)
            out.append(index)
            board.perform(index, len(board.targets()))
    assert game.rules.is_solved(level, board.state)
    return out


def _where(take: Any, a: Any, b: Any) -> Any:
    return jax.tree.map(lambda x, y: jnp.where(take, x, y), a, b)


# the checks run a few hundred steps: compiling fast matters more than running fast
@partial(jax.jit, static_argnums=(0, 1), compiler_options={"xla_backend_optimization_level": 0})
def _rollouts(twin: Twin, shape: tuple, stacked: Any, rows: Any, noise: Any, forced: Any):
    k = twin.n_targets

    def one(row: Any, draws: Any, prefix: Any) -> Any:
        lv = twin.select(stacked, row)

        def record(s: Any) -> dict:
            return {
                "mask": jnp.concatenate([twin.target_mask(lv, s), twin.restartable(lv, s)[None]]),
                "planes": twin.planes(lv, s, shape),
                "potential": twin.potential(lv, s),
                "solved": twin.solved(lv, s),
                "state": s,
            }

        def step(s: Any, inputs: Any) -> tuple[Any, dict]:
            draw, given = inputs
            out = record(s)
            allowed = jnp.where(jnp.any(out["mask"]), out["mask"], True)
            drawn = jnp.argmax(jnp.where(allowed, draw, -1.0))  # uniform over the allowed
            index = jnp.where(given >= 0, given, drawn).astype(jnp.int32)
            after = _where(
                index < k,
                twin.target(lv, s, jnp.minimum(index, k - 1)),
                twin.restart(lv, s),
            )
            return after, {**out, "index": index}

        # one step more than asked: its record is the last board's (its index is dropped)
        _, outs = jax.lax.scan(step, twin.init(lv), (draws, prefix))
        return outs

    return jax.vmap(one)(rows, noise, forced)


@dataclass(frozen=True)
class Rollouts:
    """Index sequences of one bound twin, always ``batch`` sequences of ``steps`` indices on
    a table of ``n_levels`` levels: every call runs the one compiled function (fewer levels
    are padded with copies of the last, fewer sequences with copies of the first, and
    dropped from the result)."""

    twin: Twin
    shape: tuple[int, int, int]
    n_levels: int
    batch: int
    steps: int

    def stack(self, levels: list) -> Any:
        """The twin's table of ``levels`` (at most ``n_levels``)."""
        assert 1 <= len(levels) <= self.n_levels
        encoded = [self.twin.encode(level) for level in levels]
        return self.twin.stack(encoded + encoded[-1:] * (self.n_levels - len(levels)))

    def run(
        self, stacked: Any, rows: list[int], seed: int, prefixes: list[list[int]] | None = None
    ) -> dict[str, np.ndarray]:
        """The twin's records of the sequences on level rows ``rows`` (sequence ``i`` starts
        with ``prefixes[i]``, then draws uniformly from its mask), ``steps + 1`` records
        each (the last after the last index)."""
        n, steps = len(rows), self.steps
        assert 1 <= n <= self.batch
        forced = np.full((self.batch, steps + 1), -1, dtype=np.int32)
        for i, prefix in enumerate(prefixes or []):
            forced[i, : min(steps, len(prefix))] = prefix[:steps]
        noise = np.random.default_rng(seed).random((self.batch, steps + 1, self.twin.n_targets + 1))
        padded = [*rows, *[rows[0]] * (self.batch - n)]
        out = _rollouts(
            self.twin,
            tuple(self.shape),
            stacked,
            jnp.asarray(padded, jnp.int32),
            jnp.asarray(noise, jnp.float32),
            jnp.asarray(forced),
        )
        out = jax.tree.map(lambda x: x[:n], jax.device_get(out))
        out["index"] = out["index"][:, :steps]
        return out


def check_sequences(
    game: Game, twin: Twin, shape: tuple, levels: list, rows: list[int], out: dict
) -> int:
    """Replay every recorded sequence on the Python side and assert that each step agrees
    (see the module docstring); returns the steps compared."""
    k = twin.n_targets
    compared = 0
    for i, row in enumerate(rows):
        level = levels[row]
        board = Board(game, level)
        n = len(out["index"][i])
        for t in range(n + 1):
            where = f"level {level.id!r}, sequence {i}, step {t}, indices {out['index'][i][:t]}"
            mask = out["mask"][i][t].tolist()
            assert mask == board.tried_mask(k), where
            assert mask[:k] == board.computed_mask(k), where
            planes = game.planes.encode(level, board.state, board.ui, shape)
            assert np.array_equal(out["planes"][i][t], planes), where
            potential = np.float32(game.rules.potential(level, board.state))
            assert out["potential"][i][t] == potential, where
            assert bool(out["solved"][i][t]) == game.rules.is_solved(level, board.state), where
            state = jax.tree.map(lambda x, i=i, t=t: x[i][t], out["state"])
            assert twin.to_python(level, state) == (board.state, board.ui), where
            compared += 1
            if t < n:
                board.perform(int(out["index"][i][t]), k)
    return compared
