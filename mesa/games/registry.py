"""The registered games: the one place that knows which games exist and how to tell them apart.

Every consumer asks this registry for a game's parts instead of testing the game's name: the
machine, the view, the seats, the inputs' specs and transitions (for ``mesa docs``), and the
restore of a snapshot. A table's snapshot names its game explicitly (``"game_name": "domino"``;
not ``"game"``, which a domino snapshot already uses for the game in play), and so does its
status. A snapshot written before that field existed still reads: :func:`game_of_snapshot`
recognises it by the key only that game's state has (``legacy_key``), here and nowhere else.

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
>>> type(restore({"state": "idle", "game_id": None})).__name__
'DominoTable'
>>> game_named("chess")
Traceback (most recent call last):
  ...
mesa.games.registry.UnknownGame: unknown game 'chess' (known: backgammon, domino)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mesa.engine.inputs import InputSpec
from mesa.engine.snapshot import GAME_KEY
from mesa.engine.transitions import Transition
from mesa.errors import MesaError
from mesa.games.backgammon import inputs as backgammon_inputs
from mesa.games.backgammon import transitions as backgammon_transitions
from mesa.games.backgammon.machine import Table, TableState
from mesa.games.backgammon.view import table_view
from mesa.games.domino import inputs as domino_inputs
from mesa.games.domino import transitions as domino_transitions
from mesa.games.domino.machine import DominoTable
from mesa.games.domino.view import domino_view

__all__ = ["GAME_KEY", "Game", "UnknownGame", "game_named", "game_of_snapshot", "games", "names",
           "restore"]


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
    inputs: Mapping[str, InputSpec]  # every input the table accepts, by name
    states: tuple[str, ...]  # the table's states, in lifecycle order
    transitions: Mapping[tuple[str, str], Transition]  # (state, input) → the declared targets
    transitions_doc: str  # the generated page of its transition table, in docs/
    transitions_markdown: Callable[[], str]  # that page's text
    in_play: frozenset[str]  # the states in which a game is under way (the grid's "jugando")
    # The dataclass a snapshot's fields are typed by on the wire (mesa.protocol.check_snapshot),
    # or None: the game's own restore is its only check.
    snapshot_type: type | None = None

    def restore(self, snapshot: Mapping[str, Any]) -> Any:
        """This game's machine rebuilt from ``snapshot`` (ConfigError if it names another)."""
        return self.machine.restore(dict(snapshot))


_GAMES: dict[str, Game] = {
    g.name: g
    for g in (
        Game(Table.GAME, Table, table_view, ("a", "b"), "match_id",
             backgammon_inputs.INPUT_SPECS, backgammon_transitions.STATES,
             backgammon_transitions.TRANSITIONS, "transitions.md",
             backgammon_transitions.transition_table_markdown,
             frozenset({"checking_in", "between_games", "running", "cube_offered", "paused",
                        "result_entry"}), TableState),
        Game(DominoTable.GAME, DominoTable, domino_view, ("n", "e", "s", "w"), "game_id",
             domino_inputs.INPUT_SPECS, domino_transitions.STATES,
             domino_transitions.TRANSITIONS, "domino-transitions.md",
             domino_transitions.transition_table_markdown,
             frozenset({"ready", "playing", "hand_entry", "hand_confirm"})),
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


def restore(snapshot: Mapping[str, Any]) -> Any:
    """The machine of whichever game ``snapshot`` is of, rebuilt from it."""
    return game_of_snapshot(snapshot).restore(snapshot)
