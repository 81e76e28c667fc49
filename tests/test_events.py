"""The event vocabulary is complete, documented and strict."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.docgen import events_markdown
from mesa.events import EVENT_TYPES, EventError, parse_event

DOC = Path(__file__).resolve().parents[1] / "docs" / "events.md"


def test_every_event_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    documented = set(re.findall(r"^### `([a-z_.]+)`", text, flags=re.M))
    assert set(EVENT_TYPES) <= documented, f"undocumented: {set(EVENT_TYPES) - documented}"
    assert documented <= set(EVENT_TYPES), f"documented but gone: {documented - set(EVENT_TYPES)}"


def test_docs_are_current() -> None:
    assert DOC.read_text(encoding="utf-8") == events_markdown() + "\n", "run `mesa docs`"


def test_every_event_has_a_docstring_and_type() -> None:
    for name, cls in EVENT_TYPES.items():
        assert name == cls.TYPE and cls.CATEGORY
        assert cls.__doc__ and cls.__doc__.strip(), name


@pytest.mark.parametrize(
    ("type_name", "data", "message"),
    [
        ("nope", {}, "unknown event type"),
        ("turn.ended", [], "data must be an object"),
        ("game.ended", {"game": 1}, "missing fields"),
        ("director.call_cleared", {"x": 1}, "unknown fields"),
        ("lateness.point", {"side": "a", "points": "1"}, "points must be int"),
        ("lateness.point", {"side": "a", "points": True}, "points must be int"),
        ("turn.ended", {"side": "a", "seconds": float("nan"), "delay": 0, "charged": 0,
                        "reserve": 0}, "seconds must be float"),
        ("match.started", {"score": {"a": "x"}, "reserve": {}}, "score[a] must be int"),
    ],
)
def test_malformed_payloads_are_refused(type_name: str, data: object, message: str) -> None:
    with pytest.raises(EventError, match=re.escape(message)):
        parse_event(type_name, data)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=10,
)


@settings(max_examples=400, deadline=None)
@given(type_name=st.sampled_from([*EVENT_TYPES, "x.y"]), data=json_values)
def test_validation_never_crashes(type_name: str, data: object) -> None:
    try:
        event = parse_event(type_name, data)
    except EventError:
        return
    assert event.to_data() == data


@settings(max_examples=200, deadline=None)
@given(type_name=st.sampled_from(list(EVENT_TYPES)), data=st.data())
def test_fields_with_wrong_values_are_refused(type_name: str, data: st.DataObject) -> None:
    cls = EVENT_TYPES[type_name]
    fields = [f.name for f in dataclasses.fields(cls)]
    if not fields:
        return
    payload = {f: object() for f in fields}
    with pytest.raises(EventError):
        parse_event(type_name, payload)


def test_huge_integers_are_refused_not_crashing() -> None:
    data = {"side": "a", "seconds": 10**400, "delay": 0, "charged": 0, "reserve": 0}
    with pytest.raises(EventError, match="seconds must be float"):
        parse_event("turn.ended", data)
