"""One training run of the protocol in JAX, the JAX backend of the training core
(:mod:`puzzlegym.training`): masked PPO (``puzzlegym train agent=jax_ppo``,
:mod:`puzzlegym.jax.ppo`) or Gumbel MuZero planning (``agent=jax_planner``,
:mod:`puzzlegym.jax.planner`: mctx's search with the twin as its model) on the twin of the
protocol's generated levels, tested on both held-out sets beside both random policies: the
run directory of every trainer (:mod:`puzzlegym.training.rundir`), and a run that survives a
kill.

The protocol is :class:`puzzlegym.training.protocol.Protocol`'s, played by the twin
(:func:`puzzlegym.jax.make` with ``level_bits=False``): training draws one of the
distinct boards of ``num_levels`` generated levels from ``start_level`` per episode
(``distinct_training``), within the training budget, with a dead-end intervention when
``dead_end`` names one; the random policies and the trained policy (sampled, and greedy:
one episode per level) are measured in the **Python** env (``make_sb3_env(..., actions="board",
observation="board", buttons=<the level screen's>)``, :func:`~puzzlegym.training.protocol.
play_levels`) on the catalogue's levels and the first ``train_levels`` training levels, as
for SB3; the trained policy is measured again in the **twin** on the same levels and
budgets (:class:`~puzzlegym.jax.evaluate.TwinEvaluator`), and ``result["agreement"]`` sets
the two held-out figures side by side with their 95 % intervals over episodes. The second
held-out set is generated: ``heldout_generated`` levels (default 1,000) from level seed
``heldout_generated_start`` (:mod:`puzzlegym.game.heldout`: no training level's board, no
catalogue level, no board twice), each played ``episodes`` times in the twin within twice its own
solution (:mod:`puzzlegym.training.heldout`, the catalogue's rule) by the trained policy
(sampled) and by the masked random policy; ``result["generated"]`` holds both with 95 %
intervals over levels and episodes.

The planner plays every twin evaluation with its search (``planner.num_simulations`` a move),
and its figures come with the network alone beside them (``result["twin"]
["trained_network"]``; ``result["generated"]["trained_network"]``) and with search on an
untrained network (``result["generated"]["search_untrained"]``: what search alone does); the
Python env's evaluations play the network alone, so ``result["agreement"]`` compares the
network in both. The learning
curve is measured in the twin (``episodes`` per level, every ``curve_every`` steps).

:func:`train` validates the whole :class:`JaxTrainConfig`, makes the twins and the learner
before it writes a file, then writes into ``out_dir``:

* ``config.json`` (:meth:`JaxTrainConfig.to_dict`); ``progress.csv`` (one row per update:
  :data:`puzzlegym.jax.ppo.METRICS` or :data:`puzzlegym.jax.planner.METRICS`); ``curve.csv``
  (train and test success in the twin);
* ``checkpoint.npz`` every ``checkpoint_every`` steps and when training ends, atomically:
  the learner's whole state (network, optimiser state, env states, PRNG keys, counters)
  with the rows so far, the random policies' figures and the times;
* ``policy.npz`` (the trained policy: :class:`puzzlegym.jax.policy.policy.Policy`,
  the agent of ``puzzlegym run ID --agent jax:PATH``; a planner's with its search settings,
  so the agent searches too), ``curve.png`` and last
  ``result.json``.

``resume=True`` (``puzzlegym train ... --out DIR --resume``) continues the unfinished run in
``out_dir``: its ``config.json`` must equal the config (field by field), its
``checkpoint.npz`` (when there is one) is loaded and training goes on from it. Updates run in
chunks of at most ``min(curve_every, checkpoint_every)`` steps between which the host saves
and measures, every random draw comes from the checkpointed keys, and a chunk's length is a
traced count of one compiled function: a run killed and resumed ends with the same figures
as an unbroken run of the same config (tested with a killed process), times apart.
"""

from __future__ import annotations

import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from puzzlegym.base import jsonio
from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import check_number
from puzzlegym.jax.deadends import DEAD_ENDS
from puzzlegym.jax.evaluate import TwinEvaluator
from puzzlegym.jax.factory import make, make_held_out
from puzzlegym.jax.planner import METRICS as PLANNER_METRICS
from puzzlegym.jax.planner import Planner, PlannerConfig
from puzzlegym.jax.policy import arrays
from puzzlegym.jax.policy.policy import Policy
from puzzlegym.jax.ppo import METRICS, PPO, PPOConfig
from puzzlegym.training.book import check_book, jax_book
from puzzlegym.training.config import RunConfig, check_flag
from puzzlegym.training.heldout import GeneratedSet, generated_levels
from puzzlegym.training.protocol import LevelEnvs, Protocol, masks, play_levels
from puzzlegym.training.protocol import random_chooser as random_policy
from puzzlegym.training.results import Curve, dead_end_phases, episode_interval, figures
from puzzlegym.training.rundir import check_dir, open_run, write_config

__all__ = [
    "CHECKPOINT",
    "JaxTrainConfig",
    "config_from_mapping",
    "jax_protocol",
    "level_buttons",
    "train",
]

CHECKPOINT = "puzzlegym-jax-checkpoint"
VERSION = 1
ENV_KEYS = ("reward", "action_cost_s")  # env keywords the twin plays as the Python env does
ALGOS = ("jax_ppo", "jax_planner")  # the learner: masked PPO, or Gumbel MuZero planning
PROGRESS_COLUMNS = ("timesteps", "update", *METRICS, "elapsed_s")  # jax_ppo's progress.csv
PLANNER_COLUMNS = ("timesteps", "update", *PLANNER_METRICS, "elapsed_s")


def level_buttons(game: Any) -> tuple[str, ...]:
    """The level screen's buttons, the twin's last actions: Restart, and Undo where the
    game has it."""
    return ("restart", "undo") if game.has_undo else ("restart",)


def jax_protocol(env_id: str, **fields_: Any) -> Protocol:
    """The :class:`Protocol` of a JAX run: ``fields_`` as there, the wrappers the twin's
    (the symbolic board, board actions with the level screen's buttons)."""
    from puzzlegym.game.registry import parse_env_id

    game, _ = parse_env_id(env_id)
    wrappers = {"observation": "board", "actions": "board", "buttons": list(level_buttons(game))}
    return Protocol(env_id, wrappers=wrappers, **fields_)


@dataclass(frozen=True)
class JaxTrainConfig(RunConfig):
    """Everything a JAX run depends on (each field checked on construction; errors name
    it): the ``protocol`` (:func:`jax_protocol`; ``env_kwargs`` ``reward`` and
    ``action_cost_s`` only), PPO's settings and network (``ppo``), ``timesteps`` (rounded
    up to whole updates), the ``seed``, ``episodes`` per level in every evaluation (the
    greedy policy in the Python env plays each level once), ``curve_every`` (steps; None:
    no curve), ``checkpoint_every`` (steps), the generated held-out set
    (``heldout_generated`` levels from seed ``heldout_generated_start``) and
    ``stop_train_success`` (None, or a share: training stops at the first curve point whose
    train success reaches it, and the run is tested there) and ``distinct_training`` (true:
    the twin trains on each distinct board of the split once, :func:`puzzlegym.jax.make`'s
    ``distinct``; false: on every seed's level, repeats included) and ``dead_end`` (what a
    certified dead end does in training: ``"none"``, ``"restart"`` or ``"penalty"`` of
    ``dead_end_penalty``, :func:`puzzlegym.jax.make`'s; every evaluation plays without it)."""

    timesteps: int = 4_000_000
    curve_every: int | None = 400_000
    checkpoint_every: int | None = 400_000
    algo: str = "jax_ppo"
    ppo: PPOConfig = field(default_factory=PPOConfig)
    planner: PlannerConfig = field(default_factory=PlannerConfig)
    stop_train_success: float | None = None
    distinct_training: bool = True
    dead_end: str = "none"
    dead_end_penalty: float = 0.1

    def __post_init__(self) -> None:
        super().__post_init__()
        want = jax_protocol(self.protocol.env_id).wrappers
        if self.protocol.wrappers != want:
            raise ConfigError(
                f"wrappers: jax_ppo trains on the twin, whose observations are the symbolic "
                f"board and whose actions are the board targets and the level screen's buttons "
                f"({', '.join(want['buttons'])}): use wrappers=board (got "
                f"{shown(self.protocol.wrappers)})"
            )
        for key in self.protocol.env_kwargs:
            if key not in ENV_KEYS:
                raise ConfigError(
                    f"env_kwargs.{key}: the twin plays the native env; allowed: "
                    f"{', '.join(ENV_KEYS)}"
                )
        if self.algo not in ALGOS:
            raise ConfigError(
                f"algo: {shown(self.algo)} is not allowed; allowed: {', '.join(ALGOS)}"
            )
        if not isinstance(self.ppo, PPOConfig):
            raise ConfigError(f"ppo: expected a PPOConfig, got {shown(self.ppo)}")
        if not isinstance(self.planner, PlannerConfig):
            raise ConfigError(f"planner: expected a PlannerConfig, got {shown(self.planner)}")
        check_flag(self.distinct_training, "distinct_training")
        if self.dead_end not in DEAD_ENDS:
            raise ConfigError(
                f"dead_end: {shown(self.dead_end)} is not allowed; allowed: {', '.join(DEAD_ENDS)}"
            )
        check_number(self.dead_end_penalty, "dead_end_penalty", 0.0, 10.0, ConfigError)
        stop = self.stop_train_success
        if stop is not None:
            if isinstance(stop, bool) or not isinstance(stop, (int, float)) or not 0 < stop <= 1:
                raise ConfigError(
                    f"stop_train_success: expected a share in (0, 1] or null, got {shown(stop)}"
                )
            if self.curve_every is None:
                raise ConfigError(
                    "stop_train_success: needs the learning curve (curve_every), whose train "
                    "success it reads"
                )

    @property
    def updates(self) -> int:
        """The run's updates: ``timesteps`` rounded up to whole updates."""
        return math.ceil(self.timesteps / self.steps_per_update)

    @property
    def chunk(self) -> int:
        """The most updates between two stops of the host (checkpoints, curve points)."""
        stops = [e for e in (self.checkpoint_every, self.curve_every) if e is not None]
        if not stops:
            return self.updates
        return max(1, min(self.updates, min(stops) // self.steps_per_update))

    @property
    def learner(self) -> PPOConfig | PlannerConfig:
        """The learner's settings: ``ppo`` or ``planner``, as ``algo`` says."""
        return self.planner if self.algo == "jax_planner" else self.ppo

    @property
    def steps_per_update(self) -> int:
        return self.learner.steps_per_update

    @property
    def progress_columns(self) -> tuple[str, ...]:
        return PLANNER_COLUMNS if self.algo == "jax_planner" else PROGRESS_COLUMNS

    def to_dict(self) -> dict:
        return {
            "algo": self.algo,
            **self.run_dict(),
            ("planner" if self.algo == "jax_planner" else "ppo"): self.learner.to_dict(),
            "stop_train_success": self.stop_train_success,
            "distinct_training": self.distinct_training,
            "dead_end": self.dead_end,
            "dead_end_penalty": self.dead_end_penalty,
        }


# ---------------------------------------------------------------------- the run's pieces
class _Learner:
    """The twins, PPO and the evaluators of one config (built before any file is written)."""

    def __init__(self, config: JaxTrainConfig) -> None:
        proto = config.protocol
        kw = {
            "reward": proto.env_kwargs.get("reward", "potential"),
            "action_cost_s": proto.action_cost_s,
            "budget_multiple": proto.budget_multiple,
            "level_bits": False,
            "progress": config.progress,
        }
        self.env, self.params = make(
            proto.env_id,
            levels="generated",
            num_levels=proto.num_levels,
            start_level=proto.start_level,
            distinct=config.distinct_training,
            dead_end=config.dead_end,
            dead_end_penalty=config.dead_end_penalty,
            **kw,
        )
        self.test_env, self.test_params = make(proto.env_id, levels="catalogue", **kw)
        if (
            self.env.obs_shape != self.test_env.obs_shape
            or self.env.num_actions != self.test_env.num_actions
        ):  # pragma: no cover - the splits keep generated levels within the catalogue's sizes
            raise ConfigError(
                f"env id: {proto.env_id}'s generated levels need planes {self.env.obs_shape}, "
                f"its catalogue {self.test_env.obs_shape}"
            )
        self.test_levels = proto.test_levels()
        self.train_levels = proto.training_levels()
        self.learner: PPO | Planner
        if config.algo == "jax_planner":
            self.learner = Planner(self.env, self.params, config.planner, chunk=config.chunk)
        else:
            self.learner = PPO(self.env, self.params, config.ppo, chunk=config.chunk)
        self.test_eval = self.level_player(self.test_env, self.test_params)
        # the planner's network alone (no search), as the Python env's evaluations play it
        self.test_network = TwinEvaluator(self.test_env, self.test_params, self.learner.network)
        # train success as the test levels are played: without the dead-end intervention
        self.train_eval = self.level_player(self.env.without_dead_end(), self.params)
        self.held: GeneratedSet | None = None
        if config.heldout_generated:
            self.held = generated_levels(
                proto, config.heldout_generated_start, config.heldout_generated, config.progress
            )
            held_env, held_params = make_held_out(
                proto.env_id,
                self.held.held,
                reward=kw["reward"],
                budgets=[t.budget_actions for t in self.held.levels],
                action_cost_s=proto.action_cost_s,
            )
            if (held_env.obs_shape, held_env.num_actions) != (
                self.env.obs_shape,
                self.env.num_actions,
            ):  # pragma: no cover - generated levels fit the tier's sizes
                raise ConfigError(
                    f"env id: {proto.env_id}'s held-out levels need planes {held_env.obs_shape}"
                )
            self.held_eval = self.level_player(held_env, held_params)
            self.held_network = TwinEvaluator(held_env, held_params, self.learner.network)
        self.keys = jax.random.PRNGKey(config.seed)[None]  # one seed
        self._run: Any = None

    def level_player(self, env: Any, params: Any) -> Any:
        """Per-level success in the twin as the learner plays: the network (PPO), or the
        planner's search on its network (:meth:`Planner.search_evaluator`)."""
        if isinstance(self.learner, Planner):
            return self.learner.search_evaluator(env, params)
        return TwinEvaluator(env, params, self.learner.network)

    def compiled_run(self, state: Any) -> Any:
        """PPO's update loop compiled for this state's shapes (once per learner)."""
        if self._run is None:
            self._run = self.learner.compile(state)
        return self._run

    def twin(self, net_params: Any, episodes: int, key: Any, greedy: bool) -> dict:
        """Per-level success in the twin on the test and the train levels."""
        k_test, k_train = jax.random.split(key)
        test = self.test_eval.success(
            net_params,
            [t.index - 1 for t in self.test_levels],
            [t.budget_actions for t in self.test_levels],
            episodes,
            k_test,
            greedy,
        )
        train = self.train_eval.success(
            net_params,
            [self.env.row(t.index) for t in self.train_levels],
            [t.budget_actions for t in self.train_levels],
            episodes,
            k_train,
            greedy,
        )
        return {"test": figures(test, episodes), "train": figures(train, episodes)}

    def held_out_figures(self, net_params: Any, episodes: int, key: Any) -> dict:
        """The generated held-out set in the twin: the policy of ``net_params`` (sampled) and
        the masked random policy (the same network with every weight 0: equal logits, so
        uniform over the legal actions), each level ``episodes`` times; intervals over
        levels and episodes (:func:`~puzzlegym.training.results.level_interval`); every level
        within twice its own solution (:mod:`puzzlegym.training.heldout`)."""
        assert self.held is not None
        keys = jax.random.split(key, 4)
        rows = np.arange(len(self.held.levels))
        budgets = np.asarray(self.held_eval.params.budget)
        out: dict[str, Any] = {"set": self.held.to_dict()}
        zero = jax.tree.map(jnp.zeros_like, net_params)
        players = [
            ("trained", self.held_eval, net_params, keys[0]),
            ("random_masked", self.held_network, zero, keys[1]),
        ]
        if self.searches:  # the network without search, and search on an untrained network
            players += [
                ("trained_network", self.held_network, net_params, keys[2]),
                ("search_untrained", self.held_eval, zero, keys[3]),
            ]
        for name, evaluator, params, k in players:
            per_level = evaluator.success(params, rows, budgets, episodes, k)
            out[name] = figures(per_level, episodes, over_levels=True)
        return out

    @property
    def searches(self) -> bool:
        """Whether the learner plays by search (the planner)."""
        return isinstance(self.learner, Planner)

    def network_test(self, net_params: Any, episodes: int, key: Any, greedy: bool) -> dict:
        """The catalogue in the twin played by the network alone (no search)."""
        test = self.test_network.success(
            net_params,
            [t.index - 1 for t in self.test_levels],
            [t.budget_actions for t in self.test_levels],
            episodes,
            key,
            greedy,
        )
        return figures(test, episodes)

    def policy(self, net_params: Any, config: JaxTrainConfig, timesteps: int) -> Policy:
        env = self.env
        return Policy(
            config.learner.network,
            net_params,
            {
                "env_id": config.protocol.env_id,
                "n_targets": env.n_targets,
                "buttons": list(env.buttons),
                "board_shape": list(env.board_shape),
                "level_bits": False,
                "observation_shape": list(env.obs_shape),
                "n_actions": env.num_actions,
                "timesteps": timesteps,
                "seed": config.seed,
                **({"search": _search_settings(config.planner)} if self.searches else {}),
            },
        )


def _search_settings(planner: PlannerConfig) -> dict:
    """What a planner's policy file says of its search (the GUI agent searches the same way)."""
    return {
        "num_simulations": planner.num_simulations,
        "max_num_considered_actions": planner.max_num_considered_actions,
        "gamma": planner.gamma,
        "gumbel_scale": planner.gumbel_scale,
        "search_value": planner.search_value,
    }


_LEARNERS: OrderedDict[str, _Learner] = OrderedDict()
MAX_LEARNERS = 2


def _learner(config: JaxTrainConfig) -> _Learner:
    """The learner of ``config``, kept for the next run of the same config in this process
    (a resumed run, a repeated run: one compile per function)."""
    mine = config.to_dict()
    del mine["stop_train_success"]  # when training stops, not what it trains
    key = json.dumps(mine, sort_keys=True)
    learner = _LEARNERS.pop(key, None) or _Learner(config)
    _LEARNERS[key] = learner
    while len(_LEARNERS) > MAX_LEARNERS:
        _LEARNERS.popitem(last=False)
    return learner


def _first(state: Any) -> Any:
    """Seed 0's slice of a state batched over seeds."""
    return jax.tree.map(lambda x: x[0], state)


def _policy_chooser(policy: Policy, greedy: bool, seed: int):
    rng = None if greedy else np.random.default_rng(seed)

    def choose(obs: Any, env: Any) -> int:
        return policy.act(obs, masks(env), rng)

    return choose


def _write_progress(path: Path, rows: list[list[float]], columns: tuple[str, ...]) -> None:
    lines = [",".join(columns)] + [
        ",".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in row) for row in rows
    ]
    jsonio.write_atomic(path, "\n".join(lines) + "\n")


def train(
    config: JaxTrainConfig,
    out_dir: str | Path,
    log: Callable[[str], None] = print,
    resume: bool = False,
) -> dict:
    """Run ``config`` into ``out_dir`` (see the module docstring), or continue the run
    there (``resume``); returns the result (also written to ``out_dir/result.json``)."""
    if not isinstance(config, JaxTrainConfig):
        raise ConfigError(f"config: expected a JaxTrainConfig, got {shown(config)}")
    if not isinstance(resume, bool):
        raise ConfigError(f"resume: expected true or false, got {shown(resume)}")
    out = Path(out_dir)
    doc = config.to_dict()
    check_dir(out, doc, resume)
    learner = _learner(config)
    with open_run(out, doc, resume):
        if not resume:
            write_config(out, doc)
        return _Run(config, out, log, learner).run(resume)


class _Run:
    def __init__(self, config: JaxTrainConfig, out: Path, log, learner: _Learner) -> None:
        self.config, self.out, self.log, self.learner = config, out, log, learner
        self.t0 = time.perf_counter()
        self.eval_seed = config.seed * 1_000_003 + 10_000  # the SB3 path's

    # -------------------------------------------------------------- Python-env evaluations
    def evaluate(self, envs: LevelEnvs, choose, episodes: int) -> dict:
        lr = self.learner
        test = play_levels(envs, lr.test_levels, choose, episodes, self.eval_seed)
        train_ = play_levels(envs, lr.train_levels, choose, episodes, self.eval_seed + 500_000)
        test["ci"] = episode_interval(test["per_level"], episodes)
        return {"test": test, "train": train_}

    def random_phases(self, envs: LevelEnvs) -> dict:
        seed, episodes = self.config.seed, self.config.episodes
        phases = {
            "random_uniform": self.evaluate(envs, random_policy(seed, False), episodes),
            "random_masked": self.evaluate(envs, random_policy(seed + 1, True), episodes),
        }
        u, m = phases["random_uniform"], phases["random_masked"]
        self.log(
            f"random policy: held-out success {u['test']['success']:.2f} (uniform), "
            f"{m['test']['success']:.2f} (uniform over the mask); train levels "
            f"{u['train']['success']:.2f}, {m['train']['success']:.2f}"
        )
        return phases

    # -------------------------------------------------------------- checkpoints
    def save(self, state: Any, book: dict) -> None:
        header = {"format": CHECKPOINT, "version": VERSION, "config": self.config.to_dict()}
        arrays.save(self.out / "checkpoint.npz", state, {**header, "book": book})

    def load(self, template: Any) -> tuple[Any, dict] | None:
        path = self.out / "checkpoint.npz"
        if not path.exists():
            return None

        def checked(header: dict) -> Any:
            """The state's shapes, once the header (its whole book) is checked."""
            if header.get("version") != VERSION or header.get("config") != self.config.to_dict():
                raise ConfigError(f"resume: {path} is not a checkpoint of this run's configuration")
            book = check_book(
                header.get("book"),
                jax_book(self.config.updates, len(self.config.progress_columns)),
                str(path),
            )
            if len(book["progress"]) != book["updates"]:
                raise ConfigError(
                    f"resume: {path}: book.progress: {len(book['progress'])} rows for "
                    f"{book['updates']} updates"
                )
            return template

        header, leaves = arrays.load(path, CHECKPOINT, checked)
        return arrays.restore(template, leaves, str(path)), header["book"]

    # -------------------------------------------------------------- the run
    def run(self, resume: bool) -> dict:
        cfg, lr = self.config, self.learner
        spu = cfg.steps_per_update
        state = lr.learner.init(lr.keys)
        loaded = self.load(state) if resume else None
        envs = LevelEnvs(cfg.protocol)
        try:
            if loaded is None:
                book: dict[str, Any] = {
                    "updates": 0,
                    "progress": [],
                    "curve": [],
                    "train_s": 0.0,
                    "curve_s": 0.0,
                    "resumed_at": [],
                    "phases": self.random_phases(envs),
                }
            else:
                state, book = loaded
                book["resumed_at"] = [*book["resumed_at"], book["updates"] * spu]
                self.log(f"resumed at {book['updates'] * spu} steps")
            t = time.perf_counter()
            run = lr.compiled_run(state)
            compile_s = time.perf_counter() - t
            self.log(f"compiled the update in {compile_s:.1f} s")
            state, book = self._train(run, state, book)
            return self._finish(state, book, envs, compile_s)
        finally:
            envs.close()

    def _curve_point(self, state: Any, book: dict, curve: Curve) -> None:
        t = time.perf_counter()
        key = jax.random.fold_in(jax.random.PRNGKey(self.config.seed + 7), len(curve.rows))
        figures = self.learner.twin(_first(state).params, self.config.episodes, key, False)
        book["curve_s"] += time.perf_counter() - t
        curve.add(
            {
                "timesteps": book["updates"] * self.config.steps_per_update,
                "train_success": figures["train"]["success"],
                "test_success": figures["test"]["success"],
                "elapsed_s": round(book["train_s"] + book["curve_s"], 1),
            }
        )
        book["curve"] = curve.rows

    def _curve_due(self, curve: Curve, steps: int) -> bool:
        """Whether the curve has a point to measure at ``steps``: ``curve_every`` steps after
        its last one (or from 0), and at the end of training (the checkpoint comes first, so
        a resumed run measures the point its checkpoint was saved before)."""
        every = self.config.curve_every
        if every is None or steps == 0:
            return False
        last = curve.rows[-1]["timesteps"] if curve.rows else 0
        end = steps >= self.config.updates * self.config.steps_per_update
        return last < steps and (steps >= last + every or end)

    def _reached(self, curve: Curve) -> bool:
        """Whether training stops early: the curve's last train success reached
        ``stop_train_success``."""
        stop = self.config.stop_train_success
        return stop is not None and bool(curve.rows) and curve.rows[-1]["train_success"] >= stop

    def _train(self, run, state: Any, book: dict) -> tuple[Any, dict]:
        from tqdm import tqdm

        cfg, out = self.config, self.out
        spu, total = cfg.steps_per_update, cfg.updates
        curve = Curve(out / "curve.csv", book["curve"])
        bar = tqdm(
            total=total * spu,
            initial=book["updates"] * spu,
            unit="step",
            desc="training",
            disable=not cfg.progress,
            mininterval=1.0,
        )
        try:
            last_ckpt = book["updates"] * spu
            if self._curve_due(curve, last_ckpt):  # measured after the checkpoint we resume
                self._curve_point(state, book, curve)
            while book["updates"] < total and not self._reached(curve):
                n = min(cfg.chunk, total - book["updates"])
                t = time.perf_counter()
                state, rows = run(state, np.int32(n))
                rows = np.asarray(jax.block_until_ready(rows))[0, :n]
                book["train_s"] += time.perf_counter() - t
                for i in range(n):
                    book["updates"] += 1
                    elapsed = round(book["train_s"] + book["curve_s"], 1)
                    row = [book["updates"] * spu, book["updates"], *map(float, rows[i]), elapsed]
                    book["progress"].append(row)
                bar.update(n * spu)
                steps = book["updates"] * spu
                _write_progress(out / "progress.csv", book["progress"], cfg.progress_columns)
                every = cfg.checkpoint_every
                if (every is not None and steps - last_ckpt >= every) or book["updates"] == total:
                    self.save(state, book)
                    last_ckpt = steps
                if self._curve_due(curve, steps):
                    self._curve_point(state, book, curve)
                    if self._reached(curve) and last_ckpt < steps:
                        self.save(state, book)  # the state training stopped at
                        last_ckpt = steps
        finally:
            bar.close()
        return state, book

    def _finish(self, state: Any, book: dict, envs: LevelEnvs, compile_s: float) -> dict:
        cfg, lr, out = self.config, self.learner, self.out
        proto, spu = cfg.protocol, cfg.steps_per_update
        timesteps = book["updates"] * spu
        net_params = _first(state).params
        policy = lr.policy(net_params, cfg, timesteps)
        phases = dict(book["phases"])
        phases["trained"] = self.evaluate(
            envs, _policy_chooser(policy, False, cfg.seed + 2), cfg.episodes
        )
        phases["trained_greedy"] = self.evaluate(envs, _policy_chooser(policy, True, 0), 1)
        key = jax.random.PRNGKey(cfg.seed + 11)
        greedy = lr.twin(net_params, cfg.episodes, key, True)  # same shapes: no new compile
        for split in ("test", "train"):  # deterministic: every episode of a level alike
            greedy[split] = figures(greedy[split]["per_level"], 1)
        twin = {"trained": lr.twin(net_params, cfg.episodes, key, False), "trained_greedy": greedy}
        generated = (
            None
            if lr.held is None
            else lr.held_out_figures(net_params, cfg.episodes, jax.random.PRNGKey(cfg.seed + 13))
        )
        # what the Python env's evaluations play: the network (the planner's without search)
        network_test, network_greedy = twin["trained"]["test"], twin["trained_greedy"]["test"]
        if lr.searches:
            network_test = lr.network_test(net_params, cfg.episodes, key, False)
            network_greedy = figures(lr.network_test(net_params, 1, key, True)["per_level"], 1)
            twin["trained_network"] = {"test": network_test}
            twin["trained_network_greedy"] = {"test": network_greedy}
        policy.save(out / "policy.npz")
        train_s = book["train_s"]
        result: dict[str, Any] = {
            "config": cfg.to_dict(),
            "env_id": proto.env_id,
            "policy": f"{cfg.algo}:{cfg.learner.network.kind}",
            "observation_shape": list(lr.env.obs_shape),
            "actions": lr.env.num_actions,
            "test_levels": [vars(t) for t in lr.test_levels],
            "train_levels": [vars(t) for t in lr.train_levels],
            "train_budget_actions": proto.train_budget_actions(),
            "training_split": {  # the levels the twin trained on (rows: distinct boards
                "num_levels": proto.num_levels,  # with distinct_training, else seeds)
                "start_level": proto.start_level,
                "distinct_training": cfg.distinct_training,
                "rows": lr.env.n_levels,
                "dead_end": cfg.dead_end,
                **(
                    {}
                    if lr.params.dead_count is None
                    else {"dead_ends": int(np.sum(np.asarray(lr.params.dead_count)))}
                ),
            },
            **dead_end_phases(phases, proto.game.name),
            "twin": twin,
            **({} if generated is None else {"generated": generated}),
            "timesteps": timesteps,
            "stopped_early": book["updates"] < cfg.updates,  # stop_train_success reached
            "train_s": round(train_s, 1),
            "train_fps": round(timesteps / max(train_s, 1e-9), 1),
            "compile_s": round(compile_s, 1),
            "curve_s": round(book["curve_s"], 1),
            "curve": book["curve"],
            "resumed_at": book["resumed_at"],
            "device": jax.devices()[0].platform,
        }
        # the Python env and the twin, like for like: the network (the planner's without search)
        py, tw = result["trained"]["test"], network_test
        result["agreement"] = {
            "python": py["success"],
            "python_ci": py["ci"],
            "twin": tw["success"],
            "twin_ci": tw["ci"],
            "overlap": py["ci"][0] <= tw["ci"][1] and tw["ci"][0] <= py["ci"][1],
            "greedy_python": result["trained_greedy"]["test"]["per_level"],
            "greedy_twin": network_greedy["per_level"],
        }
        result["total_s"] = round(time.perf_counter() - self.t0, 1)
        if book["curve"]:
            from puzzlegym.training.plots import plot_run

            jsonio.write_atomic(out / "curve.png", lambda tmp: plot_run(result, tmp))
        self.log(
            f"trained policy: held-out success {py['success']:.2f} (sampled; {tw['success']:.2f} "
            f"in the twin), {result['trained_greedy']['test']['success']:.2f} (greedy); train "
            f"levels {result['trained']['train']['success']:.2f} after {timesteps} steps "
            f"({result['train_s']} s, {result['train_fps']} steps/s, compile {compile_s:.1f} s)"
        )
        if lr.searches:
            self.log(
                f"with search ({cfg.planner.num_simulations} simulations a move) in the twin: "
                f"held-out {twin['trained']['test']['success']:.2f}, train levels "
                f"{twin['trained']['train']['success']:.2f}"
            )
        if generated is not None:
            self.log(
                f"generated held-out set ({generated['set']['levels']} levels): "
                f"{generated['trained']['success']:.2f} {generated['trained']['ci']} trained, "
                f"{generated['random_masked']['success']:.2f} "
                f"{generated['random_masked']['ci']} masked random"
            )
        jsonio.write_json(out / "result.json", result)
        return result


def config_from_mapping(protocol: Protocol, agent: Mapping[str, Any], seed: int) -> JaxTrainConfig:
    """The config of a composed ``agent`` section (``configs/agent/jax_ppo.yaml``,
    ``configs/agent/jax_planner.yaml``): its ``algo``, the learner's mapping (``ppo`` or
    ``planner``) and ``network``, and the run's fields; unknown keys refused by name."""
    agent = dict(agent)
    algo = agent.pop("algo", "jax_ppo")
    if algo not in ALGOS:
        raise ConfigError(f"algo: {shown(algo)} is not allowed; allowed: {', '.join(ALGOS)}")
    section = "planner" if algo == "jax_planner" else "ppo"
    other = "ppo" if section == "planner" else "planner"
    if agent.get(other) is not None:
        raise ConfigError(f"{other}: algo {algo} reads {section}, not {other}")
    agent.pop(other, None)
    learner = dict(agent.pop(section, None) or {})
    network = agent.pop("network", None)
    if network is not None:
        learner["network"] = network
    allowed = (
        "timesteps",
        "episodes",
        "curve_every",
        "checkpoint_every",
        "progress",
        "heldout_generated",
        "heldout_generated_start",
        "stop_train_success",
        "distinct_training",
        "dead_end",
        "dead_end_penalty",
    )
    for key in agent:
        if key not in allowed:
            raise ConfigError(
                f"agent.{key}: unknown key; allowed: algo, {section}, network, {', '.join(allowed)}"
            )
    kind: type[PPOConfig] | type[PlannerConfig] = (
        PlannerConfig if section == "planner" else PPOConfig
    )
    try:
        settings = kind.from_dict(learner)
    except ConfigError as exc:
        text = str(exc)
        raise ConfigError(text if text.startswith("network") else f"{section}.{text}") from None
    if isinstance(settings, PlannerConfig):
        return JaxTrainConfig(protocol=protocol, algo=algo, seed=seed, planner=settings, **agent)
    return JaxTrainConfig(protocol=protocol, algo=algo, seed=seed, ppo=settings, **agent)
