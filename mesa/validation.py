"""Checking untrusted values (wire payloads, replay lines) against type hints, through msgspec.

A type hint is translated once into the msgspec type that accepts exactly what it means here
(:func:`schema`): booleans are not integers, floats are finite, objects refuse unknown fields, and
(where asked) integers stay within ±2**53. msgspec in strict mode gives the verdict; a refusal's
message names the value the way the players' and the director's tools always have.

>>> check_value("side", Literal["a", "b"], "a")
>>> check_value("points", int, True)
Traceback (most recent call last):
  ...
mesa.validation.ValidationError: points must be int, not True
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import sys
import types
import typing
from typing import Annotated, Any, Literal

import msgspec

from mesa.errors import MesaError

__all__ = [
    "MAX_INT",
    "TIME_LIMIT",
    "ValidationError",
    "accepts",
    "check_range",
    "check_value",
    "schema",
    "strict_json",
]

# Any instant or duration in seconds a table accepts: about 127 years, so a Unix timestamp or a
# monotonic clock fits and arithmetic on it never overflows or walks for hours.
TIME_LIMIT = 4e9
# The largest integer a wire field holds: every integer up to it is exact in a double (a browser
# reads it), and far below SQLite's 2**63.
MAX_INT = 2**53

# msgspec refuses NaN and Infinity as JSON already; a number too large for a double it reads as
# out of range. Values handed over from Python (msgspec.convert) are held to the same bounds.
FiniteFloat = Annotated[float, msgspec.Meta(ge=-sys.float_info.max, le=sys.float_info.max)]
BoundedInt = Annotated[int, msgspec.Meta(ge=-MAX_INT, le=MAX_INT)]


class ValidationError(MesaError):
    """A value that does not have the expected type (``code`` ``bad_input``) or is out of its
    range (``out_of_range``)."""

    def __init__(self, message: str, code: str = "bad_input") -> None:
        super().__init__(message)
        self.code = code


def check_range(name: str, value: Any, low: float, high: float) -> None:
    """Raise :class:`ValidationError` (code ``out_of_range``) unless ``low <= value <= high``.

    ``None`` passes (optional values); the type is :func:`check_value`'s business.

    >>> check_range("minutes_per_point", 10.0, 1, 120)
    >>> check_range("minutes_per_point", 1e-300, 1, 120)
    Traceback (most recent call last):
      ...
    mesa.validation.ValidationError: minutes_per_point must be between 1 and 120, not 1e-300
    """
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return
    try:
        ok = low <= value <= high
    except OverflowError:  # pragma: no cover - comparing ints and floats never overflows
        ok = False
    if not ok:
        raise ValidationError(
            f"{name} must be between {low:g} and {high:g}, not {value!r}", "out_of_range"
        )


# ── type hints → msgspec types ──────────────────────────────────────────────
@functools.cache
def schema(hint: Any, bounded: bool = False) -> Any:
    """The msgspec type accepting exactly what ``hint`` means on the wire.

    Supports what the vocabulary uses: str, int, float, bool, None, Any, Literal, unions,
    dict[K, V], list[T] and dataclasses (as Structs that refuse unknown fields; a field with a
    default may be absent). With ``bounded`` integers must stay within ±:data:`MAX_INT`.

    >>> msgspec.convert({"a": 1.5}, schema(dict[str, float]), strict=True)
    {'a': 1.5}
    """
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(schema(a, bounded) for a in args)]  # noqa: UP007 - built
    if origin is dict:
        return types.GenericAlias(dict, (schema(args[0], bounded), schema(args[1], bounded)))
    if origin is list:
        return types.GenericAlias(list, (schema(args[0], bounded),))
    if origin is Literal or hint in (Any, str, bool, type(None)):
        return hint
    if hint is int:
        return BoundedInt if bounded else int
    if hint is float:
        return FiniteFloat
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _struct(hint, bounded)
    raise TypeError(f"unsupported type hint {hint!r}")


def _struct(cls: type, bounded: bool) -> type[msgspec.Struct]:
    hints = typing.get_type_hints(cls)
    fields: list[Any] = []
    for f in dataclasses.fields(cls):
        t = schema(hints[f.name], bounded)
        if f.default is not dataclasses.MISSING:
            fields.append((f.name, t, f.default))
        elif f.default_factory is not dataclasses.MISSING:
            fields.append((f.name, t, msgspec.field(default_factory=f.default_factory)))
        else:
            fields.append((f.name, t))
    return msgspec.defstruct(cls.__name__, fields, forbid_unknown_fields=True)


def accepts(hint: Any, value: Any, bounded: bool = False) -> bool:
    """Whether ``value`` (a Python value, as parsed from JSON) fits ``hint``."""
    # By identity first: hashing a typing alias (Literal["a", "b"]) costs more than the check,
    # and a table checks a few arguments per input.
    key = (id(hint), bounded)
    known = _BY_ID.get(key)
    if known is None or known[0] is not hint:
        if len(_BY_ID) > 1000:  # hints built on the fly: never a leak
            _BY_ID.clear()
        known = _BY_ID[key] = (hint, schema(hint, bounded))
    try:
        _convert(value, known[1], strict=True)
    except msgspec.ValidationError:
        return False
    return True


_BY_ID: dict[tuple[int, bool], tuple[Any, Any]] = {}
_convert = msgspec.convert


def check_value(name: str, hint: Any, value: Any) -> None:
    """Raise :class:`ValidationError` unless ``value`` fits ``hint`` (see :func:`schema`).
    Booleans are not integers here, and floats must be finite."""
    if not accepts(hint, value):
        raise ValidationError(explain(name, hint, value))


def explain(name: str, hint: Any, value: Any, bounded: bool = False) -> str:
    """Why ``value`` does not fit ``hint`` (msgspec said it does not), named as the tools name
    it: ``score[a] must be int, not 'x'``. Runs only on a refusal."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return explain(name, args[-1], value, bounded)
    if origin in (dict, list):
        if not isinstance(value, origin):
            return f"{name} must be {'an object' if origin is dict else 'a list'}, not {value!r}"
        for k, v in value.items() if isinstance(value, dict) else enumerate(value):
            if origin is dict and not accepts(args[0], k, bounded):
                return explain(f"{name} key", args[0], k, bounded)
            if not accepts(args[-1], v, bounded):
                return explain(f"{name}[{k}]", args[-1], v, bounded)
        return f"{name} is out of range"  # pragma: no cover - msgspec refused something above
    if hint is type(None):
        return f"{name} must be null, not {value!r}"
    if origin is Literal:
        return f"{name} must be {' or '.join(repr(a) for a in args)}, not {value!r}"
    if hint is int and type(value) is int:
        return f"{name} is out of range"  # a bounded integer past ±2**53
    return f"{name} must be {getattr(hint, '__name__', hint)}, not {value!r}"


# ── one JSON document of a replay file ──────────────────────────────────────
# The replay tool reads files a person edits: its reasons name what is wrong in their words
# (NaN, a number of 400 digits). It stays on the standard library, whose hooks say exactly that;
# wire payloads go through msgspec (mesa.protocol).
MAX_DEPTH = 16  # objects and arrays nested deeper than any honest input
MAX_NUMBER_CHARS = 40  # digits of a number literal (a 64-bit int has 20)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"a number of {len(text)} characters")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} does not fit a float")
    return value


def _short_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


_STRICT = json.JSONDecoder(
    parse_constant=_no_constant, parse_float=_finite_float, parse_int=_short_int
)


def strict_json(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """Parse one JSON document strictly, or raise :class:`ValidationError` saying why not.

    Refused: NaN and Infinity, numbers too long or too large for a float, nesting deeper than
    ``max_depth``, and strings with a lone surrogate (they cannot be written back as UTF-8).

    >>> strict_json('{"t": 1.5, "side": "a"}')
    {'t': 1.5, 'side': 'a'}
    >>> strict_json('{"t": NaN}')
    Traceback (most recent call last):
      ...
    mesa.validation.ValidationError: not valid JSON (NaN is not JSON)
    >>> strict_json('[[[1]]]', max_depth=2)
    Traceback (most recent call last):
      ...
    mesa.validation.ValidationError: nested deeper than 2 levels
    """
    try:
        value = _STRICT.decode(text)
    except RecursionError:
        raise ValidationError(f"nested deeper than {max_depth} levels") from None
    except ValueError as e:  # JSONDecodeError included
        reason = e.msg if isinstance(e, json.JSONDecodeError) else str(e)
        raise ValidationError(f"not valid JSON ({reason[:80]})") from None
    _check_tree(value, max_depth)
    return value


def _check_tree(value: Any, max_depth: int) -> None:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, dict | list):
            if depth >= max_depth:
                raise ValidationError(f"nested deeper than {max_depth} levels")
            if isinstance(item, dict):
                for key, v in item.items():
                    _check_text(key)
                    stack.append((v, depth + 1))
            else:
                stack.extend((v, depth + 1) for v in item)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError("a string with a lone surrogate (not text)") from None
