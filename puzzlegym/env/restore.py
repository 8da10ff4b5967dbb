"""Checkpoints of an env: :meth:`Checkpointing.checkpoint` takes the whole suite as a document,
and ``reset(options={"checkpoint": ...})`` restores one: checked against the env (catalogue,
config), built aside and validated whole before anything of the env changes. A mixin of
:class:`puzzlegym.env.PuzzleEnv`."""

from __future__ import annotations

import copy
from typing import Any

from puzzlegym.base.errors import CheckpointError, ConfigError, LevelError
from puzzlegym.base.version import __version__
from puzzlegym.env.checkpoint import Checkpoint, validate_payload
from puzzlegym.env.faces import Faces
from puzzlegym.game import Game
from puzzlegym.game.registry import catalogue_sha256
from puzzlegym.game.splits import Split
from puzzlegym.screen.clock import Clock
from puzzlegym.screen.input import GestureRecognizer

__all__ = ["Checkpointing"]


class Checkpointing(Faces):
    """:meth:`checkpoint` and the restore half of ``reset`` (see the module docstring)."""

    # the env's (puzzlegym.env.core.PuzzleEnv)
    game: Game
    config: dict[str, Any]
    split: Split | None
    backend: Any  # a puzzlegym.backends backend (native or browser)
    clock: Clock
    recognizer: GestureRecognizer
    steps: int
    actions: int
    _seed: int | None
    _terminated: bool
    _first_level: int | None
    _now: float

    def _episode_parts(self, first_level: int | None) -> dict[str, Any]:
        raise NotImplementedError  # the env's

    def _open_record(self, restored: dict | None = None) -> None:
        raise NotImplementedError  # the env's

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
