"""What a table can be told, for any game: an input's spec, the input, and parsing one.

A game declares its inputs as a map of :class:`InputSpec` (built with :func:`spec`) and parses
untrusted ones against it with :func:`parse_input`, which fills in defaults, checks every
argument's type (:func:`mesa.validation.check_value`) and, for the arguments a game bounds, its
range.

>>> from typing import Literal
>>> SPECS = {"press": spec("press", "button", "A press.", {"side": Literal["a", "b"]},
...                        {"times": (int, 1)})}
>>> parse_input(SPECS, "press", {"side": "a"})
Input(name='press', args={'times': 1, 'side': 'a'})
>>> parse_input(SPECS, "press", {"side": "x"})
Traceback (most recent call last):
  ...
mesa.engine.inputs.InputError: press: side must be 'a' or 'b', not 'x'
>>> try:
...     parse_input(SPECS, "press", {"side": "a", "times": 99}, {"times": (1, 9)})
... except InputError as e:
...     print(e.code)
out_of_range
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mesa.errors import MesaError
from mesa.validation import ValidationError, check_range, check_value

__all__ = ["Input", "InputError", "InputSpec", "parse_input", "spec", "specs_by_name"]


class InputError(MesaError):
    """An input with an unknown name or arguments that don't fit. ``code`` is ``bad_input``, or
    ``out_of_range`` for a number outside its game's range."""

    def __init__(self, message: str, code: str = "bad_input") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class InputSpec:
    name: str
    source: str  # button, time, card, menu, hub
    doc: str
    args: dict[str, Any] = field(default_factory=dict)  # required: name → type
    optional: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # name → (type, default)


@dataclass(frozen=True)
class Input:
    name: str
    args: dict[str, Any] = field(default_factory=dict)


def spec(
    name: str,
    source: str,
    doc: str,
    args: dict[str, Any] | None = None,
    optional: dict[str, tuple[Any, Any]] | None = None,
) -> InputSpec:
    """One input's spec (the arguments copied, so a shared dict is never aliased)."""
    return InputSpec(name, source, doc, dict(args or {}), dict(optional or {}))


def specs_by_name(*specs: InputSpec) -> dict[str, InputSpec]:
    """A game's inputs, by name, in the order given (a name given twice is a bug in the game's
    list: refused here rather than one spec silently replacing the other).

    >>> list(specs_by_name(spec("press", "button", "A press."), spec("tick", "time", "Time.")))
    ['press', 'tick']
    >>> specs_by_name(spec("press", "button", "A press."), spec("press", "button", "Again."))
    Traceback (most recent call last):
      ...
    ValueError: input 'press' declared twice
    """
    out: dict[str, InputSpec] = {}
    for s in specs:
        if s.name in out:
            raise ValueError(f"input {s.name!r} declared twice")
        out[s.name] = s
    return out


def parse_input(
    specs: Mapping[str, InputSpec],
    name: Any,
    args: Any,
    ranges: Mapping[str, tuple[float, float]] | None = None,
) -> Input:
    """Validate an input's name and arguments against ``specs``, filling in defaults.

    ``ranges`` bounds numeric arguments by name (``out_of_range`` when outside)."""
    found = specs.get(name) if isinstance(name, str) else None
    if found is None:
        raise InputError(f"unknown input {name!r}; known: {', '.join(specs)}")
    if not isinstance(args, dict):
        raise InputError(f"{name}: arguments must be an object")
    unknown = set(args) - set(found.args) - set(found.optional)
    if unknown:
        raise InputError(f"{name}: unknown arguments {sorted(unknown)}")
    missing = set(found.args) - set(args)
    if missing:
        raise InputError(f"{name}: missing arguments {sorted(missing)}")
    values = {key: default for key, (_, default) in found.optional.items()}
    values.update(args)
    hints = dict(found.args)
    hints.update({key: hint for key, (hint, _) in found.optional.items()})
    bounds = ranges or {}
    for key, hint in hints.items():
        try:
            check_value(key, hint, values[key])
            if key in bounds:
                check_range(key, values[key], *bounds[key])
        except ValidationError as e:
            raise InputError(f"{name}: {e}", e.code) from None
    return Input(name, values)
