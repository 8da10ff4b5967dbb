"""The basics every layer stands on: the exception types (``errors``), strict JSON and atomic
writes (``jsonio``), field checks (``fields``), the GUI action types (``actions``), grids of
row strings (``textgrid``), the symmetries of a grid (``symmetry``) and the version."""
