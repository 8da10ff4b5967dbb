"""The small shared theme: the colours and sizes of the suite shell and of the board panel
every game view draws its board on. Piece colours are :mod:`puzzlegym.screen.palette`'s."""

from __future__ import annotations

BACKGROUND = (244, 241, 234)
HEADER = (38, 50, 72)
HEADER_TEXT = (255, 255, 255)
TEXT = (33, 37, 41)
MUTED_TEXT = (96, 104, 112)
ACCENT = (46, 111, 188)
ACCENT_TEXT = (255, 255, 255)
BUTTON = (226, 231, 238)
BUTTON_BORDER = (160, 170, 184)
BUTTON_TEXT = (33, 37, 41)
# a disabled button is flat and faint: its face is the surface it sits on, with a thin
# outline and muted text (a pressed-looking grey would read as "held down")
DISABLED_BORDER_ON_DARK = (88, 100, 124)
DISABLED_TEXT_ON_DARK = (128, 140, 162)
DISABLED_BORDER = (200, 205, 212)
DISABLED_TEXT = (170, 176, 184)
SUCCESS = (46, 140, 87)
SUCCESS_TEXT = (255, 255, 255)
OVERLAY = (24, 32, 48)
DIM_ALPHA = 120  # how strongly the screen behind a banner is dimmed (of 255)
CARD = (255, 255, 255)
CARD_BORDER = (188, 196, 208)

# the panel under every game's board: one look for all six games
BOARD_PANEL = (232, 227, 216)
BOARD_PANEL_EDGE = (196, 188, 172)
PANEL_PAD = 16  # the panel's padding around a board (the board's own frame included)
PANEL_RADIUS = 16
CELL_CAP = 128  # no board cell (grid cell, lattice pitch, bolt column) is drawn larger

TITLE_SIZE = 44
HEADING_SIZE = 28
BODY_SIZE = 20
SMALL_SIZE = 16
BUTTON_SIZE = 20
RADIUS = 10
