"""The benchmark metrics (the LongPuzzleBench paper's Appendix B.3): the public name of
:mod:`puzzlegym.record.metrics`, where they are computed.

``aggregate(rows)`` turns per-objective rows (LC and FGP in percent) into the Table-2 figures;
``episode_from_record`` / ``aggregate_records`` compute them from episode records.
"""

from puzzlegym.record.metrics import *  # noqa: F403  (the public names)
from puzzlegym.record.metrics import __all__  # noqa: F401
