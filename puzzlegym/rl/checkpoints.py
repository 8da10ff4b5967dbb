"""The checkpoint of a Stable-Baselines3 training run (:mod:`puzzlegym.rl.train`):
``checkpoint.zip`` in the run directory, written atomically, replaced at each save.

It holds ``model.zip`` (SB3's file: the policy's and the optimiser's parameters), the torch,
numpy and Python random generators' states (``torch_rng.bin`` and ``state.json``) and the
run's book (``state.json``: the run's configuration, the step and update counters, the
segment reached, the learning curve so far and the random policies' figures). Loading
reads nothing but parameters into a model built from the run's configuration: the model's
pickled attributes in ``model.zip`` are never unpickled (SB3's ``set_parameters``), and the
JSON is checked key by key; a damaged or foreign file is a :class:`CheckpointError`.
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from puzzlegym.base import jsonio
from puzzlegym.base.errors import CheckpointError, ConfigError, shown
from puzzlegym.base.jsonio import write_atomic
from puzzlegym.training.book import check_book, sb3_book

__all__ = ["CHECKPOINT", "FORMAT", "MAX_BYTES", "load", "save"]

CHECKPOINT = "checkpoint.zip"
FORMAT = "puzzlegym-sb3-checkpoint"
MAX_BYTES = 2**31  # the largest checkpoint file read (and any one member of it)
BOOK_KEYS = ("config", "num_timesteps", "n_updates", "segment", "book")
MEMBERS = ("model.zip", "state.json", "torch_rng.bin")
MEMBER_BYTES = {"model.zip": MAX_BYTES, "state.json": 256 * 2**20, "torch_rng.bin": 2**20}


def _read_bounded(zf: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    """A member's bytes, never more than its declared size (a member that inflates past what
    it declares is refused at the first byte over)."""
    with zf.open(info) as fh:
        data = fh.read(info.file_size + 1)
    if len(data) != info.file_size:
        raise CheckpointError(f"{path}: {info.filename} does not hold the bytes it declares")
    return data


def _rng_state() -> dict:
    name, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)
    version, internal, gauss_next = random.getstate()
    return {
        "numpy": [name, [int(k) for k in keys], int(pos), int(has_gauss), float(cached)],
        "python": [version, list(internal), gauss_next],
    }


def _set_rng_state(doc: Any) -> None:
    try:
        name, keys, pos, has_gauss, cached = doc["numpy"]
        version, internal, gauss_next = doc["python"]
        np.random.set_state((name, np.asarray(keys, dtype=np.uint32), pos, has_gauss, cached))
        random.setstate((version, tuple(internal), gauss_next))
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"checkpoint rng: not a generator state ({exc})") from None


def _check_state(state: Any, path: Path, config: dict, timesteps: int) -> None:
    """``state.json``: ours, of this configuration, with counters and a whole book."""
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a {FORMAT} file")
    if state.get("config") != config:
        raise CheckpointError(f"{path}: a checkpoint of another configuration")
    counts = [state.get(k) for k in ("num_timesteps", "n_updates", "segment")]
    if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
        raise CheckpointError(f"{path}: its counters are not non-negative integers")
    try:
        check_book(state.get("book"), sb3_book(timesteps), str(path))
    except ConfigError as exc:
        raise CheckpointError(str(exc)) from None


def save(path: Path, model: Any, config: dict, segment: int, book: dict) -> None:
    """Write ``model`` (parameters, optimiser, counters), the random generators and
    ``book`` (JSON) to ``path`` atomically."""
    import torch

    buffer = io.BytesIO()
    model.save(buffer)
    state = {
        "format": FORMAT,
        "format_version": 1,
        "config": config,
        "num_timesteps": int(model.num_timesteps),
        "n_updates": int(model._n_updates),
        "segment": int(segment),
        "book": book,
        "rng": _rng_state(),
    }
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("model.zip", buffer.getvalue())
        zf.writestr("state.json", json.dumps(state, allow_nan=False))
        zf.writestr("torch_rng.bin", torch.get_rng_state().numpy().tobytes())
    write_atomic(path, data.getvalue())


def _space_bytes(space: Any) -> int:
    """The bytes one observation of ``space`` takes (a Dict or Tuple space's parts summed)."""
    parts = getattr(space, "spaces", None)
    if parts is not None:
        values = parts.values() if isinstance(parts, dict) else parts
        return sum(_space_bytes(part) for part in values)
    dtype = getattr(space, "dtype", None)
    size = np.dtype(dtype).itemsize if dtype is not None else 8
    return int(np.prod(getattr(space, "shape", None) or ())) * size


def model_bytes(model: Any) -> int:
    """The most bytes ``model.zip`` may hold, once inflated, for ``model``: its parameters
    three times over (the policy's, and the optimiser's two moments of each), the last
    observations SB3 keeps (two per env, base64 in its data file) and 16 MiB for the rest
    (its data, versions and system info)."""
    params = sum(p.numel() * p.element_size() for p in model.policy.parameters())
    observations = 4 * model.n_envs * _space_bytes(model.observation_space)
    return 3 * params + observations + 16 * 2**20


def _check_inner(data: bytes, limit: int, path: Path) -> None:
    """``model.zip`` (SB3's own zip) declares no more than ``limit`` bytes in all once
    inflated; zipfile never inflates a member past what it declares, so this bounds what
    SB3's loader reads."""
    with zipfile.ZipFile(io.BytesIO(data)) as inner:
        declared = sum(i.file_size for i in inner.infolist())
    if declared > limit:
        raise CheckpointError(
            f"{path}: model.zip declares {declared} bytes inflated, more than the {limit} "
            "this model's parameters take"
        )


def load(path: Path, model: Any, config: dict, timesteps: int) -> tuple[int, dict]:
    """Load the checkpoint at ``path`` into ``model`` (built from ``config``, a run of
    ``timesteps`` steps) and set the random generators; returns ``(segment, book)``. Every
    member's declared size is bounded before a byte of it is read (``model.zip`` by what the
    model's parameters take: :func:`model_bytes`), and the whole book is checked
    (:func:`puzzlegym.training.book.sb3_book`) before ``model.zip`` is read at all."""
    import torch

    limits = {**MEMBER_BYTES, "model.zip": min(MAX_BYTES, model_bytes(model))}
    try:
        if path.stat().st_size > MAX_BYTES:
            raise CheckpointError(f"{path}: larger than {MAX_BYTES} bytes")
        with zipfile.ZipFile(path) as zf:
            infos = {i.filename: i for i in zf.infolist()}
            if sorted(infos) != sorted(MEMBERS):
                raise CheckpointError(
                    f"{path}: expected the members {', '.join(MEMBERS)}, got {shown(sorted(infos))}"
                )
            for name, info in infos.items():
                if info.file_size > limits[name]:
                    raise CheckpointError(
                        f"{path}: {name} declares {info.file_size} bytes, more than the "
                        f"{limits[name]} it may have"
                    )
            parts = {n: _read_bounded(zf, infos[n], path) for n in ("state.json", "torch_rng.bin")}
            state = jsonio.loads(parts["state.json"])
            _check_state(state, path, config, timesteps)
            parts["model.zip"] = _read_bounded(zf, infos["model.zip"], path)
            _check_inner(parts["model.zip"], limits["model.zip"], path)
    except CheckpointError:
        raise
    except MemoryError:
        raise CheckpointError(f"{path}: too large to load into this process's memory") from None
    except (OSError, zipfile.BadZipFile, ValueError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{path}: not a readable checkpoint ({exc})") from None
    try:
        model.set_parameters(io.BytesIO(parts["model.zip"]), exact_match=True)
        rng = torch.frombuffer(bytearray(parts["torch_rng.bin"]), dtype=torch.uint8)
        torch.set_rng_state(rng)
    except (ValueError, RuntimeError, KeyError, zipfile.BadZipFile) as exc:
        raise CheckpointError(f"{path}: its parameters do not fit this model ({exc})") from None
    _set_rng_state(state.get("rng"))
    steps, updates, segment = (int(state[k]) for k in ("num_timesteps", "n_updates", "segment"))
    model.num_timesteps, model._n_updates = steps, updates
    return segment, state["book"]
