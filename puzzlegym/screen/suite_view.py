"""What each screen of the Game Suite looks like: the suite's state as widgets, back to
front, for the renderer (:mod:`puzzlegym.screen.render`), and the painters of the suite's
own widgets (background, titles, header, buttons, cards, tier buttons, banner). The board
itself is the game view's (``GameView.widgets``); the geometry is
:mod:`puzzlegym.screen.layout`'s.
"""

from __future__ import annotations

from PIL import ImageDraw

from puzzlegym.screen import theme
from puzzlegym.screen.labels import label
from puzzlegym.screen.layout import (
    BACK_BUTTON,
    BANNER,
    BOARD_AREA,
    CARD_PAD,
    DIFFICULTY,
    FEEDBACK,
    HEADER,
    HOME,
    INSTRUCTION,
    LEVEL,
    LEVEL_COMPLETE,
    MENU_BUTTON_CENTER,
    NEXT_BUTTON,
    OBJECTIVE_COMPLETE,
    TIER_SEP,
    card_rect,
    header_buttons,
    tier_rect,
)
from puzzlegym.screen.render import (
    SCREEN,
    Rect,
    Widget,
    draw_lines_centered,
    draw_text_centered,
    font,
    wrap_text,
)

__all__ = ["suite_widgets"]


def suite_widgets(suite) -> list[Widget]:
    """The widgets of ``suite``'s current screen (a :class:`~puzzlegym.screen.suite.Suite`),
    back to front; the first is an opaque full-screen background."""
    screen = suite.screen
    background = Widget("bg", SCREEN, _paint_background, (screen in (LEVEL, LEVEL_COMPLETE),))
    return [background, *_SCREENS[screen](suite)]


def _home(suite) -> list[Widget]:
    out = [
        _title("title", Rect(0, 60, 1280, 70), label("suite_title"), theme.TITLE_SIZE),
        _title("subtitle", Rect(0, 140, 1280, 40), label("home_subtitle"), theme.BODY_SIZE, muted=True),
    ]
    for i, (name, g) in enumerate(suite.games.items()):
        out.append(Widget(f"card:{name}", card_rect(i), _paint_card, (g.title, TIER_SEP.join(g.tiers))))
    return out


def _difficulty(suite) -> list[Widget]:
    g = suite.game
    assert g is not None
    out = [
        _title("title", Rect(0, 60, 1280, 70), g.title, theme.TITLE_SIZE),
        _title("subtitle", Rect(0, 140, 1280, 40), label("difficulty_subtitle"), theme.BODY_SIZE, muted=True),
    ]
    for i, tier in enumerate(g.tiers):
        total = len(suite.levels(g.name, tier))
        solved = len(suite.solved_levels(g.name, tier))
        progress = label("tier_progress", solved=solved, total=total)
        out.append(Widget(f"tier:{tier}", tier_rect(i), _paint_tier, (tier, progress, solved == total)))
    out.append(_button("back", BACK_BUTTON, label("back")))
    return out


def _level(suite) -> list[Widget]:
    b = suite.board
    assert b is not None
    complete = suite.screen == LEVEL_COMPLETE
    n = len(suite.levels(b.game.name, b.tier))
    header = label("header", game=b.game.title, tier=b.tier, k=b.index + 1, n=n)
    out = [Widget("header", Rect(0, 0, 860, 72), _paint_header, header)]
    for name, rect in header_buttons(b.game.has_undo).items():
        dim = (complete and name != "menu") or (name == "undo" and not b.undoable)
        out.append(_button(name, rect, label(name), dim=dim, on=theme.HEADER))
    out.append(_title("instruction", INSTRUCTION, b.game.instruction, theme.BODY_SIZE, muted=True))
    out.extend(b.game.view.widgets(b.level, b.state, b.ui, BOARD_AREA))
    out.append(_title("feedback", FEEDBACK, b.feedback, theme.BODY_SIZE))
    if complete:
        out.append(Widget("banner", BANNER, _paint_banner, label("level_complete"), opaque=False))
        out.append(_button("next", NEXT_BUTTON, label("next"), accent=True, on=theme.SUCCESS))
    return out


def _objective_complete(suite) -> list[Widget]:
    g = suite.game
    assert g is not None and suite.tier is not None
    body = label("objective_complete_body", game=g.title, tier=suite.tier)
    return [
        _title("title", Rect(0, 300, 1280, 70), label("objective_complete"), theme.TITLE_SIZE),
        _title("body", Rect(0, 390, 1280, 40), body, theme.BODY_SIZE),
        _button("menu", MENU_BUTTON_CENTER, label("menu"), accent=True),
    ]


_SCREENS = {
    HOME: _home,
    DIFFICULTY: _difficulty,
    LEVEL: _level,
    LEVEL_COMPLETE: _level,
    OBJECTIVE_COMPLETE: _objective_complete,
}


# ---------------------------------------------------------------------- widget helpers


def _title(wid: str, rect: Rect, text: str, size: int, muted: bool = False) -> Widget:
    return Widget(wid, rect, _paint_text, (text, size, muted))


def _button(
    wid: str, rect: Rect, text: str, accent: bool = False, dim: bool = False,
    on: tuple[int, int, int] = theme.BACKGROUND,
) -> Widget:
    """A rounded button; ``on`` is the colour of what it sits on (its corners)."""
    return Widget(wid, rect, _paint_button, (text, accent, dim, on))


# ---------------------------------------------------------------------- painters
# Painters draw their key into an image of the widget's size (see puzzlegym.screen.render).


def _paint_background(draw: ImageDraw.ImageDraw, img, key) -> None:
    (with_header,) = key
    draw.rectangle((0, 0, img.width, img.height), fill=theme.BACKGROUND)
    if with_header:
        draw.rectangle((0, 0, img.width, HEADER.h - 1), fill=theme.HEADER)


def _paint_text(draw: ImageDraw.ImageDraw, img, key) -> None:
    text, size, muted = key
    # text widgets sit on the plain background or the header bar; they paint it themselves
    draw.rectangle((0, 0, img.width, img.height), fill=theme.BACKGROUND)
    if text:
        draw_text_centered(draw, (0, 0, img.width, img.height), text, size, theme.MUTED_TEXT if muted else theme.TEXT)


def _paint_header(draw: ImageDraw.ImageDraw, img, text) -> None:
    draw.rectangle((0, 0, img.width, img.height), fill=theme.HEADER)
    draw.text((32, img.height // 2), text, font=font(theme.HEADING_SIZE - 4, True), fill=theme.HEADER_TEXT, anchor="lm")


def _paint_button(draw: ImageDraw.ImageDraw, img, key) -> None:
    text, accent, dim, on = key
    draw.rectangle((0, 0, img.width, img.height), fill=on)
    fill = theme.ACCENT if accent else theme.BUTTON
    if dim:
        fill = theme.LOCKED
    draw.rounded_rectangle((0, 0, img.width - 1, img.height - 1), radius=theme.RADIUS, fill=fill, outline=theme.BUTTON_BORDER, width=2)
    color = theme.ACCENT_TEXT if accent else theme.BUTTON_TEXT
    draw_text_centered(draw, (0, 0, img.width, img.height), text, theme.BUTTON_SIZE, color, bold=True)


def _paint_card(draw: ImageDraw.ImageDraw, img, key) -> None:
    title, tiers = key
    draw.rectangle((0, 0, img.width, img.height), fill=theme.BACKGROUND)
    draw.rounded_rectangle((0, 0, img.width - 1, img.height - 1), radius=16, fill=theme.CARD, outline=theme.CARD_BORDER, width=3)
    draw.rectangle((3, 3, img.width - 4, 18), fill=theme.ACCENT)
    draw_text_centered(draw, (0, 30, img.width, 130), title, theme.HEADING_SIZE + 4, theme.TEXT, bold=True)
    lines = wrap_text(tiers, img.width - 2 * CARD_PAD, theme.SMALL_SIZE, sep=TIER_SEP)
    draw_lines_centered(draw, (0, 130, img.width, 180), lines, theme.SMALL_SIZE, theme.MUTED_TEXT)


def _paint_tier(draw: ImageDraw.ImageDraw, img, key) -> None:
    tier, progress, complete = key
    draw.rectangle((0, 0, img.width, img.height), fill=theme.BACKGROUND)
    draw.rounded_rectangle((0, 0, img.width - 1, img.height - 1), radius=12, fill=theme.CARD, outline=theme.SUCCESS if complete else theme.CARD_BORDER, width=3)
    draw.text((28, img.height // 2), tier, font=font(theme.HEADING_SIZE - 2, True), fill=theme.TEXT, anchor="lm")
    draw.text((img.width - 28, img.height // 2), progress, font=font(theme.SMALL_SIZE), fill=theme.SUCCESS if complete else theme.MUTED_TEXT, anchor="rm")


def _paint_banner(draw: ImageDraw.ImageDraw, img, text) -> None:
    draw.rounded_rectangle((0, 0, img.width - 1, img.height - 1), radius=18, fill=theme.SUCCESS, outline=theme.OVERLAY, width=3)
    draw_text_centered(draw, (0, 20, img.width, 110), text, theme.HEADING_SIZE + 6, theme.SUCCESS_TEXT, bold=True)
