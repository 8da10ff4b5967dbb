"""The level screen of one objective as a gymnax ``Environment``: a game's twin
(:class:`puzzlegym.game.twin.Twin`) with everything around its board that the Python board env
has (``make_sb3_env(id, actions="board", observation="board", start="board",
buttons=("restart",) [+ ("undo",)])``, one level per episode).

* **Actions** are :class:`~puzzlegym.wrappers.BoardActions`' indices: ``i < K`` the twin's
  board target ``i``, then Restart, then Undo (games with Undo). An index out of range does
  nothing but take time, as a target that does not exist does (the Python env performs a
  ``wait``).
* **Observations** are :class:`~puzzlegym.wrappers.BoardObservation`'s ``uint8`` ``(C, H,
  W)`` planes: the twin's game planes, one plane per suite screen, the level's index in
  binary (unless ``level_bits=False``) and ``undoable`` (games with Undo). A won level shows
  the level-complete screen, or the objective-complete screen (no board) after the tier's
  last level, as the Python env does.
* **The reward** is the change of the evaluator's progress (the level's potential, 1 once
  won), or of its integer part (``reward="sparse"``), in float32.
* **The episode** terminates when the level is won and is truncated after ``budget``
  actions (``EnvParams.budget``, per level); ``step`` resets automatically (gymnax's
  ``Environment.step``), ``step_env`` does not. ``info`` carries ``terminated``,
  ``truncated`` and ``discount``.
* **Dead ends** (``Spec.dead_end``, :mod:`puzzlegym.jax.deadends`): with ``"restart"``
  Restart is clicked right after an action that lands on a certified dead end (one more
  action of the budget, its reward added); with ``"penalty"`` ``dead_end_penalty`` is taken
  off the reward of each action after which the board is one; ``info["dead_end"]`` says so.
* **The action mask** travels in the state, as pgx's does: ``state.legal_action_mask``
  (``bool[num_actions]``) is ``BoardActions.action_masks()`` of the same moment, the indices
  that would change the board, its selection or the screen, every index when none would. So a
  gymnax wrapper that wraps the state (``LogWrapper``: ``state.env_state.legal_action_mask``)
  carries it; :func:`legal_action_mask` reads it through any such wrapping, and
  :meth:`PuzzleJaxEnv.action_mask` ``(state, params)`` is that reading.

Envs are made by :func:`puzzlegym.jax.make`. Two envs with the same static configuration
and the same level tables compare equal, so they share jitted functions (gymnax jits
``step`` and ``reset`` with the env as a static argument); :meth:`PuzzleJaxEnv.structure`
is what code traced with explicit params depends on.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from flax import struct
from gymnax.environments import environment, spaces

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count
from puzzlegym.env.probe import LEVEL, LEVEL_COMPLETE, OBJECTIVE_COMPLETE, SCREENS
from puzzlegym.game.twin import Twin
from puzzlegym.jax.deadends import is_dead_end

__all__ = ["EnvParams", "EnvState", "PuzzleJaxEnv", "Spec", "legal_action_mask"]

_LEVEL, _LEVEL_COMPLETE, _OBJECTIVE_COMPLETE = (
    SCREENS.index(LEVEL),
    SCREENS.index(LEVEL_COMPLETE),
    SCREENS.index(OBJECTIVE_COMPLETE),
)


@struct.dataclass
class EnvState(environment.EnvState):
    """One env's moment: ``time`` (actions of this episode), ``level`` (the row of the
    level tables in :class:`EnvParams`), ``board`` (the twin's state), ``won`` and
    ``legal_action_mask`` (``bool[num_actions]``: the actions that would change something,
    every action when none would)."""

    level: jax.Array
    board: Any
    won: jax.Array
    legal_action_mask: jax.Array


def legal_action_mask(state: Any) -> Any:
    """The action mask of a :class:`EnvState`, or of a wrapper's state around one (any chain of
    ``env_state`` attributes, as gymnax's ``LogWrapper`` makes)."""
    while not hasattr(state, "legal_action_mask"):
        if not hasattr(state, "env_state"):
            raise ConfigError(
                f"state: a {type(state).__name__} holds no puzzlegym EnvState "
                "(no legal_action_mask, no env_state)"
            )
        state = state.env_state
    return state.legal_action_mask


@struct.dataclass
class EnvParams(environment.EnvParams):
    """The levels an env plays, as arrays: ``levels`` (the twin's stacked level tables),
    per level ``index`` (its 0-based position in the tier, what the level bits show),
    ``last`` (winning it completes the objective: the objective-complete screen) and
    ``budget`` (its episodes' actions); ``max_steps_in_episode`` (static) bounds every
    budget (the twin is bound to it)."""

    levels: Any = None
    index: Any = None
    last: Any = None
    budget: Any = None
    dead_keys: Any = None  # the dead-end oracle (Spec.dead_end != "none"): puzzlegym.jax.deadends
    dead_count: Any = None


@dataclass(frozen=True)
class Spec:
    """The static configuration of an env (what traced code reads besides its params)."""

    env_id: str
    levels: str  # "catalogue", "generated" or "held-out" (factory.make_held_out)
    num_levels: int | None  # the split (generated levels only)
    start_level: int | None
    n_targets: int
    buttons: tuple[str, ...]
    board_shape: tuple[int, int, int]  # the game's planes
    level_bits: int  # how many level-bit planes
    reward: str
    fingerprint: str  # SHA-256 of the default params' arrays
    # the row of each training level (make(..., distinct=True)); None: row i is level i. Not
    # compared nor hashed (the fingerprint holds it): envs are hashed at every jitted call
    row_of: tuple[int, ...] | None = field(default=None, compare=False)
    dead_end: str = "none"  # what a dead end in play does (puzzlegym.jax.deadends.DEAD_ENDS)
    dead_end_penalty: float = 0.0  # dead_end="penalty": subtracted from such an action's reward


class PuzzleJaxEnv(environment.Environment[EnvState, EnvParams]):
    """A puzzlegym objective's level screen on a JAX twin (see the module docstring)."""

    def __init__(self, twin: Twin, spec: Spec, params: EnvParams) -> None:
        super().__init__()
        self.twin = twin
        self.spec = spec
        self._params = params
        self.n_targets = spec.n_targets
        self.buttons = spec.buttons
        self.board_shape = spec.board_shape
        self.undo = "undo" in spec.buttons
        planes = spec.board_shape[0] + len(SCREENS) + spec.level_bits + (1 if self.undo else 0)
        self.obs_shape = (planes, spec.board_shape[1], spec.board_shape[2])

    # -- identity: equal envs share jitted code -------------------------------------------
    def structure(self) -> tuple:
        """What code traced with explicit params depends on: the twin's binding and the
        static configuration, not the levels (two envs of one structure run one compiled
        function on each other's params)."""
        twin, spec = self.twin, self.spec
        return (
            type(twin),
            tuple(sorted(twin.sizes.items())),
            twin.n_targets,
            twin.max_steps,
            spec.n_targets,
            spec.buttons,
            spec.board_shape,
            spec.level_bits,
            spec.reward,
            spec.dead_end,
            spec.dead_end_penalty,
        )

    def _key(self) -> tuple:
        # the default params too: gymnax's jitted step and reset read them when given None
        return (*self.structure(), self.spec, self._params.max_steps_in_episode)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PuzzleJaxEnv) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"PuzzleJaxEnv({self.spec.env_id!r}, levels={self.spec.levels!r})"

    # -- gymnax's API ---------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.spec.env_id

    @property
    def default_params(self) -> EnvParams:
        return self._params

    @property
    def num_actions(self) -> int:
        return self.spec.n_targets + len(self.spec.buttons)

    @property
    def n_levels(self) -> int:
        """The number of levels of the default params (the split or the catalogue)."""
        return int(self._params.budget.shape[0])

    def without_dead_end(self) -> PuzzleJaxEnv:
        """This env on the same params with ``dead_end="none"`` (its oracle left unread):
        what an evaluation of a policy trained with a dead-end intervention plays."""
        if self.spec.dead_end == "none":
            return self
        return PuzzleJaxEnv(
            self.twin, replace(self.spec, dead_end="none", dead_end_penalty=0.0), self._params
        )

    def row(self, training_level: int) -> int:
        """The level row of training level ``training_level`` (generated levels): itself,
        or with ``make(..., distinct=True)`` the row of its board."""
        row_of = self.spec.row_of
        n = self.n_levels if row_of is None else len(row_of)
        i = check_count(training_level, "training_level", 0, n - 1, ConfigError)
        return i if row_of is None else row_of[i]

    def training_level(self, row: int) -> int:
        """The first training level played by level row ``row`` (the inverse of
        :meth:`row` on first appearances)."""
        r = check_count(row, "row", 0, self.n_levels - 1, ConfigError)
        return r if self.spec.row_of is None else self.spec.row_of.index(r)

    def action_space(self, params: EnvParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(self.num_actions)

    def observation_space(self, params: EnvParams | None = None) -> spaces.Box:
        return spaces.Box(0, 1, self.obs_shape, jnp.uint8)

    def state_space(self, params: EnvParams | None = None) -> spaces.Dict:
        return spaces.Dict(
            {
                "time": spaces.Discrete(self._params.max_steps_in_episode + 1),
                "level": spaces.Discrete(self.n_levels),
            }
        )

    def take(self, params: EnvParams, rows: Any) -> EnvParams:
        """Levels ``rows`` (Python integers) of ``params`` as params of the same form, outside
        ``jit``: the level tables cut by the twin (:meth:`~puzzlegym.game.twin.Twin.take`, so a
        twin's ragged tables go with their levels), ``index``, ``last`` and ``budget`` row by
        row. What any code that plays some levels of an env on their own calls.

        Examples:
            >>> import puzzlegym.jax
            >>> env, params = puzzlegym.jax.make("LongPuzzle/MazePaint-Easy", levels="catalogue")
            >>> env.take(params, [2, 0]).index.tolist()
            [2, 0]
        """
        n = int(params.budget.shape[0])
        picked = [check_count(r, "rows[]", 0, n - 1, ConfigError) for r in rows]
        if not picked:
            raise ConfigError("rows: expected at least one level row")
        index = jnp.asarray(picked, jnp.int32)
        dead = {}
        if params.dead_keys is not None:  # the dead-end oracle's rows go with their levels
            dead = {"dead_keys": params.dead_keys[index], "dead_count": params.dead_count[index]}
        return params.replace(
            levels=self.twin.take(params.levels, picked),
            index=params.index[index],
            last=params.last[index],
            budget=params.budget[index],
            **dead,
        )

    def _level(self, params: EnvParams, state: EnvState) -> Any:
        return self.twin.select(params.levels, state.level)

    def start(self, params: EnvParams, level: Any) -> EnvState:
        """The start of the level in row ``level`` of the level tables."""
        level = jnp.asarray(level, jnp.int32)
        lv = self.twin.select(params.levels, level)
        board, won = self.twin.init(lv), jnp.bool_(False)
        return EnvState(
            time=jnp.int32(0),
            level=level,
            board=board,
            won=won,
            legal_action_mask=self._mask(lv, board, won),
        )

    def step(
        self, key: jax.Array, state: EnvState, action: Any, params: EnvParams | None = None
    ) -> tuple[jax.Array, EnvState, jax.Array, jax.Array, dict[str, Any]]:
        """gymnax's ``step``: :meth:`step_env`, and a level drawn afresh (:meth:`reset_env`)
        where the episode ended, its observation in place of the last one. The same as
        ``Environment.step``, with one observation computed instead of two."""
        return self._step(key, state, action, self.default_params if params is None else params)

    @partial(jax.jit, static_argnums=0)
    def _step(self, key, state, action, params):
        key_step, key_reset = jax.random.split(key)
        _, after, reward, done, info = self.step_env(key_step, state, action, params)
        n = params.budget.shape[0]
        fresh = self.start(params, jax.random.randint(key_reset, (), 0, n))
        after = jax.tree.map(lambda x, y: jax.lax.select(done, x, y), fresh, after)
        return self.get_obs(after, params), after, reward, done, info

    def reset_env(self, key: jax.Array, params: EnvParams) -> tuple[jax.Array, EnvState]:
        """A level of the params drawn uniformly, at its start."""
        n = params.budget.shape[0]
        state = self.start(params, jax.random.randint(key, (), 0, n))
        return self.get_obs(state, params), state

    def reset_level(
        self, key: jax.Array, params: EnvParams | None, level: Any
    ) -> tuple[jax.Array, EnvState]:
        """Start a given level: catalogue level ``level`` (1-based, as the Python env's
        ``level=k``), or generated level ``level`` of the split (0-based, as
        ``reset(options={"first_level": level})``). A Python int is checked (ConfigError);
        a traced one out of range is clipped."""
        params = self.default_params if params is None else params
        return self._start_obs(params, self.level_row(level, params))

    @partial(jax.jit, static_argnums=0)
    def _start_obs(self, params: EnvParams, row: Any) -> tuple[jax.Array, EnvState]:
        state = self.start(params, row)
        return self.get_obs(state, params), state

    def level_row(self, level: Any, params: EnvParams | None = None) -> Any:
        """The row of the level tables that level ``level`` is (see :meth:`reset_level`)."""
        params = self.default_params if params is None else params
        n = int(params.budget.shape[0])
        first = 1 if self.spec.levels == "catalogue" else 0
        if not _traced(level):  # a Python, numpy or concrete JAX integer: checked
            value = level.item() if hasattr(level, "item") and level.size == 1 else level
            check_count(value, "level", first, n - 1 + first, ConfigError)
        return jnp.clip(jnp.asarray(level, jnp.int32) - first, 0, n - 1)

    def step_env(
        self, key: jax.Array, state: EnvState, action: Any, params: EnvParams
    ) -> tuple[jax.Array, EnvState, jax.Array, jax.Array, dict[str, Any]]:
        twin, k = self.twin, self.spec.n_targets
        lv = self._level(params, state)
        a = jnp.asarray(action, jnp.int32)
        board = state.board
        live = ~state.won
        choices = [twin.target(lv, board, jnp.clip(a, 0, k - 1)), twin.restart(lv, board)]
        if self.undo:
            choices.append(twin.undo(lv, board))
        which = jnp.where(a < k, 0, a - k + 1)  # 0 target, 1 restart, 2 undo, else nothing
        new = board
        for i, choice in enumerate(choices):
            take = live & (a >= 0) & (which == i)
            new = jax.tree.map(lambda x, y, t=take: jnp.where(t, x, y), choice, new)
        won = state.won | (live & (a >= 0) & (a < k) & twin.solved(lv, new))
        time = state.time + 1
        budget = params.budget[state.level]
        before = jnp.where(state.won, jnp.float32(1.0), twin.potential(lv, board))
        after = jnp.where(won, jnp.float32(1.0), twin.potential(lv, new))
        spec = self.spec
        if spec.dead_end != "none":
            keys, count = params.dead_keys[state.level], params.dead_count[state.level]
            dead = live & ~won & is_dead_end(twin, lv, new, keys, count)
            if spec.dead_end == "restart":  # Restart clicked at once, within the budget
                restart = dead & (time < budget)
                restarted = twin.restart(lv, new)
                new = jax.tree.map(lambda x, y: jnp.where(restart, x, y), restarted, new)
                time = time + restart.astype(jnp.int32)
                after = jnp.where(restart, twin.potential(lv, new), after)
        truncated = ~won & (time >= budget)
        if spec.reward == "potential":
            reward = (after - before).astype(jnp.float32)
        else:
            reward = jnp.floor(after) - jnp.floor(before)
        info = {
            "terminated": won,
            "truncated": truncated,
            "discount": jnp.where(won, jnp.float32(0.0), jnp.float32(1.0)),
        }
        if spec.dead_end != "none":
            if spec.dead_end == "penalty":
                reward = reward - jnp.float32(spec.dead_end_penalty) * dead
            info["dead_end"] = dead
        next_state = EnvState(
            time=time,
            level=state.level,
            board=new,
            won=won,
            legal_action_mask=self._mask(lv, new, won),
        )
        return self.get_obs(next_state, params), next_state, reward, won | truncated, info

    def get_obs(self, state: EnvState, params: EnvParams | None = None, key: Any = None) -> Any:
        params = self.default_params if params is None else params
        twin, spec = self.twin, self.spec
        lv = self._level(params, state)
        _, h, w = spec.board_shape
        last = params.last[state.level]
        shows_board = ~(state.won & last)  # the objective-complete screen shows no board
        screen = jnp.where(state.won, jnp.where(last, _OBJECTIVE_COMPLETE, _LEVEL_COMPLETE), _LEVEL)
        parts = [twin.planes(lv, state.board, spec.board_shape) * shows_board.astype(jnp.uint8)]
        flags = [jnp.arange(len(SCREENS)) == screen]
        if spec.level_bits:
            index = params.index[state.level]
            bits = (index >> jnp.arange(spec.level_bits)) & 1
            flags.append((bits == 1) & shows_board)
        if self.undo:
            flags.append((twin.undoable(lv, state.board) & ~state.won)[None])
        flat = jnp.concatenate(flags).astype(jnp.uint8)
        parts.append(jnp.broadcast_to(flat[:, None, None], (flat.shape[0], h, w)))
        return jnp.concatenate(parts)

    def action_mask(self, state: Any, params: EnvParams | None = None) -> Any:
        """``bool[num_actions]``: ``BoardActions.action_masks()`` of the same moment, the
        state's ``legal_action_mask`` (read through a wrapper's state: :func:`legal_action_mask`;
        ``params`` is not needed, kept for callers that pass it)."""
        return legal_action_mask(state)

    def _mask(self, lv: Any, board: Any, won: Any) -> Any:
        twin = self.twin
        parts = [twin.target_mask(lv, board), twin.restartable(lv, board)[None]]
        if self.undo:
            parts.append(twin.undoable(lv, board)[None])
        mask = jnp.concatenate(parts) & ~won  # the won screen has none of them
        return jnp.where(jnp.any(mask), mask, True)

    def is_terminal(self, state: EnvState, params: EnvParams) -> Any:
        return state.won | (state.time >= params.budget[state.level])

    def discount(self, state: EnvState, params: EnvParams) -> Any:
        return jnp.where(state.won, jnp.float32(0.0), jnp.float32(1.0))


def _traced(value: Any) -> bool:
    return isinstance(value, jax.core.Tracer)
