"""The book a training checkpoint carries (counters, the learning curve so far, the random
policies' figures, where the run was resumed), as declared shapes
(:mod:`puzzlegym.base.schema`) that both trainers check before they resume: a damaged book is
one :class:`~puzzlegym.base.errors.ConfigError` naming the field (``resume: PATH: book.updates:
expected an integer 0..1000, got 'x'``), never a traceback later in the run.

:func:`sb3_book` is the SB3 trainer's book (:mod:`puzzlegym.rl.train`), :func:`jax_book`
the JAX trainer's (:mod:`puzzlegym.jax.train`); their parts are shared.
"""

from __future__ import annotations

from typing import Any

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.schema import Any_, Int, List, Map, Num, Obj, OneOf, Shape, check
from puzzlegym.record.shapes import ATTEMPT

__all__ = ["CURVE_ROW", "PHASE", "check_book", "jax_book", "sb3_book"]

MAX_ROWS = 10_000_000  # curve points, progress rows, resumptions: far above any run's
SHARE = Num(0.0, 1.0)

FIGURES = Obj(  # play_levels' figures on one set of levels
    {
        "success": SHARE,
        "per_level": List(SHARE, 100_000),
        "episodes": Int(1),
        "mean_length": Num(0.0),
        "attempts": List(ATTEMPT, MAX_ROWS),
    },
    {"ci": List(Num(), 2, 2)},
    extra=True,
)
PHASE = Obj({"test": FIGURES, "train": FIGURES})  # one policy measured on both sets
RANDOM_PHASES = Obj({"random_uniform": PHASE, "random_masked": PHASE})
CURVE_ROW = Obj(
    {"timesteps": Int(0), "train_success": SHARE, "test_success": SHARE, "elapsed_s": Num(0.0)}
)
CURVE = List(CURVE_ROW, MAX_ROWS)
RESUMED = List(Int(0), MAX_ROWS)
SECONDS = Num(0.0)
EMPTY = Map(Any_(), 0)  # the SB3 book's phases before the random policies were measured


def sb3_book(timesteps: int) -> Shape:
    """The SB3 trainer's book (its ``phases`` empty before the random policies were
    measured)."""
    return Obj(
        {
            "phases": OneOf((RANDOM_PHASES, EMPTY)),
            "curve": CURVE,
            "curve_next_at": Int(0),
            "curve_s": SECONDS,
            "elapsed_s": SECONDS,
            "resumed_at": List(Int(0, timesteps), MAX_ROWS),
        }
    )


def jax_book(updates: int, progress_columns: int) -> Shape:
    """The JAX trainer's book: at most ``updates`` updates, one progress row of
    ``progress_columns`` numbers per update."""
    return Obj(
        {
            "updates": Int(0, updates),
            "progress": List(List(Num(), progress_columns, progress_columns), updates),
            "curve": CURVE,
            "train_s": SECONDS,
            "curve_s": SECONDS,
            "resumed_at": RESUMED,
            "phases": RANDOM_PHASES,
        }
    )


def check_book(book: Any, shape: Shape, where: str) -> dict:
    """``book`` when it has ``shape``; else ``ConfigError("resume: {where}: book.FIELD: ...")``."""
    return check(book, shape, f"resume: {where}: book", ConfigError)
