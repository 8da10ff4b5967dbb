"""A scripted diagnostic agent: a deterministic stand-in for a model in the dead-end lab.

It behaves like the agents of the paper's Section 5, by rule rather than by model:

* it navigates like the solver agent (nothing to do under the workflow controller);
* on a board it judges each move by the visible progress it makes: the legal move whose
  result has the highest potential (boards out, stacks completed, cells painted), then one
  reaching a board it has not produced before, ties to the rules' first move -- no lookahead,
  so it walks into dead ends;
* when no move is legal it retries its last move, as if a click had missed (rejected
  moves), and never restarts on its own;
* when the text observation says the board can no longer be completed
  (:class:`puzzlegym.wrappers.StateHint`, B or C), it recovers once: with the restart
  control named (C) it clicks that control; without a name (B) it tries the header controls
  from left to right (Undo, if the game has it, before Restart) until the board can be
  completed again. The hint stays in the text; it acts on it once.

Like :class:`~puzzlegym.agents.SolverAgent` it reads the board from the env's probe
(``env.unwrapped.probe()``: grounding is not what it tests) and acts only through GUI
actions.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from puzzlegym import solvers
from puzzlegym.base.actions import Click, PressKey, to_dict
from puzzlegym.env.navigation import navigation_action
from puzzlegym.env.probe import LEVEL, Board, Probe
from puzzlegym.screen.labels import label

__all__ = ["ScriptedAgent"]

LOST_PHRASE = "can no longer be completed"  # what StateHint's B/D sentence says


class ScriptedAgent:
    name = "scripted"

    def __init__(self, env, seed: int | None = None) -> None:
        self.env = env.unwrapped
        self._pending: deque = deque()
        self._seen: set = set()
        self._board_id: Any = None
        self._last_move: Any = None
        self._recovering = False
        self._recovered = False
        self._tried: list[str] = []
        self.moves = 0

    # ------------------------------------------------------------------ reading the text
    def _hint(self, obs: Any) -> tuple[bool, str | None]:
        """(the text says the board is lost, the control it names or None)."""
        text = obs.get("text", "") if isinstance(obs, dict) else ""
        if LOST_PHRASE not in text:
            return False, None
        for name in ("restart", "undo", "menu"):
            if f'"{label(name)}"' in text:
                return True, name
        return True, None

    # ------------------------------------------------------------------ recovery
    def _recover(self, probe: Probe, named: str | None) -> dict | None:
        board = probe.board
        assert board is not None  # called on the level screen only
        if self._tried and solvers.certify(board.level, board.state) == "solvable":
            self._recovering, self._recovered = False, True
            return None
        controls = probe.controls
        if named is not None:
            order = [named]
        else:  # the header controls, left to right as the screen shows them
            order = sorted(
                (n for n in ("undo", "restart", "menu") if n in controls),
                key=lambda n: controls[n].x,
            )
        untried = [n for n in order if n not in self._tried] or [order[-1]]
        name = untried[0]
        self._tried.append(name)
        x, y = controls[name].center
        return to_dict(Click(x, y))

    # ------------------------------------------------------------------ playing
    def _track_board(self, board: Board) -> None:
        ident = (board.game.name, board.tier, board.index)
        if ident != self._board_id:
            self._board_id, self._seen, self._last_move = ident, set(), None
            self._pending.clear()

    def _choose_move(self, board: Board):
        rules, level, state = board.game.rules, board.level, board.state
        here = solvers.canonical_key(level, state)
        self._seen.add(here)
        best, best_score = None, None
        for move in rules.legal_moves(level, state):
            after = rules.apply(level, state, move)
            key = solvers.canonical_key(level, after)
            score = (rules.potential(level, after), key not in self._seen, key != here)
            if best_score is None or score > best_score:
                best, best_score = move, score
        return best

    def _board_action(self, board: Board) -> dict:
        self._track_board(board)
        if not self._pending:
            move = self._choose_move(board)
            if move is None:
                move = self._last_move  # nothing is legal: retry, as if the click had missed
            if move is None:
                return to_dict(PressKey("Escape"))
            self._last_move = move
            self.moves += 1
            self._pending.extend(board.actions_for_move(move))
        return to_dict(self._pending.popleft())

    def __call__(self, obs: Any = None, info: Any = None) -> dict:
        probe = self.env.probe()
        nav = navigation_action(probe, self._pending)
        if nav is not None:
            return nav
        assert probe.screen == LEVEL
        lost, named = self._hint(obs)
        if lost and not self._recovered:
            self._recovering = True
        if self._recovering:
            self._pending.clear()
            action = self._recover(probe, named)
            if action is not None:
                return action
        return self._board_action(probe.board)
