"""The screen machinery: what the player sees and how their input is read.

* ``render.py``: widgets painted with Pillow, cached, composited into the 1280×900 frame;
* ``theme.py``, ``labels.py``: colours and sizes; every interface string in one label set;
* ``input.py``: GUI actions → timestamped events → gestures (the one recognizer);
* ``clock.py``: the simulated and wall clocks an episode runs on;
* ``suite.py``: the Game Suite shell (home, difficulty, level, level-complete and
  objective-complete screens) that routes board gestures to a game's view.
"""
