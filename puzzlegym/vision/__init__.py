"""Reading the screen back from its pixels: what every game's vision reader and the vision
agent stand on.

* :mod:`~puzzlegym.vision.pixels`: exact colour masks, runs, regions, the board panel, grids;
* :mod:`~puzzlegym.vision.text`: text read by glyph templates of the shipped font;
* :mod:`~puzzlegym.vision.reader`: the contract of a game's reader (``Reading``,
  ``GameReader``), which a game implements in its own package (``<package>/reader.py``).
"""
