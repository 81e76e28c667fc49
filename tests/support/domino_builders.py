"""Builders for domino tables in every state, shared by the domino table tests."""

from __future__ import annotations

from typing import Any

from mesa.games.domino.machine import DominoTable
from mesa.games.domino.rules import members, other_pair, pair_of
from support import table_driver

PLAYERS = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}


class Driver(table_driver.Driver):
    """A domino table plus a clock that only moves forward (:mod:`support.table_driver`), and the
    seats its state calls on."""

    new_table = DominoTable
    table: DominoTable

    @property
    def on_turn(self) -> str:
        g = self.table.s.game
        assert g is not None and g.on_turn is not None
        return g.on_turn

    def entering(self) -> str:
        """A seat of the pair entering the hand's points (n when a block's pair is open)."""
        entry = self.table.s.entry
        assert entry is not None
        return members(entry["pair"])[0] if entry["pair"] else "n"

    def confirmer(self) -> str:
        """A seat of the pair that answers the pending claim."""
        claim = self.table.s.claim
        assert claim is not None
        return members(other_pair(pair_of(claim["by"])))[0]


def assigned(**settings: Any) -> Driver:
    d = Driver()
    d.do("assign", game_id="R1-M1", players=PLAYERS, settings=settings or None)
    return d


def ready(**settings: Any) -> Driver:
    d = assigned(**settings)
    d.do("tiempo", start_wall=1_700_000_000.0, wall=1_700_000_000.0)
    return d


def playing(lead: str = "n", **settings: Any) -> Driver:
    d = ready(**settings)
    d.do("press", seat=lead)
    return d


def hand_entry(block: bool = False) -> Driver:
    d = playing()
    d.do("press", after=3, seat=d.on_turn)
    d.do("long_hold", after=3, seat="n" if block else d.on_turn)
    return d


def hand_confirm() -> Driver:
    d = hand_entry()
    d.do("claim", seat=d.entering(), points=25)
    return d


def play_hand(d: Driver, winner_pair: str, points: int, plays: int = 3,
              turn: float = 4.0) -> None:
    """From ``ready``: the rotation's lead, a few plays, a domino by ``winner_pair``, confirmed."""
    g = d.table.s.game
    assert g is not None
    d.do("press", seat=g.next_lead or "n")
    for _ in range(plays):
        d.do("press", after=turn, seat=d.on_turn)
    if pair_of(d.on_turn) != winner_pair:  # type: ignore[arg-type]
        d.do("press", after=turn, seat=d.on_turn)
    d.do("long_hold", after=turn, seat=d.on_turn)
    d.do("claim", seat=d.entering(), points=points)
    d.do("hold", seat=d.confirmer())
