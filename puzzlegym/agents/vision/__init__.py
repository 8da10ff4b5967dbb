"""The vision agent (``--agent vision``): a pixel-only player of the benchmark.

Each turn it gets the 1280x900 screenshot and nothing else, finds where it is in the suite,
reconstructs the board in front of it as the game's rules objects with that game's reader
(the ``reader`` part of its :class:`~puzzlegym.game.Game`: ``reader.py``'s ``READER`` in
the game's own package, a :class:`~puzzlegym.vision.reader.GameReader`), plans with the
game's solver on the reconstruction and acts with GUI actions at pixel positions it
measured. ``python -m puzzlegym.agents.vision --url ... --objective ...`` plays through
``puzzlegym serve`` over HTTP.

It reads only pixels, the shipped font, the palette and the theme's colours; it imports
no view or layout code (``tests/test_vision_agent.py`` checks the imports).
"""

from puzzlegym.agents.vision.agent import VisionAgent, VisionError, reader_for

__all__ = ["VisionAgent", "VisionError", "reader_for"]
