"""The symbolic board as the observation: the game's public board state as binary planes.

Privileged and opt-in, for training (the screenshot stays the default observation; agents
evaluated by the protocol, the HTTP service, the page and the sandbox never see it). It reads
the env through its probe only and turns frames off (``PuzzleEnv.set_observation("none")``),
so a step paints nothing; ``render()`` still returns the full screen when asked.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from puzzlegym.base.actions import SCREEN_HEIGHT, SCREEN_WIDTH
from puzzlegym.base.errors import ConfigError, PuzzleGymError
from puzzlegym.env import PuzzleEnv
from puzzlegym.env.probe import LEVEL, LEVEL_COMPLETE, SCREENS

__all__ = ["BOARD_SCREENS", "BoardEncoder", "BoardObservation"]

BOARD_SCREENS = (LEVEL, LEVEL_COMPLETE)  # the screens that show the board
MAX_SIDE = 64  # a bound on each side of a shape given by hand


class BoardObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Observations ``Box(0, 1, (C, H, W), uint8)``: the objective's board as binary planes,
    channel first.

    The first planes are the game's (``Game.planes``, documented per game in
    its package's ``format.md`` and ``docs/levels.md``), padded to the tier's largest board
    (``shape=(C, H, W)`` of the game's planes sets a larger one, e.g. for generated levels);
    they hold the board while the screen shows one of the objective's tier (the level screen
    and the level-complete banner) and are 0 elsewhere. Then one plane per suite screen
    (``screen:home``, ``screen:difficulty``, ``screen:level``, ``screen:level_complete``,
    ``screen:objective_complete``: all ones on the screen shown), the index of the board's
    level in binary (``level_bit0``, ``level_bit1``, ...: all ones where the bit is set; as
    many as the tier's catalogue needs, 0 off the board's screens; two levels can share a
    board, a Nut and Bolt arrangement say, and the header tells them apart) and, for games
    with Undo, ``undoable`` (all ones when the level screen's Undo would undo a move).
    :attr:`names` names every plane. ``level_bits=False`` leaves the level's index out (no
    ``level_bit`` planes): for policies trained on one level number and tested on others, as
    :mod:`puzzlegym.training.protocol` trains on generated level 1 and tests on catalogue level
    ``k``.

    Two different boards (level, rules state, interaction state: a selected screw, a lifted
    stack, the path being drawn) never give the same tensor, and a restored checkpoint gives
    the tensor of the moment it was taken (tested over random play of every id).

    The bounds are 0..1, so Stable-Baselines3 does not take it for an image (it neither
    divides it by 255 nor transposes it): train with ``MlpPolicy`` (PPO, or sb3-contrib's
    ``MaskablePPO`` with :class:`~puzzlegym.wrappers.BoardActions`), or with a CNN of your own
    over the ``(C, H, W)`` layout PyTorch convolutions take. It wraps a puzzlegym env on the
    native backend directly (below ``BlackBox`` and the action wrappers), in place of
    ``LowResObservation``.

    Examples:
        >>> import gymnasium as gym
        >>> env = BoardObservation(gym.make("LongPuzzle/MazePaint-Easy", start="board", level=1))
        >>> obs, _info = env.reset(seed=0)
        >>> obs.shape, env.names[:3]  # (planes, height, width): the Easy catalogue's 8x8 boards
        ((13, 8, 8), ('floor', 'wall', 'painted'))
        >>> int(obs[env.names.index("screen:level")].max())  # the screen is one plane too
        1
    """

    def __init__(
        self, env: gym.Env, shape: tuple[int, int, int] | None = None, level_bits: bool = True
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, shape=None if shape is None else tuple(shape), level_bits=level_bits
        )
        if not isinstance(level_bits, bool):
            raise ConfigError(f"level_bits: expected true or false, got {level_bits!r}")
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, PuzzleEnv):
            raise ConfigError(
                f"BoardObservation: wraps puzzlegym envs only (gym.make('LongPuzzle/...')), got "
                f"{type(base).__name__}; for other envs use their own observations"
            )
        game = base.game
        if game.planes is None:
            raise ConfigError(
                f"BoardObservation: {game.name} has no symbolic board "
                f"({game.where('planes.py')} with PLANES; docs/game-protocol.md)"
            )
        backend = base.config["backend"]
        if backend != "native":
            raise ConfigError(
                f"BoardObservation: needs backend='native' (this env uses {backend!r}, whose "
                "observations are the page's screenshots); on the browser backend observe "
                "pixels (DownscaleObservation, or make_sb3_env(observation='pixels'))"
            )
        full = spaces.Box(0, 255, (SCREEN_HEIGHT, SCREEN_WIDTH, 3), np.uint8)
        if (
            env.observation_space != full
            or base.observation != "pixels"
            or not base.resolution.is_full
        ):
            raise ConfigError(
                "BoardObservation: the wrapped env's observations must be the full 1280x900 "
                f"screen, got {env.observation_space}; apply BoardObservation first (directly on "
                "gym.make(...)), in place of LowResObservation"
            )
        self.encoder = BoardEncoder(game, base.tier, shape=shape, level_bits=level_bits)
        self.game, self.tier = game, base.tier
        self.board_shape = self.encoder.board_shape
        self.level_bits = self.encoder.level_bits
        self.names = self.encoder.names
        self.observation_space = spaces.Box(0, 1, self.encoder.shape, np.uint8)
        base.set_observation("none")
        self._base = base

    def encode(self, probe) -> np.ndarray:
        """The tensor of a probe's moment (:class:`puzzlegym.env.probe.Probe`)."""
        return self.encoder.encode(probe)

    def observation(self, observation) -> np.ndarray:
        return self.encode(self._base.probe())


class BoardEncoder:
    """The tensor :class:`BoardObservation` observes, for any probe of an objective's env (``game``,
    ``tier``; ``shape`` and ``level_bits`` as there), without wrapping or changing the env: what an
    agent reads that plays the raw env from the board's planes
    (:mod:`puzzlegym.jax.policy.policy`). :attr:`names` names every plane, :attr:`shape` is
    the tensor's, :attr:`board_shape` the game's planes' and :attr:`level_bits` the number of
    level-bit planes."""

    def __init__(
        self, game, tier: str, shape: tuple[int, int, int] | None = None, level_bits: bool = True
    ) -> None:
        if not isinstance(level_bits, bool):
            raise ConfigError(f"level_bits: expected true or false, got {level_bits!r}")
        if game.planes is None:
            raise ConfigError(
                f"BoardObservation: {game.name} has no symbolic board "
                f"({game.where('planes.py')} with PLANES; docs/game-protocol.md)"
            )
        self.game, self.tier = game, tier
        need = game.planes.shape(game.catalogue(tier))
        if shape is not None:
            try:
                asked = tuple(int(v) for v in shape)
            except (TypeError, ValueError):
                raise ConfigError(
                    f"shape: expected (planes, height, width), got {shape!r}"
                ) from None
            fixed = "" if game.planes.numbered else f", with exactly {need[0]} planes"
            if (
                len(asked) != 3
                or any(a < b for a, b in zip(asked, need, strict=True))
                or any(v > MAX_SIDE for v in asked)
                or (fixed and asked[0] != need[0])
            ):
                raise ConfigError(
                    f"shape: expected (planes, height, width) of at least {need} (what the "
                    f"{game.name}-{tier} catalogue needs){fixed}, each at most {MAX_SIDE}; "
                    f"got {asked!r}"
                )
            need = asked
        self.board_shape = need
        self.level_bits = max(1, (len(game.catalogue(tier)) - 1).bit_length()) if level_bits else 0
        self.names: tuple[str, ...] = (
            game.planes.names(need)
            + tuple(f"screen:{name}" for name in SCREENS)
            + tuple(f"level_bit{k}" for k in range(self.level_bits))
            + (("undoable",) if game.has_undo else ())
        )
        self._screen0 = need[0]  # the first screen plane
        self._bit0 = need[0] + len(SCREENS)  # the first level bit
        self.shape = (len(self.names), need[1], need[2])

    def encode(self, probe) -> np.ndarray:
        """The tensor of a probe's moment (:class:`puzzlegym.env.probe.Probe`)."""
        out = np.zeros(self.shape, dtype=np.uint8)
        board = probe.board
        if (
            board is not None
            and probe.screen in BOARD_SCREENS
            and board.game is self.game
            and board.tier == self.tier
        ):
            try:
                out[: self._screen0] = self.game.planes.encode(
                    board.level, board.state, board.ui, self.board_shape
                )
            except ValueError as exc:  # a generated level larger than the catalogue's
                raise PuzzleGymError(
                    f"BoardObservation: {exc}: BoardObservation(shape=(C, H, W)) or "
                    "make_sb3_env(board_shape=(C, H, W)) sizes it for larger levels"
                ) from None
            if self.level_bits and board.index >> self.level_bits:
                raise PuzzleGymError(
                    f"BoardObservation: level {board.number} needs more than the {self.level_bits} "
                    "level bits the tier's catalogue sized"
                )
            for k in range(self.level_bits):
                if board.index >> k & 1:
                    out[self._bit0 + k] = 1
            if self.game.has_undo and board.undoable and probe.screen == LEVEL:
                out[-1] = 1
        out[self._screen0 + SCREENS.index(probe.screen)] = 1
        return out
