"""The Game Suite's screens and where things are on them.

The screen names and the geometry of every screen (header, board area, feedback line,
banner, cards, tier buttons, controls) live here, in one place: the suite's state machine
hit-tests against these rectangles and its painter draws into them. Code outside the screen
and engine layers reads them through the env's probe (``PuzzleEnv.probe()``: the screen, the
named controls, the board area), not from here.
"""

from __future__ import annotations

from puzzlegym.screen.render import Rect

__all__ = [
    "BACK_BUTTON",
    "BANNER",
    "BELOW_HEADER",
    "BOARD_AREA",
    "CARD_GAP",
    "CARD_H",
    "CARD_PAD",
    "CARDS_PER_PAGE",
    "CARD_W",
    "COMPLETE_BADGE",
    "DIFFICULTY",
    "FEEDBACK",
    "HEADER",
    "HEADER_BUTTONS",
    "HOME",
    "INSTRUCTION",
    "LEVEL",
    "LEVEL_COMPLETE",
    "MENU_BUTTON_CENTER",
    "NEXT_BUTTON",
    "OBJECTIVE_COMPLETE",
    "PAGE_LABEL",
    "PAGE_NEXT",
    "PAGE_PREV",
    "SCREENS",
    "TIER_GAP",
    "TIER_H",
    "TIER_SEP",
    "TIER_W",
    "card_rect",
    "home_pages",
    "header_buttons",
    "tier_rect",
]

# the screens, in the order a player meets them
HOME = "home"
DIFFICULTY = "difficulty"
LEVEL = "level"
LEVEL_COMPLETE = "level_complete"
OBJECTIVE_COMPLETE = "objective_complete"
SCREENS = (HOME, DIFFICULTY, LEVEL, LEVEL_COMPLETE, OBJECTIVE_COMPLETE)

# level screen
HEADER = Rect(0, 0, 1280, 72)
INSTRUCTION = Rect(0, 72, 1280, 44)
BOARD_AREA = Rect(40, 124, 1200, 686)
FEEDBACK = Rect(0, 816, 1280, 44)
HEADER_BUTTONS = ("menu", "restart", "undo")  # right to left
BELOW_HEADER = Rect(0, 72, 1280, 828)  # dimmed behind the level-complete banner
BANNER = Rect(390, 340, 500, 220)
NEXT_BUTTON = Rect(540, 470, 200, 60)
# home, difficulty and objective-complete screens
CARD_W, CARD_H, CARD_GAP = 340, 200, 40
CARD_PAD = 20  # text keeps this far from a card's sides
TIER_SEP = " · "  # between the tier names on a home card
TIER_W, TIER_H, TIER_GAP = 420, 72, 20
BACK_BUTTON = Rect(540, 780, 200, 56)
MENU_BUTTON_CENTER = Rect(540, 520, 200, 60)
COMPLETE_BADGE = Rect(600, 200, 80, 80)  # the objective-complete screen's check badge


CARDS_PER_PAGE = 6  # two rows of three; more games page (PAGE_PREV / PAGE_NEXT)
PAGE_PREV = Rect(300, 740, 220, 56)
PAGE_NEXT = Rect(760, 740, 220, 56)
PAGE_LABEL = Rect(520, 740, 240, 56)  # "Page 1 / 2", between the two


def home_pages(n_games: int) -> int:
    """How many pages the home screen's cards take (one page up to :data:`CARDS_PER_PAGE`
    games, and then no page controls are shown)."""
    return max(1, -(-n_games // CARDS_PER_PAGE))


def card_rect(i: int) -> Rect:
    """The home screen's card of the ``i``-th game (three per row, :data:`CARDS_PER_PAGE`
    per page: game ``i`` is on page ``i // CARDS_PER_PAGE``)."""
    i %= CARDS_PER_PAGE
    col, row = i % 3, i // 3
    x0 = (1280 - (3 * CARD_W + 2 * CARD_GAP)) // 2
    return Rect(x0 + col * (CARD_W + CARD_GAP), 220 + row * (CARD_H + CARD_GAP), CARD_W, CARD_H)


def tier_rect(i: int) -> Rect:
    """The difficulty screen's button of the ``i``-th tier."""
    return Rect((1280 - TIER_W) // 2, 220 + i * (TIER_H + TIER_GAP), TIER_W, TIER_H)


def header_buttons(has_undo: bool) -> dict[str, Rect]:
    """The level screen's header controls by name (Undo only in games that have it)."""
    names = [n for n in HEADER_BUTTONS if n != "undo" or has_undo]
    return {name: Rect(1140 - 130 * i, 14, 116, 44) for i, name in enumerate(names)}
