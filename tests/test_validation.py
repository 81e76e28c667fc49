"""mesa.validation: msgspec's strict verdict held to the hand-written checker it replaced.

The oracle below is the type-hint walker ``mesa.validation.check_value`` was until msgspec took
over (moved here from ``tests/test_protocol.py``'s compiled-check equivalence test): on every
hint the wire vocabulary uses and on hostile values, msgspec must accept exactly what it did.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa import protocol as p
from mesa.events import EVENT_TYPES
from mesa.validation import MAX_INT, ValidationError, accepts, check_value, schema


def oracle(hint: Any, value: Any) -> bool:
    """The old hand-written verdict (bool is not int, floats finite, ints unbounded)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(oracle(a, value) for a in args)
    if hint is type(None):
        return value is None
    if origin is Literal:
        return value in args and isinstance(value, bool) == any(isinstance(a, bool) for a in args)
    if origin is dict:
        return isinstance(value, dict) and all(
            oracle(args[0], k) and oracle(args[1], v) for k, v in value.items()
        )
    if origin is list:
        return isinstance(value, list) and all(oracle(args[0], v) for v in value)
    if hint is Any:
        return True
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        try:
            return math.isfinite(value)
        except OverflowError:  # an integer too large for a float
            return False
    if hint is str:
        return isinstance(value, str)
    raise TypeError(hint)


def _all_hints() -> list[Any]:
    hints = {h for cls in p.MESSAGES.values() for h in p._hints(cls).values()}
    for cls in EVENT_TYPES.values():
        every = typing.get_type_hints(cls)
        hints |= {every[f.name] for f in dataclasses.fields(cls)}
    return sorted(hints, key=repr)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
field_values = st.one_of(
    json_values,
    st.sampled_from(["a", "b", "c", "3", "s1", "players", "turn.ended"]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=2**1000),
)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(_all_hints()), field_values)
def test_msgspec_agrees_with_the_hand_written_checker(hint: Any, value: Any) -> None:
    expected = oracle(hint, value)
    assert accepts(hint, value) == expected
    try:
        check_value("x", hint, value)
    except ValidationError as e:
        assert not expected and str(e).startswith("x")
    else:
        assert expected


@pytest.mark.parametrize(
    ("hint", "value", "message"),
    [
        (int, True, "points must be int, not True"),  # bool for int
        (float, float("nan"), "points must be float, not nan"),
        (float, float("inf"), "points must be float, not inf"),
        (float, 2**1024, "points must be float"),  # does not fit a double
        (Literal["a", "b"], "c", "points must be 'a' or 'b', not 'c'"),  # a bad literal
        (Literal[1, 2, 3], True, "points must be 1 or 2 or 3, not True"),
        (dict[str, int], {"a": "x"}, "points[a] must be int, not 'x'"),
        (dict[str, int], [], "points must be an object, not []"),
        (list[str], ["a", 1], "points[1] must be str, not 1"),
        (int | None, "1", "points must be null, not '1'"),
    ],
)
def test_refusals_name_the_value(hint: Any, value: Any, message: str) -> None:
    with pytest.raises(ValidationError) as e:
        check_value("points", hint, value)
    assert str(e.value).startswith(message) and e.value.code == "bad_input"


def test_bounded_integers_stop_at_2_to_the_53() -> None:
    assert accepts(int, MAX_INT + 1)  # an input's range is check_range's business
    assert accepts(int, MAX_INT, bounded=True) and accepts(int, -MAX_INT, bounded=True)
    assert not accepts(int, MAX_INT + 1, bounded=True)
    assert not accepts(int, -MAX_INT - 1, bounded=True)


def test_a_dataclass_becomes_a_struct_that_refuses_unknown_fields() -> None:
    @dataclasses.dataclass
    class Point:
        x: int
        label: str = "p"

    assert accepts(Point, {"x": 1}) and accepts(Point, {"x": 1, "label": "q"})
    assert not accepts(Point, {"x": 1, "y": 2})  # unknown
    assert not accepts(Point, {"label": "q"})  # missing
    assert not accepts(Point, {"x": True})  # bool for int
    assert schema(Point) is schema(Point)  # built once


def test_an_unsupported_hint_is_a_programming_error() -> None:
    with pytest.raises(TypeError):
        schema(bytes)
