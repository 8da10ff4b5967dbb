"""Checkpoints: the whole suite at one moment (screen, board, ui, history, clock, input
state, evaluator record), as a plain document, in memory and on disk.

On disk a checkpoint is JSON with its format, the puzzlegym version, the catalogue hash, the
env configuration and the payload with its SHA-256; loading checks all of them and raises
:class:`~puzzlegym.base.errors.CheckpointError` naming what is wrong: the format and its version,
a well-formed ``puzzlegym_version`` no newer than this install (a newer puzzlegym may write a
payload this one cannot read), the catalogue hash, the digest, and hostile JSON (nesting, huge
numbers, NaN/Infinity). :func:`validate_payload` checks the payload's every field for type and
range (a schema, :data:`Payload`) before an env changes anything; the env then checks what
needs the game (board index, board states, ui, objective).

A checkpoint may carry a ``certificate`` (a JSON object with its own SHA-256): what the dead-end
lab (:mod:`puzzlegym.lab`) proved about the board and how the checkpoint was made. It is
private: restoring ignores it, and nothing puts it into an agent's observation or info.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from puzzlegym.base import jsonio
from puzzlegym.base.errors import CheckpointError, shown
from puzzlegym.base.version import __version__
from puzzlegym.record.events import upgrade_line
from puzzlegym.screen.layout import SCREENS

FORMAT = "puzzlegym-checkpoint"
# 2: the evaluator's lines count actions as "actions" (1 called it "step"); 1 still reads
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)


MAX_COUNT = 2**53  # steps, actions, times in ms: exact in a JSON number
MAX_BYTES = 64 * 2**20  # the largest checkpoint file read (a long episode's is well under 1 MiB)
_VERSION = re.compile(r"(\d{1,6})\.(\d{1,6})(?:\.(\d{1,6}))?([.+-][0-9A-Za-z.+-]{0,40})?")


def _canonical(doc: Any) -> bytes:
    try:
        return json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False).encode(
            "utf-8"
        )
    except RecursionError:
        raise CheckpointError("checkpoint is invalid: nested too deeply") from None
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"checkpoint is invalid: not a JSON document ({exc})") from None


def _version_key(text: Any) -> tuple[int, int, int] | None:
    m = _VERSION.fullmatch(text) if isinstance(text, str) else None
    return None if m is None else (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


# ----------------------------------------------------------------------------- payload schema
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Seconds = Annotated[float, Field(ge=0, le=1e9, allow_inf_nan=False)]
Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Name = Annotated[str, Field(min_length=1, max_length=64)]
Text = Annotated[str, Field(max_length=4096)]
Moment = Annotated[list[Count], Field(min_length=3, max_length=3)]  # x, y, t_ms


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class _Open(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")


class BoardDoc(_Strict):
    game: Name
    tier: Name
    index: Annotated[int, Field(ge=0, le=10_000)]
    state: Any
    ui: Any
    history: list[Any]
    feedback: Text


class SuiteDoc(_Strict):
    page: Annotated[int, Field(ge=0, le=10_000)] = 0  # the home screen's page (0: absent)
    screen: Literal[SCREENS]  # type: ignore[valid-type]
    game: Name | None
    tier: Name | None
    progress: dict[
        Annotated[str, Field(max_length=130)], list[Annotated[int, Field(ge=0, le=10_000)]]
    ]
    board: BoardDoc | None


class ObjectiveDoc(_Strict):
    game: Name
    tier: Name
    targets: list[Annotated[int, Field(ge=0, le=10_000)]]


class LevelResultDoc(_Strict):
    reached: bool
    won: bool
    max_potential: Fraction


class SnapshotDoc(_Strict):
    kind: Literal["snapshot"]
    actions: Count
    t: Seconds
    cause: Name
    game: Name
    tier: Name
    level: Annotated[int, Field(ge=1, le=10_000)]
    potential: Fraction
    solved: bool
    dead_end: bool | None
    state: Any
    details: Any = None


class EventDoc(_Open):
    kind: Name
    actions: Count
    t: Seconds


class RunDoc(_Strict):
    fatal_actions: Count
    fatal_move: Any
    delay: Count
    recovered_by: Name | None


class AttemptDoc(_Open):
    game: Name
    tier: Name
    level: Annotated[int, Field(ge=1, le=10_000)]
    start_actions: Count
    moves: Count
    undos: Count
    dead_end: bool
    runs: list[RunDoc]
    end: Name | None


class EvaluatorDoc(_Strict):
    objective: ObjectiveDoc
    results: dict[Annotated[str, Field(pattern=r"^\d{1,5}$")], LevelResultDoc]
    snapshots: list[SnapshotDoc]
    events: list[EventDoc]
    mismatch: bool
    answered: Text | None
    attempts: list[AttemptDoc]
    attempt: AttemptDoc | None


class ClockDoc(_Strict):
    kind: Literal["sim", "wall"]
    elapsed_s: Seconds


class RecognizerDoc(_Strict):
    down: Moment | None
    last_click: Moment | None


class Payload(_Strict):
    """The checkpoint payload :meth:`puzzlegym.env.PuzzleEnv.checkpoint` writes."""

    suite: SuiteDoc
    evaluator: EvaluatorDoc
    clock: ClockDoc
    recognizer: RecognizerDoc
    steps: Count
    actions: Count
    seed: Annotated[int, Field(ge=0, le=2**64 - 1)] | None
    terminated: bool
    first_level: Annotated[int, Field(ge=0, lt=2**31)] | None = None  # levels="generated" only


def _upgraded(payload: dict) -> dict:
    """A format-1 payload in today's names (its evaluator lines' ``step`` is ``actions``)."""
    evaluator = payload.get("evaluator")
    if not isinstance(evaluator, dict):
        return payload  # validate_payload names what is wrong
    new = dict(evaluator)
    for name in ("events", "snapshots", "attempts"):
        if isinstance(new.get(name), list):
            new[name] = [upgrade_line(r) if isinstance(r, dict) else r for r in new[name]]
    if isinstance(new.get("attempt"), dict):
        new["attempt"] = upgrade_line(new["attempt"])
    return {**payload, "evaluator": new}


def validate_payload(payload: Any) -> None:
    """Check every field of a checkpoint payload for type and range, then that its results
    agree with its own history (:func:`check_results`); raises :class:`CheckpointError`
    naming the first bad field (``payload.evaluator.snapshots.3.t``)."""
    try:
        Payload.model_validate(payload)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(["payload", *(str(p) for p in err["loc"])])
        raise CheckpointError(
            f"checkpoint {where}: {err['msg']} (got {shown(err.get('input'))})"
        ) from None
    except RecursionError:
        raise CheckpointError("checkpoint payload: nested too deeply") from None
    check_results(payload["evaluator"])


def check_results(evaluator: dict) -> None:
    """The evaluator's ``results`` must be what its own events and snapshots support, as the
    evaluator derives them: a target level is ``reached`` exactly when a ``level_reached``
    event names it, ``won`` exactly when a ``level_won`` event names it (after a snapshot
    of it solved), and its ``max_potential`` is the highest potential of its snapshots (0
    without any); the results name exactly the objective's targets. So editing results alone
    (and resealing the digest) is refused. A payload whose history was forged as well is
    beyond what a digest can catch: restored episodes are marked in their record
    (``restored``) and not scored as objective runs (:mod:`puzzlegym.report.load`)."""
    obj = evaluator["objective"]
    game, tier = obj["game"], obj["tier"]
    results = evaluator["results"]
    if sorted(int(k) for k in results) != sorted(set(obj["targets"])) or len(results) != len(
        obj["targets"]
    ):
        raise CheckpointError(
            f"checkpoint payload.evaluator.results: levels {sorted(int(k) for k in results)} "
            f"are not the objective's targets {obj['targets']}"
        )

    def of(rec: dict, index: int) -> bool:
        return rec.get("game") == game and rec.get("tier") == tier and rec.get("level") == index + 1

    events = evaluator["events"]
    for key, res in results.items():
        i = int(key)
        where = f"checkpoint payload.evaluator.results.{key}"
        reached = any(e["kind"] == "level_reached" and of(e, i) for e in events)
        won_at = [n for n, e in enumerate(events) if e["kind"] == "level_won" and of(e, i)]
        snaps = [snap for snap in evaluator["snapshots"] if of(snap, i)]
        best = max((snap["potential"] for snap in snaps), default=0.0)
        if res["reached"] != reached:
            raise CheckpointError(
                f"{where}.reached: {res['reached']} but the events have "
                f"{'a' if reached else 'no'} level_reached for level {i + 1}"
            )
        if res["won"] != bool(won_at):
            raise CheckpointError(
                f"{where}.won: {res['won']} but the events have {'a' if won_at else 'no'} "
                f"level_won for level {i + 1}"
            )
        if res["won"] and not any(snap["solved"] for snap in snaps):
            raise CheckpointError(f"{where}.won: no snapshot of level {i + 1} shows it solved")
        if res["max_potential"] > best:
            raise CheckpointError(
                f"{where}.max_potential: {res['max_potential']} exceeds the level's best "
                f"snapshot potential {best}"
            )


@dataclass(frozen=True)
class Checkpoint:
    """``config`` identifies the env (id and the keyword arguments that shape the episode);
    ``payload`` is the suite document. ``catalogue`` is the catalogue hash."""

    config: dict
    payload: dict
    catalogue: str
    version: str
    certificate: dict | None = None  # private (puzzlegym.lab); restoring ignores it

    def to_json(self) -> dict:
        """The checkpoint as its JSON document: a copy (editing it leaves the checkpoint as it
        is)."""
        return copy.deepcopy(self._document())

    def _document(self) -> dict:
        doc = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "puzzlegym_version": self.version,
            "catalogue_sha256": self.catalogue,
            "config": self.config,
            "payload": self.payload,
            "payload_sha256": hashlib.sha256(_canonical([self.config, self.payload])).hexdigest(),
        }
        if self.certificate is not None:
            doc["certificate"] = self.certificate
            doc["certificate_sha256"] = hashlib.sha256(_canonical(self.certificate)).hexdigest()
        return doc

    def save(self, path: str | os.PathLike) -> Path:
        return jsonio.write_atomic(path, _canonical(self._document()))

    @classmethod
    def from_json(cls, doc: Any) -> Checkpoint:
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise CheckpointError(
                "not a puzzlegym checkpoint: the 'format' field is missing or wrong"
            )
        if doc.get("format_version") not in READABLE_VERSIONS:
            raise CheckpointError(
                f"checkpoint format_version {shown(doc.get('format_version'))} is not supported; "
                f"this puzzlegym reads versions {', '.join(map(str, READABLE_VERSIONS))}"
            )
        for name in (
            "puzzlegym_version",
            "catalogue_sha256",
            "config",
            "payload",
            "payload_sha256",
        ):
            if name not in doc:
                raise CheckpointError(f"checkpoint is missing the field {name!r}")
        theirs, mine = _version_key(doc["puzzlegym_version"]), _version_key(__version__)
        if theirs is None:
            raise CheckpointError(
                "checkpoint puzzlegym_version: expected a version such as "
                f"{__version__!r}, got {shown(doc['puzzlegym_version'])}"
            )
        if mine is not None and theirs > mine:
            raise CheckpointError(
                f"checkpoint was written by puzzlegym {doc['puzzlegym_version']}, newer than this "
                f"puzzlegym {__version__}; upgrade to read it"
            )
        if not isinstance(doc["catalogue_sha256"], str) or not re.fullmatch(
            r"[0-9a-f]{64}", doc["catalogue_sha256"]
        ):
            raise CheckpointError(
                "checkpoint catalogue_sha256: expected 64 hex digits, "
                f"got {shown(doc['catalogue_sha256'])}"
            )
        for name in ("config", "payload"):
            if not isinstance(doc[name], dict):
                raise CheckpointError(
                    f"checkpoint {name}: expected a JSON object, got {type(doc[name]).__name__}"
                )
        digest = hashlib.sha256(_canonical([doc["config"], doc["payload"]])).hexdigest()
        if digest != doc["payload_sha256"]:
            raise CheckpointError(
                "checkpoint is corrupt: its payload does not match payload_sha256"
            )
        certificate = doc.get("certificate")
        if certificate is not None or "certificate_sha256" in doc:
            if not isinstance(certificate, dict):
                raise CheckpointError("checkpoint field 'certificate': expected a JSON object")
            if hashlib.sha256(_canonical(certificate)).hexdigest() != doc.get("certificate_sha256"):
                raise CheckpointError(
                    "checkpoint is corrupt: its certificate does not match certificate_sha256"
                )
        payload = (
            doc["payload"] if doc["format_version"] == FORMAT_VERSION else _upgraded(doc["payload"])
        )
        return cls(
            config=doc["config"],
            payload=payload,
            catalogue=doc["catalogue_sha256"],
            version=doc["puzzlegym_version"],
            certificate=certificate,
        )

    @classmethod
    def load(cls, path: str | os.PathLike) -> Checkpoint:
        try:
            doc = jsonio.load_file(path, MAX_BYTES)
        except OSError as exc:
            raise CheckpointError(f"cannot read checkpoint {str(path)!r}: {exc.strerror}") from None
        except jsonio.JSONError as exc:
            raise CheckpointError(f"checkpoint {str(path)!r} is corrupt: {exc}") from None
        try:
            return cls.from_json(doc)
        except CheckpointError as exc:
            raise CheckpointError(f"{exc} (file {str(path)!r})") from None

    def copy_payload(self) -> dict:
        try:
            return copy.deepcopy(self.payload)
        except RecursionError:
            raise CheckpointError("checkpoint payload: nested too deeply") from None
