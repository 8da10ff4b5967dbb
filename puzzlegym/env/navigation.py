"""Navigation through the suite: the one click that brings the player closer to the first
unsolved target level of an objective (home card, difficulty, Next, Menu when off target).

The solver agent, the scripted diagnostic agent and the workflow controller
(:class:`puzzlegym.wrappers.WorkflowController`) all navigate with it, so "game entry and
level advancement" means the same GUI actions everywhere.
"""

from __future__ import annotations

from collections.abc import MutableSequence

from puzzlegym.base.actions import Answer, Click, to_dict
from puzzlegym.env.probe import DIFFICULTY, HOME, LEVEL, LEVEL_COMPLETE, OBJECTIVE_COMPLETE, Probe
from puzzlegym.game.registry import games

__all__ = ["home_control", "navigation_action", "navigation_click"]


def _click(rect) -> dict:
    x, y = rect.center
    return to_dict(Click(x, y))


def navigation_click(probe: Probe) -> dict | None:
    """The GUI click that moves the suite (seen through ``probe``, the env's
    :meth:`~puzzlegym.env.PuzzleEnv.probe`) towards the objective's
    next level: the game's card on the home screen (or the page control towards it), the
    difficulty (or Back from another
    game's difficulty screen), Next on a level-complete banner, Menu on a level that is not a
    target. None when there is nothing to navigate: on a target board, or on the
    objective-complete screen."""
    objective, targets, screen = probe.objective, probe.controls, probe.screen
    if screen == HOME:
        return _click(targets[home_control(probe)])
    if screen == DIFFICULTY:
        if probe.game is None or probe.game.name != objective.game:
            return _click(targets["back"])
        return _click(targets[f"tier:{objective.tier}"])
    if screen == LEVEL_COMPLETE:
        return _click(targets["next"])
    if screen == LEVEL and not probe.on_target:
        return _click(targets["menu"])
    if screen in (LEVEL, OBJECTIVE_COMPLETE):
        return None
    raise RuntimeError(f"navigation: unknown screen {screen!r}")  # pragma: no cover


def home_control(probe: Probe) -> str:
    """The home screen's control towards the objective's game: its card (``game:<Name>``)
    when the card is on the page shown, else the page control towards the card's page
    (``page:next`` or ``page:prev``), so every card is reached however many games there
    are."""
    name, targets = probe.objective.game, probe.controls
    if f"game:{name}" in targets:
        return f"game:{name}"
    order = list(games())
    shown = [order.index(n.partition(":")[2]) for n in targets if n.startswith("game:")]
    later = not shown or order.index(name) > max(shown)
    return "page:next" if later else "page:prev"


def navigation_action(probe: Probe, pending: MutableSequence) -> dict | None:
    """What a playing agent does off its board: the :func:`navigation_click` (the board
    actions still ``pending`` are dropped), or on the objective-complete screen the Answer
    that ends the episode. None on a target board: the agent plays its own move."""
    nav = navigation_click(probe)
    if nav is not None:
        pending.clear()
        return nav
    if probe.screen == OBJECTIVE_COMPLETE:
        return to_dict(Answer("All levels complete"))
    return None
