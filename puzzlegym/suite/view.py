"""What each screen of the Game Suite looks like: the suite's state as widgets, back to
front, for the renderer (:mod:`puzzlegym.screen.render`), and the painters of the suite's
own widgets (background, titles, header, buttons, cards, tier buttons, banner and the dimming
behind it). The board itself is the game view's (``GameView.widgets``); the geometry is
:mod:`puzzlegym.screen.layout`'s.

Two kinds of scene exist for the human page only (``puzzlegym play``), never for
observations: :func:`motion_scenes`, the in-between frames of a move, and
:func:`drag_scene`, a drag's preview. One exists for training observations only:
:func:`training_scene`, the screen in the training style and the window of it the training
view shows.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from puzzlegym.screen import theme
from puzzlegym.screen.labels import label
from puzzlegym.screen.layout import (
    BACK_BUTTON,
    BANNER,
    BELOW_HEADER,
    BOARD_AREA,
    CARD_PAD,
    CARDS_PER_PAGE,
    COMPLETE_BADGE,
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
    PAGE_LABEL,
    PAGE_NEXT,
    PAGE_PREV,
    TIER_SEP,
    card_rect,
    header_buttons,
    home_pages,
    tier_rect,
)
from puzzlegym.screen.palette import SCREEN_STYLE, TRAINING_STYLE
from puzzlegym.screen.render import (
    SCREEN,
    Rect,
    Widget,
    draw_lines_centered,
    draw_text_centered,
    font,
    wrap_text,
)
from puzzlegym.screen.resolution import SCREEN_WINDOW

__all__ = ["MAX_MOTION_FRAMES", "drag_scene", "motion_scenes", "suite_widgets", "training_scene"]

MAX_MOTION_FRAMES = 12  # in-between frames of one move on the human page, at most


def suite_widgets(suite, style: str = SCREEN_STYLE) -> list[Widget]:
    """The widgets of ``suite``'s current screen (a :class:`~puzzlegym.suite.shell.Suite`),
    back to front, the board painted in ``style``; the first is an opaque full-screen
    background."""
    screen = suite.screen
    background = Widget("bg", SCREEN, _paint_background, (screen in (LEVEL, LEVEL_COMPLETE),))
    if screen in (LEVEL, LEVEL_COMPLETE):
        return [background, *_level(suite, style)]
    return [background, *_SCREENS[screen](suite)]


def training_scene(suite) -> tuple[list[Widget], tuple[int, int, int, int]]:
    """What the training view shows of ``suite``'s current screen: its widgets in the
    training style and the window (x0, y0, x1, y1) of the screen framed. On a level screen
    the window is the board's panel (``GameView.panel``; the header, instruction and
    feedback lines lie outside it), on the level-complete screen the same panel, dimmed,
    with the part of the banner over it; on the home, difficulty and objective-complete
    screens, which show no board, the whole screen."""
    widgets = suite_widgets(suite, TRAINING_STYLE)
    b = suite.board
    if suite.screen not in (LEVEL, LEVEL_COMPLETE) or b is None:
        return widgets, SCREEN_WINDOW
    return widgets, _panel_window(b.game.view, b.level)


@lru_cache(maxsize=256)
def _panel_window(view, level) -> tuple[int, int, int, int]:
    """The window (x0, y0, x1, y1) of ``level``'s panel (``GameView.panel``), once per level."""
    p = view.panel(level, BOARD_AREA)
    return p.x, p.y, p.x1, p.y1


def _home(suite) -> list[Widget]:
    out = [
        _title("title", Rect(0, 60, 1280, 70), label("suite_title"), theme.TITLE_SIZE),
        _title(
            "subtitle", Rect(0, 140, 1280, 40), label("home_subtitle"), theme.BODY_SIZE, muted=True
        ),
    ]
    items = list(suite.games.items())
    first = suite.page * CARDS_PER_PAGE
    for i, (name, g) in enumerate(items[first : first + CARDS_PER_PAGE], start=first):
        out.append(
            Widget(f"card:{name}", card_rect(i), _paint_card, (g.title, TIER_SEP.join(g.tiers)))
        )
    pages = home_pages(len(items))
    if pages > 1:  # only a paged home screen shows these
        page_label = label("home_page", page=suite.page + 1, pages=pages)
        out.append(_title("page", PAGE_LABEL, page_label, theme.BODY_SIZE, muted=True))
        if suite.page > 0:
            out.append(_button("page:prev", PAGE_PREV, label("page_prev")))
        if suite.page < pages - 1:
            out.append(_button("page:next", PAGE_NEXT, label("page_next")))
    return out


def _difficulty(suite) -> list[Widget]:
    g = suite.game
    assert g is not None
    out = [
        _title("title", Rect(0, 60, 1280, 70), g.title, theme.TITLE_SIZE),
        _title(
            "subtitle",
            Rect(0, 140, 1280, 40),
            label("difficulty_subtitle"),
            theme.BODY_SIZE,
            muted=True,
        ),
    ]
    for i, tier in enumerate(g.tiers):
        total = len(suite.levels(g.name, tier))
        solved = len(suite.solved_levels(g.name, tier))
        complete = solved == total
        key = "tier_complete" if complete else "tier_progress"
        progress = label(key, solved=solved, total=total)
        out.append(Widget(f"tier:{tier}", tier_rect(i), _paint_tier, (tier, progress, complete)))
    out.append(_button("back", BACK_BUTTON, label("back")))
    return out


def _level(suite, style: str = SCREEN_STYLE) -> list[Widget]:
    b = suite.board
    assert b is not None
    complete = suite.screen == LEVEL_COMPLETE
    board = b.game.view.widgets(b.level, b.state, b.ui, BOARD_AREA, style)
    out = _level_screen(suite, b.game, b.tier, b.index, b.undoable, b.feedback, board, complete)
    if complete:
        out.append(Widget("dim", BELOW_HEADER, _paint_dim, theme.DIM_ALPHA, opaque=False))
        out.append(Widget("banner", BANNER, _paint_banner, label("level_complete"), opaque=False))
        out.append(_button("next", NEXT_BUTTON, label("next"), "on_success", on=theme.SUCCESS))
    return out


def _level_screen(
    suite,
    game,
    tier: str,
    index: int,
    undoable: bool,
    feedback: str,
    board: list[Widget],
    complete: bool = False,
) -> list[Widget]:
    """The level screen around ``board`` (the board's widgets): header, controls,
    instruction, feedback line."""
    n = len(suite.levels(game.name, tier))
    header = label("header", game=game.title, tier=tier, k=index + 1, n=n)
    out = [Widget("header", Rect(0, 0, 860, 72), _paint_header, header)]
    for name, rect in header_buttons(game.has_undo).items():
        disabled = (complete and name != "menu") or (name == "undo" and not undoable)
        out.append(
            _button(name, rect, label(name), "disabled" if disabled else "plain", on=theme.HEADER)
        )
    out.append(_title("instruction", INSTRUCTION, game.instruction, theme.BODY_SIZE, muted=True))
    out.extend(board)
    out.append(_title("feedback", FEEDBACK, feedback, theme.BODY_SIZE))
    return out


def motion_scenes(suite) -> list[list[Widget]]:
    """The level screens between the board before and after the last gesture's move
    (:attr:`Suite.last_move <puzzlegym.suite.shell.Suite.last_move>`), at most
    :data:`MAX_MOTION_FRAMES`, for the human page only: a truck rolling to its blocker and
    back, a vehicle sliding, the ball rolling. Empty when the game's view draws no motion
    (its optional ``motion_frames``) or the last gesture tried no move."""
    rec = suite.last_move
    if rec is None:
        return []
    b, after = rec.before, rec.after
    motion = getattr(b.game.view, "motion_frames", None)
    if motion is None:
        return []
    result = after.state if rec.moved else None
    boards = motion(b.level, b.state, b.ui, rec.move, result, BOARD_AREA)[:MAX_MOTION_FRAMES]
    background = Widget("bg", SCREEN, _paint_background, (True,))
    return [
        [
            background,
            *_level_screen(suite, b.game, b.tier, b.index, after.undoable, after.feedback, board),
        ]
        for board in boards
    ]


def drag_scene(suite, x0: int, y0: int, x: int, y: int) -> list[Widget] | None:
    """The level screen while a drag that started at ``(x0, y0)`` is held at ``(x, y)``:
    the board as the game's view previews it (a vehicle following the pointer), for the
    human page only; None when the view previews nothing there (its optional
    ``drag_preview``) or the screen is not a level."""
    b = suite.board
    if suite.screen != LEVEL or b is None or not BOARD_AREA.contains(x0, y0):
        return None
    preview = getattr(b.game.view, "drag_preview", None)
    board = None if preview is None else preview(b.level, b.state, b.ui, x0, y0, x, y, BOARD_AREA)
    if board is None:
        return None
    background = Widget("bg", SCREEN, _paint_background, (True,))
    return [
        background,
        *_level_screen(suite, b.game, b.tier, b.index, b.undoable, b.feedback, board),
    ]


def _objective_complete(suite) -> list[Widget]:
    g = suite.game
    assert g is not None and suite.tier is not None
    body = label("objective_complete_body", game=g.title, tier=suite.tier)
    return [
        Widget("badge", COMPLETE_BADGE, _paint_badge, (), opaque=False),
        _title("title", Rect(0, 300, 1280, 70), label("objective_complete"), theme.TITLE_SIZE),
        _title("body", Rect(0, 390, 1280, 40), body, theme.BODY_SIZE),
        _button("menu", MENU_BUTTON_CENTER, label("menu"), "accent"),
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


BUTTON_STYLES = ("plain", "accent", "on_success", "disabled")


def _button(
    wid: str,
    rect: Rect,
    text: str,
    style: str = "plain",
    on: tuple[int, int, int] = theme.BACKGROUND,
) -> Widget:
    """A rounded button in one of :data:`BUTTON_STYLES`; ``on`` is the colour of what it sits
    on (its corners, and a disabled button's face)."""
    assert style in BUTTON_STYLES, style
    return Widget(wid, rect, _paint_button, (text, style, on))


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
        draw_text_centered(
            draw,
            (0, 0, img.width, img.height),
            text,
            size,
            theme.MUTED_TEXT if muted else theme.TEXT,
        )


def _paint_header(draw: ImageDraw.ImageDraw, img, text) -> None:
    draw.rectangle((0, 0, img.width, img.height), fill=theme.HEADER)
    draw.text(
        (32, img.height // 2),
        text,
        font=font(theme.HEADING_SIZE - 4, True),
        fill=theme.HEADER_TEXT,
        anchor="lm",
    )


def _paint_button(draw: ImageDraw.ImageDraw, img, key) -> None:
    text, style, on = key
    w, h = img.width, img.height
    draw.rectangle((0, 0, w, h), fill=on)
    box = (0, 0, w - 1, h - 1)
    if style == "disabled":
        # flat: the surface shows through, a thin outline, faint text
        dark = sum(on) < 3 * 128
        border = theme.DISABLED_BORDER_ON_DARK if dark else theme.DISABLED_BORDER
        colour = theme.DISABLED_TEXT_ON_DARK if dark else theme.DISABLED_TEXT
        draw.rounded_rectangle(box, radius=theme.RADIUS, outline=border, width=1)
        draw_text_centered(draw, (0, 0, w, h), text, theme.BUTTON_SIZE, colour)
        return
    fill, border, colour = {
        "plain": (theme.BUTTON, theme.BUTTON_BORDER, theme.BUTTON_TEXT),
        "accent": (theme.ACCENT, theme.BUTTON_BORDER, theme.ACCENT_TEXT),
        "on_success": (theme.SUCCESS_TEXT, theme.SUCCESS_TEXT, theme.SUCCESS),
    }[style]
    draw.rounded_rectangle(box, radius=theme.RADIUS, fill=fill, outline=border, width=2)
    draw_text_centered(draw, (0, 0, w, h), text, theme.BUTTON_SIZE, colour, bold=True)


CARD_RADIUS = 16
CARD_STRIP = 18  # the accent strip across a home card's top


def _paint_card(draw: ImageDraw.ImageDraw, img, key) -> None:
    title, tiers = key
    w, h = img.width, img.height
    draw.rectangle((0, 0, w, h), fill=theme.BACKGROUND)
    draw.rounded_rectangle(
        (0, 0, w - 1, h - 1),
        radius=CARD_RADIUS,
        fill=theme.CARD,
        outline=theme.CARD_BORDER,
        width=3,
    )
    # the strip is the card's top edge itself: the card's own rounded outline, cut below the
    # strip, so its corners follow the card's and nothing shows above it
    strip = Image.new("L", (w, h), 0)
    ImageDraw.Draw(strip).rounded_rectangle((0, 0, w - 1, h - 1), radius=CARD_RADIUS, fill=255)
    strip.paste(0, (0, CARD_STRIP + 1, w, h))
    img.paste(theme.ACCENT, (0, 0), strip)
    draw_text_centered(draw, (0, 30, w, 130), title, theme.HEADING_SIZE + 4, theme.TEXT, bold=True)
    lines = wrap_text(tiers, w - 2 * CARD_PAD, theme.SMALL_SIZE, sep=TIER_SEP)
    draw_lines_centered(draw, (0, 130, w, 180), lines, theme.SMALL_SIZE, theme.MUTED_TEXT)


TIER_BADGE = 30  # the completed tier's check badge


def _check_badge(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int]) -> None:
    """A green disc with a white check mark (the non-colour mark of completion)."""
    x0, y0, x1, y1 = box
    draw.ellipse(box, fill=theme.SUCCESS)
    s = x1 - x0
    pts = [
        (x0 + s * 0.27, y0 + s * 0.52),
        (x0 + s * 0.44, y0 + s * 0.69),
        (x0 + s * 0.74, y0 + s * 0.34),
    ]
    draw.line(pts, fill=theme.SUCCESS_TEXT, width=max(3, s // 9), joint="curve")


def _paint_tier(draw: ImageDraw.ImageDraw, img, key) -> None:
    tier, progress, complete = key
    w, h = img.width, img.height
    draw.rectangle((0, 0, w, h), fill=theme.BACKGROUND)
    border = theme.SUCCESS if complete else theme.CARD_BORDER
    draw.rounded_rectangle(
        (0, 0, w - 1, h - 1), radius=12, fill=theme.CARD, outline=border, width=3
    )
    x = 28
    if complete:
        top = (h - TIER_BADGE) // 2
        _check_badge(draw, (x, top, x + TIER_BADGE, top + TIER_BADGE))
        x += TIER_BADGE + 14
    draw.text(
        (x, h // 2), tier, font=font(theme.HEADING_SIZE - 2, True), fill=theme.TEXT, anchor="lm"
    )
    colour = theme.SUCCESS if complete else theme.MUTED_TEXT
    draw.text(
        (w - 28, h // 2), progress, font=font(theme.SMALL_SIZE, complete), fill=colour, anchor="rm"
    )


def _paint_dim(draw: ImageDraw.ImageDraw, img, alpha) -> None:
    draw.rectangle((0, 0, img.width, img.height), fill=(*theme.OVERLAY, alpha))


def _paint_banner(draw: ImageDraw.ImageDraw, img, text) -> None:
    draw.rounded_rectangle(
        (0, 0, img.width - 1, img.height - 1),
        radius=18,
        fill=theme.SUCCESS,
        outline=theme.SUCCESS_TEXT,
        width=3,
    )
    draw_text_centered(
        draw, (0, 20, img.width, 110), text, theme.HEADING_SIZE + 6, theme.SUCCESS_TEXT, bold=True
    )


def _paint_badge(draw: ImageDraw.ImageDraw, img, key) -> None:
    _check_badge(draw, (0, 0, img.width - 1, img.height - 1))
