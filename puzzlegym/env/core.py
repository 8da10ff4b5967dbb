"""``PuzzleEnv``: one objective of the Game Suite as a Gymnasium environment.

The episode starts at the suite home screen (or directly on the board), the agent acts with
GUI actions only, and the observation is the 1280×900 screen. The suite, the evaluator, the
clock and the input recognizer live here; the backend moves events and pixels.
"""

from __future__ import annotations

import copy
import functools
import hashlib
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding as gymnasium_seeding

from puzzlegym.backends import make_backend
from puzzlegym.base.actions import (
    SCREEN_HEIGHT,
    SCREEN_WIDTH,
    Answer,
    GUIActionSpace,
    flatten,
    parse_action,
    to_dict,
)
from puzzlegym.base.errors import CheckpointError, ConfigError, PuzzleGymError, shown
from puzzlegym.base.fields import check_count
from puzzlegym.base.version import __version__
from puzzlegym.env.checkpoint import Checkpoint
from puzzlegym.env.config import (
    ANNOTATION_KINDS,
    OBSERVATIONS,
    parse_config,
)
from puzzlegym.env.probe import Probe
from puzzlegym.env.restore import Checkpointing
from puzzlegym.game.registry import catalogue_sha256, games
from puzzlegym.game.splits import LevelSet, TrainingLevels
from puzzlegym.record.evaluator import Evaluator, Objective
from puzzlegym.record.events import (
    ActionTaken,
    Annotated,
    EpisodeEnded,
    EventBus,
    FrameHashed,
    Subscription,
    freeze,
)
from puzzlegym.record.files import RecordWriter, unused_path
from puzzlegym.screen.clock import Clock, make_clock
from puzzlegym.screen.input import GestureRecognizer
from puzzlegym.screen.labels import label
from puzzlegym.screen.resolution import Resolution, TrainingView
from puzzlegym.suite.shell import Suite


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
        puzzlegym.base.errors.ConfigError: mine: wraps puzzlegym envs only
        (gym.make('LongPuzzle/...')), got CartPoleEnv
    """
    base = env.unwrapped
    if not isinstance(base, PuzzleEnv):
        raise ConfigError(
            f"{who}: wraps puzzlegym envs only (gym.make('LongPuzzle/...')), "
            f"got {type(base).__name__}"
        )
    return base


class PuzzleEnv(Checkpointing, gym.Env):
    """One objective (game, difficulty, target levels) played through GUI actions.

    Keyword arguments (stable, public): ``backend`` ("native"), ``start`` ("home" or
    "board"), ``level`` (None for the whole objective, or k, 1-based, for one level),
    ``clock`` ("sim" or "wall"), ``budget_s`` (3600), ``reward`` ("potential" or "sparse"),
    ``render_mode`` (None or "rgb_array"), ``action_cost_s`` (simulated seconds per action),
    ``levels`` ("catalogue" or "generated": procedural, solver-verified levels of the tier,
    never a catalogue level), ``num_levels`` and ``start_level`` (with "generated" only: the
    training distribution's level seeds ``start_level + i mod num_levels``, ``num_levels=0``
    (the default) unbounded; each reset draws the episode's levels with ``np_random``,
    :mod:`puzzlegym.game.splits`), ``record_dir`` (write the episode record there, or, if it already
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
        cfg = parse_config(
            game,
            tier,
            backend=backend,
            start=start,
            level=level,
            clock=clock,
            budget_s=budget_s,
            reward=reward,
            render_mode=render_mode,
            action_cost_s=action_cost_s,
            levels=levels,
            num_levels=num_levels,
            start_level=start_level,
            record_dir=record_dir,
            agent=agent,
            record_frames=record_frames,
            render_cache_bytes=render_cache_bytes,
            **unknown,
        )
        self.game, self.tier, self.config = cfg.game, cfg.tier, cfg.config
        split = cfg.split
        try:
            self.backend = make_backend(backend, cache_bytes=render_cache_bytes)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        self.split = split
        # the training distribution of a generated objective (None: the catalogue)
        self.training_levels = None if split is None else TrainingLevels(self.game, tier, split)
        self._first_level: int | None = None  # the episode's first training level
        self.render_mode = render_mode
        self.record_dir = cfg.record_dir
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
        n = len(self.game.catalogue(self.tier))
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
        (:mod:`puzzlegym.record.events`: actions, levels reached and won, snapshots,
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
        seed = check_count(seed, "seed", 0, 2**64 - 1, ConfigError, optional=True, numpy=True)
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
