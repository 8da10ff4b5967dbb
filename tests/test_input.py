"""The gesture recogniser: clicks, double clicks, drags and swipes from timed events."""

from puzzlegym.base.actions import Click, DoubleClick, Drag, PressKey, Scroll, TypeText, Wait
from puzzlegym.screen.input import Event, Gesture, GestureRecognizer, action_events, swipe_direction


def gestures(actions, t0=0, gap=1000):
    rec = GestureRecognizer()
    out = []
    for i, a in enumerate(actions):
        for ev in action_events(a, t0 + i * gap):
            out.extend(rec.feed(ev))
    return out


def test_click_and_double_click():
    assert gestures([Click(10, 20)]) == [Gesture("click", 10, 20)]
    assert gestures([DoubleClick(10, 20)]) == [
        Gesture("click", 10, 20),
        Gesture("click", 10, 20),
        Gesture("double_click", 10, 20),
    ]
    # two clicks a second apart are two clicks, not a double click
    assert gestures([Click(10, 20), Click(10, 20)]) == [Gesture("click", 10, 20)] * 2
    # two quick clicks at the same place are a double click
    assert gestures([Click(10, 20), Click(11, 21)], gap=200)[-1] == Gesture("double_click", 11, 21)


def test_drag_and_swipe_directions():
    assert gestures([Drag(100, 100, 300, 110)]) == [Gesture("drag", 300, 110, 100, 100, "right")]
    assert gestures([Drag(100, 300, 100, 100)])[0].swipe == "up"
    assert gestures([Drag(100, 100, 200, 180)])[0].swipe is None  # diagonal: a drag, no swipe
    assert gestures([Drag(100, 100, 103, 102)]) == [Gesture("click", 100, 100)]  # within slop
    assert swipe_direction(0, 25) == "down" and swipe_direction(-25, 0) == "left"
    assert swipe_direction(10, 0) is None


def test_keys_text_scroll_wait():
    assert gestures([PressKey("ArrowUp"), TypeText("hi"), Scroll("down"), Wait()]) == [
        Gesture("key", value="ArrowUp"),
        Gesture("text", value="hi"),
        Gesture("scroll", value="down"),
    ]


def test_drag_events_are_interpolated_moves():
    events = action_events(Drag(0, 0, 80, 0), 1000)
    kinds = [e.kind for e in events]
    assert kinds[0] == "pointer_down" and kinds[-1] == "pointer_up"
    assert kinds.count("pointer_move") >= 4
    assert [e.t_ms for e in events] == sorted(e.t_ms for e in events)


def test_recognizer_state_round_trips():
    rec = GestureRecognizer()
    rec.feed(Event("pointer_down", 0, 5, 5))
    rec.feed(Event("pointer_up", 40, 5, 5))
    copy = GestureRecognizer.from_json(rec.to_json())
    assert copy.feed(Event("pointer_down", 100, 5, 5)) == []
    assert copy.feed(Event("pointer_up", 140, 5, 5))[-1].kind == "double_click"
    # an unmatched release is ignored
    assert GestureRecognizer().feed(Event("pointer_up", 0, 1, 1)) == []
