"""The `Game` protocol: the one interface through which a game plugs into puzzlegym.

A game lives in ``envs/<game>/`` and provides

* ``rules``: a pure rules model (immutable, hashable ``Level`` and ``State``;
  ``initial_state``, ``legal_moves``, ``apply``, ``is_solved``, ``potential``);
* a view (``GameView``): layout, drawing as widgets, and gesture -> move mapping, with its own
  small immutable interaction state (``ui``), e.g. the selected screw;
* a catalogue (``levels/<tier>.json``) and a seeded ``generate(tier, seed)``;
* a rule card (``card.md``) and a solver hook (``solve`` / ``certify`` in ``solvers/``);
* optionally, its symbolic board (``planes.py``: :class:`puzzlegym.game.planes.Planes`), the
  public board state as binary planes for training.

The suite shell, the evaluator, the env, checkpoints, the solver agent and the CLI only ever
talk to a game through a :class:`Game` object; nothing in ``puzzlegym/`` imports a game module
directly except the registry line that lists the games.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from puzzlegym.base.errors import shown
from puzzlegym.base.fields import check_count
from puzzlegym.screen.input import Gesture
from puzzlegym.screen.render import Rect, Widget


@dataclass(frozen=True)
class Rejected:
    """A move the rules (or the view) refused; the board stays as it was.

    ``reason`` is the neutral, public feedback line shown to the player.
    """

    reason: str


@runtime_checkable
class Rules(Protocol):
    """A game's pure rules model (a module satisfies this protocol)."""

    def initial_state(self, level: Any) -> Hashable: ...
    def legal_moves(self, level: Any, state: Any) -> Iterable[Hashable]: ...
    def apply(self, level: Any, state: Any, move: Any) -> Any: ...  # State | Rejected
    def is_solved(self, level: Any, state: Any) -> bool: ...
    def potential(self, level: Any, state: Any) -> float: ...


@dataclass(frozen=True)
class ViewOutcome:
    """What a gesture on the board means.

    ``move`` is a rules move to apply (or None); ``ui`` the view's new interaction state;
    ``feedback`` an optional public feedback line (e.g. "Select a screw").
    """

    move: Any = None
    ui: Any = None
    feedback: str | None = None


class GameView(Protocol):
    """Layout, drawing and input mapping of one game's board."""

    def initial_ui(self, level: Any, state: Any) -> Any: ...

    def widgets(
        self, level: Any, state: Any, ui: Any, area: Rect, style: str = "screen"
    ) -> list[Widget]:
        """The board as widgets inside ``area`` (screen coordinates), back to front, painted
        in ``style`` (``puzzlegym.screen.palette.STYLES``: ``"screen"``, or ``"training"``
        for the training view: palette colours as their training twins, and cues such as a
        truck's heading or a selection drawn to survive 84x84 frames). Each style paints with
        its own painters (a widget's painter and key describe what it shows), so the screen
        style's pictures never depend on the training style's."""

    def panel(self, level: Any, area: Rect) -> Rect:
        """The panel the board lies on (``puzzlegym.screen.panel.panel_rect`` of the board's
        own pixels), inside ``area``: the window the training view frames."""

    def on_gesture(
        self, level: Any, state: Any, ui: Any, gesture: Gesture, area: Rect
    ) -> ViewOutcome:
        """Map a recognized gesture (click, drag, swipe, key) to a move and/or a new ui state."""

    def after_move(self, level: Any, state: Any, ui: Any) -> Any:
        """The ui state after a move was applied (e.g. clear a selection)."""

    def actions_for_move(self, level: Any, state: Any, ui: Any, move: Any, area: Rect) -> list:
        """The GUI actions that perform ``move`` on the screen (used by the solver agent)."""

    def board_targets(self, level: Any, state: Any, ui: Any, area: Rect) -> list:
        """The board-aligned action targets of this level, for RL action spaces: a list of
        typed GUI actions (``puzzlegym.base.actions``: a click on a cell, bolt, anchor or truck; a
        drag of a vehicle to a position; a swipe) or ``None`` where a target does not exist
        in this state (e.g. a truck already gone). Its length and the meaning of each index
        depend on the level only; the pixels may follow the state (a vehicle is dragged from
        where it stands). This is privileged layout knowledge, meant for training."""

    def ui_to_json(self, ui: Any) -> Any: ...
    def ui_from_json(self, data: Any) -> Any: ...

    # Optional: ``check_ui(level, state, ui)`` raises ValueError when a ui state parsed by
    # ``ui_from_json`` (which does not see the level) does not fit the level and board; the
    # suite calls it when it restores a checkpoint, before anything changes.

    # Optional: ``target_changes(level, state, ui) -> list[bool]``, one entry per entry of
    # ``board_targets(level, state, ui, area)`` (the same length, the same index meaning):
    # whether performing that target on the level screen would change the board or its
    # selection, exactly what trying its gesture would say (``Suite.would_change``: the
    # view selects or deselects something, or the rules accept the move it makes; False
    # where the target is None). It is computed in one pass from the rules' legal moves and
    # the interaction state, without trying each gesture;
    # ``puzzlegym.wrappers.BoardActions.action_masks`` uses it when the view has it (and
    # tries every target otherwise), and ``tests/test_board_actions_masks.py`` checks that
    # it equals the tried mask over random play of every id.


class ResetUI:
    """Views whose interaction state is None when a level starts and after every move (a
    selection, a path being drawn): ``initial_ui`` and ``after_move``. The view (or the
    subclasses below) writes ``ui_to_json``/``ui_from_json``."""

    def initial_ui(self, level: Any, state: Any) -> Any:
        return None

    def after_move(self, level: Any, state: Any, ui: Any) -> Any:
        return None


class StatelessUI(ResetUI):
    """The interaction state of views that have none: ``ui`` is always None (null in JSON)."""

    def ui_to_json(self, ui: Any) -> Any:
        return None

    def ui_from_json(self, data: Any) -> Any:
        if data is not None:
            raise ValueError(f"ui state: this game has none, expected null, got {shown(data)}")
        return None


class SelectionUI(ResetUI):
    """The interaction state of views that select one thing before moving it (a screw, a
    bolt): the selected item's index, or None. Nothing is selected when a level starts or
    after a move. Subclasses name the item in ``selected_item`` (for error messages)."""

    selected_item = "item index"

    def ui_to_json(self, ui: Any) -> Any:
        return ui

    def ui_from_json(self, data: Any) -> Any:
        return check_count(data, "ui state", 0, None, optional=True, what=self.selected_item)


@dataclass(frozen=True)
class Game:
    """Everything puzzlegym knows about one game.

    ``name`` is the id part (``MazePaint``); ``title`` the label on the home card.
    ``tiers`` lists the difficulties in order. ``rules`` is the rules module, ``view`` the view
    object, ``level_from_json``/``state_to_json``/``state_from_json`` (de)serialise its data,
    ``load_catalogue(tier)`` returns the canonical levels, ``generate(tier, seed)`` a
    procedural level, ``rule_card`` the card text, ``instruction`` the level screen's
    instruction line, ``dead_end(level, state)`` the dead-end certificate recorded with
    every snapshot (False for games that never become unsolvable), ``has_undo`` whether the
    level screen shows Undo, ``describe(level, state)`` (optional) extra facts recorded with
    every snapshot (e.g. free anchors), ``stats_max_states`` (optional) a lower cap on the
    states ``puzzlegym levels stats`` enumerates per level, for games whose state space is
    far too large to count (the counts are then lower bounds either way), ``level_format``
    (optional) the Markdown text documenting the game's level file format, from the
    package's ``format.md`` (``docs/levels.md`` ends with every game's), ``controls`` and
    ``can_dead_end`` (optional) the docs' games table: how a player moves, in a few words,
    and whether boards can become unsolvable; ``planes`` (optional) the game's symbolic
    board encoder (:class:`puzzlegym.game.planes.Planes`, the package's ``planes.PLANES``;
    ``puzzlegym.wrappers.BoardObservation`` reads it).

    ``package`` is the game's package (set by :meth:`from_package`). A game pickles by
    reference to it: unpickling imports the package and takes its ``GAME`` (so an env, a suite
    or a probe that holds games pickles without the rules module or the view, and a deep copy
    shares the one game object).
    """

    name: str
    title: str
    tiers: tuple[str, ...]
    rules: Any
    view: GameView
    level_from_json: Any
    level_to_json: Any
    state_to_json: Any
    state_from_json: Any
    load_catalogue: Any
    generate: Any
    rule_card: str
    instruction: str
    # (level, state) -> bool | None: the evaluator's dead-end certificate (puzzlegym.envs.game
    # gives every game its exact certifier, puzzlegym.solvers.is_dead_end)
    dead_end: Any = None
    has_undo: bool = False
    describe: Any = None  # optional (level, state) -> dict of game facts added to snapshots
    stats_max_states: int | None = None  # optional lower cap for `levels stats` (huge state spaces)
    level_format: str = ""  # optional Markdown: the level file format (format.md)
    planes: Any = None  # optional puzzlegym.game.planes.Planes: the symbolic board (planes.py)
    # optional, for the games table of the docs: how a player moves, in a few words, and
    # whether its boards can become unsolvable
    controls: str = ""
    can_dead_end: bool = False
    package: str = ""  # the game's package (from_package): how it pickles

    def env_id(self, tier: str) -> str:
        return f"LongPuzzle/{self.name}-{tier}"

    def __reduce__(self):
        if not self.package:
            raise TypeError(
                f"game {self.name!r}: only a game made by Game.from_package pickles "
                "(by its package)"
            )
        return (game_of_package, (self.package, self.name))

    def __deepcopy__(self, memo):
        return self

    @classmethod
    def from_package(
        cls,
        package: str,
        *,
        view: GameView,
        **fields: Any,
    ) -> Game:
        """A game from its package's conventional parts: the ``rules`` module (``TIERS``,
        ``Level`` with ``from_json``/``to_json``, ``state_to_json``/``state_from_json``),
        ``catalogue.load_catalogue``, ``generator.generate`` (imported on first use),
        ``card.md`` as the rule card, ``format.md`` (when the package has one) as the level
        format, ``planes.PLANES`` (when the package has a ``planes`` module) as the symbolic
        board and ``view`` (the package's GameView); ``dead_end`` is the certificate
        (:func:`puzzlegym.envs.game` passes the game's exact certifier).
        ``fields`` gives the rest (name, title, instruction, ...) and may override any of
        these."""
        from importlib import import_module, resources
        from importlib.util import find_spec

        rules = fields.pop("rules", None) or import_module(f"{package}.rules")
        load_catalogue = (
            fields.pop("load_catalogue", None)
            or import_module(f"{package}.catalogue").load_catalogue
        )
        fmt = resources.files(package) / "format.md"
        defaults = dict(
            tiers=rules.TIERS,
            rules=rules,
            view=view,
            level_from_json=rules.Level.from_json,
            level_to_json=rules.Level.to_json,
            state_to_json=rules.state_to_json,
            state_from_json=rules.state_from_json,
            load_catalogue=load_catalogue,
            generate=PackageGenerator(package),
            rule_card=(resources.files(package) / "card.md").read_text(encoding="utf-8"),
            level_format=fmt.read_text(encoding="utf-8") if fmt.is_file() else "",
            planes=import_module(f"{package}.planes").PLANES
            if find_spec(f"{package}.planes")
            else None,
            package=package,
        )
        return cls(**{**defaults, **fields})


@dataclass(frozen=True)
class PackageGenerator:
    """``generate(tier, seed)`` of a game package's ``generator`` module, imported on first
    use (the generators pull in the solvers); a plain value, so it pickles."""

    package: str

    def __call__(self, tier: str, seed: int):
        from importlib import import_module

        return import_module(f"{self.package}.generator").generate(tier, seed)


def game_of_package(package: str, name: str) -> Game:
    """The ``GAME`` of game package ``package`` (how a pickled :class:`Game` loads); checks
    that it is the game named ``name``."""
    from importlib import import_module

    game = import_module(package).GAME
    if not isinstance(game, Game) or game.name != name:
        raise TypeError(f"{package}.GAME is not the game {name!r}")
    return game
