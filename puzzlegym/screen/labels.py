"""Every piece of interface text, in one place, so a translated label set can be switched in.

``label(key, **fields)`` formats the label in the active language; ``use_language(code)``
switches. Games' own lines (instruction, feedback) are their own and not listed here.
"""

from __future__ import annotations

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "suite_title": "Game Suite",
        "home_subtitle": "Choose a game",
        "difficulty_subtitle": "Choose a difficulty",
        "tier_progress": "{solved} / {total} solved",
        "tier_complete": "Complete · {solved} / {total}",
        "back": "Back",
        "page_prev": "‹ Previous",
        "page_next": "More games ›",
        "home_page": "Page {page} / {pages}",
        "menu": "Menu",
        "restart": "Restart",
        "undo": "Undo",
        "next": "Next",
        "header": "{game}  ·  {tier}  ·  Level {k} / {n}",
        "level_complete": "Level complete!",
        "objective_complete": "Objective complete",
        "objective_complete_body": "Every level of {game} at {tier} difficulty is done.",
        "instruction": "Complete all levels of {game} at {tier} difficulty in the Game Suite.",
        "instruction_level": "Complete level {k} of {game} at {tier} difficulty in the Game Suite.",
    }
}

_active = "en"


def use_language(code: str) -> None:
    global _active
    if code not in LABELS:
        raise ValueError(f"language: {code!r} has no label set; available: {sorted(LABELS)}")
    _active = code


def label(key: str, **fields: object) -> str:
    return LABELS[_active][key].format(**fields)
