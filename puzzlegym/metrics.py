"""The benchmark metrics (product spec §6, paper Appendix B.3): the public name of
:mod:`puzzlegym.evaluation.metrics`, where they are computed.

``aggregate(rows)`` turns per-objective rows (LC and FGP in percent) into the Table-2 figures;
``episode_from_record`` / ``aggregate_records`` compute them from episode records.
"""

from puzzlegym.evaluation.metrics import (
    TIER_LADDER,
    aggregate,
    aggregate_records,
    dead_end_stats,
    episode_from_record,
    episode_row,
    find_records,
    h50,
    h50_curve,
    is_hard_tier,
    lc_over_time,
    lpr,
    macro,
    ngar,
    normalise_row,
)

__all__ = [
    "TIER_LADDER",
    "aggregate",
    "aggregate_records",
    "dead_end_stats",
    "episode_from_record",
    "episode_row",
    "find_records",
    "h50",
    "h50_curve",
    "is_hard_tier",
    "lc_over_time",
    "lpr",
    "macro",
    "ngar",
    "normalise_row",
]
