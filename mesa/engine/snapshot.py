"""The game a snapshot names: every game's state carries ``game_name`` (not ``game``, which a
domino state already uses for the game in play), and a state refuses a snapshot naming another.

A snapshot written before the field existed has no ``game_name`` and still reads.

>>> check_game({"state": "idle"}, "backgammon")
>>> check_game({GAME_KEY: "domino", "state": "idle"}, "backgammon")
Traceback (most recent call last):
  ...
mesa.errors.ConfigError: this snapshot is a 'domino' table's state, not a 'backgammon' table's
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

from mesa.errors import ConfigError

__all__ = ["GAME_KEY", "check_game", "checked_fields", "state_from_dict"]

T = TypeVar("T")

GAME_KEY = "game_name"  # the field of a snapshot that names its game


def check_game(data: Mapping[str, Any], game: str) -> None:
    """Refuse (:class:`ConfigError`) a snapshot that names a game other than ``game``."""
    named = data.get(GAME_KEY, game)
    if named != game:
        raise ConfigError(f"this snapshot is a {str(named)[:40]!r} table's state, "
                          f"not a {game!r} table's")


def checked_fields(
    cls: type, data: Mapping[str, Any], game: str, states: Collection[str], what: str
) -> dict[str, Any]:
    """A copy of ``data`` to rebuild the dataclass ``cls`` (a game's state) from, once it names
    this ``game`` (or none), has no field ``cls`` lacks and a declared ``state``; else
    :class:`ConfigError` saying which. Every game's ``from_dict`` starts here (through
    :func:`state_from_dict`).

    >>> @dataclasses.dataclass
    ... class Toy:
    ...     game_name: str = "toy"
    ...     state: str = "idle"
    >>> checked_fields(Toy, {GAME_KEY: "toy", "state": "idle"}, "toy", ("idle",), "toy")
    {'game_name': 'toy', 'state': 'idle'}
    >>> checked_fields(Toy, {"state": "idle", "x": 1}, "toy", ("idle",), "toy")
    Traceback (most recent call last):
      ...
    mesa.errors.ConfigError: unknown toy state fields ['x']
    """
    check_game(data, game)
    values = dict(data)
    unknown = set(values) - {f.name for f in dataclasses.fields(cls)}
    if unknown:
        raise ConfigError(f"unknown {what} state fields {sorted(unknown)}")
    if values.get("state") not in states:
        raise ConfigError(f"unknown {what} state {values.get('state')!r}")
    return values


def state_from_dict(
    cls: type[T],
    data: Mapping[str, Any],
    game: str,
    states: Collection[str],
    what: str,
    nested: Mapping[str, Callable[[Any], Any]],
) -> T:
    """The game's state ``cls`` rebuilt from a snapshot, checked as :func:`checked_fields`
    checks it; each field in ``nested`` that is set is rebuilt by its ``from_dict``. Every
    game's ``from_dict`` is this call.

    >>> @dataclasses.dataclass
    ... class Toy:
    ...     state: str = "idle"
    ...     score: tuple[int, ...] | None = None
    >>> state_from_dict(Toy, {"state": "idle", "score": [1, 2]}, "toy", ("idle",), "toy",
    ...                 {"score": tuple})
    Toy(state='idle', score=(1, 2))
    """
    values = checked_fields(cls, data, game, states, what)
    for name, from_dict in nested.items():
        if values.get(name) is not None:
            values[name] = from_dict(values[name])
    return cls(**values)
