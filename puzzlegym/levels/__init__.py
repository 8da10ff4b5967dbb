"""The levels tools (``puzzlegym levels``): list, validate, stats and generate over the
catalogues, game-agnostic."""
