"""The `Game` protocol: the one interface through which a game plugs into puzzlegym.

A game is one package (``envs/<game>/`` for the six built-in games, any installed package for
the others), declared in the ``puzzlegym.games`` entry point group, that exposes ``GAME``, a
:class:`Game`. Its package holds everything about it:

* ``rules``: a pure rules model (immutable, hashable ``Level`` and ``State``;
  ``initial_state``, ``legal_moves``, ``apply``, ``is_solved``, ``potential``);
* a view (``GameView``): layout, drawing as widgets, and gesture -> move mapping, with its own
  small immutable interaction state (``ui``), e.g. the selected screw;
* a catalogue (``levels/<tier>.json``), a seeded ``generate(tier, seed)`` and a rule card
  (``card.md``);
* its solver (``solver.py``: ``solve`` and ``certify``, :mod:`puzzlegym.game.solver`);
* optionally its symbolic board (``planes.py``: :class:`puzzlegym.game.planes.Planes`), its
  JAX twin (``twin.py``: :class:`puzzlegym.game.twin.Twin`) and its vision reader
  (``reader.py``: :class:`puzzlegym.vision.reader.GameReader`).

The suite shell, the evaluator, the env, checkpoints, the solvers' dispatch, the agents, the
JAX factory and the CLI only ever talk to a game through its :class:`Game` object (a game's
solver, reader and twin are :class:`~puzzlegym.game.parts.Part` s of it, imported on first
use); no module of ``puzzlegym/`` imports a game's package.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from puzzlegym.base.errors import LevelError, PuzzleGymError, shown
from puzzlegym.base.fields import check_count
from puzzlegym.game.parts import Part
from puzzlegym.game.planes import Planes
from puzzlegym.game.solver import DeadEndCertificate, Solver
from puzzlegym.game.twin import Twin
from puzzlegym.screen.input import Gesture
from puzzlegym.screen.render import Rect, Widget
from puzzlegym.vision.reader import GameReader

# a game's own types: its rules' Level, State and moves, and its view's interaction state
LevelT = TypeVar("LevelT", bound=Hashable)
StateT = TypeVar("StateT", bound=Hashable)
MoveT = TypeVar("MoveT")
UiT = TypeVar("UiT")
# the same, as the protocols below take them (a protocol only reads what it is given)
_LevelIn = TypeVar("_LevelIn", contravariant=True)
_StateIn = TypeVar("_StateIn", contravariant=True)
_MoveIn = TypeVar("_MoveIn", contravariant=True)
_State = TypeVar("_State")
_Move = TypeVar("_Move")


@dataclass(frozen=True)
class Rejected:
    """A move the rules (or the view) refused; the board stays as it was.

    ``reason`` is the neutral, public feedback line shown to the player.
    """

    reason: str


@runtime_checkable
class Rules(Protocol[_LevelIn, _State, _Move]):
    """A game's pure rules model (a module satisfies this protocol), over its ``Level``,
    ``State`` and move types."""

    def initial_state(self, level: _LevelIn) -> _State: ...
    def legal_moves(self, level: _LevelIn, state: _State) -> Iterable[_Move]: ...
    def apply(self, level: _LevelIn, state: _State, move: _Move) -> _State | Rejected: ...
    def is_solved(self, level: _LevelIn, state: _State) -> bool: ...
    def potential(self, level: _LevelIn, state: _State) -> float: ...


@dataclass(frozen=True)
class ViewOutcome:
    """What a gesture on the board means.

    ``move`` is a rules move to apply (or None); ``ui`` the view's new interaction state;
    ``feedback`` an optional public feedback line (e.g. "Select a screw").
    """

    move: Any = None
    ui: Any = None
    feedback: str | None = None


class GameView(Protocol[_LevelIn, _StateIn, _MoveIn, UiT]):
    """Layout, drawing and input mapping of one game's board, over its ``Level``, ``State``,
    move and interaction state (``ui``) types."""

    def initial_ui(self, level: _LevelIn, state: _StateIn) -> UiT: ...

    def widgets(
        self, level: _LevelIn, state: _StateIn, ui: UiT, area: Rect, style: str = "screen"
    ) -> list[Widget]:
        """The board as widgets inside ``area`` (screen coordinates), back to front, painted
        in ``style`` (``puzzlegym.screen.palette.STYLES``: ``"screen"``, or ``"training"``
        for the training view: palette colours as their training twins, and cues such as a
        truck's heading or a selection drawn to survive 84x84 frames). Each style paints with
        its own painters (a widget's painter and key describe what it shows), so the screen
        style's pictures never depend on the training style's."""

    def panel(self, level: _LevelIn, area: Rect) -> Rect:
        """The panel the board lies on (``puzzlegym.screen.panel.panel_rect`` of the board's
        own pixels), inside ``area``: the window the training view frames."""

    def on_gesture(
        self, level: _LevelIn, state: _StateIn, ui: UiT, gesture: Gesture, area: Rect
    ) -> ViewOutcome:
        """Map a recognized gesture (click, drag, swipe, key) to a move and/or a new ui state."""

    def after_move(self, level: _LevelIn, state: _StateIn, ui: UiT) -> UiT:
        """The ui state after a move was applied (e.g. clear a selection)."""

    def actions_for_move(
        self, level: _LevelIn, state: _StateIn, ui: UiT, move: _MoveIn, area: Rect
    ) -> list:
        """The GUI actions that perform ``move`` on the screen (used by the solver agent)."""

    def board_targets(self, level: _LevelIn, state: _StateIn, ui: UiT, area: Rect) -> list:
        """The board-aligned action targets of this level, for RL action spaces: a list of
        typed GUI actions (``puzzlegym.base.actions``: a click on a cell, bolt, anchor or truck; a
        drag of a vehicle to a position; a swipe) or ``None`` where a target does not exist
        in this state (e.g. a truck already gone). Its length and the meaning of each index
        depend on the level only; the pixels may follow the state (a vehicle is dragged from
        where it stands). This is privileged layout knowledge, meant for training."""

    def ui_to_json(self, ui: UiT) -> Any: ...
    def ui_from_json(self, data: Any) -> UiT: ...

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
class Game(Generic[LevelT, StateT, MoveT, UiT]):
    """Everything puzzlegym knows about one game, generic over its ``Level``, ``State``,
    move and interaction state (``ui``) types.

    ``name`` is the id part (``MazePaint``); ``title`` the label on the home card.
    ``tiers`` lists the difficulties in order. ``rules`` is the rules model, ``view`` the view
    object, ``level_from_json``/``level_to_json``/``state_to_json``/``state_from_json``
    (de)serialise its data, ``load_catalogue(tier)`` returns the canonical levels,
    ``generate(tier, seed)`` a procedural level, ``rule_card`` the card text,
    ``instruction`` the level screen's instruction line.

    ``solver`` is its solver (a :class:`~puzzlegym.game.parts.Part`: the package's
    ``solver`` module), ``dead_end(level, state)`` the dead-end certificate recorded with
    every snapshot (by default the solver's ``certify``, :class:`DeadEndCertificate`;
    ``lambda level, state: False`` for a game whose boards never become unsolvable).
    ``reader`` and ``twin`` (optional parts) are its vision reader (``reader.READER``) and
    JAX twin (``twin.TWIN``); ``planes`` (optional) its symbolic board encoder
    (``planes.PLANES``, which ``puzzlegym.wrappers.BoardObservation`` reads).

    The rest is optional: ``has_undo`` whether the level screen shows Undo,
    ``describe(level, state)`` extra facts recorded with every snapshot (e.g. free anchors),
    ``stats_max_states`` a lower cap on the states ``puzzlegym levels stats`` enumerates per
    level (for games whose state space is far too large to count), ``level_format`` the
    Markdown text documenting the level file format (``format.md``; ``docs/levels.md`` ends
    with every game's), and for the docs' games table ``controls`` (how a player moves, in a
    few words: "clicks (a lamp)", "swipes or arrow keys") and ``can_dead_end`` (whether
    boards can become unsolvable).

    ``package`` is the game's package (set by :meth:`from_package`). A game pickles by
    reference to it: unpickling imports the package and takes its ``GAME`` (so an env, a suite
    or a probe that holds games pickles without the rules module or the view, and a deep copy
    shares the one game object).
    """

    name: str
    title: str
    tiers: tuple[str, ...]
    rules: Rules[LevelT, StateT, MoveT]
    view: GameView[LevelT, StateT, MoveT, UiT]
    level_from_json: Callable[[Any], LevelT]
    level_to_json: Callable[[LevelT], dict[str, Any]]
    state_to_json: Callable[[LevelT, StateT], Any]
    state_from_json: Callable[[LevelT, Any], StateT]
    load_catalogue: Callable[[str], Sequence[LevelT]]
    generate: Callable[[str, int], LevelT]
    rule_card: str
    instruction: str
    dead_end: Callable[[LevelT, StateT], bool | None] | None = None
    has_undo: bool = False
    describe: Callable[[LevelT, StateT], dict[str, Any]] | None = None
    stats_max_states: int | None = None
    level_format: str = ""
    planes: Planes | None = None
    controls: str = ""
    can_dead_end: bool = False
    solver: Part[Solver] | None = None
    reader: Part[GameReader] | None = None
    twin: Part[Twin] | None = None
    package: str = ""

    def env_id(self, tier: str) -> str:
        return f"LongPuzzle/{self.name}-{tier}"

    def where(self, part: str) -> str:
        """Where ``part`` of the game lives, for messages: ``lights_out/solver.py`` (the
        game's own package), or the game's name when it has no package."""
        if not self.package:
            return f"the game {self.name!r}'s {part}"
        return f"{self.package.replace('.', '/')}/{part}"

    def catalogue(self, tier: str) -> Sequence[LevelT]:
        """The canonical levels of ``tier`` (``load_catalogue(tier)``), checked: a
        :class:`~puzzlegym.base.errors.LevelError` naming where the catalogue lives in the
        game's package when the tier is not one of the game's, when loading it fails, or when
        it holds no levels. Every core module reads a catalogue through here, so a game whose
        catalogue is broken fails with one line in the episodes that open it, and no other."""
        if tier not in self.tiers:
            raise LevelError(f"{self.name} has no tier {shown(tier)} (tiers: {self.tiers})")
        where = self.where("catalogue.py")
        try:
            levels = self.load_catalogue(tier)
        except PuzzleGymError:
            raise
        except Exception as exc:  # a plugin's own code: its failure, named where it lives
            raise LevelError(
                f"{self.name} {tier}: loading the catalogue failed ({where}): "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        if not isinstance(levels, Sequence) or isinstance(levels, str | bytes) or not levels:
            raise LevelError(
                f"{self.name} {tier}: the catalogue ({where}) returned {shown(levels)}, "
                "not a non-empty sequence of levels"
            )
        return levels

    def get_solver(self) -> Solver:
        """The game's solver (its module imported now); LookupError naming where it belongs
        when the game has none."""
        if self.solver is None or not self.solver.exists():
            raise LookupError(
                f"{self.name} has no solver: {self.where('solver.py')} with solve(level, "
                "state=None) and certify(level, state) (docs/game-protocol.md)"
            )
        return self.solver.load()

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
        view: GameView[LevelT, StateT, MoveT, UiT],
        **fields: Any,
    ) -> Game[LevelT, StateT, MoveT, UiT]:
        """A game from its package's conventional parts: the ``rules`` module (``TIERS``,
        ``Level`` with ``from_json``/``to_json``, ``state_to_json``/``state_from_json``),
        ``catalogue.load_catalogue``, ``generator.generate`` (imported on first use),
        ``card.md`` as the rule card, ``format.md`` (when the package has one) as the level
        format, ``planes.PLANES`` (when the package has a ``planes`` module) as the symbolic
        board, the ``solver`` module as the solver and, through it, the dead-end certificate,
        ``reader.READER`` and ``twin.TWIN`` (when the package has those modules; imported on
        first use) and ``view`` (the package's GameView). ``fields`` gives the rest (name,
        title, instruction, ...) and may override any of these.

        Raises:
            LookupError: a part the game must have is missing (the message names the file
                of the package it belongs in).
        """
        from importlib import resources

        def required(module: str, what: str) -> Any:
            part = Part[Any](f"{package}.{module}")
            if not part.exists():
                raise LookupError(
                    f"game package {package}: no {module} module "
                    f"({package.replace('.', '/')}/{module}.py: {what}; docs/game-protocol.md)"
                )
            return part.load()

        def optional(module: str, attribute: str = "") -> Part | None:
            part = Part[Any](f"{package}.{module}", attribute)
            return part if part.exists() else None

        rules = fields.pop("rules", None) or required(
            "rules", "TIERS, Level, State, initial_state, legal_moves, apply, ..."
        )
        load_catalogue = (
            fields.pop("load_catalogue", None)
            or required("catalogue", "load_catalogue(tier)").load_catalogue
        )
        files = resources.files(package)
        card = files / "card.md"
        if "rule_card" not in fields and not card.is_file():
            raise LookupError(
                f"game package {package}: no card.md (the rule card, "
                f"{package.replace('.', '/')}/card.md)"
            )
        if "generate" not in fields and optional("generator") is None:
            raise LookupError(
                f"game package {package}: no generator module "
                f"({package.replace('.', '/')}/generator.py: generate(tier, seed))"
            )
        solver = fields.pop("solver", None) or optional("solver")
        planes = optional("planes", "PLANES")
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
            rule_card=card.read_text(encoding="utf-8") if card.is_file() else "",
            level_format=(files / "format.md").read_text(encoding="utf-8")
            if (files / "format.md").is_file()
            else "",
            planes=None if planes is None else planes.load(),
            solver=solver,
            dead_end=None if solver is None else DeadEndCertificate(solver),
            reader=optional("reader", "READER"),
            twin=optional("twin", "TWIN"),
            package=package,
        )
        game: Game = cls(**{**defaults, **fields})
        for listener in _BUILT:
            listener(game)
        return game


# called with every game Game.from_package builds: how the registry adopts a plugin whose
# package was still being imported when the registry first looked (puzzlegym.game.registry)
_BUILT: list[Callable[[Game], None]] = []


def on_game_built(listener: Callable[[Game], None]) -> None:
    """Call ``listener(game)`` with every game :meth:`Game.from_package` builds from now on."""
    if listener not in _BUILT:
        _BUILT.append(listener)


@dataclass(frozen=True)
class PackageGenerator:
    """``generate(tier, seed)`` of a game package's ``generator`` module, imported on first
    use (the generators pull in the solvers); a plain value, so it pickles."""

    package: str

    def __call__(self, tier: str, seed: int):
        return import_module(f"{self.package}.generator").generate(tier, seed)


def game_of_package(package: str, name: str) -> Game:
    """The ``GAME`` of game package ``package`` (how a pickled :class:`Game` loads); checks
    that it is the game named ``name``."""
    game = import_module(package).GAME
    if not isinstance(game, Game) or game.name != name:
        raise TypeError(f"{package}.GAME is not the game {name!r}")
    return game


def game_of_level(level: Any) -> Game:
    """The game a level belongs to: the ``GAME`` of the package its class is defined in (the
    nearest package above the class's module that has one), e.g. the game of a
    ``puzzlegym.envs.maze_paint.rules.Level`` is ``puzzlegym.envs.maze_paint.GAME``. A level
    class that names its game (``Level.game``) must name that one. TypeError when no package
    above it has a ``GAME``."""
    cls = type(level)
    found = _GAMES_OF_CLASSES.get(cls)
    if found is None:
        found = _GAMES_OF_CLASSES[cls] = _game_of_class(cls)
    return found


_GAMES_OF_CLASSES: dict[type, Game] = {}  # level classes are few: one per game


def _game_of_class(cls: type) -> Game:
    module = cls.__module__
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        package = ".".join(parts[:i])
        found = sys.modules.get(package)
        if found is None:
            try:
                found = import_module(package)
            except ImportError:
                continue
        game = getattr(found, "GAME", None)
        if isinstance(game, Game):
            named = getattr(cls, "game", game.name)
            if named != game.name:
                raise TypeError(
                    f"{cls.__name__} of {module} names the game {named!r}, but "
                    f"{package}.GAME is {game.name!r}"
                )
            return game
    raise TypeError(
        f"no game for {cls.__name__!r}: no package above {module} has a GAME (a game "
        "package exposes GAME = Game.from_package(__name__, ...))"
    )
