"""The one palette of piece colours, with a name and a letter for each colour.

Every coloured piece of every game takes its colour from here: nut ``k`` and Color Connect
pair ``k`` are :data:`PIECES` ``[k]``; Rush Hour's vehicles, Truck Escape's trucks and Maze
Paint's paint pick colours by name. Wherever a piece's colour carries meaning (nuts, pairs)
the piece also shows the colour's letter, so no piece depends on hue alone and a colour has
the same letter in every game. ``docs/games.md`` lists the table.

The first sixteen colours stay distinguishable with the common colour-vision deficiencies
(Okabe-Ito hues first, then light and dark variants).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EDGE", "PALETTE", "PIECES", "SPECIAL", "Colour", "colour", "text_colour"]

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Colour:
    """One colour of the palette: its name, its RGB value and its letter (unique)."""

    name: str
    rgb: RGB
    letter: str

    @property
    def text(self) -> RGB:
        """The colour of a letter printed on this colour."""
        return text_colour(self.rgb)


# the piece colours, in the order games number their colours (nut colour k, pair k)
PIECES: tuple[Colour, ...] = (
    Colour("orange", (230, 159, 0), "O"),
    Colour("sky blue", (86, 180, 233), "S"),
    Colour("green", (0, 158, 115), "G"),
    Colour("yellow", (240, 228, 66), "Y"),
    Colour("blue", (0, 90, 178), "B"),
    Colour("vermilion", (213, 94, 0), "V"),
    Colour("purple", (204, 121, 167), "P"),
    Colour("black", (34, 34, 34), "K"),
    Colour("white", (250, 250, 250), "W"),
    Colour("brown", (130, 80, 35), "N"),
    Colour("grey", (150, 150, 150), "E"),
    Colour("navy", (25, 35, 105), "A"),
    Colour("pink", (255, 190, 205), "I"),
    Colour("olive", (125, 125, 20), "L"),
    Colour("teal", (0, 110, 115), "T"),
    Colour("maroon", (125, 10, 40), "M"),
)
# colours that mark one special piece (Rush Hour's target car) rather than number pieces
SPECIAL: tuple[Colour, ...] = (Colour("red", (214, 39, 40), "R"),)
PALETTE: tuple[Colour, ...] = PIECES + SPECIAL

EDGE: RGB = (40, 40, 48)  # the outline of every coloured piece

_BY_NAME = {c.name: c for c in PALETTE}


def colour(name: str) -> Colour:
    """The palette colour called ``name``."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"palette: {name!r} is not a color of the palette; known: {', '.join(_BY_NAME)}") from None


def text_colour(rgb: RGB) -> RGB:
    """Dark or light text, whichever reads on ``rgb``."""
    r, g, b = rgb
    return (20, 20, 20) if 0.299 * r + 0.587 * g + 0.114 * b > 140 else (250, 250, 250)
