"""Builders for tables in every state, shared by the table tests."""

from __future__ import annotations

from typing import Any

from mesa.engine.outcome import Outcome
from mesa.games.backgammon.machine import Table

PLAYERS = {"a": "Ana", "b": "Beto"}
CARDS = {"a": "CARD-A", "b": "CARD-B"}


class Driver:
    """A table plus a clock that only moves forward; each step asserts acceptance."""

    def __init__(self, table: Table | None = None, now: float = 0.0) -> None:
        self.table = table or Table()
        self.now = now

    def do(self, name: str, after: float = 1.0, **args: Any) -> Outcome:
        self.now += after
        out = self.table.apply(name, args, now=self.now)
        assert out.accepted, (name, args, out.refusal)
        return out

    def try_(self, name: str, after: float = 1.0, **args: Any) -> Outcome:
        self.now += after
        return self.table.apply(name, args, now=self.now)

    @property
    def state(self) -> str:
        return self.table.state


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
