"""Running agents: one episode of an agent (``runner``: ``puzzlegym run``), agents ×
objectives × seeds in parallel processes (``eval``: ``puzzlegym eval``, ``distributed`` for
Ray) and re-running records (``replay``: ``puzzlegym replay``)."""
