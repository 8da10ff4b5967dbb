"""The contract of a game's JAX twin: its rules, interaction state and symbolic board as pure,
jittable functions over fixed-shape arrays.

The Python rules model (``envs/<game>/rules.py``) is the source of truth. A twin is a second,
compiled form of the same game for training at speed (``puzzlegym.jax``); it exists only with
a sameness test that plays both from the same levels with the same actions and compares, at
every step, the observation planes, the action mask, the potential and the solved flag.

A game provides its twin in its own package, ``<package>/twin.py``, as ``TWIN``, an instance
of a :class:`Twin` subclass: the ``twin`` part of its :class:`puzzlegym.game.Game`, imported
only when asked for (:func:`find_twin`; the module may import ``jax``, which is the optional
``jax`` extra).

The twin plays the *level screen* of one level, in the units of
:class:`puzzlegym.wrappers.BoardActions`: index ``i < K`` is the level's ``i``-th board target
(``GameView.board_targets``, with the same meaning, the view's interaction state included: a
picked nut or screw, a path in progress), ``K`` the objective's ``n_targets``; the level
screen's buttons (Restart; Undo where the game has it) are :meth:`Twin.restart` and
:meth:`Twin.undo`. Everything around the board (the suite's screen planes, the level's index
in binary, ``undoable``, episodes, rewards, budgets) is ``puzzlegym.jax``'s, shared by the six
games.

Levels are data. :meth:`Twin.sizes_for` gives the padding that fits a set of levels (a tier's
catalogue and the generated levels in play); ``puzzlegym.jax`` then binds the twin to them
(:meth:`Twin.bind`: ``sizes``, ``n_targets`` and ``max_steps``, the episode's step bound, as
static attributes that traced code may read, e.g. to size Undo's history);
:meth:`Twin.encode` gives one level as a dict of numpy arrays whose shapes depend on the bound
sizes only, :meth:`Twin.stack` many encoded levels as one
pytree, :meth:`Twin.select` one level of it inside ``jit`` and :meth:`Twin.take` some levels
of it as a smaller pytree of the same form, outside ``jit`` (the defaults stack along a new
first axis and index it; a game with ragged tables, such as per-level distance tables, may
concatenate them with offsets instead, and then overrides all three). Every other method
is traced: ``lv`` is one selected level (a dict of ``jax.Array``), ``state`` the twin's own
pytree (rules state, interaction state and anything else the level screen keeps, such as
Undo's history), and none of them may branch in Python on array values.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["Twin", "find_twin", "has_twin", "hash_lanes"]


class Twin:
    """A game's JAX twin (see the module docstring). Subclasses set :attr:`name` (the game's
    ``Game.name``) and implement every method below but :meth:`bind`, :meth:`stack` and
    :meth:`select`, and :meth:`undo`/:meth:`undoable` for games without Undo."""

    name: str = ""
    # set by bind(): static, hashable data traced code may read
    sizes: Mapping[str, int] = {}
    n_targets: int = 0
    max_steps: int = 0

    # -- levels as arrays (numpy, outside jit) -------------------------------------------------
    def sizes_for(self, levels: Sequence[Any]) -> dict[str, int]:
        """The padding that fits every level of ``levels`` (rules ``Level`` objects), e.g.
        ``{"height": 8, "width": 8}``; plain ints, so a dict of sizes is hashable static data."""
        raise NotImplementedError

    def bind(self, sizes: Mapping[str, int], n_targets: int, max_steps: int) -> Twin:
        """A copy of the twin bound to the padding ``sizes`` (from :meth:`sizes_for`),
        ``n_targets`` (the action space's board targets, at least the levels' own) and
        ``max_steps`` (no episode plays more actions)."""
        bound = copy.copy(self)
        bound.sizes = dict(sizes)
        bound.n_targets = int(n_targets)
        bound.max_steps = int(max_steps)
        return bound

    def encode(self, level: Any) -> dict[str, np.ndarray]:
        """``level`` as fixed-shape numpy arrays (on a bound twin): every shape depends on
        :attr:`sizes`, :attr:`n_targets` and :attr:`max_steps` only, never on the level."""
        raise NotImplementedError

    def stack(self, encoded: Sequence[Mapping[str, np.ndarray]]) -> dict[str, np.ndarray]:
        """Many encoded levels as one pytree (default: each array stacked on a new first
        axis)."""
        return {key: np.stack([e[key] for e in encoded]) for key in encoded[0]}

    def select(self, stacked: Mapping[str, Any], index: Any) -> dict[str, Any]:
        """Level ``index`` (a traced integer) of :meth:`stack`'s pytree (default: index the
        first axis of each array)."""
        return {key: value[index] for key, value in stacked.items()}

    def take(self, stacked: Mapping[str, Any], rows: Sequence[int]) -> dict[str, Any]:
        """Levels ``rows`` (Python integers) of :meth:`stack`'s pytree as a pytree of the
        same form, outside ``jit``, numpy or JAX arrays as given (default: index the first
        axis of each array): what code that cuts levels out of an env's tables calls."""
        index = np.asarray(rows, dtype=np.intp)
        return {key: value[index] for key, value in stacked.items()}

    # -- the level screen (traced) -------------------------------------------------------------
    def init(self, lv: Mapping[str, Any]) -> Any:
        """The level's start: the rules' initial state, the view's initial interaction state,
        an empty history."""
        raise NotImplementedError

    def target(self, lv: Mapping[str, Any], state: Any, index: Any) -> Any:
        """The state after board target ``index`` (``0 <= index < n_targets``) is performed:
        what the view and the rules make of it (a selection, a move, a path extended, or
        nothing when the target does not exist on this level or the move is rejected)."""
        raise NotImplementedError

    def target_mask(self, lv: Mapping[str, Any], state: Any) -> Any:
        """``bool[n_targets]``: True where the target would change the board or its
        interaction state (``Probe.would_change`` of the target's gesture: a rejected move
        changes nothing)."""
        raise NotImplementedError

    def restart(self, lv: Mapping[str, Any], state: Any) -> Any:
        """The state after Restart: the level's start (history cleared as the suite does)."""
        raise NotImplementedError

    def restartable(self, lv: Mapping[str, Any], state: Any) -> Any:
        """Whether Restart would change anything: the board or the interaction state differs
        from the level's start."""
        raise NotImplementedError

    def undo(self, lv: Mapping[str, Any], state: Any) -> Any:
        """The state after Undo (games with Undo only)."""
        raise NotImplementedError(f"{self.name} has no Undo")

    def undoable(self, lv: Mapping[str, Any], state: Any) -> Any:
        """Whether Undo would undo a move (games with Undo only)."""
        raise NotImplementedError(f"{self.name} has no Undo")

    def planes(self, lv: Mapping[str, Any], state: Any, shape: tuple[int, int, int]) -> Any:
        """``uint8[shape]``: the game's planes of the board, equal to
        ``Game.planes.encode(level, state, ui, shape)``."""
        raise NotImplementedError

    def potential(self, lv: Mapping[str, Any], state: Any) -> Any:
        """``float32``: the rules' ``potential(level, state)``."""
        raise NotImplementedError

    def solved(self, lv: Mapping[str, Any], state: Any) -> Any:
        """``bool``: the rules' ``is_solved(level, state)``."""
        raise NotImplementedError

    # -- dead ends (optional: a twin that trains with the dead-end oracle, puzzlegym.jax) -------
    def board_key(self, lv: Mapping[str, Any], state: Any) -> Any:
        """``uint32[2]``: a hash of the board up to the solver's symmetry: equal for boards
        of equal ``solvers.canonical_key`` (the selection and the history aside), so a table
        of the keys of a level's dead ends (:mod:`puzzlegym.jax.deadends`) tells a dead end
        in play. Only twins that define it (and :meth:`from_python`) have the oracle."""
        raise NotImplementedError

    @property
    def has_board_key(self) -> bool:
        """Whether this twin defines :meth:`board_key` and :meth:`from_python`."""
        return type(self).board_key is not Twin.board_key

    # -- back to Python (outside jit; for the sameness test and the lab) -----------------------
    def to_python(self, level: Any, state: Any) -> tuple[Any, Any]:
        """``(rules state, view ui)`` of one unbatched twin state (numpy arrays) of ``level``."""
        raise NotImplementedError

    def from_python(self, level: Any, state: Any) -> Any:
        """The twin state (numpy arrays, on a bound twin) of the rules state ``state`` of
        ``level``, nothing selected and no history: the inverse of :meth:`to_python`."""
        raise NotImplementedError


# two uint32 lanes of a 64-bit hash (FNV-1a's offset and prime; a second odd multiplier)
_HASH_LANES = ((0x811C9DC5, 0x01000193), (0x9E3779B9, 0x85EBCA6B))


def hash_lanes(values: Any) -> Any:
    """``uint32[..., 2]``: a hash of ``values`` (non-negative integers) along the last axis,
    in two ``uint32`` lanes, traced (what :meth:`Twin.board_key` implementations fold their
    boards with). The axis is unrolled: it is short (a bolt's nuts, a set's lanes)."""
    import jax.numpy as jnp

    values = jnp.asarray(values).astype(jnp.uint32)
    out = []
    for seed, mult in _HASH_LANES:
        h = jnp.full(values.shape[:-1], seed, jnp.uint32)
        for i in range(values.shape[-1]):
            h = (h ^ values[..., i]) * jnp.uint32(mult)
        out.append(h)
    return jnp.stack(out, axis=-1)


# -- a game's twin: its Game's twin part -----------------------------------------------------
def has_twin(game: Any) -> bool:
    """Whether ``game`` (a :class:`puzzlegym.game.Game`) has a twin (its ``twin`` part's
    module is there), found without importing it (nor ``jax``)."""
    part = getattr(game, "twin", None)
    return part is not None and part.exists()


def find_twin(game: Any) -> Twin | None:
    """``game``'s twin (its module imported now: it may import ``jax``), or None when the
    game has none. A part that is no :class:`Twin` of this game is an error (TypeError naming
    where it lives)."""
    if not has_twin(game):
        return None
    twin = game.twin.load()
    if not isinstance(twin, Twin) or twin.name != game.name:
        raise TypeError(
            f"{game.twin} is not a Twin of the game {game.name!r} (a puzzlegym.game.twin.Twin "
            f"whose name is {game.name!r})"
        )
    return twin
