"""A policy trained in JAX as a file, and as an agent of the Python env (and so of the GUI).

A policy file (``policy.npz``, written by :mod:`puzzlegym.jax.train` into every run
directory) holds the network's weights and a header: the network (:class:`NetworkSpec`),
the observation's shape, the number of actions, and what the actions and planes mean (the
objective's ``env_id``, ``n_targets`` board targets, the level screen's ``buttons``, the game's
``board_shape``, ``level_bits``). :meth:`Policy.load` rebuilds the network from the header alone and
refuses a file whose arrays do not fit it (:mod:`puzzlegym.jax.policy.arrays`: no pickle,
bounded sizes); errors name the file.

:meth:`Policy.act` picks an action from an observation and a mask: sampled from the masked
softmax with a numpy generator (Gumbel-max), or greedy (``rng=None``). One jitted forward
pass serves every policy of one network and shape.

:class:`JaxAgent` plays the raw Python env with it, the way ``puzzlegym run ID --agent
jax:PATH`` does (:func:`puzzlegym.agents.make_agent`): at every step it reads the board's
planes (:class:`~puzzlegym.wrappers.board_observation.BoardEncoder`, the tensor of
``make_sb3_env(..., observation="board", level_bits=False)``) and the mask of the board
actions (:class:`~puzzlegym.wrappers.BoardActions` with the policy's buttons, the twin's
action space), and answers the GUI action its index performs. Off the board it acts as every
playing agent does (:func:`~puzzlegym.env.navigation.navigation_action`: the home screen's
card, the difficulty, Next after a win, and the Answer that ends the episode on the
objective-complete screen), so it plays a whole objective from the home screen, level after
level; a policy trained with level bits needs no extra care (the encoder adds them as
trained).

Examples:
    >>> import gymnasium as gym
    >>> import numpy as np
    >>> import jax
    >>> spec = NetworkSpec(kind="mlp", channels=(), features=8)
    >>> params = spec.build(5).init(jax.random.PRNGKey(0), np.zeros((1, 9, 8, 8), np.uint8))
    >>> policy = Policy(spec, params, {"env_id": "LongPuzzle/MazePaint-Easy", "n_targets": 4,
    ...     "buttons": ["restart"], "board_shape": [4, 8, 8], "level_bits": False,
    ...     "observation_shape": [9, 8, 8], "n_actions": 5})
    >>> env = gym.make("LongPuzzle/MazePaint-Easy", start="board", level=1)
    >>> agent = JaxAgent(env.unwrapped, policy, seed=0)
    >>> _ = env.reset(seed=0)
    >>> agent(None, None)["type"]  # a GUI action: the swipe of the index it chose
    'drag'
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jax
import numpy as np

from puzzlegym.base.actions import to_dict
from puzzlegym.base.errors import ConfigError, shown
from puzzlegym.base.fields import is_int
from puzzlegym.env.navigation import navigation_action
from puzzlegym.jax.policy import arrays
from puzzlegym.jax.policy.network import MASKED, NetworkSpec
from puzzlegym.jax.policy.search import TwinSearch, check_search
from puzzlegym.wrappers.board_actions import BUTTONS, BoardActions
from puzzlegym.wrappers.board_observation import BoardEncoder

__all__ = ["FORMAT", "JaxAgent", "Policy", "jax_agent"]

FORMAT = "puzzlegym-jax-policy"
VERSION = 1
MAX_ACTIONS = 4096
INFO_KEYS = (
    "env_id",
    "n_targets",
    "buttons",
    "board_shape",
    "level_bits",
    "observation_shape",
    "n_actions",
)


@functools.lru_cache(maxsize=32)
def _forward(spec: NetworkSpec, n_actions: int):
    """The jitted forward pass of one network (shared by every policy built like it)."""
    net = spec.build(n_actions)
    return jax.jit(lambda params, obs: net.apply(params, obs)[0])


def _check_info(info: Any, where: str) -> dict:
    """The header's description of the actions and planes, checked field by field."""
    if not isinstance(info, Mapping):
        raise ConfigError(f"{where}: expected a mapping of {', '.join(INFO_KEYS)}")
    missing = [k for k in INFO_KEYS if k not in info]
    if missing:
        raise ConfigError(f"{where}: missing {', '.join(missing)}")
    out = dict(info)
    if not isinstance(out["env_id"], str) or len(out["env_id"]) > 200:
        raise ConfigError(f"{where}.env_id: expected an env id, got {shown(out['env_id'])}")
    for key in ("n_targets", "n_actions"):
        if not is_int(out[key]) or not 1 <= out[key] <= MAX_ACTIONS:
            raise ConfigError(f"{where}.{key}: expected 1..{MAX_ACTIONS}, got {shown(out[key])}")
    buttons = out["buttons"]
    if not isinstance(buttons, (list, tuple)) or not all(b in BUTTONS for b in buttons):
        raise ConfigError(f"{where}.buttons: expected names of {BUTTONS}, got {shown(buttons)}")
    out["buttons"] = tuple(buttons)
    if out["n_targets"] + len(buttons) != out["n_actions"]:
        raise ConfigError(f"{where}: n_targets + buttons is not n_actions")
    for key in ("board_shape", "observation_shape"):
        shape = out[key]
        if (
            not isinstance(shape, (list, tuple))
            or len(shape) != 3
            or not all(is_int(v) and 1 <= v <= 256 for v in shape)
        ):
            raise ConfigError(f"{where}.{key}: expected (C, H, W), got {shown(shape)}")
        out[key] = tuple(shape)
    if not isinstance(out["level_bits"], bool):
        raise ConfigError(f"{where}.level_bits: expected true or false")
    if out.get("search") is not None:  # a planner's policy: its search settings
        out["search"] = check_search(out["search"], f"{where}.search")
    return out


class Policy:
    """A network's weights with what its inputs and outputs mean (see the module
    docstring). ``info`` holds at least :data:`INFO_KEYS`; more keys (``timesteps``,
    ``seed``, ...) are kept as they are."""

    def __init__(self, spec: NetworkSpec, params: Any, info: Mapping[str, Any]) -> None:
        if not isinstance(spec, NetworkSpec):
            raise ConfigError(f"spec: expected a NetworkSpec, got {shown(spec)}")
        self.info = _check_info(info, "policy")
        self.spec = spec
        self.n_actions = self.info["n_actions"]
        self.observation_shape = self.info["observation_shape"]
        spec.check_observation(self.observation_shape)
        self.params = params
        self._forward = _forward(spec, self.n_actions)

    # ---------------------------------------------------------------- files
    def save(self, path: str | os.PathLike) -> Path:
        """Write the policy file atomically."""
        info = {k: list(v) if isinstance(v, tuple) else v for k, v in self.info.items()}
        header = {
            "format": FORMAT,
            "version": VERSION,
            "network": self.spec.to_dict(),
            "info": info,
        }
        return arrays.save(path, self.params, header)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Policy:
        """The policy in ``path`` (refused, naming the file, unless it is one)."""
        where = str(path)
        checked: dict[str, Any] = {}

        def template(header: dict) -> Any:
            """The parameters' shapes, from the header (checked whole) alone."""
            if header.get("version") != VERSION:
                raise ConfigError(
                    f"{where}: policy file version {shown(header.get('version'))}, "
                    f"this puzzlegym reads {VERSION}"
                )
            try:
                spec = NetworkSpec.from_dict(header.get("network"))
            except ConfigError as exc:
                raise ConfigError(f"{where}: {exc}") from None
            info = _check_info(header.get("info"), f"{where}: info")
            try:
                spec.check_observation(info["observation_shape"])
            except ConfigError as exc:
                raise ConfigError(f"{where}: {exc}") from None
            net = spec.build(info["n_actions"])
            shapes = jax.eval_shape(
                net.init,
                jax.random.PRNGKey(0),
                np.zeros((1, *info["observation_shape"]), np.uint8),
            )
            checked.update(spec=spec, info=info, template=shapes)
            return shapes

        header, leaves = arrays.load(path, FORMAT, template)
        params = arrays.restore(checked["template"], leaves, where)
        return cls(checked["spec"], params, {**header["info"], **checked["info"]})

    # ---------------------------------------------------------------- acting
    def logits(self, obs: Any, mask: Any | None = None) -> np.ndarray:
        """The masked logits (float64) of one observation."""
        obs = np.asarray(obs)
        if obs.shape != self.observation_shape:
            raise ConfigError(
                f"observation: expected shape {self.observation_shape}, got {obs.shape}"
            )
        out = np.asarray(self._forward(self.params, obs[None]), dtype=np.float64)[0]
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
            if mask.shape != (self.n_actions,):
                raise ConfigError(f"mask: expected {self.n_actions} entries, got {mask.shape}")
            out = np.where(mask, out, MASKED)
        return out

    def act(self, obs: Any, mask: Any | None = None, rng: np.random.Generator | None = None) -> int:
        """An action: sampled from the masked policy with ``rng``, or the most probable one
        (``rng=None``)."""
        logits = self.logits(obs, mask)
        if rng is not None:
            logits = logits + rng.gumbel(size=logits.shape)
        return int(np.argmax(logits))


class JaxAgent:
    """The policy playing a raw puzzlegym env (see the module docstring): ``env`` the
    :class:`~puzzlegym.env.PuzzleEnv`, ``seed`` the sampling generator's seed, ``greedy``
    the most probable action instead of a sample (the search without Gumbel noise); a
    planner's policy (its file holds ``search`` settings) searches over the twin of the board
    shown (:mod:`puzzlegym.jax.policy.search`) unless ``search=False``."""

    name = "jax"

    def __init__(
        self,
        env: Any,
        policy: Policy,
        seed: int | None = 0,
        greedy: bool = False,
        search: bool = True,
    ):
        base = env.unwrapped
        info = policy.info
        game, tier = base.game, base.tier
        trained = info["env_id"].rpartition("/")[2].partition("-")[0]
        if trained != game.name:
            raise ConfigError(
                f"agent: the policy was trained on {info['env_id']}, a {trained} objective; "
                f"this env plays {game.name}"
            )
        self.actions = BoardActions(base, buttons=info["buttons"], max_targets=info["n_targets"])
        self.encoder = BoardEncoder(
            game, tier, shape=info["board_shape"], level_bits=info["level_bits"]
        )
        if self.encoder.shape != policy.observation_shape:
            raise ConfigError(
                f"agent: {game.name}-{tier}'s board planes are {self.encoder.shape}, the policy "
                f"reads {policy.observation_shape}"
            )
        self.base, self.policy, self.greedy = base, policy, bool(greedy)
        self.rng = np.random.default_rng(seed)
        settings = info.get("search")
        self.search: TwinSearch | None = None
        if search and settings is not None and settings["num_simulations"] > 0:
            self.search = TwinSearch(
                base.config["env_id"],
                policy.spec.build(policy.n_actions),
                settings,
                info["level_bits"],
                info["buttons"],
                seed,
            )

    def index(self) -> int:
        """The board action the policy picks now."""
        probe = self.base.probe()
        planes = self.encoder.encode(probe)
        if self.search is not None and probe.board is not None:
            board = probe.board
            index = self.search.choose(
                self.policy.params, board.number, planes, not board.history, self.greedy
            )
            if index is not None:
                return index
        mask = self.actions.action_masks()
        return self.policy.act(planes, mask, None if self.greedy else self.rng)

    def __call__(self, obs: Any = None, info: Any = None) -> dict:
        probe = self.base.probe()
        off_board = navigation_action(probe, [])  # home, difficulty, Next, the last Answer
        if off_board is not None:
            return off_board
        return to_dict(self.actions.action(self.index()))


def jax_agent(path: str, env: Any, seed: int | None = 0) -> JaxAgent:
    """The agent of ``--agent jax:PATH``: the policy file ``path`` playing ``env``."""
    return JaxAgent(env, Policy.load(path), seed=seed)
