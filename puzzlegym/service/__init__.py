"""The HTTP front ends: the observation service for agents in another process
(``serve.py``, ``puzzlegym serve``) and human play in an ordinary browser (``play.py``,
``puzzlegym play``), over the shared plumbing in ``http.py``."""
