"""Tiny Lamps' two lamp colours: what the view paints and the reader looks for."""

LIT, DARK = (250, 204, 21), (90, 96, 110)
