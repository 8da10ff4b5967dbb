"""The one palette of piece colours, with a name and a letter for each colour.

Every coloured piece of every game takes its colour from here: nut ``k`` and Color Connect
pair ``k`` are :data:`PIECES` ``[k]``; Rush Hour's vehicles, Truck Escape's trucks and Maze
Paint's paint pick colours by name. Wherever a piece's colour carries meaning (nuts, pairs)
the piece also shows the colour's letter, so no piece depends on hue alone and a colour has
the same letter in every game. ``docs/gallery.md`` lists the table.

The first sixteen colours stay distinguishable with the common colour-vision deficiencies
(Okabe-Ito hues first, then light and dark variants).

**Styles.** Every board is painted in one of :data:`STYLES`: ``"screen"`` (what the player
sees, the default everywhere) or ``"training"`` (the training view of
``LowResObservation(view="board")``, frames of 84×84 or so, often grayscale). In the training
style every colour of the palette is its :attr:`Colour.training` twin: the same hue at its own
luma (ITU-R 601, as Pillow's ``"L"``), the seventeen lumas 24, 36, ..., 216 one each, placed
so that the first colours of the table (the ones levels with few colours use) lie far apart
(the first two 96 apart, the first five 48), so no two colours collapse in grayscale. What
pieces lie on is :data:`TRAINING_LIGHT` (luma 244) or :data:`TRAINING_DARK` (luma 8), outside
that range; pieces print no letters there (a letter is a blur at that size and would shift
the piece's grey level). ``docs/gallery.md`` lists both tables.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "EDGE",
    "PALETTE",
    "PIECES",
    "SCREEN_STYLE",
    "SPECIAL",
    "STYLES",
    "TRAINING_DARK",
    "TRAINING_LIGHT",
    "TRAINING_STYLE",
    "Colour",
    "colour",
    "text_colour",
]

RGB = tuple[int, int, int]

SCREEN_STYLE = "screen"  # what the player sees
TRAINING_STYLE = "training"  # the training view (LowResObservation(view="board"))
STYLES = (SCREEN_STYLE, TRAINING_STYLE)
TRAINING_LIGHT: RGB = (244, 244, 244)  # luma 244: what pieces lie on, in the training style
TRAINING_DARK: RGB = (8, 8, 8)  # luma 8: walls and lines, in the training style


@dataclass(frozen=True)
class Colour:
    """One colour of the palette: its name, its RGB value, its letter (unique) and its
    twin in the training style (the same hue at a luma of its own)."""

    name: str
    rgb: RGB
    letter: str
    training: RGB

    @property
    def text(self) -> RGB:
        """The colour of a letter printed on this colour."""
        return text_colour(self.rgb)

    def styled(self, style: str) -> RGB:
        """The RGB value in ``style`` (one of :data:`STYLES`)."""
        return self.training if style == TRAINING_STYLE else self.rgb


# the piece colours, in the order games number their colours (nut colour k, pair k)
PIECES: tuple[Colour, ...] = (
    Colour("orange", (230, 159, 0), "O", (102, 71, 0)),  # training luma 72
    Colour("sky blue", (86, 180, 233), "S", (104, 188, 235)),  # 168
    Colour("green", (0, 158, 115), "G", (24, 167, 128)),  # 120
    Colour("yellow", (240, 228, 66), "Y", (241, 230, 79)),  # 216
    Colour("blue", (0, 90, 178), "B", (0, 30, 58)),  # 24
    Colour("vermilion", (213, 94, 0), "V", (221, 124, 47)),  # 144
    Colour("purple", (204, 121, 167), "P", (224, 174, 202)),  # 192
    Colour("black", (34, 34, 34), "K", (48, 48, 48)),  # 48
    Colour("white", (250, 250, 250), "W", (204, 204, 204)),  # 204
    Colour("brown", (130, 80, 35), "N", (135, 87, 43)),  # 96
    Colour("grey", (150, 150, 150), "E", (156, 156, 156)),  # 156
    Colour("navy", (25, 35, 105), "A", (23, 32, 95)),  # 36
    Colour("pink", (255, 190, 205), "I", (217, 162, 175)),  # 180
    Colour("olive", (125, 125, 20), "L", (119, 119, 19)),  # 108
    Colour("teal", (0, 110, 115), "T", (9, 115, 120)),  # 84
    Colour("maroon", (125, 10, 40), "M", (133, 24, 53)),  # 60
)
# colours that mark one special piece (Rush Hour's target car) rather than number pieces
SPECIAL: tuple[Colour, ...] = (Colour("red", (214, 39, 40), "R", (224, 93, 93)),)  # 132
PALETTE: tuple[Colour, ...] = PIECES + SPECIAL

EDGE: RGB = (40, 40, 48)  # the outline of every coloured piece

_BY_NAME = {c.name: c for c in PALETTE}


def colour(name: str) -> Colour:
    """The palette colour called ``name``."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(
            f"palette: {name!r} is not a color of the palette; known: {', '.join(_BY_NAME)}"
        ) from None


def text_colour(rgb: RGB) -> RGB:
    """Dark or light text, whichever reads on ``rgb``."""
    r, g, b = rgb
    return (20, 20, 20) if 0.299 * r + 0.587 * g + 0.114 * b > 140 else (250, 250, 250)
