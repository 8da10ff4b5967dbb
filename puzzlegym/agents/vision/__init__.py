"""The pixel-only vision agent: screenshot in, GUI actions out (issue 25).

Each game has a reader module named after the game in snake case (``nut_and_bolt``,
``color_connect``, ``bolt_unscrew``, ...) that exposes ``READER``, a
:class:`~puzzlegym.agents.vision.reader.GameReader`: it rebuilds the game's rules ``Level``
and ``State`` from the 1280x900 frame alone and turns a rules move into GUI actions.
"""
