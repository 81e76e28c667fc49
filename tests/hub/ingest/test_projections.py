"""The live projections: the JSON twin of a table, and the game read from its snapshot."""

from __future__ import annotations

import dataclasses

from mesa.games.backgammon.machine import Table
from mesa.games.domino.machine import DominoTable
from mesa.hub.ingest.projections import Projections, TableLive
from mesa.protocol import StateReport


def test_to_dict_is_asdict_and_a_copy_the_reader_may_keep() -> None:
    live = TableLive("3", players={"a": "Ana"}, score={"a": 1, "b": 0}, reserve={"a": 9.5})
    d = live.to_dict()
    assert d == dataclasses.asdict(live) and list(d) == [f.name for f in dataclasses.fields(live)]
    d["players"]["a"] = d["score"]["a"] = d["reserve"]["a"] = None
    assert live.players == {"a": "Ana"} and live.score["a"] == 1 and live.reserve["a"] == 9.5


def test_the_kind_is_the_registered_game_of_the_snapshot() -> None:
    p = Projections()
    p.apply_state(StateReport("3", "s", 0, 0, 1.0, DominoTable().snapshot()))
    live = p.get("3")
    assert live is not None and live.kind == "domino"
    p.apply_state(StateReport("3", "s", 0, 0, 2.0, Table().snapshot()))  # the table changed game
    live = p.get("3")
    assert live is not None and live.kind == "backgammon"
    p.apply_state(StateReport("3", "s", 0, 0, 3.0, {"game_name": "chess"}))  # unknown: kept
    live = p.get("3")
    assert live is not None and live.kind == "backgammon" and live.snapshot_ts == 3.0


def test_a_silent_table_shows_lost_and_its_beat_brings_only_that_back() -> None:
    from mesa.protocol import TableStatus

    p = Projections()
    p.apply_status(TableStatus("1", "online", 1, 1.0, revision=3))
    p.apply_status(TableStatus("2", "offline", 1, 1.0, revision=3))
    assert p.mark_silent("1") and not p.mark_silent("1")  # once: it shows lost already
    assert not p.mark_silent("2") and not p.mark_silent("9")  # offline stays; unknown: nothing
    assert [(d["table"], d["status"]) for d in p.all()] == [("1", "lost"), ("2", "offline")]
    assert p.beat_again("1") and not p.beat_again("2")
    assert [(d["table"], d["status"]) for d in p.all()] == [("1", "online"), ("2", "offline")]
