"""The sameness harness: a twin env and the Python board env played with the same index
sequences from the same levels, compared at every step.

:func:`compare` plays episodes of the Python env (``make_sb3_env(id, actions="board",
observation="board", start="board", buttons=env.buttons, ...)`` on the level of each
episode, with the twin env's budget, reward, level bits and board shape; its board targets
are BoardActions' default, the tier's most, as the twin's), choosing each
index at random from the Python env's own mask (a board target mostly, a button now and
then, any index at all now and then: waits and rejected moves count too; episodes 0, 3, 6,
... first play the solver's whole solution (:func:`solution_actions`), episodes 1, 4, 7, ...
a random part of it, so levels are won, where the budget holds the solution, and deep
boards reached), then replays each
episode's indices on the twin (``step_env`` in one jitted ``lax.scan``) and compares, step
by step, the observation, the action mask, the reward (within :data:`REWARD_TOLERANCE`:
float32 against float64), ``terminated`` and ``truncated``, and with ``states=True`` the
rules state and the view's interaction state (:meth:`puzzlegym.game.twin.Twin.to_python`).
``tests/test_jax_sameness.py`` runs a sample of it for every game with a twin and
``benchmarks/jax_equivalence.py`` runs at least 100,000 transitions per game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from puzzlegym import solvers
from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count, check_number
from puzzlegym.env.probe import BOARD_AREA, LEVEL, LEVEL_COMPLETE
from puzzlegym.jax.env import EnvParams, PuzzleJaxEnv
from puzzlegym.training.protocol import Protocol
from puzzlegym.wrappers.sb3 import make_sb3_env

__all__ = [
    "FIELDS",
    "REWARD_TOLERANCE",
    "Report",
    "close_pool",
    "compare",
    "python_env",
    "replay",
    "solution_actions",
]

REWARD_TOLERANCE = 1e-6  # |twin - Python| of one step's reward (float32 against float64)
FIELDS = ("observation", "mask", "reward", "terminated", "truncated", "state")
MAX_EPISODES = 1_000_000
EXAMPLES = 10  # disagreements a report keeps as examples


@dataclass
class Report:
    """What :func:`compare` saw: ``transitions`` (steps compared), ``episodes``,
    ``disagreements`` (steps at which any field differed), per field counts, the first
    :data:`EXAMPLES` disagreements, and the episodes' ends (``terminated``, ``truncated``)."""

    env_id: str
    transitions: int = 0
    episodes: int = 0
    disagreements: int = 0
    fields: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FIELDS, 0))
    examples: list[dict] = field(default_factory=list)
    terminated: int = 0
    truncated: int = 0

    def add(self, other: Report) -> None:
        self.transitions += other.transitions
        self.episodes += other.episodes
        self.disagreements += other.disagreements
        for key, value in other.fields.items():
            self.fields[key] += value
        self.examples.extend(other.examples[: EXAMPLES - len(self.examples)])
        self.terminated += other.terminated
        self.truncated += other.truncated

    def to_dict(self) -> dict:
        return {
            "env_id": self.env_id,
            "transitions": self.transitions,
            "episodes": self.episodes,
            "disagreements": self.disagreements,
            "fields": dict(self.fields),
            "terminated": self.terminated,
            "truncated": self.truncated,
            "examples": list(self.examples),
        }


def python_env(env: PuzzleJaxEnv, params: EnvParams, row: int):
    """The Python board env that plays level row ``row`` of ``params`` as ``env`` does, and
    the ``reset`` options that start it there: ``make_sb3_env`` with ``actions="board"``,
    ``observation="board"``, ``start="board"``, the level, ``buttons=env.buttons`` and the
    row's budget (``budget_s`` for exactly ``params.budget[row]`` actions), the other
    settings the twin's (their defaults for a twin made with ``make``'s)."""
    spec = env.spec
    if spec.levels == "held-out":
        raise ConfigError(
            "env: a held-out set's twin (make_held_out) has no Python env of its own; compare "
            "the generated split it was drawn from (make(..., levels='generated'))"
        )
    budget = int(params.budget[row])
    kwargs: dict[str, Any] = dict(
        actions="board",
        observation="board",
        start="board",
        buttons=spec.buttons,  # the tier's most targets (BoardActions' default), then these
        board_shape=spec.board_shape,
        level_bits=spec.level_bits > 0,
        reward=spec.reward,
        action_cost_s=1.0,
        budget_s=Protocol(spec.env_id).budget_s(budget),  # exactly `budget` actions
    )
    if spec.levels == "catalogue":
        return make_sb3_env(spec.env_id, level=row + 1, **kwargs), None
    kwargs.update(levels="generated", num_levels=spec.num_levels, start_level=spec.start_level)
    return make_sb3_env(spec.env_id, level=1, **kwargs), {"first_level": env.training_level(row)}


def replay(env: PuzzleJaxEnv, params: EnvParams, row: Any, actions: Any):
    """The twin playing ``actions`` (``int32[T]``) from the start of level row ``row``
    (``step_env``: no automatic reset): the observations and masks before each action and
    after the last (``T + 1``), the rewards, ``terminated``, ``truncated`` and the twin's
    states (``T + 1``). Jitted once per env structure and ``T``: the level is cut out of
    the tables first (:meth:`~puzzlegym.jax.PuzzleJaxEnv.take`: the twin cuts its own
    tables), so the number of levels does not shape the compiled code."""
    one = env.take(params, [int(row)])
    return _replayer(env.structure(), env)(one, jnp.int32(0), actions)


_REPLAYERS: dict[tuple, Any] = {}


def _replayer(structure: tuple, env: PuzzleJaxEnv) -> Any:
    found = _REPLAYERS.get(structure)
    if found is None:
        if len(_REPLAYERS) > 64:
            _REPLAYERS.clear()
        found = _REPLAYERS[structure] = jax.jit(partial(_replay, env))
    return found


def _replay(env: PuzzleJaxEnv, params: EnvParams, row: Any, actions: Any):
    state = env.start(params, row)
    key = jax.random.key(0)

    def step(state, action):
        obs, mask = env.get_obs(state, params), env.action_mask(state, params)
        _, after, reward, _, info = env.step_env(key, state, action, params)
        out = (obs, mask, reward, info["terminated"], info["truncated"], state.board)
        return after, out

    last, (obs, masks, rewards, terminated, truncated, boards) = jax.lax.scan(step, state, actions)
    obs = jnp.concatenate([obs, env.get_obs(last, params)[None]])
    masks = jnp.concatenate([masks, env.action_mask(last, params)[None]])
    boards = jax.tree.map(lambda b, x: jnp.concatenate([b, x[None]]), boards, last.board)
    return obs, masks, rewards, terminated, truncated, boards


def solution_actions(game: Any, level: Any, memo: dict | None = None) -> list:
    """The GUI actions of the solver's solution of ``level`` from its start (kept in
    ``memo``, a dict the caller keeps, if given: a :func:`compare` pool's ``"solutions"``)."""
    memo = {} if memo is None else memo
    found = memo.get(level)
    if found is None:
        rules, view = game.rules, game.view
        state = rules.initial_state(level)
        ui = view.initial_ui(level, state)
        found = []
        for move in solvers.solve(level).moves:
            found += view.actions_for_move(level, state, ui, move, BOARD_AREA)
            state = rules.apply(level, state, move)
            ui = view.after_move(level, state, ui)
        memo[level] = found
    return found


def _choose(rng: np.random.Generator, mask: np.ndarray, k: int) -> int:
    if rng.random() < 0.05:  # any index: a wait, a rejected move, a button off its screen
        return int(rng.integers(len(mask)))
    targets, buttons = np.flatnonzero(mask[:k]), k + np.flatnonzero(mask[k:])
    if len(targets) and (not len(buttons) or rng.random() < 0.95):
        return int(rng.choice(targets))
    return int(rng.choice(buttons if len(buttons) else np.flatnonzero(mask)))


def compare(
    env: PuzzleJaxEnv,
    params: EnvParams | None = None,
    rows: list[int] | None = None,
    episodes: int = 10,
    seed: int = 0,
    states: bool = True,
    mask: str = "computed",
    pool: dict | None = None,
) -> Report:
    """Play ``episodes`` episodes (level rows ``rows`` in turn; default every row of
    ``params``) on both envs and compare them (see the module docstring). ``mask`` is the
    Python mask compared and chosen from: ``"computed"`` (``action_masks()``) or
    ``"tried"`` (``tried_masks()``). ``pool`` (a dict the caller keeps) holds the Python envs
    for later calls with the same env, which then closes them (:func:`close_pool`); without
    one they are closed on return."""
    params = env.default_params if params is None else params
    n = int(params.budget.shape[0])
    rows = list(range(n)) if rows is None else [check_count(r, "rows[]", 0, n - 1) for r in rows]
    if not rows:
        raise ConfigError("rows: expected at least one level row")
    check_count(episodes, "episodes", 1, MAX_EPISODES, ConfigError)
    check_number(seed, "seed", 0, 2**63, ConfigError)
    if mask not in ("computed", "tried"):
        raise ConfigError(f"mask: {mask!r} is not allowed; allowed: computed, tried")
    report = Report(env.spec.env_id)
    envs: dict = {} if pool is None else pool.setdefault(env, {})
    memo: dict = {} if pool is None else pool.setdefault("solutions", {})
    generated = env.spec.levels == "generated"
    try:
        for e in range(episodes):
            row = rows[e % len(rows)]
            key = row if not generated else int(params.budget[row])  # one env per budget
            if key not in envs:
                envs[key] = python_env(env, params, row)
            py, options = envs[key]
            if generated:
                options = {"first_level": env.training_level(row)}
            report.add(
                _episode(
                    env,
                    params,
                    row,
                    e,
                    py,
                    options,
                    np.random.default_rng([seed, e]),
                    states,
                    mask,
                    memo,
                )
            )
    finally:
        if pool is None:
            close_pool({env: envs})
    return report


def close_pool(pool: dict) -> None:
    """Close the Python envs of a :func:`compare` pool."""
    for key, envs in pool.items():
        if isinstance(key, PuzzleJaxEnv):
            for py, _ in envs.values():
                py.close()
    pool.clear()


def _episode(
    env, params, row, episode, py, options, rng, states: bool, mask_kind: str, memo
) -> Report:
    masks_of = py.get_wrapper_attr("action_masks" if mask_kind == "computed" else "tried_masks")
    k = env.spec.n_targets
    obs, _ = py.reset(seed=int(rng.integers(2**31)), options=options)
    observations: list[np.ndarray] = [obs]
    masks: list[np.ndarray] = []
    rewards: list[float] = []
    terms: list[bool] = []
    truncs: list[bool] = []
    actions: list[int] = []
    boards: list[tuple[Any, Any, Any] | None] = []

    def board():
        probe = py.unwrapped.probe()
        b = probe.board
        return (
            (b.level, b.state, b.ui)
            if b is not None and probe.screen in (LEVEL, LEVEL_COMPLETE)
            else None
        )

    boards.append(board() if states else None)
    probe = py.unwrapped.probe()
    plan = solution_actions(probe.board.game, probe.board.level, memo)
    kind = episode % 3  # the whole solution first, a random part of it, or none
    plan = plan if kind == 0 else plan[: rng.integers(len(plan) + 1)] if kind == 1 else []
    targets_of = py.get_wrapper_attr("targets")
    done = False
    while not done:
        mask = masks_of()
        masks.append(mask)
        step = len(actions)
        planned = targets_of() if step < len(plan) else []
        if plan[step : step + 1] and plan[step] in planned:
            action = planned.index(plan[step])
        else:
            plan = []  # off the plan: random from here on
            action = _choose(rng, mask, k)
        obs, reward, terminated, truncated, _ = py.step(action)
        actions.append(action)
        observations.append(obs)
        rewards.append(reward)
        terms.append(terminated)
        truncs.append(truncated)
        boards.append(board() if states else None)
        done = terminated or truncated
    masks.append(masks_of())
    steps = len(actions)
    padded = np.zeros(env.default_params.max_steps_in_episode, dtype=np.int32)
    if steps > len(padded):
        raise ConfigError(
            f"params: level row {row} played {steps} actions, more than the env's "
            f"max_steps_in_episode {len(padded)}"
        )
    padded[:steps] = actions
    t_obs, t_masks, t_rewards, t_terms, t_truncs, t_boards = jax.device_get(
        replay(env, params, row, jnp.asarray(padded))
    )
    report = Report(env.spec.env_id, transitions=steps, episodes=1)
    report.terminated, report.truncated = int(terms[-1]), int(truncs[-1])
    for t in range(steps + 1):
        wrong = []
        if not np.array_equal(t_obs[t], observations[t]):
            planes = np.flatnonzero((t_obs[t] != observations[t]).any(axis=(1, 2)))
            wrong.append(("observation", f"planes {planes.tolist()}"))
        if not np.array_equal(t_masks[t], masks[t]):
            wrong.append(
                (
                    "mask",
                    f"twin {t_masks[t].astype(int).tolist()}, "
                    f"python {masks[t].astype(int).tolist()}",
                )
            )
        if t < steps:
            if not abs(float(t_rewards[t]) - rewards[t]) <= REWARD_TOLERANCE:
                wrong.append(("reward", f"twin {float(t_rewards[t])!r}, python {rewards[t]!r}"))
            if bool(t_terms[t]) != terms[t]:
                wrong.append(("terminated", f"twin {bool(t_terms[t])}, python {terms[t]}"))
            if bool(t_truncs[t]) != truncs[t]:
                wrong.append(("truncated", f"twin {bool(t_truncs[t])}, python {truncs[t]}"))
        seen = boards[t] if states else None
        if seen is not None:
            level, state, ui = seen
            twin_state = jax.tree.map(lambda x, t=t: x[t], t_boards)
            if env.twin.to_python(level, twin_state) != (state, ui):
                wrong.append(
                    (
                        "state",
                        f"twin {env.twin.to_python(level, twin_state)!r}, python {(state, ui)!r}",
                    )
                )
        if wrong:
            report.disagreements += 1
            for name, _ in wrong:
                report.fields[name] += 1
            if len(report.examples) < EXAMPLES:
                report.examples.append(
                    {
                        "row": row,
                        "step": t,
                        "actions": actions[:t],
                        "fields": {name: detail for name, detail in wrong},
                    }
                )
    return report
