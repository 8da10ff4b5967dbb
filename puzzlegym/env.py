"""``PuzzleEnv``: one objective of the Game Suite as a Gymnasium environment.

The episode starts at the suite home screen (or directly on the board), the agent acts with
GUI actions only, and the observation is the 1280×900 screen. The suite, the evaluator, the
clock and the input recognizer live here; the backend moves events and pixels.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import math
import os
import tempfile
from pathlib import Path
from types import MappingProxyType
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding as gymnasium_seeding

from puzzlegym.actions import (
    SCREEN_HEIGHT,
    SCREEN_WIDTH,
    Answer,
    GUIActionSpace,
    flatten,
    parse_action,
    to_dict,
)
from puzzlegym.backends import make_backend
from puzzlegym.checkpoint import Checkpoint, validate_payload
from puzzlegym.errors import CheckpointError, ConfigError, LevelError, PuzzleGymError, shown
from puzzlegym.evaluation.evaluator import Evaluator, Objective
from puzzlegym.evaluation.events import (
    ActionTaken,
    Annotated,
    EpisodeEnded,
    EventBus,
    FrameHashed,
    Subscription,
    freeze,
)
from puzzlegym.evaluation.records import RecordWriter, unused_path
from puzzlegym.probe import BoardProbe, Probe
from puzzlegym.registry import catalogue_sha256, games, get_game
from puzzlegym.screen.clock import Clock, make_clock
from puzzlegym.screen.input import GestureRecognizer
from puzzlegym.screen.labels import label
from puzzlegym.screen.layout import BOARD_AREA, LEVEL
from puzzlegym.screen.resolution import Resolution, TrainingView
from puzzlegym.screen.suite import Suite
from puzzlegym.splits import LevelSet, TrainingLevels, check_split
from puzzlegym.version import __version__

STARTS = ("home", "board")
# the keys of PuzzleEnv.config: what shapes an episode (records and checkpoints carry it)
CONFIG_KEYS = frozenset(
    {
        "env_id",
        "backend",
        "start",
        "level",
        "clock",
        "budget_s",
        "reward",
        "action_cost_s",
        "levels",
        "num_levels",
        "start_level",
    }
)
OBSERVATIONS = ("pixels", "none")  # set_observation: frames, or none painted at all
REWARDS = ("potential", "sparse")
ANNOTATION_KINDS = ("intervention",)  # record lines wrappers may add (PuzzleEnv.annotate)


def _positive_finite(value: Any) -> bool:
    if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(
        value, (bool, np.bool_)
    ):
        return False
    try:
        return bool(math.isfinite(value) and value > 0)
    except OverflowError:  # an int beyond any float (10**400)
        return False


def _check_record_dir(record_dir: Any) -> str:
    """``record_dir`` is a path whose parent can be created and written (a record goes to
    ``record_dir`` or, if that holds one, to ``record_dir-2``, ... beside it); checked by
    creating the parent and writing a probe file there, so a bad path fails here, not at the
    first reset."""
    if not isinstance(record_dir, (str, os.PathLike)) or not str(record_dir).strip():
        raise ConfigError(
            f"record_dir: expected a directory path (str or os.PathLike), got {shown(record_dir)}"
        )
    path = Path(record_dir)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"record_dir: {str(path)!r} exists and is not a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as exc:
        raise ConfigError(
            f"record_dir: cannot write records under {str(path.parent)!r}: {exc.strerror}"
        ) from None
    return str(record_dir)


def _level_set(level_sets: dict, game: str, tier: str) -> LevelSet:
    """The suite's ``levels(game, tier)`` (a module function under a partial: envs pickle)."""
    return level_sets[(game, tier)]


def puzzle_env(env: gym.Env, who: str) -> PuzzleEnv:
    """The puzzlegym env under ``env``'s wrappers (``env.unwrapped``).

    Args:
        env: a puzzlegym env, wrapped or not.
        who: the caller (a wrapper's name), named in the error.

    Returns:
        The :class:`PuzzleEnv` itself.

    Raises:
        ConfigError: ``env`` is not a puzzlegym env.

    Examples:
        >>> import gymnasium as gym
        >>> from puzzlegym.wrappers import BlackBox
        >>> type(puzzle_env(BlackBox(gym.make("LongPuzzle/MazePaint-Easy")), "mine")).__name__
        'PuzzleEnv'
        >>> puzzle_env(gym.make("CartPole-v1"), "mine")
        Traceback (most recent call last):
        ...
        puzzlegym.errors.ConfigError: mine: wraps puzzlegym envs only (gym.make('LongPuzzle/...')),
        got CartPoleEnv
    """
    base = env.unwrapped
    if not isinstance(base, PuzzleEnv):
        raise ConfigError(
            f"{who}: wraps puzzlegym envs only (gym.make('LongPuzzle/...')), "
            f"got {type(base).__name__}"
        )
    return base


class PuzzleEnv(gym.Env):
    """One objective (game, difficulty, target levels) played through GUI actions.

    Keyword arguments (stable, public): ``backend`` ("native"), ``start`` ("home" or
    "board"), ``level`` (None for the whole objective, or k, 1-based, for one level),
    ``clock`` ("sim" or "wall"), ``budget_s`` (3600), ``reward`` ("potential" or "sparse"),
    ``render_mode`` (None or "rgb_array"), ``action_cost_s`` (simulated seconds per action),
    ``levels`` ("catalogue" or "generated": procedural, solver-verified levels of the tier,
    never a catalogue level), ``num_levels`` and ``start_level`` (with "generated" only: the
    training distribution's level seeds ``start_level + i mod num_levels``, ``num_levels=0``
    (the default) unbounded; each reset draws the episode's levels with ``np_random``,
    :mod:`puzzlegym.splits`), ``record_dir`` (write the episode record there, or, if it already
    holds one, in the first free ``<record_dir>-2``, ``-3``, ...; each reset starts a new
    record; ``record_path`` says where the current one is), ``agent`` (the agent's name, for
    records), ``record_frames`` (None, or ``"hash"``: the record also gets a ``frame`` line
    with the SHA-256 of every full-resolution frame, for ``puzzlegym replay``; off by default
    since hashing costs ~2 ms per step), ``render_cache_bytes`` (the bound of the renderer's
    widget image cache, default ``puzzlegym.screen.render.DEFAULT_CACHE_BYTES`` = 64 MiB).

    Observations are the 1280×900 screen unless :meth:`set_resolution` picked a reduced
    resolution (``puzzlegym.wrappers.LowResObservation`` does): then the renderer composites
    the observation directly at that size and ``render()`` still returns the full screen.
    :meth:`set_observation` ``("none")`` turns frames off altogether
    (``puzzlegym.wrappers.BoardObservation`` does: it observes the board through the probe):
    steps paint nothing, and ``render()`` or :meth:`screenshot` paint the screen when asked.

    Envs pickle and deep-copy (before and after ``reset``; not while writing a record or on the
    browser backend); a copy plays on exactly as the original would.

    Examples:
        >>> import gymnasium as gym
        >>> env = gym.make("LongPuzzle/MazePaint-Easy", start="board", level=1)
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, info["screen"], info["budget_s"]  # start="board": on level 1 already
        ((900, 1280, 3), 'level', 3600.0)
        >>> gym.make("LongPuzzle/MazePaint-Easy").reset(seed=0)[1]["screen"]  # start="home"
        'home'
        >>> short = gym.make("LongPuzzle/MazePaint-Easy", budget_s=2.0)  # 1 s per action
        >>> _ = short.reset(seed=0)
        >>> [short.step({"type": "wait"})[3] for _ in range(2)]  # truncated once spent
        [False, True]
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    # an episode's parts, set by reset() (_episode_parts, _restored_parts)
    clock: Clock
    recognizer: GestureRecognizer
    steps: int
    actions: int
    _terminated: bool
    _phi: float

    def __init__(
        self,
        game: str,
        tier: str,
        backend: str = "native",
        start: str = "home",
        level: int | None = None,
        clock: str = "sim",
        budget_s: float = 3600.0,
        reward: str = "potential",
        render_mode: str | None = None,
        action_cost_s: float = 1.0,
        levels: str = "catalogue",
        num_levels: int | None = None,
        start_level: int | None = None,
        record_dir: str | None = None,
        agent: str | None = None,
        record_frames: str | None = None,
        render_cache_bytes: int | None = None,
        **unknown: Any,
    ) -> None:
        if unknown:
            raise ConfigError(
                f"{sorted(unknown)[0]}: not a keyword argument of puzzlegym envs; allowed: "
                "backend, start, level, clock, budget_s, reward, render_mode, action_cost_s, "
                "levels, num_levels, start_level, record_dir, agent, record_frames, "
                "render_cache_bytes"
            )
        if agent is not None and (not isinstance(agent, str) or not 1 <= len(agent) <= 200):
            raise ConfigError(
                f"agent: expected None or the agent's name (1..200 characters), got {shown(agent)}"
            )
        self.game = get_game(game)
        if tier not in self.game.tiers:
            raise ConfigError(
                f"tier: {tier!r} is not a tier of {game}; allowed: {', '.join(self.game.tiers)}"
            )
        self.tier = tier
        n = len(self.game.load_catalogue(tier))
        if start not in STARTS:
            raise ConfigError(f"start: {start!r} is not allowed; allowed: {', '.join(STARTS)}")
        if level is not None and (
            isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= n
        ):
            raise ConfigError(
                f"level: {level!r} is not a level of {game}-{tier}; allowed: None or 1..{n}"
            )
        if clock not in ("sim", "wall"):
            raise ConfigError(f"clock: {clock!r} is not allowed; allowed: sim, wall")
        if not _positive_finite(budget_s):
            raise ConfigError(
                f"budget_s: must be a positive, finite number of seconds, got {shown(budget_s)}"
            )
        if reward not in REWARDS:
            raise ConfigError(f"reward: {reward!r} is not allowed; allowed: {', '.join(REWARDS)}")
        if render_mode not in (None, "rgb_array"):
            raise ConfigError(
                f"render_mode: {render_mode!r} is not supported; allowed: None, 'rgb_array'"
            )
        if not _positive_finite(action_cost_s):
            raise ConfigError(
                "action_cost_s: must be a positive, finite number of seconds, "
                f"got {shown(action_cost_s)}"
            )
        split = check_split(levels, num_levels, start_level)
        if record_frames not in (None, "hash"):
            raise ConfigError(
                f"record_frames: {record_frames!r} is not allowed; allowed: None, 'hash'"
            )
        if record_dir is not None:
            record_dir = _check_record_dir(record_dir)
        if render_cache_bytes is not None and (
            isinstance(render_cache_bytes, bool)
            or not isinstance(render_cache_bytes, int)
            or render_cache_bytes < 0
        ):
            raise ConfigError(
                "render_cache_bytes: expected None or a non-negative integer, "
                f"got {render_cache_bytes!r}"
            )
        try:
            self.backend = make_backend(backend, cache_bytes=render_cache_bytes)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        self.config: dict[str, Any] = {
            "env_id": self.game.env_id(tier),
            "backend": backend,
            "start": start,
            "level": level,
            "clock": clock,
            "budget_s": float(budget_s),
            "reward": reward,
            "action_cost_s": float(action_cost_s),
            "levels": levels,
        }
        if split is not None:  # catalogue configs stay as they were (records, checkpoints)
            self.config.update(num_levels=split.num_levels, start_level=split.start_level)
        self.split = split
        # the training distribution of a generated objective (None: the catalogue)
        self.training_levels = None if split is None else TrainingLevels(self.game, tier, split)
        self._first_level: int | None = None  # the episode's first training level
        self.render_mode = render_mode
        self.record_dir = record_dir
        self.record_path: str | None = None  # the current episode's record directory
        self.record_frames = record_frames
        self.agent_name = agent
        self.observation_space = spaces.Box(0, 255, (SCREEN_HEIGHT, SCREEN_WIDTH, 3), np.uint8)
        self.action_space = GUIActionSpace()
        if level is None:
            self.instruction = label("instruction", game=self.game.title, tier=tier)
        else:
            self.instruction = label("instruction_level", k=level, game=self.game.title, tier=tier)
        self.suite: Suite | None = None
        self.evaluator: Evaluator | None = None
        self.bus = EventBus()  # the episode's events; subscribers stay across resets
        self.records = RecordWriter()  # the episode record: the first subscriber
        self.bus.subscribe(self.records)
        self._now = 0.0  # the time of the action in progress (every event carries it)
        self._frame: np.ndarray | None = None
        self._observation = "pixels"  # set_observation
        self._done = True
        self._seed: int | None = None
        self._episode = 0  # resets so far (restores included): probes tell screens apart by it
        self._probe_cache: tuple[tuple, Probe] | None = None

    # ------------------------------------------------------------------ episode set-up
    def _objective(self) -> Objective:
        n = len(self.game.load_catalogue(self.tier))
        k = self.config["level"]
        return Objective(self.game.name, self.tier, tuple(range(n)) if k is None else (k - 1,))

    def _episode_parts(self, first_level: int | None) -> dict[str, Any]:
        """A fresh suite, evaluator, clock and recognizer (not yet the env's); a generated
        objective's tier holds the training levels from ``first_level`` on."""
        mine = (self.game.name, self.tier)
        level_sets = {
            (g.name, t): LevelSet(g, t, self.training_levels, first_level or 0)
            if (g.name, t) == mine
            else LevelSet(g, t)
            for g in games().values()
            for t in g.tiers
        }
        evaluator = Evaluator(self._objective(), publish=self.bus.publish, stamp=self._stamp)
        return {
            "evaluator": evaluator,
            "suite": Suite(games(), functools.partial(_level_set, level_sets), evaluator),
            "clock": make_clock(self.config["clock"], self.config["action_cost_s"]),
            "recognizer": GestureRecognizer(),
            "steps": 0,
            "actions": 0,
        }

    def _new_episode(self, first_level: int | None) -> None:
        for name, value in self._episode_parts(first_level).items():
            setattr(self, name, value)
        self._first_level = first_level
        self.backend.invalidate()

    def _live(self, what: str) -> tuple[Suite, Evaluator]:
        """The episode's suite and evaluator; ``what`` before the first reset() raises."""
        if self.suite is None or self.evaluator is None:
            raise PuzzleGymError(f"{what} before reset()")
        return self.suite, self.evaluator

    def _start_position(self) -> None:
        suite, _ = self._live("_start_position()")
        k = self.config["level"]
        if k is not None:
            # earlier levels count as unlocked (not credited): the suite re-enters at level k
            suite.progress[(self.game.name, self.tier)] = set(range(k - 1))
        if self.config["start"] == "board":
            suite.choose_game(self.game.name)
            suite.enter_tier(self.tier)

    def _open_record(self, restored: dict | None = None) -> None:
        self.records.close()
        if self.record_dir is None:
            return
        # one new record per episode: record_dir, or the first of record_dir-2, -3, ... that
        # holds none (an earlier record, of this env or another run, is never overwritten)
        self.record_path = str(unused_path(self.record_dir))
        manifest = {
            "puzzlegym_version": __version__,
            "catalogue_sha256": catalogue_sha256([self.game.name]),
            "env_id": self.config["env_id"],
            "config": self.config,
            "seed": self._seed,
            "agent": self.agent_name,
            "instruction": self.instruction,
            "record_frames": self.record_frames,
        }
        if restored is not None:
            manifest["restored"] = restored
        if self.split is not None:  # the episode's levels: replay passes it to reset()
            manifest["first_level"] = self._first_level
        self.records.open(self.record_path, manifest)

    def _stamp(self) -> tuple[int, float]:
        """The env's action count and the current action's time (what events carry)."""
        return self.actions, self._now

    def subscribe(self, callback) -> Subscription:
        """Call ``callback(event)`` with every event of this env's episodes from now on
        (:mod:`puzzlegym.evaluation.events`: actions, levels reached and won, snapshots,
        rejected moves, attempts, restarts, undos, answers, frame hashes, notes, the
        episode's end); ``.close()`` on the returned subscription stops it. Privileged, like
        the probe: events carry board states and certificates."""
        return self.bus.subscribe(callback)

    def annotate(self, record: dict) -> None:
        """Add one line to the episode record (when one is written), stamped with the current
        action count and time: wrappers note what they did there (``{"kind":
        "intervention", "wrapper": ..., ...}``). Records are the evaluator's; nothing written
        here reaches the agent's observation or info."""
        if not isinstance(record, dict) or record.get("kind") not in ANNOTATION_KINDS:
            raise ConfigError(
                f"annotate: expected a dict whose 'kind' is one of {ANNOTATION_KINDS}"
            )
        if self.suite is None:
            raise PuzzleGymError("annotate() before reset()")
        self.bus.publish(Annotated(self.actions, round(self.clock.elapsed_s, 3), freeze(record)))

    def _record_frame(self) -> None:
        if self.record_frames == "hash" and self.records.recorder is not None:
            digest = hashlib.sha256(np.ascontiguousarray(self.screenshot()).tobytes()).hexdigest()
            self.bus.publish(FrameHashed(self.actions, 0.0, digest))

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = dict(options or {})
        unknown = sorted(set(options) - {"checkpoint", "first_level"})
        if unknown:
            raise ConfigError(
                f"reset options: unknown option {unknown[0]!r}; "
                "allowed: 'checkpoint', 'first_level'"
            )
        ckpt = options.get("checkpoint")
        if ckpt is not None and not isinstance(ckpt, Checkpoint):
            raise CheckpointError(
                "reset options['checkpoint']: expected a puzzlegym Checkpoint, "
                f"got {type(ckpt).__name__}"
            )
        first = options.get("first_level")  # a generated episode's first training level
        if first is not None:
            if self.split is None:
                raise ConfigError("reset options['first_level']: only with levels='generated'")
            if ckpt is not None:
                raise ConfigError(
                    "reset options: 'first_level' and 'checkpoint' do not go together"
                )
            first = self.split.check_first_level(first, "reset options['first_level']")
        if seed is not None and (
            isinstance(seed, bool)
            or not isinstance(seed, (int, np.integer))
            or not 0 <= seed < 2**64
        ):
            raise ConfigError(f"seed: expected None or an integer 0..2**64-1, got {shown(seed)}")
        restoring: tuple[dict[str, Any], Checkpoint] | None = None
        if ckpt is not None:
            self._check_checkpoint(ckpt)
            restoring = self._restored_parts(ckpt), ckpt  # validates everything; changes nothing
        elif self.split is not None:
            drawn = first is None
            if first is None:  # the draw reset() will make, on a copy of the generator it will use
                rng = (
                    gymnasium_seeding.np_random(seed)[0]
                    if seed is not None
                    else copy.deepcopy(self.np_random)
                )
                first = self.split.draw(rng)
            # the episode's first target level, generated before anything changes (a
            # generator that fails raises here, not half-way into the episode)
            assert self.training_levels is not None  # set with the split
            self.training_levels.level(first + (self.config["level"] or 1) - 1)
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
        self._episode += 1
        if restoring is not None:
            self._restore(*restoring)
        else:
            if self.split is not None and drawn:
                first = self.split.draw(self.np_random)  # the same draw, now on the env's generator
            self._seed = seed
            self._new_episode(first)
            self._now = 0.0
            self._open_record()
            self._start_position()
            self._terminated = False
        self._done = self._terminated
        suite, ev = self._live("reset()")
        self._phi = ev.progress(suite.board)
        self._frame = self._observe()
        self._record_frame()
        return self._frame, self._info(accepted=True)

    def step(self, action: Any):
        if self.suite is None or self._done:
            raise PuzzleGymError("the episode is over (or was never started); call reset() first")
        suite, ev = self._live("step()")
        act = parse_action(action)  # raises ActionError before anything changes
        terminated = truncated = False
        accepted = False
        budget = self.config["budget_s"]
        suite.pressed.clear()
        for prim in flatten(act):
            if self.clock.elapsed_s >= budget:
                break
            self.clock.tick()
            self.actions += 1
            now = (
                self.clock.elapsed_s
            )  # the action's time (one reading, so wall-clock records replay)
            self._now = now
            this = False  # this primitive's own acceptance (a batch member's, in the record)
            if isinstance(prim, Answer):
                ev.answer(prim.text)
                terminated = this = True
            else:
                t_ms = int(round(now * 1000))
                for event in self.backend.perform(prim, t_ms):
                    for gesture in self.recognizer.feed(event):
                        this |= suite.handle(gesture)
            accepted |= this
            feedback = suite.board.feedback if suite.board else ""
            action = freeze(to_dict(prim))
            self.bus.publish(
                ActionTaken(self.actions, round(now, 3), action, this, suite.screen, feedback)
            )
            if ev.success:
                terminated = True
            if terminated:
                break
        self.steps += 1
        if not terminated and self.clock.elapsed_s >= budget:
            truncated = True
        self._terminated = terminated
        self._done = terminated or truncated
        phi = ev.progress(suite.board)
        if self.config["reward"] == "potential":
            reward = phi - self._phi
        else:
            reward = float(int(phi) - int(self._phi))
        self._phi = phi
        self._frame = self._observe()
        self._record_frame()
        info = self._info(accepted=accepted)
        if self._done:
            self._end({"terminated": terminated, "truncated": truncated})
        return self._frame, float(reward), terminated, truncated, info

    def _end(self, how: dict) -> None:
        """Close the attempt in progress and publish the episode's end."""
        _, ev = self._live("_end()")
        ev.finish()
        result = {**ev.summary(), **how}
        self.bus.publish(EpisodeEnded(self.actions, round(self.clock.elapsed_s, 3), freeze(result)))

    def render(self):
        if self.render_mode == "rgb_array":
            if self._frame is None:
                raise PuzzleGymError("render() before reset()")
            return self.screenshot().copy()
        return None

    def end_episode(self, reason: str) -> None:
        """End a running episode now, neither by an answer nor at the deadline (a service
        session deleted or expired, a reset over it): close the attempt in progress and write
        the record's result with ``"ended": reason``. Nothing happens if it already ended."""
        if self.suite is None or self._done:
            return
        self._done = True
        self._end({"terminated": False, "truncated": False, "ended": str(reason)})

    # ------------------------------------------------------------------ observations
    def _observe(self) -> np.ndarray:
        if self._observation == "none":
            return np.zeros((0,), dtype=np.uint8)
        return self.backend.observe(self.suite)

    @property
    def observation(self) -> str:
        """What observations are: ``"pixels"`` (frames at :attr:`resolution`) or ``"none"``."""
        return self._observation

    def set_observation(self, kind: str) -> None:
        """``"none"``: paint no frames from now on; observations are an empty ``uint8`` array
        (``observation_space`` ``Box(0, 255, (0,))``), for wrappers that observe the board
        through the probe (``puzzlegym.wrappers.BoardObservation``). ``render()``,
        :meth:`screenshot` and frame hashes still paint the full screen, byte-identical,
        when asked. ``"pixels"``: frames again, at :attr:`resolution`. The in-process backend
        only (the browser backend's observation is the page's screenshot)."""
        if kind not in OBSERVATIONS:
            raise ConfigError(
                f"observation: {shown(kind)} is not allowed; allowed: {', '.join(OBSERVATIONS)}"
            )
        if kind == "none" and self.config["backend"] != "native":
            raise ConfigError(
                f"observation: 'none' (no frames) needs backend='native'; this env uses "
                f"{self.config['backend']!r}, whose observations are the page's screenshots "
                "(allowed there: 'pixels')"
            )
        self._observation = kind
        self.observation_space = self._observation_space()
        if self.suite is not None:
            self._frame = self._observe()

    def _observation_space(self) -> spaces.Box:
        shape = (0,) if self._observation == "none" else self.resolution.shape
        return spaces.Box(0, 255, shape, np.uint8)

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict:
        # rebuilt on load, not stored: the observation space (Gymnasium's Box holds bounds
        # the size of a frame) and the current frame (the copy's canvas paints it again,
        # byte-identical); the backend keeps no frame or image cache either
        state = self.__dict__.copy()
        del state["observation_space"]
        state["_frame"] = self._frame is not None
        state["_probe_cache"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.observation_space = self._observation_space()
        self._frame = self._observe() if state["_frame"] else None

    @property
    def resolution(self) -> Resolution:
        """The resolution observations are rendered at (the full screen by default)."""
        return getattr(self.backend, "resolution", None) or Resolution.full()

    def set_resolution(self, resolution: Resolution | TrainingView) -> None:
        """Render observations at ``resolution`` (or as a ``TrainingView``: the board framed,
        in the training style) from now on (the in-process backend only);
        ``observation_space`` follows. The next observation is composited directly at that
        size; ``render()`` and frame hashes keep using the full screen."""
        if not isinstance(resolution, (Resolution, TrainingView)):
            raise ConfigError(
                "resolution: expected a puzzlegym Resolution or TrainingView, got "
                f"{type(resolution).__name__}"
            )
        if self._observation == "none":
            raise ConfigError(
                "resolution: observations are off (set_observation('none')); "
                "call set_observation('pixels') first"
            )
        if not hasattr(self.backend, "set_resolution"):
            if resolution.is_full:
                return
            raise ConfigError(
                f"resolution: reduced-scale rendering needs backend='native' (this env uses "
                f"{self.config['backend']!r}); resize its screenshots with "
                "puzzlegym.wrappers.DownscaleObservation instead"
            )
        self.backend.set_resolution(resolution)
        self.observation_space = self._observation_space()
        if self.suite is not None:
            self._frame = self.backend.observe(self.suite)

    def screenshot(self) -> np.ndarray:
        """The full 1280×900 screen now (not a copy: do not modify), whatever resolution
        observations use."""
        if self._frame is None:
            raise PuzzleGymError("screenshot() before reset()")
        if self._observation == "pixels" and self.resolution.is_full:
            return self._frame
        return self.backend.screenshot(self.suite)

    def close(self) -> None:
        self.records.close()
        self.backend.close()  # the renderer's cached images are freed here
        if self.evaluator is not None:
            # the evaluator's publish and stamp are this env's bound methods: the one reference
            # cycle of an episode. Cut, a closed env is freed as soon as its last reference goes
            # (with the cycle, its frame buffers waited for a full garbage collection)
            self.evaluator.detach()

    # ------------------------------------------------------------------ info
    def _info(self, accepted: bool) -> dict:
        suite, ev = self._live("_info()")
        board = suite.board
        on_target = board is not None and ev.is_target(board)
        last = ev.last_snapshot
        return {
            # public: what the player could know
            "step": self.steps,
            "actions": self.actions,
            "elapsed_s": self.clock.elapsed_s,
            "budget_s": self.config["budget_s"],
            "accepted": accepted,
            "screen": suite.screen,
            "feedback": board.feedback if board else "",
            "instruction": self.instruction,
            "pressed": list(suite.pressed),  # the controls this step pressed (e.g. ["restart"])
            # private: the evaluator's view (strip with puzzlegym.wrappers.BlackBox)
            "evaluator": {
                "level": board.index + 1 if board is not None and on_target else None,
                "potential": board.potential
                if board is not None and suite.screen == LEVEL
                else None,
                "progress": self._phi,
                "levels_won": ev.levels_won,
                "lc": ev.lc,
                "fgp": ev.fgp,
                "success": ev.success,
                "dead_end": last.dead_end if last else None,
                "mismatch": ev.mismatch,
            },
        }

    # ------------------------------------------------------------------ probe
    def probe(self) -> Probe:
        """A frozen, read-only view of the episode now (:class:`puzzlegym.probe.Probe`): the
        screen, the objective, the board in play, the named controls and the board area, the
        last settled snapshot and its dead-end certificate, counters and results. Privileged:
        for training code and the lab, never for evaluated agents."""
        suite, ev = self._live("probe()")
        # a probe is a value of these: one per moment, however many readers ask for it
        key = (self._episode, suite.version, self.actions, self.steps)
        cached = self._probe_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        b = suite.board
        board = None
        if b is not None:
            board = BoardProbe(
                b.game,
                b.tier,
                b.index,
                b.level,
                b.state,
                b.ui,
                len(b.history),
                b.feedback,
                ev.is_target(b),
            )
        probe = Probe(
            env_id=self.config["env_id"],
            objective=ev.objective,
            screen=suite.screen,
            game=suite.game,
            tier=suite.tier,
            board=board,
            controls=MappingProxyType(suite.targets()),
            board_area=BOARD_AREA,
            episode=self._episode,
            version=suite.version,
            steps=self.steps,
            actions=self.actions,
            elapsed_s=self.clock.elapsed_s,
            levels_won=tuple(ev.levels_won),
            success=ev.success,
            lc=ev.lc,
            fgp=ev.fgp,
            progress=self._phi,
            _snapshot=ev.last_snapshot,
        )
        self._probe_cache = (key, probe)
        return probe

    def summary(self) -> dict:
        """The evaluator's summary of the episode so far (what the record's result holds:
        success, LC, FGP, levels won, per-level results, attempts, ...). Privileged."""
        if self.evaluator is None:
            raise PuzzleGymError("summary() before reset()")
        return self.evaluator.summary()

    # ------------------------------------------------------------------ checkpoints
    def checkpoint(self) -> Checkpoint:
        """The whole suite now (screen, board, ui, history, clock, input, evaluator)."""
        suite, ev = self._live("checkpoint()")
        payload = {
            "suite": suite.to_json(),
            "evaluator": ev.to_json(),
            "clock": self.clock.to_json(),
            "recognizer": self.recognizer.to_json(),
            "steps": self.steps,
            "actions": self.actions,
            "seed": self._seed,
            "terminated": self._terminated,
        }
        if self.split is not None:
            payload["first_level"] = self._first_level
        digest = catalogue_sha256([self.game.name])
        return Checkpoint(copy.deepcopy(self.config), copy.deepcopy(payload), digest, __version__)

    def _check_checkpoint(self, ckpt: Checkpoint) -> None:
        # the hash of the objective's game: a game added or changed leaves the others'
        # checkpoints valid (a board of another game, which scores nothing, is still
        # checked against that game's levels when it is restored)
        here = catalogue_sha256([self.game.name])
        if ckpt.catalogue != here:
            raise CheckpointError(
                f"checkpoint was made with another {self.game.name} level catalogue "
                f"({ckpt.catalogue[:12]}…, this install has {here[:12]}…)"
            )
        mine = {k: v for k, v in self.config.items() if k != "backend"}
        theirs = {k: v for k, v in ckpt.config.items() if k != "backend"}
        if mine != theirs:
            diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            raise CheckpointError(
                "checkpoint does not fit this env: "
                + "; ".join(f"{k} is {theirs.get(k)!r} there, {mine.get(k)!r} here" for k in diff)
            )

    def _restored_parts(self, ckpt: Checkpoint) -> dict[str, Any]:
        """The episode a checkpoint describes, built aside and validated whole (schema, then
        what needs the game: level indices, board states, ui, objective, a drawable board);
        raises :class:`CheckpointError` and leaves the env untouched."""
        p = ckpt.copy_payload()
        validate_payload(p)
        if p["clock"]["kind"] != self.config["clock"]:
            raise CheckpointError(
                f"checkpoint payload.clock.kind: {p['clock']['kind']!r} does not fit "
                f"this env's clock {self.config['clock']!r}"
            )
        first = p.get("first_level")
        if self.split is None and first is not None:
            raise CheckpointError("checkpoint payload.first_level: a catalogue episode has none")
        if self.split is not None:
            if first is None:
                raise CheckpointError(
                    "checkpoint payload.first_level: a generated episode needs its "
                    "first training level"
                )
            try:
                first = self.split.check_first_level(first, "checkpoint payload.first_level")
            except ConfigError as exc:
                raise CheckpointError(str(exc)) from None
        parts = self._episode_parts(first)
        try:
            parts["suite"].load_json(p["suite"])
            parts["evaluator"].load_json(p["evaluator"])
            parts["clock"].load_json(p["clock"])
            parts["recognizer"] = GestureRecognizer.from_json(p["recognizer"])
        except CheckpointError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, LevelError) as exc:
            raise CheckpointError(f"checkpoint payload is invalid: {str(exc)[:400]}") from None
        except RecursionError:
            raise CheckpointError("checkpoint payload: nested too deeply") from None
        parts.update(
            steps=p["steps"],
            actions=p["actions"],
            _terminated=p["terminated"],
            _seed=p["seed"],
            _first_level=first,
        )
        return parts

    def _restore(self, parts: dict[str, Any], ckpt: Checkpoint) -> None:
        for name, value in parts.items():
            setattr(self, name, value)
        self._now = self.clock.elapsed_s
        # the record says it continues a checkpoint: not a whole objective run (not scored)
        self._open_record(
            restored={
                "payload_sha256": ckpt.to_json()["payload_sha256"],
                "steps": self.steps,
                "actions": self.actions,
                "elapsed_s": round(self.clock.elapsed_s, 3),
            }
        )
        self.backend.invalidate()
