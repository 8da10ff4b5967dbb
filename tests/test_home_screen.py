"""The home screen as a person sees it: a card for every registered game of its first page,
inside the screen, none overlapping, and every card's text inside its box."""

import numpy as np

from puzzlegym.game.registry import games
from puzzlegym.screen import theme
from puzzlegym.screen.layout import CARD_PAD, CARDS_PER_PAGE, HOME
from puzzlegym.screen.render import SCREEN, font, wrap_text


def test_home_has_a_card_for_every_game_inside_the_screen(make_env):
    env = make_env()
    env.reset(seed=0)
    suite = env.unwrapped.suite
    assert suite.screen == HOME
    cards = {k: r for k, r in suite.targets().items() if k.startswith("game:")}
    first_page = list(games())[:CARDS_PER_PAGE]  # more games page (tests/test_screens.py)
    assert set(cards) == {f"game:{name}" for name in first_page}
    rects = list(cards.values())
    for r in rects:
        assert SCREEN.x <= r.x and r.x1 <= SCREEN.x1 and SCREEN.y <= r.y and r.y1 <= SCREEN.y1
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert a.x1 <= b.x or b.x1 <= a.x or a.y1 <= b.y or b.y1 <= a.y, (a, b)


def test_card_text_stays_inside_its_card(make_env):
    """No text pixel within CARD_PAD/2 of a card's sides: a line that runs over (as a tier
    list too long for one line did) would put text colour there."""
    env = make_env()
    obs, _ = env.reset(seed=0)
    suite = env.unwrapped.suite
    margin = CARD_PAD // 2
    for key, r in suite.targets().items():
        if not key.startswith("game:"):
            continue
        body = obs[r.y + 24 : r.y1 - 20]  # below the accent strip, above the rounded corners
        for x0, x1 in ((r.x + 3, r.x + 3 + margin), (r.x1 - 3 - margin, r.x1 - 3)):
            strip = body[:, x0:x1].reshape(-1, 3)
            assert (strip == np.array(theme.CARD)).all(), f"{key}: text reaches the card's side"


def test_tier_lists_wrap_to_fit_and_balance():
    width = 300
    lines = wrap_text(
        "Easy · Medium · Hard · Extreme · Nightmare", width, theme.SMALL_SIZE, sep=" · "
    )
    assert lines == ["Easy · Medium · Hard", "Extreme · Nightmare"]
    assert all(font(theme.SMALL_SIZE).getlength(line) <= width for line in lines)
    assert wrap_text("Easy · Hard", width, theme.SMALL_SIZE, sep=" · ") == ["Easy · Hard"]
