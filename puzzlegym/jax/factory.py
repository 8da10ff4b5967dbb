"""``puzzlegym.jax.make``: an objective's twin env and the arrays of the levels it plays,
every argument checked before anything is built (errors name the argument)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_count, check_number
from puzzlegym.env import REWARDS
from puzzlegym.game.heldout import HeldOut
from puzzlegym.game.levelhash import level_hash
from puzzlegym.game.registry import parse_env_id
from puzzlegym.game.splits import TrainingLevels, check_split, tier_targets
from puzzlegym.game.twin import find_twin
from puzzlegym.jax.deadends import DEAD_ENDS, dead_end_table
from puzzlegym.jax.env import EnvParams, PuzzleJaxEnv, Spec
from puzzlegym.training.protocol import MAX_BUDGET_MULTIPLE, Protocol

__all__ = [
    "DEFAULT_NUM_LEVELS",
    "MAX_BUDGET_ACTIONS",
    "MAX_LEVELS",
    "budget_actions",
    "make",
    "make_held_out",
]

DEFAULT_NUM_LEVELS = 500  # the protocol's split (puzzlegym.training.protocol.Protocol)

MAX_LEVELS = 65_536  # generated levels one env holds (each is generated, or read from the cache)
MAX_BUDGET_ACTIONS = 10_000  # actions in one episode (the twin's history is sized by it)


def budget_actions(budget_s: float, action_cost_s: float) -> int:
    """The actions the Python env plays within ``budget_s`` at ``action_cost_s`` each: it
    truncates after the first action at which its simulated clock (a float sum of
    ``action_cost_s``) reaches the budget."""
    if budget_s / action_cost_s > MAX_BUDGET_ACTIONS:
        raise ConfigError(
            f"budget_s: {shown(budget_s)} s at action_cost_s={shown(action_cost_s)} is more than "
            f"{MAX_BUDGET_ACTIONS} actions an episode"
        )
    elapsed, n = 0.0, 0
    while elapsed < budget_s:  # the SimClock's own sums, so the count is exactly the env's
        elapsed += action_cost_s
        n += 1
    return n


def _positive(value: Any, name: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(float(value))
        or not float(value) > 0
    ):
        raise ConfigError(
            f"{name}: must be a positive, finite number of seconds, got {shown(value)}"
        )
    return float(value)


def make(
    env_id: str,
    levels: str = "generated",
    num_levels: int | None = None,
    start_level: int | None = None,
    reward: str = "potential",
    budget_s: float | None = None,
    budget_multiple: float = 2.0,
    action_cost_s: float = 1.0,
    level_bits: bool = False,
    distinct: bool | None = None,
    dead_end: str = "none",
    dead_end_penalty: float = 0.1,
    progress: bool = True,
) -> tuple[PuzzleJaxEnv, EnvParams]:
    """The twin env of objective ``env_id`` and its default params (the levels it plays).

    The defaults are what training uses (the protocol's, :mod:`puzzlegym.training.protocol`):
    generated levels, never the catalogue (the test levels); the split's 500 levels from level
    seed 0; each distinct board once; no level bits.

    ``levels="generated"`` plays training levels ``0 .. num_levels - 1`` (default
    :data:`DEFAULT_NUM_LEVELS`) of the split from ``start_level`` (default 0;
    :mod:`puzzlegym.game.splits`: training level ``i`` is the Python env's, ``gym.make(env_id,
    levels="generated", num_levels=N, start_level=S)`` with ``reset(options={"first_level":
    i})``), generated now (a bar shows it, unless ``progress=False``) or read from the level
    cache (``num_levels`` 1..:data:`MAX_LEVELS`); ``levels="catalogue"`` plays the tier's
    catalogue levels, the test levels. ``reward`` is the Python env's (``"potential"`` or
    ``"sparse"``), ``level_bits`` BoardObservation's (off by default: a training episode
    plays level 1 of one generated level, so the bits would say nothing; the Python env's
    default shows them, so compare with ``level_bits=True`` or the Python env's
    ``level_bits=False``).

    ``distinct`` (default: true for generated levels) keeps each board of the split once: the
    rows are the split's distinct boards (by :func:`~puzzlegym.game.levelhash.level_hash`,
    equal up to the game's symmetries) in order of first appearance, so an episode draws a
    board, not a seed, uniformly; ``env.row(i)`` is the row of training level ``i`` and
    ``env.training_level(r)`` the first training level of row ``r`` (both the identity when
    ``distinct=False``). A small generator space gives several seeds one board (Nut and Bolt
    Easy: 362 distinct boards in 500 seeds).

    ``dead_end`` (:data:`~puzzlegym.jax.deadends.DEAD_ENDS`) is what a certified dead end in
    play does: ``"none"``; ``"restart"``, Restart clicked at once (as
    :class:`~puzzlegym.wrappers.DeadEndRestart` does); ``"penalty"``, ``dead_end_penalty``
    (0..10) subtracted from the reward of each action after which the board is one. Both
    read the dead-end oracle (:mod:`puzzlegym.jax.deadends`: every level's state graph
    enumerated now), which only twins with a board key have (Nut and Bolt); ``info`` then
    carries ``dead_end``, and ``env.without_dead_end()`` plays the same params without it.

    The budget: ``budget_s`` seconds at ``action_cost_s`` each, as the Python env counts
    them (:func:`budget_actions`), the same for every level; or, with ``budget_s=None``
    (the default), :mod:`puzzlegym.training.protocol`'s: ``budget_multiple`` times each catalogue
    level's solution, and for generated levels the training budget (``budget_multiple``
    times the tier's longest catalogue solution). ``EnvParams.budget`` holds it per level.

    The Python board env that plays the same game, index for index, is
    ``make_sb3_env(env_id, actions="board", observation="board", start="board", level=k,
    buttons=env.buttons, budget_s=int(params.budget[k - 1]) - 0.5)`` for catalogue level
    ``k`` (training level ``i``: ``levels``, ``num_levels``, ``start_level`` as here,
    ``level=1``, the budget of row ``env.row(i)`` and ``reset(options={"first_level":
    i})``), with this env's ``reward`` and ``action_cost_s`` (both envs default to the same)
    and ``level_bits`` (this env's default is ``False``, the Python env's ``True``). So, for
    the catalogue, four settings besides the defaults: this env's ``levels="catalogue"`` and
    ``level_bits=True``; the Python env's ``buttons`` (its default adds Next, Menu and the
    home screen's after Restart and Undo) and ``budget_s`` (its default is 3600 s). Its
    board targets are this env's by default, the tier's most
    (:class:`~puzzlegym.wrappers.BoardActions`); :func:`puzzlegym.jax.sameness.python_env`
    builds it for a level row.

    Examples:
        >>> import jax
        >>> import puzzlegym.jax
        >>> env, params = puzzlegym.jax.make("LongPuzzle/MazePaint-Easy", progress=False)
        >>> env.spec.levels, env.spec.num_levels, env.spec.level_bits  # training's levels
        ('generated', 500, 0)
        >>> env.num_actions, env.observation_space(params).shape  # 4 swipes + Restart
        (5, (9, 8, 8))
        >>> test, test_params = puzzlegym.jax.make("LongPuzzle/MazePaint-Easy", levels="catalogue")
        >>> obs, state = test.reset_level(jax.random.key(0), test_params, 1)  # catalogue level 1
        >>> state.legal_action_mask.astype(int).tolist()
        [1, 1, 0, 1, 0]
    """
    game, tier, twin = _objective(env_id)
    if levels == "generated" and num_levels is None:
        num_levels = DEFAULT_NUM_LEVELS
    if levels == "generated" and start_level is None:
        start_level = 0
    split = check_split(levels, num_levels, start_level)
    if split is not None:
        check_count(split.num_levels, "num_levels", 1, MAX_LEVELS, ConfigError)
    if not isinstance(level_bits, bool):
        raise ConfigError(f"level_bits: expected true or false, got {shown(level_bits)}")
    if distinct is None:
        distinct = split is not None
    if not isinstance(distinct, bool):
        raise ConfigError(f"distinct: expected true or false, got {shown(distinct)}")
    if not isinstance(progress, bool):
        raise ConfigError(f"progress: expected true or false, got {shown(progress)}")
    if dead_end not in DEAD_ENDS:
        raise ConfigError(
            f"dead_end: {shown(dead_end)} is not allowed; allowed: {', '.join(DEAD_ENDS)}"
        )
    penalty = check_number(dead_end_penalty, "dead_end_penalty", 0.0, 10.0, ConfigError)
    if distinct and split is None:
        raise ConfigError(
            "distinct: the catalogue's levels are distinct; use it with levels='generated'"
        )
    cost, multiple = _checked(reward, action_cost_s, budget_multiple)
    seconds = None if budget_s is None else _positive(budget_s, "budget_s")
    fixed = None if seconds is None else budget_actions(seconds, cost)

    catalogue = list(game.catalogue(tier))
    n_catalogue = len(catalogue)
    row_of: tuple[int, ...] | None = None
    if split is None:
        played = catalogue
        index = np.arange(n_catalogue, dtype=np.int32)
        last = index == n_catalogue - 1
    else:
        from tqdm import tqdm

        training = TrainingLevels(game, tier, split)
        played = [
            training.level(i)
            for i in tqdm(
                range(split.num_levels),
                desc=f"levels of {env_id} (generated or read from the level cache)",
                unit="level",
                disable=not progress,
                mininterval=1.0,
                leave=False,
            )
        ]
        if distinct:
            played, row_of = _distinct(game, played)
        index = np.zeros(len(played), dtype=np.int32)  # level 1 of a one-level episode
        last = np.full(len(played), n_catalogue == 1)
    if fixed is not None:
        budget = np.full(len(played), fixed, dtype=np.int32)
    else:
        protocol = Protocol(env_id, budget_multiple=multiple, env_kwargs={"action_cost_s": cost})
        if split is None:
            budget = np.array([t.budget_actions for t in protocol.test_levels()], dtype=np.int32)
        else:
            budget = np.full(len(played), protocol.train_budget_actions(), dtype=np.int32)
        if int(budget.max()) > MAX_BUDGET_ACTIONS:
            raise ConfigError(
                f"budget_multiple: {multiple:g} gives {int(budget.max())} actions an episode, "
                f"more than {MAX_BUDGET_ACTIONS}"
            )

    return _assemble(
        game,
        tier,
        twin,
        catalogue,
        played,
        index,
        last,
        budget,
        levels=levels,
        num_levels=None if split is None else split.num_levels,
        start_level=None if split is None else split.start_level,
        level_bits=max(1, (n_catalogue - 1).bit_length()) if level_bits else 0,
        reward=reward,
        row_of=row_of,
        dead_end=dead_end,
        dead_end_penalty=penalty if dead_end == "penalty" else 0.0,
    )


def _distinct(game: Any, levels: list) -> tuple[list, tuple[int, ...]]:
    """``levels`` with each board kept once (its first appearance), and the row of each."""
    rows: dict[str, int] = {}
    kept: list = []
    row_of: list[int] = []
    for level in levels:
        digest = level_hash(game, level)
        if digest not in rows:
            rows[digest] = len(kept)
            kept.append(level)
        row_of.append(rows[digest])
    return kept, tuple(row_of)


def make_held_out(
    env_id: str,
    held: HeldOut,
    budgets: Sequence[int],
    reward: str = "potential",
    action_cost_s: float = 1.0,
) -> tuple[PuzzleJaxEnv, EnvParams]:
    """The twin env of objective ``env_id`` on a generated held-out set
    (:func:`puzzlegym.game.heldout.held_out`): level row ``i`` is ``held.levels[i]``, played
    within ``budgets[i]`` actions (the held-out rule: twice its own solution,
    :mod:`puzzlegym.training.heldout`), no level bits. Its planes and actions are those of
    :func:`make`'s envs of the same tier (generated levels fit the tier)."""
    game, tier, twin = _objective(env_id)
    if not isinstance(held, HeldOut):
        raise ConfigError(f"held: expected a puzzlegym HeldOut set, got {shown(held)}")
    n = check_count(len(held.levels), "held.levels", 1, MAX_LEVELS, ConfigError)
    if isinstance(budgets, (str, bytes)) or not isinstance(budgets, Sequence):
        raise ConfigError(f"budgets: expected one budget per level, got {shown(budgets)}")
    if len(budgets) != n:
        raise ConfigError(f"budgets: {len(budgets)} budgets for {n} levels")
    budget = np.array(
        [
            check_count(b, f"budgets[{k}]", 1, MAX_BUDGET_ACTIONS, ConfigError)
            for k, b in enumerate(budgets)
        ],
        dtype=np.int32,
    )
    _checked(reward, action_cost_s, 2.0)
    catalogue = list(game.catalogue(tier))
    return _assemble(
        game,
        tier,
        twin,
        catalogue,
        list(held.levels),
        np.zeros(n, dtype=np.int32),
        np.full(n, len(catalogue) == 1),
        budget,
        levels="held-out",
        num_levels=None,
        start_level=held.start_level,
        level_bits=0,
        reward=reward,
    )


def _objective(env_id: str) -> tuple[Any, str, Any]:
    """The game, tier and twin of ``env_id`` (refused when the game has no twin)."""
    game, tier = parse_env_id(env_id)
    twin = find_twin(game)
    if twin is None:
        raise ConfigError(
            f"env id: {game.name} has no JAX twin yet ({game.where('twin.py')} with TWIN, a "
            "puzzlegym.game.twin.Twin); the Python env plays it: puzzlegym.wrappers.make_sb3_env"
        )
    return game, tier, twin


def _checked(reward: Any, action_cost_s: Any, budget_multiple: Any) -> tuple[float, float]:
    """``reward`` checked; ``action_cost_s`` and ``budget_multiple`` as numbers, checked."""
    if reward not in REWARDS:
        raise ConfigError(f"reward: {shown(reward)} is not allowed; allowed: {', '.join(REWARDS)}")
    cost = _positive(action_cost_s, "action_cost_s")
    multiple = check_number(
        budget_multiple, "budget_multiple", 1.0, MAX_BUDGET_MULTIPLE, ConfigError
    )
    return cost, multiple


def _assemble(
    game: Any,
    tier: str,
    twin: Any,
    catalogue: list,
    played: list,
    index: np.ndarray,
    last: np.ndarray,
    budget: np.ndarray,
    *,
    levels: str,
    num_levels: int | None,
    start_level: int | None,
    level_bits: int,
    reward: str,
    row_of: tuple[int, ...] | None = None,
    dead_end: str = "none",
    dead_end_penalty: float = 0.0,
) -> tuple[PuzzleJaxEnv, EnvParams]:
    """The env over the levels ``played`` (their tables, padded to the sizes of the tier's
    catalogue and, when generated, ``played``'s) and its :class:`Spec`."""
    every = catalogue + (played if levels != "catalogue" else [])
    board_shape = tuple(int(v) for v in game.planes.shape(every))
    bound = twin.bind(twin.sizes_for(every), tier_targets(game, tier), int(budget.max()))
    tables = bound.stack([bound.encode(level) for level in played])
    digest = hashlib.sha256()
    arrays = [*sorted(tables.items()), ("index", index), ("last", last), ("b", budget)]
    if row_of is not None:
        arrays.append(("row_of", np.asarray(row_of, dtype=np.int32)))
    dead: dict[str, Any] = {}
    if dead_end != "none":
        keys, count = dead_end_table(game, bound, played, tables)
        dead = {"dead_keys": jnp.asarray(keys), "dead_count": jnp.asarray(count)}
    for name, array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{name}:{array.dtype}:{array.shape}\n".encode())
        digest.update(array.tobytes())
    spec = Spec(
        env_id=game.env_id(tier),
        levels=levels,
        num_levels=num_levels,
        start_level=start_level,
        n_targets=bound.n_targets,
        buttons=("restart", "undo") if game.has_undo else ("restart",),
        board_shape=(board_shape[0], board_shape[1], board_shape[2]),
        level_bits=level_bits,
        reward=reward,
        fingerprint=digest.hexdigest(),
        row_of=row_of,
        dead_end=dead_end,
        dead_end_penalty=float(dead_end_penalty),
    )
    params = EnvParams(
        max_steps_in_episode=int(budget.max()),
        levels=jax.tree.map(jnp.asarray, tables),
        index=jnp.asarray(index),
        last=jnp.asarray(last),
        budget=jnp.asarray(budget),
        **dead,
    )
    return PuzzleJaxEnv(bound, spec, params), params
