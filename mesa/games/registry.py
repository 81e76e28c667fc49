"""The registered games: the one place that knows which games exist and how to tell them apart.

A table's snapshot names its game explicitly (``"game_name": "domino"``; not ``"game"``, which a
domino snapshot already uses for the game in play), and so does its status. A snapshot
written before that field existed still reads: :func:`game_of_snapshot` recognises it by the key
only that game's state has (``legacy_key``), here and nowhere else.

>>> [g.name for g in games()]
['backgammon', 'domino']
>>> game_named("domino").seats
('n', 'e', 's', 'w')
>>> game_of_snapshot({"game_name": "domino", "state": "idle"}).name
'domino'
>>> game_of_snapshot({"state": "idle", "match_id": None}).name   # an old backgammon snapshot
'backgammon'
>>> game_of_snapshot({"state": "idle", "game_id": None}).name    # an old domino snapshot
'domino'
>>> game_named("chess")
Traceback (most recent call last):
  ...
mesa.games.registry.UnknownGame: unknown game 'chess' (known: backgammon, domino)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mesa.domino.machine import DominoTable
from mesa.domino.view import domino_view
from mesa.errors import MesaError
from mesa.table.machine import Table
from mesa.table.view import table_view

__all__ = ["GAME_KEY", "Game", "UnknownGame", "game_named", "game_of_snapshot", "games"]

GAME_KEY = "game_name"  # the field of a snapshot that names its game


class UnknownGame(MesaError):
    """A game name that no registered game has."""


@dataclass(frozen=True)
class Game:
    """One registered game: its wire name and the pure parts every consumer needs."""

    name: str  # the wire's word: "backgammon", "domino"
    machine: type[Any]  # the table's state machine: apply(name, args, now=), snapshot(), restore()
    view: Callable[[Any, float], Any]  # (machine, now) → the plain view the display draws
    seats: tuple[str, ...]  # the seat letters its inputs and players use
    legacy_key: str  # the key only this game's snapshot has, for snapshots without GAME_KEY


_GAMES: dict[str, Game] = {
    g.name: g
    for g in (
        Game("backgammon", Table, table_view, ("a", "b"), "match_id"),
        Game("domino", DominoTable, domino_view, ("n", "e", "s", "w"), "game_id"),
    )
}


def games() -> tuple[Game, ...]:
    """Every registered game, in registration order (the first is the default)."""
    return tuple(_GAMES.values())


def names() -> tuple[str, ...]:
    """The registered games' names (choices for ``--game`` and ``table.game``)."""
    return tuple(_GAMES)


def game_named(name: str) -> Game:
    """The game called ``name``, or :class:`UnknownGame` saying which exist."""
    try:
        return _GAMES[name]
    except (KeyError, TypeError):
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(_GAMES)})") from None


def game_of_snapshot(snapshot: Mapping[str, Any]) -> Game:
    """The game of a table's snapshot: its ``game_name`` field, or for an old snapshot without one
    the game whose ``legacy_key`` it holds (backgammon when it holds none)."""
    if GAME_KEY in snapshot:
        return game_named(snapshot[GAME_KEY])
    for game in _GAMES.values():
        if game.legacy_key in snapshot:
            return game
    return games()[0]
