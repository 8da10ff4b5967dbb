"""Reports from runs (``puzzlegym report``): tables, plots and an index."""
