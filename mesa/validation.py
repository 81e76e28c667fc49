"""Checking untrusted values (wire payloads, replay lines) against type hints.

>>> check_value("side", Literal["a", "b"], "a")
>>> check_value("points", int, True)
Traceback (most recent call last):
  ...
mesa.validation.ValidationError: points must be int, not True
"""

from __future__ import annotations

import math
import types
import typing
from typing import Any, Literal

from mesa.errors import MesaError

__all__ = ["Literal", "ValidationError", "check_value"]


class ValidationError(MesaError):
    """A value that does not have the expected type."""


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
