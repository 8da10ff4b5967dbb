"""The screen machinery: what the player sees and how their input is read.

* ``render.py``: widgets painted with Pillow, cached, composited into the 1280×900 frame;
* ``theme.py``, ``palette.py``, ``labels.py``: colours and sizes; the piece palette; every
  interface string in one label set;
* ``input.py``: GUI actions → timestamped events → gestures (the one recognizer);
* ``clock.py``: the simulated and wall clocks an episode runs on;
* ``layout.py``, ``grid.py``, ``panel.py``: the geometry of every screen and board.
"""
