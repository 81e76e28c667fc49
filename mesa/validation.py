"""Checking untrusted values (wire payloads, replay lines) against type hints.

>>> check_value("side", Literal["a", "b"], "a")
>>> check_value("points", int, True)
Traceback (most recent call last):
  ...
mesa.validation.ValidationError: points must be int, not True
"""

from __future__ import annotations

import json
import math
import types
import typing
from typing import Any, Literal

from mesa.errors import MesaError

__all__ = ["TIME_LIMIT", "Literal", "ValidationError", "check_range", "check_value", "strict_json"]

# Any instant or duration in seconds a table accepts: about 127 years, so a Unix timestamp or a
# monotonic clock fits and arithmetic on it never overflows or walks for hours.
TIME_LIMIT = 4e9


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


def check_value(name: str, hint: Any, value: Any) -> None:
    """Raise :class:`ValidationError` unless ``value`` fits ``hint``.

    Supports the few types the vocabulary uses: str, int, float, bool, None, Any, Literal,
    unions, and dict[K, V]. Booleans are not integers here, and floats must be finite.
    """
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        last = None
        for arg in args:
            try:
                check_value(name, arg, value)
                return
            except ValidationError as e:
                last = e
        assert last is not None
        raise last
    if hint is type(None):
        if value is not None:
            raise ValidationError(f"{name} must be null, not {value!r}")
        return
    if origin is Literal:
        if value not in args or isinstance(value, bool) != any(isinstance(a, bool) for a in args):
            allowed = " or ".join(repr(a) for a in args)
            raise ValidationError(f"{name} must be {allowed}, not {value!r}")
        return
    if origin is dict:
        if not isinstance(value, dict):
            raise ValidationError(f"{name} must be an object, not {value!r}")
        key_t, val_t = args
        for k, v in value.items():
            check_value(f"{name} key", key_t, k)
            check_value(f"{name}[{k}]", val_t, v)
        return
    if origin is list:
        if not isinstance(value, list):
            raise ValidationError(f"{name} must be a list, not {value!r}")
        for i, v in enumerate(value):
            check_value(f"{name}[{i}]", args[0], v)
        return
    if hint is Any:
        return
    if hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if ok:
            try:
                ok = math.isfinite(value)
            except OverflowError:  # an integer too large for a float
                ok = False
    elif hint is str:
        ok = isinstance(value, str)
    else:
        raise TypeError(f"unsupported type hint {hint!r}")
    if not ok:
        raise ValidationError(f"{name} must be {hint.__name__}, not {value!r}")


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
