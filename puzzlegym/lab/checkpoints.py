"""Lab checkpoint files: a :class:`~puzzlegym.env.checkpoint.Checkpoint` with its certificate.

A lab checkpoint is an ordinary checkpoint file (``Checkpoint.save``/``Checkpoint.load``
read it, ``env.reset(options={"checkpoint": ...})`` restores it) whose ``certificate`` field
says what the board is and how it was made:

==================  =======================================================================
``class``           ``"D"``: settled, unfinished and certified unsolvable (a dead end);
                    ``"N"``: on a verified solution path (a solvable control)
``verdict``         the exhaustive certifier's verdict on the board (``"dead_end"`` for D,
                    ``"solvable"`` for N)
``game``, ``tier``  the board's game and difficulty; ``level`` is 1-based
``depth``           moves on the board since the level's ready (or restarted) board; a D and
                    its N control share level and depth
``actions``         the env's action count at the checkpoint (``info["actions"]``; files
                    written before it had this name call it ``step``)
``seed``            the ``reset(seed=...)`` the prefix starts from
``prefix``          the legal GUI-action prefix: replayed from ``reset(seed)`` it reproduces
                    the checkpoint exactly (:mod:`puzzlegym.lab.controller`)
``frame_sha256``    SHA-256 of the screen at the checkpoint (restore and replay show it)
``visible``         whether the game's visible sign of a lost board holds (no legal move)
``legal_moves``     how many moves the rules allow on the board
``details``         the evaluator's game facts of the board (e.g. free anchors)
``solution``        N: the verified remaining solution (rules moves); D: null
``fatal_move``      D: the move that made the board unsolvable (when known); N: null
``match``           the file stem of the matched checkpoint of the other class, or null
``source``          how it was found: ``{"kind": "record" | "solution" | "random", ...}``
==================  =======================================================================

The certificate is private: restoring ignores it, and the RQ2 runner never passes it to the
agent (a state hint is the certifier's verdict re-derived at takeover,
:class:`puzzlegym.wrappers.StateHint`).

Files are named ``<game>-<tier>-L<level>-<class>-d<depth>-<8 hex>.ckpt.json`` and never
overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from puzzlegym.base.actions import Answer, Batch, parse_action
from puzzlegym.base.errors import ActionError, CheckpointError
from puzzlegym.base.fields import check_count, is_int
from puzzlegym.env.checkpoint import Checkpoint

__all__ = [
    "CLASSES",
    "MAX_PREFIX",
    "SUFFIX",
    "certificate_of",
    "check_certificate",
    "checkpoint_name",
    "list_checkpoints",
    "load",
    "save",
    "summary",
]

CLASSES = ("D", "N")
VERDICTS = {"D": "dead_end", "N": "solvable"}
SOURCES = ("record", "solution", "random")
MAX_PREFIX = 100_000  # GUI actions in a prefix
MAX_LIST = 10_000  # files listed from one directory
SUFFIX = ".ckpt.json"
_REQUIRED = {
    "class": str,
    "verdict": str,
    "game": str,
    "tier": str,
    "level": int,
    "depth": int,
    "actions": int,
    "prefix": list,
    "frame_sha256": str,
    "visible": bool,
    "legal_moves": int,
    "details": dict,
    "source": dict,
}
_OPTIONAL = ("seed", "solution", "fatal_move", "match")
_LEAST = {"level": 1, "depth": 0, "actions": 0, "legal_moves": 0}  # the counts' lowest values


def check_certificate(cert: Any) -> dict:
    """Validate a lab certificate (see the module docstring); raises
    :class:`~puzzlegym.base.errors.CheckpointError` naming the field. Returns it."""
    if not isinstance(cert, dict):
        raise CheckpointError("certificate: expected a JSON object (this is not a lab checkpoint)")
    if "step" in cert and "actions" not in cert:  # an earlier file's name for the action count
        cert = {("actions" if k == "step" else k): v for k, v in cert.items()}
    unknown = sorted(set(cert) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise CheckpointError(f"certificate.{unknown[0]}: unknown field")
    for name, kind in _REQUIRED.items():
        if name not in cert:
            raise CheckpointError(f"certificate.{name}: missing")
        value = cert[name]
        if name in _LEAST:
            check_count(value, f"certificate.{name}", _LEAST[name], None, CheckpointError)
        elif not isinstance(value, kind):
            raise CheckpointError(
                f"certificate.{name}: expected {kind.__name__}, got {value!r:.60}"
            )
    if cert["class"] not in CLASSES:
        raise CheckpointError(
            f"certificate.class: {cert['class']!r}; allowed: {', '.join(CLASSES)}"
        )
    if cert["verdict"] != VERDICTS[cert["class"]]:
        raise CheckpointError(
            f"certificate.verdict: a {cert['class']} checkpoint is "
            f"{VERDICTS[cert['class']]!r}, got {cert['verdict']!r}"
        )
    seed = cert.get("seed")
    if seed is not None and not is_int(seed):
        raise CheckpointError(f"certificate.seed: expected an integer or null, got {seed!r}")
    if len(cert["prefix"]) > MAX_PREFIX:
        raise CheckpointError(
            f"certificate.prefix: {len(cert['prefix'])} actions; at most {MAX_PREFIX}"
        )
    if len(cert["prefix"]) != cert["actions"]:
        raise CheckpointError(
            f"certificate.prefix: {len(cert['prefix'])} actions, but actions is {cert['actions']}"
        )
    for i, action in enumerate(cert["prefix"]):
        try:
            parsed = parse_action(action)
        except ActionError as exc:
            raise CheckpointError(f"certificate.prefix[{i}]: {exc}") from None
        if isinstance(parsed, (Batch, Answer)):
            raise CheckpointError(
                f"certificate.prefix[{i}]: a prefix holds single GUI actions, not {parsed.type}"
            )
    if len(cert["frame_sha256"]) != 64:
        raise CheckpointError("certificate.frame_sha256: expected 64 hex digits")
    if cert["source"].get("kind") not in SOURCES:
        raise CheckpointError(
            f"certificate.source.kind: {cert['source'].get('kind')!r}; "
            f"allowed: {', '.join(SOURCES)}"
        )
    if cert["class"] == "N" and not isinstance(cert.get("solution"), list):
        raise CheckpointError(
            "certificate.solution: an N checkpoint carries its verified remaining solution"
        )
    return cert


def certificate_of(ckpt: Checkpoint) -> dict:
    """The validated certificate of a lab checkpoint."""
    return check_certificate(ckpt.certificate)


def checkpoint_name(ckpt: Checkpoint) -> str:
    """The file stem: ``<game>-<tier>-L<level>-<class>-d<depth>-<8 hex of the payload>``."""
    cert = certificate_of(ckpt)
    digest = ckpt.to_json()["payload_sha256"][:8]
    return (
        f"{cert['game']}-{cert['tier']}-L{cert['level']:02d}-{cert['class']}-"
        f"d{cert['depth']:03d}-{digest}"
    )


def save(ckpt: Checkpoint, directory: str | os.PathLike) -> Path:
    """Write ``ckpt`` as ``<directory>/<checkpoint_name>.ckpt.json`` (atomically); an
    existing file of that name is never overwritten (:class:`CheckpointError`)."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    path = out / (checkpoint_name(ckpt) + SUFFIX)
    if path.exists():
        raise CheckpointError(f"{path} exists; lab checkpoint files are never overwritten")
    return ckpt.save(path)


def load(path: str | os.PathLike) -> Checkpoint:
    """Load a lab checkpoint file: ``Checkpoint.load``'s checks plus the certificate's."""
    ckpt = Checkpoint.load(path)
    certificate_of(ckpt)
    return ckpt


def summary(ckpt: Checkpoint, path: str | os.PathLike | None = None) -> dict:
    """One row describing a lab checkpoint (its public facts and its class)."""
    cert = certificate_of(ckpt)
    row = {
        "file": None if path is None else Path(path).name,
        "class": cert["class"],
        "game": cert["game"],
        "tier": cert["tier"],
        "level": cert["level"],
        "depth": cert["depth"],
        "actions": cert["actions"],
        "visible": cert["visible"],
        "legal_moves": cert["legal_moves"],
        "source": cert["source"]["kind"],
        "match": cert.get("match"),
        "env_id": ckpt.config.get("env_id"),
    }
    if "free_anchors" in cert["details"]:
        row["free_anchors"] = cert["details"]["free_anchors"]
    return row


def list_checkpoints(directory: str | os.PathLike) -> list[dict]:
    """A row per ``*.ckpt.json`` file in ``directory`` (sorted by name); a file that fails to
    load gets a row with its ``error``."""
    d = Path(directory)
    if not d.is_dir():
        raise CheckpointError(f"{directory}: not a directory")
    rows = []
    for path in sorted(d.glob("*" + SUFFIX))[:MAX_LIST]:
        try:
            rows.append(summary(load(path), path))
        except CheckpointError as exc:
            rows.append({"file": path.name, "error": str(exc)})
    return rows


def frame_digest(frame) -> str:
    """SHA-256 of a screen (the bytes of the uint8 array)."""
    return hashlib.sha256(frame.tobytes()).hexdigest()


def canonical(doc: Any) -> str:
    """A document as canonical JSON (tuples become lists), for exact comparisons."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))
