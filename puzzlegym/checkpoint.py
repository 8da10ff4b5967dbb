"""Checkpoints: the whole suite at one moment (screen, board, ui, history, clock, input
state, evaluator record), as a plain document, in memory and on disk.

On disk a checkpoint is JSON with its format, the puzzlegym version, the catalogue hash, the
env configuration and the payload with its SHA-256; loading checks all of them and raises
:class:`~puzzlegym.errors.CheckpointError` naming what is wrong.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from puzzlegym.errors import CheckpointError

FORMAT = "puzzlegym-checkpoint"
FORMAT_VERSION = 1


def _canonical(doc: Any) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode("utf-8")


@dataclass(frozen=True)
class Checkpoint:
    """``config`` identifies the env (id and the keyword arguments that shape the episode);
    ``payload`` is the suite document. ``catalogue`` is the catalogue hash."""

    config: dict
    payload: dict
    catalogue: str
    version: str

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "puzzlegym_version": self.version,
            "catalogue_sha256": self.catalogue,
            "config": self.config,
            "payload": self.payload,
            "payload_sha256": hashlib.sha256(_canonical([self.config, self.payload])).hexdigest(),
        }

    def save(self, path: str | os.PathLike) -> Path:
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(_canonical(self.to_json()))
        os.replace(tmp, path)
        return path

    @classmethod
    def from_json(cls, doc: Any) -> Checkpoint:
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise CheckpointError("not a puzzlegym checkpoint: the 'format' field is missing or wrong")
        if doc.get("format_version") != FORMAT_VERSION:
            raise CheckpointError(
                f"checkpoint format_version {doc.get('format_version')!r} is not supported; "
                f"this puzzlegym reads version {FORMAT_VERSION}"
            )
        for name in ("puzzlegym_version", "catalogue_sha256", "config", "payload", "payload_sha256"):
            if name not in doc:
                raise CheckpointError(f"checkpoint is missing the field {name!r}")
        digest = hashlib.sha256(_canonical([doc["config"], doc["payload"]])).hexdigest()
        if digest != doc["payload_sha256"]:
            raise CheckpointError("checkpoint is corrupt: its payload does not match payload_sha256")
        return cls(
            config=doc["config"],
            payload=doc["payload"],
            catalogue=doc["catalogue_sha256"],
            version=doc["puzzlegym_version"],
        )

    @classmethod
    def load(cls, path: str | os.PathLike) -> Checkpoint:
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise CheckpointError(f"cannot read checkpoint {str(path)!r}: {exc.strerror}") from None
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CheckpointError(f"checkpoint {str(path)!r} is corrupt: not valid JSON ({exc})") from None
        return cls.from_json(doc)

    def copy_payload(self) -> dict:
        return copy.deepcopy(self.payload)
