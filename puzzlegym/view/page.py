"""The episode page: one self-contained HTML file (its script, style, icon and data inline; no
network, no server) from the viewer's data, frames and turns.

The data is one JSON document in a ``<script type="application/json">`` element, with
``<``, ``>`` and ``&`` written as ``\\u`` escapes, so no string of the record (a model's text,
a feedback line) can end the element; the page's script shows every string as text. A
Content-Security-Policy allows the page's own script (by its SHA-256) and inline styles,
images from ``data:``/``blob:`` URLs and nothing else: no request leaves the page.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from importlib import resources
from typing import Any

from puzzlegym.view.frames import FrameStrip

__all__ = ["asset", "embed_json", "episode_page", "fill", "icon_href", "page_frames"]


def asset(name: str) -> str:
    """A file of the viewer's page (``viewer.html``, ``viewer.js``, ``viewer.css``)."""
    return (resources.files("puzzlegym.view") / "page" / name).read_text(encoding="utf-8")


def icon_href() -> str:
    """The puzzlegym icon (shared with the play page) as a ``data:`` URL."""
    svg = (resources.files("puzzlegym.backends") / "page" / "icon.svg").read_bytes()
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


def embed_json(doc: Any) -> str:
    """``doc`` as JSON that is safe inside an HTML ``<script>`` element (ASCII; ``<``, ``>``
    and ``&`` as ``\\u`` escapes)."""
    text = json.dumps(doc, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page_frames(strip: FrameStrip) -> dict[str, Any]:
    """The frames as the page reads them: ``stride``, ``last``, ``steps`` and the images as
    base64 PNGs."""
    return {
        "stride": strip.stride,
        "last": strip.last,
        "steps": strip.steps,
        "images": [base64.b64encode(png).decode("ascii") for png in strip.images],
    }


def episode_page(
    data: dict[str, Any],
    strip: FrameStrip,
    replay: dict[str, Any],
    turns: dict[str, Any] | None = None,
    index_href: str | None = None,
) -> str:
    """The HTML of one episode's page: the viewer's ``data``
    (:func:`puzzlegym.view.episode.read_episode`), its frames, the replay's verdict
    (``replay``: :func:`puzzlegym.evaluation.replay.rerun`'s report), the model's ``turns``
    (:func:`puzzlegym.view.turns.read_turns`) and a link to the run's index."""
    mismatch = replay.get("mismatch")
    doc = {
        **data,
        "frames": page_frames(strip),
        "replay": {
            "ok": bool(replay.get("ok")),
            "detail": None if not mismatch else str(mismatch.get("detail"))[:400],
            "frames": replay.get("frames", 0),
            "warnings": [str(w)[:200] for w in replay.get("warnings", [])],
        },
        "turns": turns,
        "index": index_href,
    }
    script = asset("viewer.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    record = data["record"]
    title = f"{record['agent']} · {record['env_id'].split('/')[-1]} · seed {record['seed']}"
    template = asset("viewer.html")
    template = template.replace("script-src 'unsafe-inline'", f"script-src 'sha256-{digest}'")
    return fill(
        template,
        {
            "TITLE": html.escape(title + " — puzzlegym view"),
            "ICON": icon_href(),
            "CSS": asset("viewer.css"),
            "JS": script,
            "DATA": embed_json(doc),
        },
    )


_PLACEHOLDER = re.compile(r"\{\{([A-Z]+)\}\}")


def fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``{{NAME}}`` replaced by ``values[NAME]`` in one pass over the
    template: a value is never scanned again, so a record's text that holds ``{{DATA}}`` or
    ``{{JS}}`` stays text. Every placeholder must have a value (KeyError otherwise)."""
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
