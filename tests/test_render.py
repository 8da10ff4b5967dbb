"""The renderer: incremental (dirty-region) frames equal frames rendered from scratch."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlegym.agents import SolverAgent
from puzzlegym.screen.render import SCREEN, Canvas, Rect, Widget, render_full
from puzzlegym.suite.view import suite_widgets


def _fill(draw, img, key):
    draw.rectangle((0, 0, img.width, img.height), fill=key)


def _dot(draw, img, key):
    draw.ellipse((0, 0, img.width - 1, img.height - 1), fill=key + (200,))


def test_incremental_equals_full_on_every_frame_of_an_episode(make_env):
    env = make_env("LongPuzzle/MazePaint-Easy")
    env.reset()
    u = env.unwrapped
    agent = SolverAgent(u)
    checked = 0
    for _ in range(60):
        obs, *_, term, trunc, _ = env.step(agent())
        assert np.array_equal(obs, render_full(suite_widgets(u.suite)))
        checked += 1
        if term or trunc:
            break
    assert checked == 60


def test_unchanged_scene_redraws_nothing():
    canvas = Canvas()
    scene = [
        Widget("bg", SCREEN, _fill, (10, 20, 30)),
        Widget("a", Rect(5, 5, 50, 50), _fill, (200, 0, 0)),
    ]
    canvas.render(scene)
    assert canvas.render(list(scene)) == []
    paints = canvas.paints
    moved = [scene[0], Widget("a", Rect(100, 5, 50, 50), _fill, (200, 0, 0))]
    dirty = canvas.render(moved)
    assert canvas.paints == paints  # same image, from the cache
    assert dirty and all(r.w * r.h < SCREEN.w * SCREEN.h for r in dirty)
    assert tuple(canvas.frame[10, 10]) == (10, 20, 30) and tuple(canvas.frame[10, 110]) == (
        200,
        0,
        0,
    )


rects = st.builds(
    Rect,
    st.integers(-20, 1250),
    st.integers(-20, 880),
    st.integers(1, 300),
    st.integers(1, 300),
)
scenes = st.lists(
    st.tuples(rects, st.sampled_from([(255, 0, 0), (0, 255, 0), (0, 0, 255)]), st.booleans()),
    min_size=0,
    max_size=6,
)


@settings(max_examples=40, deadline=None)
@given(st.lists(scenes, min_size=1, max_size=4))
def test_incremental_equals_full_for_random_scene_sequences(sequence):
    canvas = Canvas()
    for items in sequence:
        widgets = [Widget("bg", SCREEN, _fill, (240, 240, 240))]
        for i, (rect, color, opaque) in enumerate(items):
            widgets.append(Widget(f"w{i}", rect, _fill if opaque else _dot, color, opaque))
        canvas.render(widgets)
        assert np.array_equal(canvas.frame, render_full(widgets))
