"""The train/test protocol of puzzlegym's RL baselines: train on generated levels, test on
the catalogue, one level per episode, within a budget proportional to each level's solution.

* **Training** plays one generated level per episode (``levels="generated"``, ``level=1``,
  ``start="board"``): training level ``j`` of the split (``num_levels``, ``start_level``:
  :mod:`puzzlegym.game.splits`), ``j`` drawn uniformly by the env's seeded generator at each
  reset. Its budget is fixed: ``budget_multiple`` times the longest solution of the tier's
  catalogue levels.
* **Both** act through the same action space (board actions padded to the tier's most
  targets) and, on the symbolic board, without the level's index in the observation
  (``level_bits=False``: training plays level 1 of each episode, testing catalogue level
  ``k``).
* **Testing** (held-out success) plays each catalogue level of the same tier
  (``levels="catalogue"``, ``level=k``, ``start="board"``) ``episodes`` times, within
  ``budget_multiple`` times that level's solution length.
* **Train success** plays the split's first ``train_levels`` training levels the same way
  (each within ``budget_multiple`` times its own solution), so the difference to held-out
  success is the generalisation gap.

A level's solution length is counted in board actions (the units of
:class:`~puzzlegym.wrappers.BoardActions`, one simulated ``action_cost_s`` each): the GUI
actions of the game's solver solution (``puzzlegym.solvers.solve``; its moves performed by
the view's ``actions_for_move``: one swipe per slide in Maze Paint, two clicks per move in
Nut and Bolt and Bolt Unscrew, a click per cell in Color Connect). A budget of ``n`` actions
is ``budget_s = (n - 1/2) * action_cost_s``: exactly ``n`` actions, whatever the floating
sum of the simulated clock.

A success is an episode whose level is won within the budget. Success per level is the share
of its episodes won; a policy's success is the mean over levels. :func:`play_levels` also
collects the evaluator's closed attempts (``AttemptClosed`` events, read through
``env.unwrapped.subscribe``) for :func:`puzzlegym.record.metrics.dead_end_stats`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from puzzlegym import solvers
from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_count, check_number
from puzzlegym.env.loop import play
from puzzlegym.env.probe import BOARD_AREA
from puzzlegym.game.registry import parse_env_id
from puzzlegym.game.splits import SEED_LIMIT, Split, TrainingLevels, check_split, tier_targets
from puzzlegym.record.events import AttemptClosed
from puzzlegym.wrappers.sb3 import make_sb3_env

__all__ = [
    "ENV_KEYS",
    "MAX_EPISODES",
    "MAX_TRAIN_LEVELS",
    "PROTOCOL_KEYS",
    "Protocol",
    "TestLevel",
    "play_levels",
    "solution_actions",
]

MAX_EPISODES = 1000  # episodes per level in one evaluation
MAX_TRAIN_LEVELS = 1000  # training levels measured for train success
MAX_BUDGET_MULTIPLE = 100.0
# env keywords the protocol sets itself (the others pass through: reward, action_cost_s, ...)
PROTOCOL_KEYS = ("start", "level", "budget_s", "levels", "num_levels", "start_level")
# env keywords a protocol may pass through to every env it makes
ENV_KEYS = ("backend", "clock", "reward", "action_cost_s", "render_cache_bytes")


def solution_actions(game: Any, level: Any) -> int:
    """The board actions of the solver's solution of ``level`` from its start (see the
    module docstring)."""
    rules, view = game.rules, game.view
    state = rules.initial_state(level)
    ui = view.initial_ui(level, state)
    n = 0
    for move in solvers.solve(level).moves:
        n += len(view.actions_for_move(level, state, ui, move, BOARD_AREA))
        state = rules.apply(level, state, move)
        ui = view.after_move(level, state, ui)
    if not rules.is_solved(level, state):  # pragma: no cover - a solver bug, not bad input
        raise RuntimeError(f"{game.name}: the solver's solution of {level.id!r} does not solve it")
    return n


@dataclass(frozen=True)
class TestLevel:
    """One level an evaluation plays: ``name`` (``catalogue:3``, ``train:17``,
    ``heldout:1000042``), what selects it (catalogue level ``k``, training level ``i``, or the
    level seed of a generated held-out level: :mod:`puzzlegym.training.heldout`), its solution
    length and budget in actions."""

    name: str
    kind: str  # "catalogue", "train" or "heldout" (a generated held-out level)
    index: int  # catalogue level k (1-based), training level i (0-based) or a level seed
    solution_actions: int
    budget_actions: int


def _number(value: Any, name: str, lo: float, hi: float) -> float:
    return check_number(value, name, lo, hi, ConfigError)


def _count(value: Any, name: str, lo: int, hi: int) -> int:
    return check_count(value, name, lo, hi, ConfigError)


@dataclass(frozen=True)
class Protocol:
    """The protocol of one objective (see the module docstring). ``wrappers`` are
    :func:`~puzzlegym.wrappers.make_sb3_env`'s (``observation``, ``actions``, ``buttons``,
    ``scale``, ...; board actions by default), ``env_kwargs`` the env keywords of
    :data:`ENV_KEYS` (``reward``, ``action_cost_s``, ...). Every field is checked on
    construction (errors name it)."""

    env_id: str
    num_levels: int = 500
    start_level: int = 0
    budget_multiple: float = 2.0
    train_levels: int = 20
    wrappers: dict = field(default_factory=dict)
    env_kwargs: dict = field(default_factory=dict)
    # derived in __post_init__ (not arguments, not compared)
    _game: Any = field(init=False, repr=False, compare=False)
    _tier: str = field(init=False, repr=False, compare=False)
    _split: Split = field(init=False, repr=False, compare=False)
    _levels: list[TestLevel] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        game, tier = parse_env_id(self.env_id)
        object.__setattr__(self, "_game", game)
        object.__setattr__(self, "_tier", tier)
        split = check_split("generated", self.num_levels, self.start_level)
        assert split is not None  # levels="generated" always has a split
        if split.num_levels == 0:
            raise ConfigError(
                "num_levels: the protocol trains on a finite split; expected 1..2**31, got 0"
            )
        object.__setattr__(self, "_split", split)
        _number(self.budget_multiple, "budget_multiple", 1.0, MAX_BUDGET_MULTIPLE)
        _count(self.train_levels, "train_levels", 1, min(MAX_TRAIN_LEVELS, self.num_levels))
        if not isinstance(self.wrappers, dict):
            raise ConfigError(
                f"wrappers: expected a mapping of make_sb3_env keywords, got {shown(self.wrappers)}"
            )
        if not isinstance(self.env_kwargs, dict):
            raise ConfigError(
                f"env_kwargs: expected a mapping of env keywords, got {shown(self.env_kwargs)}"
            )
        for key in self.env_kwargs:
            if key in PROTOCOL_KEYS:
                raise ConfigError(
                    f"env_kwargs.{key}: set by the protocol (training: generated levels, one per "
                    "episode, from the board; budgets from budget_multiple); use num_levels, "
                    "start_level or budget_multiple"
                )
            if key not in ENV_KEYS:
                raise ConfigError(
                    f"env_kwargs.{key}: not allowed here; allowed: {', '.join(ENV_KEYS)}"
                )
        for key in self.wrappers:
            if key == "level_bits":
                raise ConfigError(
                    "wrappers.level_bits: set by the protocol (the level's index is never observed)"
                )
            if key in PROTOCOL_KEYS or key in ENV_KEYS:
                raise ConfigError(
                    f"wrappers.{key}: an env keyword, not a wrapper setting; put it in env_kwargs"
                )
        object.__setattr__(self, "_levels", None)

    # ------------------------------------------------------------------ levels
    @property
    def game(self):
        return self._game

    @property
    def tier(self) -> str:
        return self._tier

    @property
    def split(self) -> Split:
        return self._split

    @property
    def action_cost_s(self) -> float:
        return float(self.env_kwargs.get("action_cost_s", 1.0))

    def budget_actions(self, solution: int) -> int:
        """The budget, in actions, of a level whose solution takes ``solution`` actions."""
        return max(1, math.ceil(self.budget_multiple * solution - 1e-9))

    def budget_s(self, actions: int) -> float:
        """``budget_s`` for exactly ``actions`` actions (see the module docstring)."""
        return (actions - 0.5) * self.action_cost_s

    def test_levels(self) -> list[TestLevel]:
        """The catalogue levels of the tier, with their solution lengths and budgets."""
        levels = self._levels
        if levels is None:
            levels = []
            for k, level in enumerate(self.game.catalogue(self.tier), 1):
                n = solution_actions(self.game, level)
                levels.append(
                    TestLevel(f"catalogue:{k}", "catalogue", k, n, self.budget_actions(n))
                )
            object.__setattr__(self, "_levels", levels)
        return list(levels)

    def training_levels(self) -> list[TestLevel]:
        """Training levels ``0 .. train_levels - 1`` of the split, with their solution
        lengths and budgets (generated, or read from the level cache)."""
        levels = TrainingLevels(self.game, self.tier, self.split)
        out = []
        for i in range(self.train_levels):
            n = solution_actions(self.game, levels.level(i))
            out.append(TestLevel(f"train:{i}", "train", i, n, self.budget_actions(n)))
        return out

    def train_budget_actions(self) -> int:
        """The training episodes' budget: ``budget_multiple`` times the longest solution of
        the tier's catalogue levels."""
        return self.budget_actions(max(t.solution_actions for t in self.test_levels()))

    # ------------------------------------------------------------------ envs
    def _kwargs(self) -> dict:
        wrappers = {"actions": "board", **self.wrappers}
        if wrappers["actions"] == "board" and wrappers.get("max_targets") is None:
            # one action space for training and every test level: the tier's most targets
            wrappers["max_targets"] = tier_targets(self.game, self.tier)
        if wrappers.get("observation") == "board":
            wrappers["level_bits"] = False  # training plays level 1, testing level k: not observed
        return {**wrappers, **self.env_kwargs, "start": "board"}

    def train_kwargs(self) -> dict:
        """``make_sb3_env`` keywords of the training env."""
        return {
            **self._kwargs(),
            "levels": "generated",
            "num_levels": self.num_levels,
            "start_level": self.start_level,
            "level": 1,
            "budget_s": self.budget_s(self.train_budget_actions()),
        }

    def level_kwargs(self, level: TestLevel) -> dict:
        """``make_sb3_env`` keywords of the env that plays ``level`` (training levels also
        need ``reset(options={"first_level": level.index})``)."""
        kwargs = {
            **self._kwargs(),
            "level": level.index if level.kind == "catalogue" else 1,
            "budget_s": self.budget_s(level.budget_actions),
        }
        if level.kind == "train":
            kwargs.update(
                levels="generated", num_levels=self.num_levels, start_level=self.start_level
            )
        elif level.kind == "heldout":  # the level of one seed: a split of one level
            kwargs.update(levels="generated", num_levels=1, start_level=level.index)
        return kwargs

    def make_level_env(self, level: TestLevel):
        return make_sb3_env(self.env_id, **self.level_kwargs(level))

    def to_dict(self) -> dict:
        return {
            "env_id": self.env_id,
            "num_levels": self.num_levels,
            "start_level": self.start_level,
            "budget_multiple": self.budget_multiple,
            "train_levels": self.train_levels,
            "wrappers": dict(self.wrappers),
            "env_kwargs": dict(self.env_kwargs),
        }


Chooser = Callable[[Any, Any], int]


def masks(env) -> np.ndarray | None:
    """The env's action mask (``BoardActions.action_masks``), or None without one."""
    try:
        return env.get_wrapper_attr("action_masks")()
    except AttributeError:
        return None


def random_chooser(seed: int, masked: bool) -> Chooser:
    """The uniform random policy over the action space, or (``masked``) over the indices
    the mask allows."""
    rng = np.random.default_rng(seed)

    def choose(obs, env) -> int:
        mask = masks(env) if masked else None
        if mask is None:
            return int(rng.integers(env.action_space.n))
        return int(rng.choice(np.flatnonzero(mask)))

    return choose


def policy_chooser(model, deterministic: bool, masked: bool) -> Chooser:
    """An SB3 model's action (with the env's mask for MaskablePPO)."""

    def choose(obs, env) -> int:
        if masked:
            action, _ = model.predict(obs, deterministic=deterministic, action_masks=masks(env))
        else:
            action, _ = model.predict(obs, deterministic=deterministic)
        return int(action)

    return choose


class LevelEnvs:
    """One env per level of an evaluation (budgets differ per level), made on first use and
    kept; :meth:`close` closes them."""

    def __init__(self, protocol: Protocol) -> None:
        self.protocol = protocol
        self._envs: dict[str, Any] = {}

    def get(self, level: TestLevel):
        env = self._envs.get(level.name)
        if env is None:
            env = self._envs[level.name] = self.protocol.make_level_env(level)
        return env

    def close(self) -> None:
        for env in self._envs.values():
            env.close()
        self._envs.clear()


def play_levels(
    envs: LevelEnvs,
    levels: list[TestLevel],
    choose: Chooser,
    episodes: int,
    seed: int = 0,
) -> dict:
    """Play each of ``levels`` ``episodes`` times with ``choose(obs, env)``; returns
    ``success`` (the mean over levels of each level's share of won episodes), ``per_level``
    (those shares, in order), ``episodes``, ``mean_length`` and ``attempts`` (the closed
    attempts' records, for :func:`~puzzlegym.record.metrics.dead_end_stats`)."""
    _count(episodes, "episodes", 1, MAX_EPISODES)
    per_level, lengths, attempts = [], [], []

    def collect(event) -> None:
        if isinstance(event, AttemptClosed):
            attempts.append(event.to_record())

    for level in levels:
        env = envs.get(level)
        options = {"first_level": level.index} if level.kind == "train" else None
        wins = 0

        def policy(obs: Any, info: Any, env: Any = env) -> Any:
            return choose(obs, env)

        with env.unwrapped.subscribe(collect):
            for ep in range(episodes):
                end = play(
                    env,
                    policy,
                    seed=(seed + ep) % SEED_LIMIT,
                    options=options,
                )
                wins += bool(env.unwrapped.probe().success)
                lengths.append(end.steps)
        per_level.append(wins / episodes)
    return {
        "success": round(float(np.mean(per_level)), 4),  # 0.32, not 0.31999999999999995
        "per_level": per_level,
        "episodes": episodes,
        "mean_length": float(np.mean(lengths)),
        "attempts": attempts,
    }
