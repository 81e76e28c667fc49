"""The domino desk runs every open domino event at once: two events' rounds on disjoint domino
tables, each table's game routed back to its own tournament, everything back after a restart,
and the players it seats published to the venue (a round waits for a player seated elsewhere
unless the director confirms they will be late).

A real hub (its SQLite, its ingest) and domino tables whose machines run in the test
(:class:`support.dominokit.FakeDominoTable`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mesa.games.domino.pairs import PairsError, PairsTournament
from mesa.hub.desk.games.domino import DominoDesk, PlayersBusy, game_key
from mesa.hub.desk.venue import Seat, Venue
from mesa.hub.ingest.app import Hub
from support.dominokit import FakeDominoTable

NAMES = ["ANA", "BETO", "CARLA", "DANI", "EVA", "FIDEL", "GEMA", "HUGO"]


def _pairs(desk: DominoDesk, tid: str, first: int) -> list[str]:
    """Four pairs in event ``tid`` of players ``P<first>``…``P<first+7>``."""
    ids = [f"P{first + i:04d}" for i in range(8)]
    for i in range(0, 8, 2):
        names = (f"{NAMES[i]}{first}", f"{NAMES[i + 1]}{first}")
        desk.register_pair(ids[i], ids[i + 1], names, actor="director", t=tid)
    return ids


def _tables(hub: Hub, n: int) -> dict[str, FakeDominoTable]:
    tables = {str(i): FakeDominoTable(hub, str(i)) for i in range(1, n + 1)}
    for t in tables.values():
        t.online()
    return tables


@pytest.fixture
def venue() -> Venue:
    return Venue()


@pytest.fixture
def desk(hub: Hub, venue: Venue) -> Iterator[DominoDesk]:
    d = DominoDesk(hub.settings.db, hub=hub, venue=venue, command_wait=1.0)
    yield d
    d.close()


def test_two_events_play_on_disjoint_tables_and_each_game_goes_home(
    hub: Hub, desk: DominoDesk, venue: Venue
) -> None:
    tables = _tables(hub, 5)
    assert desk.create("Dominó de marzo", actor="director").id == "D1"
    assert desk.create("Parejas novatos", actor="director").id == "D2"
    _pairs(desk, "D1", 1)
    _pairs(desk, "D2", 101)
    first = desk.start_round(actor="director", t="D1")
    assert sorted(g.table for g in first) == ["1", "2"]
    # The tables have not taken D1's games yet (the grid still says idle): not free for D2.
    assert desk.free_tables() == ["3", "4", "5"]
    second = desk.start_round(actor="director", t="D2")
    assert sorted(g.table for g in second) == ["3", "4"]
    # Creating the second hid nothing: both open, both in play, each with its own round.
    assert [(e["id"], e["phase"], e["open"], e["round"]) for e in desk.events()] == [
        ("D1", "playing", True, 1), ("D2", "playing", True, 1)]
    # The venue knows all sixteen players seated, at their tables, by event.
    seats = venue.busy(besides="backgammon")
    assert len(seats) == 16 and seats["P0101"].event == "D2" and seats["P0001"].event == "D1"
    assert seats["P0001"].event_name == "Dominó de marzo" and seats["P0001"].game == "domino"
    assert sorted(desk.seats(), key=lambda s: s.player) == sorted(seats.values(),
                                                                   key=lambda s: s.player)

    desk.call_tiempo(actor="director", t="D2")
    with pytest.raises(PairsError) as refused:
        desk.call_tiempo(actor="director", t="D2")
    assert refused.value.code == "tiempo_called"
    desk.call_tiempo(actor="director", t="D1")
    for t in tables.values():
        t.serve()
    assert {tables[g.table].table.s.game_id for g in second} == {
        game_key(PairsTournament("D2", ""), g) for g in second}
    # D2's game at table 3 ends: recorded in D2 only (D1 has an R1-M1 too, at table 1).
    tables["3"].win_game("ew")
    desk.sync()
    d1 = desk.read(lambda t: {g.id: (g.table, g.status) for g in t.round_games()}, "D1")
    d2 = desk.read(lambda t: {g.id: (g.table, g.status) for g in t.round_games()}, "D2")
    assert d2["R1-M1"] == ("3", "ended") and d1["R1-M1"] == ("1", "playing")
    assert not any(s.table == "3" for s in desk.seats())  # its four players are free
    # Table 3 is free again, for either event: D1 may not start before its round is over.
    assert "3" in desk.free_tables()
    with pytest.raises(PairsError) as refused:
        desk.start_round(actor="director", t="D1")
    assert refused.value.code == "round_in_play"


def test_a_restart_reloads_every_event_and_keeps_routing(hub: Hub, venue: Venue) -> None:
    tables = _tables(hub, 4)
    desk = DominoDesk(hub.settings.db, hub=hub, venue=venue)
    desk.create("Dominó de marzo", actor="director")
    desk.create("Parejas novatos", actor="director")
    desk.create("Ya cerrado", actor="director")
    _pairs(desk, "D1", 1)
    _pairs(desk, "D2", 101)
    desk.close_tournament(actor="director", t="D3")
    desk.start_round(actor="director", t="D1")
    desk.start_round(actor="director", t="D2")
    desk.call_tiempo(actor="director", t="D1")
    desk.call_tiempo(actor="director", t="D2")
    for t in tables.values():
        t.serve()
    tables["1"].win_game("ns")
    desk.sync()
    before = [desk.read(lambda t: t.to_dict(), tid) for tid in ("D1", "D2", "D3")]
    seats = desk.seats()
    desk.close()
    tables["4"].win_game("ew")  # while the desk is down

    venue2 = Venue()
    again = DominoDesk(hub.settings.db, hub=hub, venue=venue2)
    try:
        assert [again.read(lambda t: t.to_dict(), tid) for tid in ("D1", "D2", "D3")] == before
        assert [(e["id"], e["open"]) for e in again.events()] == [
            ("D1", True), ("D2", True), ("D3", False)]
        # At start the desk publishes its seats again: the new venue knows them at once.
        assert sorted(venue2.busy(besides="backgammon").values(), key=str) == sorted(seats,
                                                                                     key=str)
        # The game that ended while the desk was down is routed to its tournament on the
        # catch-up, and its players are free.
        again.sync()
        assert not any(s.table == "4" for s in venue2.busy(besides="backgammon").values())
        assert again.read(lambda t: t.games["R1-M2"].status, "D2") == "ended"
        assert again.read(lambda t: t.games["R1-M2"].status, "D1") == "playing"
        with pytest.raises(PairsError) as refused:
            again.register_pair("X1", "X2", ("X", "Y"), actor="director", t="D3")
        assert refused.value.code == "closed"
    finally:
        again.close()


def test_a_round_waits_for_a_player_seated_elsewhere_unless_confirmed(
    hub: Hub, desk: DominoDesk, venue: Venue
) -> None:
    _tables(hub, 2)
    desk.create("Dominó de marzo", actor="director")
    ids = _pairs(desk, "D1", 1)
    woken: list[str] = []
    venue.listen("backgammon", lambda: woken.append("bg"))
    venue.publish("backgammon", [Seat(ids[0], "4", "2026-12", "Open de diciembre",
                                      "backgammon")])
    with pytest.raises(PlayersBusy) as refused:
        desk.start_round(actor="director", t="D1")
    (away,) = refused.value.elsewhere
    assert away.name == "ANA1" and away.seat.table == "4"
    assert away.seat.event_name == "Open de diciembre"
    assert desk.read(lambda t: t.current_round, "D1") == 0 and woken == []
    assert [e.name for e in desk.elsewhere("D1")] == ["ANA1"]  # what the page shows
    games = desk.start_round(actor="director", t="D1", confirm=True)
    assert len(games) == 2 and woken == ["bg"]  # the backgammon desk learns who sits here
    late = desk.read(lambda t: [a.details for a in t.audit if a.action == "late"], "D1")
    assert late == [{"players": [{"player": ids[0], "name": "ANA1", "table": "4",
                                  "event": "2026-12", "game": "backgammon"}]}]
    assert [e.name for e in desk.elsewhere("D1")] == ["ANA1"]  # still late for this round
    venue.publish("backgammon", [])
    assert desk.elsewhere("D1") == []


def test_a_player_in_two_domino_events_is_not_seated_twice(hub: Hub, desk: DominoDesk) -> None:
    _tables(hub, 4)
    desk.create("Dominó de marzo", actor="director")
    desk.create("Parejas novatos", actor="director")
    _pairs(desk, "D1", 1)
    desk.register_pair("P0001", "P0200", ("ANA1", "ZOE"), actor="director", t="D2")
    desk.register_pair("P0201", "P0202", ("YAGO", "XIMO"), actor="director", t="D2")
    desk.start_round(actor="director", t="D1")
    with pytest.raises(PlayersBusy) as refused:
        desk.start_round(actor="director", t="D2")
    assert [(e.name, e.seat.event) for e in refused.value.elsewhere] == [("ANA1", "D1")]


def test_actions_name_their_event(desk: DominoDesk) -> None:
    with pytest.raises(PairsError) as refused:
        desk.start_round(actor="director")
    assert refused.value.code == "no_tournament"
    desk.create("Dominó de marzo", actor="director")
    # Only one open: an action that names none is for it.
    assert desk.register_pair("a", "b", ("A", "B"), actor="director").id == "P1"
    desk.create("Parejas novatos", actor="director")
    for t, code in ((None, "which_tournament"), ("D9", "unknown_tournament")):
        with pytest.raises(PairsError) as refused:
            desk.register_pair("c", "d", ("C", "D"), actor="director", t=t)
        assert refused.value.code == code
    with pytest.raises(PairsError) as refused:
        desk.read(lambda t: t, "D9")
    assert refused.value.code == "unknown_tournament"
    desk.close_tournament(actor="director", t="D1")
    with pytest.raises(PairsError) as refused:
        desk.penalty("R1-M1", "a", "chivo", None, actor="director", t="D1")
    assert refused.value.code == "closed"
    # The closed one stays readable (its final list); the open one is now the only one.
    assert desk.read(lambda t: (t.phase, len(t.pairs)), "D1") == ("closed", 1)
    assert desk.register_pair("c", "d", ("C", "D"), actor="director").id == "P1"
    assert [(e["id"], e["open"]) for e in desk.events()] == [("D2", True), ("D1", False)]
    assert desk.read(lambda t: t.id) == "D2"  # a reader naming none: the newest open
