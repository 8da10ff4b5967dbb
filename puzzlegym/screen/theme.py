"""The small shared theme: colours and sizes used by the suite shell and game views."""

from __future__ import annotations

BACKGROUND = (244, 241, 234)
PANEL = (255, 255, 255)
HEADER = (38, 50, 72)
HEADER_TEXT = (255, 255, 255)
TEXT = (33, 37, 41)
MUTED_TEXT = (96, 104, 112)
ACCENT = (46, 111, 188)
ACCENT_TEXT = (255, 255, 255)
BUTTON = (226, 231, 238)
BUTTON_BORDER = (160, 170, 184)
BUTTON_TEXT = (33, 37, 41)
LOCKED = (200, 200, 200)
SUCCESS = (46, 140, 87)
SUCCESS_TEXT = (255, 255, 255)
OVERLAY = (24, 32, 48)
CARD = (255, 255, 255)
CARD_BORDER = (188, 196, 208)

TITLE_SIZE = 44
HEADING_SIZE = 28
BODY_SIZE = 20
SMALL_SIZE = 16
BUTTON_SIZE = 20
RADIUS = 10

# Piece colours of games that tell pieces apart by colour (nuts, colour pairs): 16 entries,
# chosen to stay distinguishable with the common colour-vision deficiencies (Okabe-Ito hues
# first, then light and dark variants). Views also print a letter on every piece, so no piece
# depends on hue alone.
PIECE_COLOURS: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("orange", (230, 159, 0)),
    ("sky blue", (86, 180, 233)),
    ("green", (0, 158, 115)),
    ("yellow", (240, 228, 66)),
    ("blue", (0, 90, 178)),
    ("vermilion", (213, 94, 0)),
    ("purple", (204, 121, 167)),
    ("black", (34, 34, 34)),
    ("white", (250, 250, 250)),
    ("brown", (130, 80, 35)),
    ("grey", (150, 150, 150)),
    ("navy", (25, 35, 105)),
    ("pink", (255, 190, 205)),
    ("olive", (125, 125, 20)),
    ("teal", (0, 110, 115)),
    ("maroon", (125, 10, 40)),
)
PIECE_EDGE = (40, 40, 48)


def text_colour(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """Dark or light text, whichever reads on ``rgb``."""
    r, g, b = rgb
    return (20, 20, 20) if 0.299 * r + 0.587 * g + 0.114 * b > 140 else (250, 250, 250)
