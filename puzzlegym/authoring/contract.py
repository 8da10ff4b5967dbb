"""The contract every game keeps, checked the same way for each: :func:`check_game`.

A game plugs in through the :class:`puzzlegym.game.Game` protocol; ``check_game(game)``
plays its rules, view, catalogue and solver against that protocol and raises
:class:`GameContractError` naming the first broken promise. ``tests/test_games.py`` runs
it over every registered game, so a seventh game gets the same checks by its registry line
alone. What it checks, on the first level of every tier (``levels=`` widens it) and on
seeded random walks of legal moves from each:

* the game's fields: a ``CamelCase`` name, tiers, a rule card and an instruction line;
* levels and states are hashable and survive their JSON round trip (through real JSON
  text, so tuples become lists), and ``state_from_json`` refuses a document that is not a
  state with an error;
* the potential lies in [0, 1] and is 1 exactly on solved boards; ``apply`` returns a new
  state for every legal move without touching the old one, is deterministic, and answers a
  move that is not legal with :class:`~puzzlegym.game.Rejected` (a reason, nothing
  changed);
* the view: ``ui`` survives ``ui_to_json``/``ui_from_json``, every widget lies inside the
  board area in both styles (screen and training), the panel (the training view's window)
  is a box inside it, ``board_targets`` has the same length on every board of a level, and
  ``actions_for_move`` gives GUI actions for every legal move;
* the game's parts: its solver (``<package>/solver.py``) solves the ready board, its moves
  replay through ``apply`` to a solved board, ``certify`` calls it solvable, and the level's
  class leads back to the game (``puzzlegym.game.game_of_level``, how ``puzzlegym.solvers``
  finds a level's solver); its vision reader, when it has one, is its game's;
* the game's test data (:func:`game_test_data`: its package's ``testdata`` module, what the
  shared tests need of every game) names every tier.

>>> from puzzlegym.game.registry import get_game
>>> check_game(get_game("MazePaint"), walks=2, steps=5)
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterable
from typing import Any

from puzzlegym import solvers
from puzzlegym.base.actions import Action
from puzzlegym.base.errors import PuzzleGymError
from puzzlegym.env.probe import BOARD_AREA
from puzzlegym.game import Game, Rejected, game_of_level
from puzzlegym.screen.palette import STYLES

__all__ = ["TEST_DATA", "GameContractError", "check_game", "game_test_data"]

# what a game package's ``testdata`` module holds: name -> what it is
TEST_DATA = {
    "BOARD_SHAPES": "per tier: (the game's own planes, level bits, then BoardObservation's "
    "(C, H, W)) of make_sb3_env(id, observation='board')",
    "SPLIT_SAMPLES": "per tier: how many training levels the splits test draws",
    "symmetric_copy": "symmetric_copy(doc, rng): a level document that plays the same as doc "
    "(turned, mirrored, re-listed or re-coloured as the game allows)",
}
# beside it, optionally, frames_sha256.json: per tier the hash of a scripted episode's frames
# (`puzzlegym game fixtures GAME` writes it, tests/test_render_scaled.py checks it; a game
# without one is not hashed)

MOVES_LOOKED_AT = 64  # legal moves drawn from a (possibly lazy, huge) legal_moves per board
NOT_A_STATE: tuple[Any, ...] = (None, [], {}, "state", 7, {"bogus": True})


class GameContractError(AssertionError):
    """A game broke the :class:`~puzzlegym.game.Game` contract (the message says where)."""


def _fail(game: Game, where: str, what: str) -> None:
    raise GameContractError(f"{game.name} {where}: {what}")


def _json(value: Any) -> Any:
    """``value`` through real JSON text (tuples become lists, as on disk)."""
    return json.loads(json.dumps(value))


def check_game(
    game: Game,
    levels: Iterable[tuple[str, Any]] | None = None,
    *,
    walks: int = 4,
    steps: int = 30,
    seed: int = 0,
) -> None:
    """Check ``game`` against the contract (module docstring); ``levels`` are ``(where,
    level)`` pairs (default: the first catalogue level of every tier); ``walks`` random
    walks of up to ``steps`` legal moves start from each level's ready board."""
    _check_fields(game)
    game_test_data(game)
    if levels is None:
        levels = [(f"{tier} level 1", game.catalogue(tier)[0]) for tier in game.tiers]
    rng = random.Random(f"puzzlegym.testing/{game.name}/{seed}")
    for where, level in levels:
        _check_level(game, where, level)
        n_targets = _check_board(game, where, level, game.rules.initial_state(level))
        _check_solver(game, where, level)
        for _ in range(walks):
            _walk(game, where, level, rng, steps, n_targets)


def _check_fields(game: Game) -> None:
    if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", game.name):
        _fail(game, "name", "must be CamelCase letters and digits (it is the id part)")
    if not game.tiers or len(set(game.tiers)) != len(game.tiers):
        _fail(game, "tiers", f"need one or more distinct tiers, got {game.tiers!r}")
    if not game.rule_card.strip() or not game.instruction.strip() or not game.title.strip():
        _fail(game, "rule_card/instruction/title", "must not be empty")
    try:
        game.get_solver()
    except LookupError as exc:
        _fail(game, "solver", str(exc))
    if game.dead_end is None:
        _fail(
            game,
            "dead_end",
            "no certificate (Game.from_package gives a game with a solver its certify; a game "
            "whose boards never become unsolvable passes dead_end=lambda level, state: False)",
        )
    if game.reader is not None:
        reader = game.reader.load()
        if getattr(reader, "game", None) != game.name or not all(
            callable(getattr(reader, m, None)) for m in ("read", "actions", "public")
        ):
            _fail(
                game,
                "reader",
                f"{game.reader} is no reader of {game.name} (game = {game.name!r}; read, "
                "actions, public: puzzlegym.vision.reader.GameReader)",
            )


def _check_level(game: Game, where: str, level: Any) -> None:
    hash(level)
    if getattr(level, "game", None) != game.name:
        _fail(
            game,
            where,
            f"the level class names game {getattr(level, 'game', None)!r}, not {game.name!r}",
        )
    doc = _json(game.level_to_json(level))
    again = game.level_from_json(doc)
    if again != level or _json(game.level_to_json(again)) != doc:
        _fail(game, where, "the level does not survive level_to_json -> JSON -> level_from_json")


def _check_board(game: Game, where: str, level: Any, state: Any) -> int:
    """Check one board; returns its number of board targets."""
    rules, view = game.rules, game.view
    hash(state)
    doc = _json(game.state_to_json(level, state))
    if game.state_from_json(level, doc) != state:
        _fail(game, where, "the state does not survive state_to_json -> JSON -> state_from_json")
    for bad in NOT_A_STATE:
        try:
            game.state_from_json(level, bad)
        except (ValueError, TypeError, PuzzleGymError):
            continue
        _fail(game, where, f"state_from_json accepted {bad!r}")
    p = rules.potential(level, state)
    solved = rules.is_solved(level, state)
    if not 0.0 <= p <= 1.0 or (p == 1.0) != solved:
        _fail(game, where, f"potential {p!r} on a board that is {'' if solved else 'not '}solved")
    ui = view.initial_ui(level, state)
    if view.ui_from_json(_json(view.ui_to_json(ui))) != ui:
        _fail(game, where, "the ui does not survive ui_to_json -> JSON -> ui_from_json")
    a = BOARD_AREA
    for style in STYLES:
        for w in view.widgets(level, state, ui, BOARD_AREA, style):
            r = w.rect
            if r.x < a.x or r.y < a.y or r.x + r.w > a.x + a.w or r.y + r.h > a.y + a.h:
                _fail(
                    game,
                    where,
                    f"widget {w.id!r} at {r} ({style} style) leaves the board area {BOARD_AREA}",
                )
    panel = view.panel(level, BOARD_AREA)
    if (
        panel.w <= 0
        or panel.h <= 0
        or panel.x < a.x
        or panel.y < a.y
        or panel.x1 > a.x1
        or panel.y1 > a.y1
    ):
        _fail(
            game,
            where,
            f"panel {panel} (the training view's window) is not a box inside the board area "
            f"{BOARD_AREA}",
        )
    targets = view.board_targets(level, state, ui, BOARD_AREA)
    if not all(t is None or isinstance(t, Action) for t in targets):
        _fail(game, where, "board_targets must be GUI actions or None")
    return len(targets)


def _legal(game: Game, level: Any, state: Any) -> list:
    return list(itertools.islice(game.rules.legal_moves(level, state), MOVES_LOOKED_AT))


def _walk(
    game: Game, where: str, level: Any, rng: random.Random, steps: int, n_targets: int
) -> None:
    rules, view = game.rules, game.view
    state = rules.initial_state(level)
    seen_moves: list = []
    for i in range(steps):
        here = f"{where}, move {i + 1} of a random walk"
        moves = _legal(game, level, state)
        if rules.is_solved(level, state) or not moves:
            return
        # moves that were legal earlier in the walk: where one is rejected now, it gives a
        # reason and leaves the board as it was
        before = _json(game.state_to_json(level, state))
        for move in seen_moves[-8:]:
            out = rules.apply(level, state, move)
            if isinstance(out, Rejected) and not (isinstance(out.reason, str) and out.reason):
                _fail(game, here, "a Rejected move must give a reason (the feedback line)")
            if _json(game.state_to_json(level, state)) != before:
                _fail(game, here, f"apply({move!r}) changed the state it was given")
        move = moves[rng.randrange(len(moves))]
        actions = view.actions_for_move(
            level, state, view.initial_ui(level, state), move, BOARD_AREA
        )
        if not actions or not all(isinstance(a, Action) for a in actions):
            _fail(game, here, f"actions_for_move gave no GUI actions for the legal move {move!r}")
        after = rules.apply(level, state, move)
        if isinstance(after, Rejected):
            _fail(game, here, f"apply rejected the legal move {move!r}: {after.reason}")
        if _json(game.state_to_json(level, state)) != before:
            _fail(game, here, "apply changed the state it was given")
        if rules.apply(level, state, move) != after:
            _fail(game, here, "apply is not deterministic")
        seen_moves.append(move)
        state = after
        if _check_board(game, here, level, state) != n_targets:
            _fail(
                game,
                here,
                "board_targets changed length within a level "
                "(index meanings depend on the level only)",
            )


def _check_solver(game: Game, where: str, level: Any) -> None:
    rules = game.rules
    try:
        found = game_of_level(level)
    except TypeError as exc:
        _fail(game, where, str(exc))
    if found.name != game.name:
        _fail(
            game,
            where,
            f"its level class {type(level).__module__}.{type(level).__name__} is found as "
            f"{found.name}'s (the GAME of the package above it)",
        )
    state = rules.initial_state(level)
    solution = solvers.solve(level)
    for move in solution.moves:
        state = rules.apply(level, state, move)
        if isinstance(state, Rejected):
            _fail(game, where, f"the solver's move {move!r} is rejected: {state.reason}")
    if not rules.is_solved(level, state):
        _fail(game, where, "the solver's moves do not solve the level")
    if solvers.certify(level, rules.initial_state(level)) != "solvable":
        _fail(game, where, "certify does not call the ready board solvable")


def game_test_data(game: Game) -> Any:
    """The ``testdata`` module of ``game``'s package: :data:`TEST_DATA`, what puzzlegym's
    shared tests read of every game, so a new game changes no shared test. Raises
    :class:`GameContractError` when the module or one of its names is missing, or a table
    does not name exactly the game's tiers."""
    import importlib

    try:
        module = importlib.import_module(f"{game.package}.testdata")
    except ModuleNotFoundError as exc:
        if exc.name != f"{game.package}.testdata":
            raise
        _fail(
            game,
            "testdata",
            f"the package has no testdata module ({game.where('testdata.py')}: "
            f"{', '.join(TEST_DATA)}; puzzlegym game fixtures prints BOARD_SHAPES)",
        )
    for name in TEST_DATA:
        if not hasattr(module, name):
            _fail(game, "testdata", f"no {name} in {game.where('testdata.py')}: {TEST_DATA[name]}")
    for table in ("BOARD_SHAPES", "SPLIT_SAMPLES"):
        if sorted(getattr(module, table)) != sorted(game.tiers):
            _fail(
                game,
                f"testdata.{table}",
                f"must name exactly the tiers {game.tiers} ({game.where('testdata.py')})",
            )
    return module
