"""The episode viewer (``puzzlegym view``): one self-contained HTML page per episode record
and an index page per run (docs/viewer.md)."""
