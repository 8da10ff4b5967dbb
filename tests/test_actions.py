"""GUI action validation: dict and typed forms, every rejection names the problem."""

import pytest

from puzzlegym.base.actions import (
    Answer,
    Batch,
    Click,
    Drag,
    GUIActionSpace,
    PressKey,
    TypeText,
    Wait,
    flatten,
    parse_action,
    to_dict,
)
from puzzlegym.base.errors import ActionError


def test_dict_and_typed_forms_agree():
    assert parse_action({"type": "click", "x": 3, "y": 4}) == Click(3, 4)
    assert parse_action(Click(3, 4)) == Click(3, 4)
    d = {"type": "drag", "x0": 0, "y0": 0, "x1": 1279, "y1": 899}
    assert to_dict(parse_action(d)) == d
    batch = {"type": "batch", "actions": [{"type": "wait"}, {"type": "press_key", "key": "Enter"}]}
    parsed = parse_action(batch)
    assert parsed == Batch((Wait(), PressKey("Enter")))
    assert flatten(parsed) == (Wait(), PressKey("Enter"))
    assert to_dict(parsed) == batch
    assert parse_action({"type": "answer"}) == Answer("")


@pytest.mark.parametrize(
    "action, fragment",
    [
        ({"type": "teleport"}, "unknown action type 'teleport'"),
        ({"x": 1, "y": 2}, "unknown action type None"),
        ({"type": "click", "x": 1}, "missing field 'y'"),
        (
            {"type": "click", "x": 1280, "y": 5},
            "action(click).x: expected an integer 0..1279 (a pixel on the screen), got 1280",
        ),
        (
            {"type": "click", "x": 5, "y": 900},
            "y: expected an integer 0..899 (a pixel on the screen), got 900",
        ),
        ({"type": "click", "x": -1, "y": 5}, "x: expected an integer 0..1279"),
        (
            {"type": "click", "x": 1.5, "y": 5},
            "x: expected an integer 0..1279 (a pixel on the screen)",
        ),
        (
            {"type": "click", "x": True, "y": 5},
            "x: expected an integer 0..1279 (a pixel on the screen)",
        ),
        ({"type": "click", "x": 1, "y": 5, "z": 3}, "unexpected field 'z'"),
        ({"type": "press_key", "key": "F5"}, "'F5' is not an allowed key"),
        ({"type": "press_key", "key": "ab"}, "is not an allowed key"),
        ({"type": "type_text", "text": "x" * 257}, "257 characters is too long; at most 256"),
        ({"type": "type_text", "text": "a\nb"}, "not allowed; printable ASCII only"),
        ({"type": "type_text", "text": ""}, "must not be empty"),
        ({"type": "scroll", "direction": "sideways"}, "'sideways' is not allowed"),
        ({"type": "batch", "actions": []}, "a batch holds 1..64"),
        (
            {"type": "batch", "actions": [{"type": "batch", "actions": [{"type": "wait"}]}]},
            "cannot contain another batch",
        ),
        ({"type": "batch", "actions": [{"type": "answer"}]}, "cannot be inside a batch"),
        (
            {"type": "batch", "actions": [{"type": "wait"}, {"type": "click", "x": 1}]},
            "actions[1](click): missing field 'y'",
        ),
        ("click", "expected an action dict"),
    ],
)
def test_rejections_name_the_problem(action, fragment):
    with pytest.raises(ActionError) as exc:
        parse_action(action)
    assert fragment in str(exc.value)


def test_typed_objects_are_validated_too():
    with pytest.raises(
        ActionError, match=r"x1: expected an integer 0..1279 \(a pixel on the screen\)"
    ):
        parse_action(Drag(0, 0, 2000, 0))
    with pytest.raises(ActionError, match="not an allowed key"):
        parse_action(PressKey("Delete"))
    with pytest.raises(ActionError, match="must not be empty"):
        parse_action(TypeText(""))


def test_action_space_samples_are_valid_and_seeded():
    space = GUIActionSpace(seed=3)
    samples = [space.sample() for _ in range(500)]
    assert all(space.contains(s) for s in samples)
    assert {s["type"] for s in samples} >= {"click", "drag", "press_key", "wait"}
    again = GUIActionSpace(seed=3)
    assert [again.sample() for _ in range(500)] == samples
    assert not space.contains({"type": "click", "x": 5000, "y": 0})


def test_action_space_weights():
    space = GUIActionSpace({"answer": 1.0}, seed=0)
    assert space.sample() == {"type": "answer", "text": "done"}
    batches = GUIActionSpace({"batch": 1.0}, seed=0)
    assert all(parse_action(batches.sample()).type == "batch" for _ in range(20))
    with pytest.raises(ActionError, match="unknown action type 'fly'"):
        GUIActionSpace({"fly": 1.0})
