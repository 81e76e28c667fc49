"""Builders for backgammon tables in every state, shared by the backgammon table tests."""

from __future__ import annotations

from typing import Any

from mesa.games.backgammon.machine import Table
from support import table_driver

PLAYERS = {"a": "Ana", "b": "Beto"}
CARDS = {"a": "CARD-A", "b": "CARD-B"}


class Driver(table_driver.Driver):
    """A backgammon table plus a clock that only moves forward (:mod:`support.table_driver`)."""

    new_table = Table
    table: Table


def assigned(length: int = 5, clock: dict[str, Any] | None = None, **extra: Any) -> Driver:
    d = Driver()
    d.do("assign", match_id="T-1", players=PLAYERS, length=length,
         clock=clock if clock is not None else {"preset": "singles"}, cards=CARDS, **extra)
    return d


def between_games(length: int = 5, clock: dict[str, Any] | None = None, **extra: Any) -> Driver:
    d = assigned(length, clock, **extra)
    d.do("checkin", side="a")
    d.do("checkin", side="b")
    return d


def running(length: int = 5, first: str = "a", clock: dict[str, Any] | None = None,
            **extra: Any) -> Driver:
    """A game started by ``first``'s press: the other side is on move."""
    d = between_games(length, clock, **extra)
    d.do("press", side=first)
    return d


def on_move(d: Driver) -> str:
    clock = d.table.s.clock
    assert clock is not None and clock.on_move is not None
    return clock.on_move


def play_game(d: Driver, winner: str, kind: int = 1, turns: int = 4, turn: float = 12.0) -> None:
    """From between_games: play a few turns and record ``winner``'s game, confirmed by both."""
    d.do("press", side="b" if winner == "a" else "a")
    for _ in range(turns):
        d.do("press", after=turn, side=on_move(d))
    d.do("claim", side=winner, winner=winner, kind=kind)
    d.do("confirm", side="b" if winner == "a" else "a")
